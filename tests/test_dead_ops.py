"""linearize drops the tangent operations the output does not depend on
(fwdad/dead_ops.py), and keeps every write that reaches it: in place, through a view,
with out= or np.copyto. References: central differences, jvp, and the dot-product test
of lin.T against lin."""
import numpy as np
import pytest

import fwdad
from fwdad.tangents import inner
from tests.util import assert_close

si = pytest.importorskip("scipy.integrate")

X = np.array([0.3, -0.5, 0.7])
T = np.array([1.0, 0.5, -0.25])


def dead_work_and_a_dead_write(x):
    unused = np.sin(x) * 3.0
    y = x * 2.0
    unused[0] = y[1]  # (into an array nothing reads)
    return y


def a_write_through_a_view(x):
    y = x * 1.0
    v = y[1:]
    v *= np.cos(x[:-1])  # (y's memory)
    return y


def a_write_after_the_last_read(x):
    y = np.exp(x)
    z = y * 2.0
    y[0] = x[2]  # (after z read y; y is not returned)
    return z


def out_into_a_returned_array(x):
    y = np.zeros(3)
    np.multiply(x, x, out=y)
    return y[::-1] + 0.0


def copyto_through_a_view(x):
    y = np.ones((2, 3)) * x
    np.copyto(y[0], np.sin(x))
    return y.sum(axis=0)


def a_view_written_and_not_read(x):
    y = np.tanh(x)
    w = y[:2]
    w[0] = x[1] ** 2  # (into y, which is returned)
    return y


CASES = {f.__name__: f for f in [
    dead_work_and_a_dead_write, a_write_through_a_view, a_write_after_the_last_read,
    out_into_a_returned_array, copyto_through_a_view, a_view_written_and_not_read]}


@pytest.mark.parametrize("name", list(CASES))
def test_lin_and_lin_T_keep_what_reaches_the_output(name):
    f = CASES[name]
    _, lin = fwdad.linearize(f, X.copy())
    h = 1e-6
    assert_close(lin(T), (f(X + h * T) - f(X - h * T)) / (2 * h), rtol=1e-7, atol=1e-9)
    assert_close(lin(T), fwdad.jvp(f, (X.copy(),), (T,))[1], rtol=1e-13, atol=1e-15)
    ct = np.linspace(-1.0, 1.0, np.size(lin(T))).reshape(np.shape(lin(T)))
    assert lin.T.method == "transpose", lin.T.why
    assert_close(inner(lin.T(ct)[0], T), inner(ct, lin(T)), rtol=1e-12, atol=1e-14)


def test_dead_work_is_not_replayed():
    """Only y's tangent, 2 t0, is left (sin's tangent, its scaling and the write into
    `unused` were replayed too)."""
    _, lin = fwdad.linearize(dead_work_and_a_dead_write, X.copy())
    assert len(lin.tape.ops) == 1, lin.source()


def test_a_closure_called_by_the_solver_leaves_no_ops():
    """SciPy calls the right-hand side on plain values at every step; the tangent work
    of those calls on what it captured (k's) was recorded each time (651 ops here, 11
    with k in args=), and lin replayed it all."""
    def f(x):
        k = x[2] + 1.0
        res = si.solve_ivp(lambda t, y: np.array([y[1], -k * np.sin(y[0])]), (0.0, 0.5),
                           x[:2], rtol=1e-10, atol=1e-12)
        return res.y[:, -1] * x[0]

    _, lin = fwdad.linearize(f, X.copy())
    assert len(lin.tape.ops) < 20, lin.source()
    assert_close(lin(T), fwdad.jvp(f, (X.copy(),), (T,))[1], rtol=1e-8, atol=1e-10)
