"""linearize through SciPy's solvers whose tangents take a solve of their own: solve_ivp's
sensitivities, quad of the integrand's tangent, and the implicit function theorem of
fsolve, root and brentq given a closure over differentiated values. They were refused
("a rule's tangent was turned into a plain array", "tested for truth"); now each is one
op of the tape, its matrix made in one batched run (fwdad/rules/recorded_solves.py).
References: jvp (to the solver's tolerance for solve_ivp), central differences, and the
dot-product test of lin.T against lin through both ways lin.T runs (the tape backwards,
and the Jacobian)."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import UnrecordableError
from fwdad.tangents import inner
from tests.util import assert_close

si = pytest.importorskip("scipy.integrate")
so = pytest.importorskip("scipy.optimize")

X = np.array([0.3, -0.5, 0.7])
T = np.array([1.0, 0.5, -0.25])
CT = np.array([0.4, -1.1, 0.9])
ODE = dict(rtol=1e-10, atol=1e-12)


def pendulum(t, y, k):
    return np.array([y[1], -k * np.sin(y[0]) - 0.2 * y[1]])


def shifted(y, p):
    return y + 0.3 * np.sin(y) - p


def cubic(x, p):
    return x ** 3 + x - p


def ivp_with_args(x):
    res = si.solve_ivp(pendulum, (0.0, 0.5), x[:2], args=(x[2] + 1.0,), **ODE)
    return res.y[:, -1] * x[0]


def ivp_with_a_closure(x):
    k = x[2] + 1.0
    res = si.solve_ivp(lambda t, y: np.array([y[1], -k * np.sin(y[0])]), (0.0, 0.5),
                       x[:2], **ODE)
    return res.y[:, -1] * x[0]


def ivp_with_moving_times(x):
    res = si.solve_ivp(pendulum, (0.0, x[0] + 1.0), x[:2], args=(1.5,),
                       t_eval=np.array([0.2, 0.4]) * (x[1] + 1.0), **ODE)
    return np.sum(res.y, axis=1) + res.t[-1] * x[2]


def quad_with_args(x):
    value, _ = si.quad(lambda t, a, b: np.sin(a * t) * b, 0.0, 1.0, args=(x[0], x[1]))
    return value * x


def quad_with_a_closure_and_a_moving_limit(x):
    value, _ = si.quad(lambda t: np.sin(x[0] * t) * x[1], 0.0, x[2] + 1.0)
    return value * x


def fsolve_with_a_closure(x):
    return so.fsolve(lambda y: y + 0.3 * np.sin(y) - x, np.zeros(3), xtol=1e-13)


def fsolve_with_a_closure_and_args(x):
    c = x * 2.0
    return so.fsolve(lambda y, s: shifted(y, c * s), np.zeros(3), args=(x[0],),
                     xtol=1e-13) * x[1]


def root_with_a_closure(x):
    return so.root(lambda y: shifted(y, np.sin(x)), np.zeros(3), tol=1e-13).x


def brentq_with_a_closure(x):
    p = np.sum(x * x)
    return so.brentq(lambda y: cubic(y, p), -10.0, 10.0, xtol=1e-14) * x


CASES = {f.__name__: f for f in [
    ivp_with_args, ivp_with_a_closure, ivp_with_moving_times, quad_with_args,
    quad_with_a_closure_and_a_moving_limit, fsolve_with_a_closure,
    fsolve_with_a_closure_and_args, root_with_a_closure, brentq_with_a_closure]}
# the solver's steps depend on the tangents it carries: lin's batch and jvp's one
# direction agree to its tolerance (ODE), the others to rounding
TO_JVP = {name: dict(rtol=1e-8, atol=1e-10) if name.startswith("ivp") else
          dict(rtol=1e-12, atol=1e-14) for name in CASES}


@pytest.mark.parametrize("name", list(CASES))
def test_linearize_records_the_solve(name):
    f = CASES[name]
    out, lin = fwdad.linearize(f, X.copy())
    assert_close(out, f(X.copy()), rtol=1e-14)
    h = 1e-6
    assert_close(lin(T), (f(X + h * T) - f(X - h * T)) / (2 * h), rtol=1e-6, atol=1e-8)
    for t in (T, 2.0 * T - X):  # (the tape, replayed on another tangent)
        assert_close(lin(t), fwdad.jvp(f, (X.copy(),), (t,))[1], **TO_JVP[name])


@pytest.mark.parametrize("name", list(CASES))
def test_lin_T_is_the_transpose_both_ways(name):
    f = CASES[name]
    _, lin = fwdad.linearize(f, X.copy())
    ct = CT[:np.size(lin(T))]
    assert lin.T.method == "transpose", lin.T.why  # (the tape backwards)
    by_tape = lin.T(ct)[0]
    assert_close(inner(by_tape, T), inner(ct, lin(T)), rtol=1e-12, atol=1e-14)
    lin.T.method = "jacobian"  # (the other way: jacfwd's Jacobian, transposed)
    by_jacobian = lin.T(ct)[0]
    assert_close(inner(by_jacobian, T), inner(ct, lin(T)), **TO_JVP[name])
    assert_close(by_jacobian, by_tape, **TO_JVP[name])


def test_the_recorded_solve_keeps_the_values_of_the_call():
    """The matrix is made when linearize records the call: a later write into the array
    the closure reads changes neither lin nor lin.T."""
    def f(x):
        c = x * 1.0
        y = so.fsolve(lambda y: shifted(y, c), np.zeros(3), xtol=1e-13)
        c[0] = 50.0  # (after the solve)
        return y * c[1]

    _, lin = fwdad.linearize(f, X.copy())
    assert_close(lin(T), fwdad.jvp(f, (X.copy(),), (T,))[1], rtol=1e-12, atol=1e-14)


def test_events_and_dense_output_are_refused_under_linearize():
    def f(x, **options):
        res = si.solve_ivp(pendulum, (0.0, 0.5), x[:2], args=(1.5,), **options, **ODE)
        return res.y[:, -1]

    for options in (dict(dense_output=True), dict(events=lambda t, y, k: y[0] - 5.0)):
        with pytest.raises(UnrecordableError, match="t_eval"):
            fwdad.linearize(lambda x: f(x, **options), X.copy())
