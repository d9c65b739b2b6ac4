"""linearize through SciPy's rules whose tangents SciPy computes (expm's Fréchet
derivative, Sylvester and Lyapunov solves, sqrtm, logm) and through the scalar root
finders: refused before ("a rule's tangent was turned into a plain array" or "into a
float": the fuzzer's scientific construct, seeds 100,167,000 on), now recorded, each
such SciPy call as one operation of the tape (rules/batching.linear_call)."""
import numpy as np
import pytest

import fwdad
from fwdad.tangents import inner
from tests.util import assert_close

sl = pytest.importorskip("scipy.linalg")
so = pytest.importorskip("scipy.optimize")

A = np.array([[1.2, 0.3, -0.1], [0.2, 1.5, 0.4], [0.0, -0.3, 0.9]])
X = np.array([0.3, -0.5, 0.7])
T = np.array([1.0, 0.5, -0.25])
CT = np.array([0.4, -1.1, 0.9])


def cubic(x, p):
    return x ** 3 + x - p


FUNCTIONS = {
    "expm": lambda x: sl.expm(A * x[0] + np.diag(x)) @ x,
    "expm_frechet": lambda x: sl.expm_frechet(A * x[0], np.outer(x, x),
                                              compute_expm=False) @ x,
    "expm_frechet_pair": lambda x: sl.expm_frechet(A * x[0], np.outer(x, x))[1] @ x,
    "solve_sylvester": lambda x: sl.solve_sylvester(A + np.diag(x), A.T, np.outer(x, x)) @ x,
    "solve_continuous_lyapunov": lambda x: sl.solve_continuous_lyapunov(
        A + np.diag(x), np.outer(x, x)) @ x,
    "sqrtm": lambda x: sl.sqrtm(A + np.diag(x) * 0.1) @ x,
    "logm": lambda x: sl.logm(A + np.diag(x) * 0.1) @ x,
    "brentq": lambda x: so.brentq(cubic, -10.0, 10.0, args=(np.sum(x),), xtol=1e-14) * x,
    "newton": lambda x: so.newton(cubic, 0.0, args=(x[0],), tol=1e-14) * x,
    "root_scalar": lambda x: so.root_scalar(cubic, args=(x[1],), bracket=(-10.0, 10.0),
                                            method="brentq", xtol=1e-14).root * x,
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_linearize_records_the_scipy_call(name):
    f = FUNCTIONS[name]
    out, lin = fwdad.linearize(f, X.copy())
    h = 1e-6
    assert_close(out, f(X.copy()), rtol=1e-14)
    assert_close(lin(T), (f(X + h * T) - f(X - h * T)) / (2 * h), rtol=1e-6, atol=1e-8)
    assert_close(lin(T), fwdad.jvp(f, (X.copy(),), (T,))[1], rtol=1e-12, atol=1e-14)
    assert_close(lin(2.0 * T - X), fwdad.jvp(f, (X.copy(),), (2.0 * T - X,))[1],
                 rtol=1e-12, atol=1e-14)  # (the tape, replayed on another tangent)
    assert_close(inner(lin.T(CT)[0], T), inner(CT, lin(T)), rtol=1e-10, atol=1e-12)


def test_the_recorded_call_keeps_the_matrix_it_was_given():
    """The tape copies the matrix of the recorded call: writing into it after the
    call does not change lin."""
    a = A.copy()

    def f(x):
        out = sl.expm(a * x[0]) @ x
        a[0, 0] = 50.0  # (after the call: not the matrix expm read)
        return out

    def again(x):  # (f with the matrix it starts from)
        a[...] = A
        return f(x)

    _, lin = fwdad.linearize(again, X.copy())
    h = 1e-6
    assert_close(lin(T), (again(X + h * T) - again(X - h * T)) / (2 * h), rtol=1e-6,
                 atol=1e-8)
