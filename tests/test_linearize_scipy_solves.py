"""linearize through SciPy's solvers whose tangents take a solve of their own: solve_ivp's
sensitivities, quad of the integrand's tangent, and the implicit function theorem of
fsolve, root and brentq given a closure over differentiated values. They were refused
("a rule's tangent was turned into a plain array", "tested for truth"); now each is one
op of the tape, its matrix made in one batched run (fwdad/rules/recorded_solves.py).
References: jvp (to the solver's tolerance for solve_ivp), central differences, and the
dot-product test of lin.T against lin through both ways lin.T runs (the tape backwards,
and the Jacobian)."""
import collections

import numpy as np
import pytest

import fwdad
from fwdad.errors import ImplicitFunctionError, UnrecordableError
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


Pair = collections.namedtuple("Pair", "a b")


def quad_with_a_captured_namedtuple(x):
    p = Pair(x[0], x[1])
    value, _ = si.quad(lambda t: np.sin(p.a * t) * p.b, 0.0, 1.0)
    return value * x


def fsolve_with_a_closure(x):
    return so.fsolve(lambda y: y + 0.3 * np.sin(y) - x, np.zeros(3), xtol=1e-13)


def fsolve_with_a_closure_and_args(x):
    c = x * 2.0
    return so.fsolve(lambda y, s: shifted(y, c * s), np.zeros(3), args=(x[0],),
                     xtol=1e-13) * x[1]


def fsolve_counting_its_calls(x):
    calls = 0

    def g(y):
        nonlocal calls  # (rebound to an int: no tangent to record)
        calls = calls + 1
        return y + 0.3 * np.sin(y) - x * x[2]
    return so.fsolve(g, np.zeros(3), xtol=1e-13)


def root_with_a_closure(x):
    return so.root(lambda y: shifted(y, np.sin(x)), np.zeros(3), tol=1e-13).x


def brentq_with_a_closure(x):
    p = np.sum(x * x)
    return so.brentq(lambda y: cubic(y, p), -10.0, 10.0, xtol=1e-14) * x


CASES = {f.__name__: f for f in [
    ivp_with_args, ivp_with_a_closure, ivp_with_moving_times, quad_with_args,
    quad_with_a_closure_and_a_moving_limit, quad_with_a_captured_namedtuple,
    fsolve_with_a_closure, fsolve_with_a_closure_and_args, fsolve_counting_its_calls,
    root_with_a_closure, brentq_with_a_closure]}
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
        with pytest.raises(UnrecordableError, match="t_eval") as raised:
            fwdad.linearize(lambda x: f(x, **options), X.copy())
        assert str(raised.value).startswith("scipy.integrate.solve_ivp in ")  # (whole)


# ---- what linearize refuses: a recorded matrix would be wrong, or miss a value ---------------
def ivp_writing_into_a_captured_buffer(x):
    k = x[2] + 1.0
    buf = np.zeros(2)

    def rhs(t, y):
        buf[0] = y[1] * k
        buf[1] = -k * np.sin(y[0])
        return buf.copy()
    res = si.solve_ivp(rhs, (0.0, 0.5), x[:2], **ODE)
    return res.y[:, -1] + buf  # (buf: what the solver's last call wrote)


def fsolve_appending_to_a_captured_list(x):
    seen = []

    def g(y):
        seen.append(y[0] * x[2])
        return y + 0.3 * np.sin(y) - x
    return so.fsolve(g, np.zeros(3), xtol=1e-13) + seen[-1]


def fsolve_rebinding_a_nonlocal_value(x):
    last = 0.0

    def g(y):
        nonlocal last
        last = y[0] * x[2]
        return y + 0.3 * np.sin(y) - x
    return so.fsolve(g, np.zeros(3), xtol=1e-13) + last


@pytest.mark.parametrize("f", [ivp_writing_into_a_captured_buffer,
                               fsolve_appending_to_a_captured_list,
                               fsolve_rebinding_a_nonlocal_value])
def test_writes_into_captured_values_are_refused(f):
    """The recorded matrix gives the call's result; the values the solver's calls left
    in what the function captured would keep their tangents from before the call (the
    buffer's lin was [1.25, -0.48] where the derivative is [0.51, -2.34])."""
    with pytest.raises(UnrecordableError, match=r"writes into a differentiated value "
                       r"it captured.*jvp") as raised:
        fwdad.linearize(f, X.copy())
    assert "test_linearize_scipy_solves.py:" in str(raised.value)


def test_jvp_differentiates_the_buffer_linearize_refuses():
    f = ivp_writing_into_a_captured_buffer
    h = 1e-6
    assert_close(fwdad.jvp(f, (X.copy(),), (T,))[1],
                 (f(X + h * T) - f(X - h * T)) / (2 * h), rtol=1e-6, atol=1e-8)


def newton_of_a_complex_root(x):
    root = so.newton(lambda y: y * y + x[0] + 1.0, 1j, tol=1e-14)
    return root * x[1]


def ivp_capturing_a_complex_value(x):
    c = x[0] * (1.0 + 2.0j)
    res = si.solve_ivp(lambda t, y: np.real(c * y), (0.0, 0.5), x[1:], **ODE)
    return res.y[:, -1]


def test_complex_tangents_are_refused():
    """A real matrix cannot hold them."""
    with pytest.raises(UnrecordableError, match=r"its tangent is complex.*jvp") as raised:
        fwdad.linearize(ivp_capturing_a_complex_value, X.copy())
    assert "test_linearize_scipy_solves.py:" in str(raised.value)


@pytest.mark.parametrize("how", ["linearize", "jvp"])
def test_a_complex_root_is_refused(how):
    """The implicit function theorem is applied to real solutions only (linearize's lin
    was 0 for this root; jvp cast the root to a real array, with a ComplexWarning, and
    then raised a TypeError)."""
    with pytest.raises(ImplicitFunctionError, match=r"newton.*complex roots are not "
                                                    r"differentiated yet") as raised:
        if how == "linearize":
            fwdad.linearize(newton_of_a_complex_root, X.copy())
        else:
            fwdad.jvp(newton_of_a_complex_root, (X.copy(),), (T,))
    assert "test_linearize_scipy_solves.py:" in str(raised.value)


class Holder:
    def __init__(self, w):
        self.w = w


def fsolve_reading_x_through_a_field(x):
    c = x * 2.0
    h = Holder(lambda y: y * x[0])  # (x is held by a function held by an instance)
    return so.fsolve(lambda y: h.w(y) + y - c, np.zeros(3), xtol=1e-13)


def test_a_differentiated_value_not_found_is_refused():
    with pytest.raises(UnrecordableError, match=r"^scipy\.optimize\.fsolve in "
                       r"fsolve_reading_x_through_a_field at .*did not find.*args=") as raised:
        fwdad.linearize(fsolve_reading_x_through_a_field, X.copy())
    assert "test_linearize_scipy_solves.py:" in str(raised.value)


def test_the_transposed_program_shows_the_matrices():
    _, lin = fwdad.linearize(ivp_with_args, X.copy())
    text = lin.T.source()
    assert "(M0.T @ " in text and "(M1.T @ " in text, text
