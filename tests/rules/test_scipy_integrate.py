"""solve_ivp and odeint beyond their table rows (tests/rules/scipy_integrate_cases.py):
sensitivities against central differences of the solver itself at rtol=1e-10,
atol=1e-12, for a nonstiff (Lotka-Volterra: DOP853, RK45) and a stiff problem (Robertson:
BDF, Radau), with respect to y0, the args, a captured parameter, t_span's ends and
t_eval; jacfwd against finite differences; the refusals and failures."""
import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.errors import FwdadError, NonDifferentiableError, SolverError
from tests.rules.scipy_integrate_cases import (
    LV_ARGS,
    LV_Y0,
    ROBERTSON_ARGS,
    ROBERTSON_Y0,
    TIGHT,
    lotka_volterra,
    robertson,
)
from tests.util import fd_jvp

si = pytest.importorskip("scipy.integrate")

LV_TIMES = np.array([0.7, 1.5, 2.9])
ROBERTSON_TIMES = np.array([0.1, 1.0, 9.0])
H = 1e-5  # the step: the solver's error (1e-10) over H stays below the tolerance
STIFF_H = 1e-4  # (BDF's and LSODA's changes of order make their results noisier)


def assert_matches_fd(f, args, direction, rtol=2e-6, h=H):
    """jvp of f against central differences of f, at the scale of the largest entry."""
    out, tangent = fwdad.jvp(f, args, direction)
    np.testing.assert_allclose(out, f(*args), rtol=1e-12)
    want = fd_jvp(f, args, direction, h=h)
    np.testing.assert_allclose(tangent, want, rtol=0, atol=rtol * np.max(np.abs(want)))


# ---- nonstiff: Lotka-Volterra ------------------------------------------------------------------
def lv(y0, alpha, t_end, t_eval, method):
    return si.solve_ivp(lotka_volterra, (0.0, t_end), y0, method=method, t_eval=t_eval,
                        args=(alpha,) + LV_ARGS[1:], **TIGHT).y


@pytest.mark.parametrize("method", ["DOP853", "RK45"])
@pytest.mark.parametrize("wrt", ["y0", "args", "t_eval", "all"])
def test_nonstiff_sensitivities_match_finite_differences(method, wrt):
    args = (LV_Y0, 1.1, 3.0, LV_TIMES, method)
    direction = {"y0": (np.array([0.3, -0.2]), 0.0, 0.0, 0.0 * LV_TIMES, None),
                 "args": (0.0 * LV_Y0, 1.0, 0.0, 0.0 * LV_TIMES, None),
                 "t_eval": (0.0 * LV_Y0, 0.0, 0.0, np.array([0.5, -1.0, 0.7]), None),
                 "all": (np.array([0.3, -0.2]), 0.4, 0.0, np.array([0.5, -1.0, 0.7]), None)}
    assert_matches_fd(lv, args, direction[wrt])


def test_a_captured_parameter():
    """A right-hand side defined inside the differentiated function reads beta there:
    fwdad's rule of it carries beta's tangent into the sensitivity equations."""
    def model(beta):
        def rhs(t, y):
            prey, predator = y
            return [1.1 * prey - beta * prey * predator, 0.1 * prey * predator - 0.4 * predator]
        return si.solve_ivp(rhs, (0.0, 3.0), LV_Y0, t_eval=LV_TIMES, method="DOP853",
                            **TIGHT).y
    assert_matches_fd(model, (0.4,), (1.0,))
    np.testing.assert_allclose(fwdad.jacfwd(model)(0.4), fd_jvp(model, (0.4,), (1.0,), h=H),
                               atol=1e-6)


def end_state(y0, t_end, method="DOP853"):
    """The state at t_end, with the solver's own output times (t_eval=None)."""
    res = si.solve_ivp(lotka_volterra, (0.0, t_end), y0, method=method, args=LV_ARGS,
                       **TIGHT)
    return res.y[:, -1]


def test_the_end_time():
    """Moving t1 moves the last output: dy(t1) += f(t1, y(t1)) dt1."""
    assert_matches_fd(end_state, (LV_Y0, 3.0), (0.0 * LV_Y0, 1.0))
    assert_matches_fd(end_state, (LV_Y0, 3.0, "BDF"), (np.array([0.2, 0.1]), -0.5, None))


def from_start(t0):
    return si.solve_ivp(lotka_volterra, (t0, 3.0), LV_Y0, method="DOP853", t_eval=LV_TIMES,
                        args=LV_ARGS, **TIGHT).y


def test_the_start_time():
    """Moving t0 starts the sensitivity at -f(t0, y0) dt0."""
    assert_matches_fd(from_start, (0.2,), (1.0,))


def test_the_output_times_carry_their_tangents():
    def times(t_eval):
        return si.solve_ivp(lotka_volterra, (0.0, 3.0), LV_Y0, t_eval=t_eval,
                            args=LV_ARGS).t
    dt = np.array([0.5, -1.0, 0.7])
    np.testing.assert_array_equal(fwdad.jvp(times, (LV_TIMES,), (dt,))[1], dt)


# ---- the rule of every step (chosen on the first, for t with no tangent) -----------------------
def forced_line(t, y, k, *amplitude):
    """A line of cells driven in time: t enters f, a parameter comes in *args."""
    return k * (np.roll(y, 1) - 2.0 * y + np.roll(y, -1)) + amplitude[0] * np.cos(3.0 * t) * y


def forced_yt(y, t, w):
    """A driven oscillator, in odeint's order (t second)."""
    return [y[1], -w * w * y[0] + np.cos(t)]


@pytest.mark.parametrize("method", ["RK45", "Radau"])
def test_a_right_hand_side_of_time_and_varargs(method):
    def f(y0, k, a):
        return si.solve_ivp(forced_line, (0.0, 2.0), y0, method=method, t_eval=[0.5, 2.0],
                            args=(k, a), **TIGHT).y
    y0 = np.linspace(0.2, 1.0, 6)
    assert_matches_fd(f, (y0, 0.7, 0.3), (np.linspace(-1.0, 1.0, 6), 0.5, -1.0), rtol=1e-5,
                      h=STIFF_H if method == "Radau" else H)


def test_odeint_of_time_in_second_place():
    def f(y0, w):
        return si.odeint(forced_yt, y0, LV_TIMES, args=(w,), **TIGHT)
    assert_matches_fd(f, (LV_Y0, 1.3), (np.array([0.3, -0.2]), 0.5), rtol=1e-5)


def test_a_state_of_another_dtype_takes_the_general_rule():
    """The step rule is fixed for states of the first call's shape and dtype; another
    state (SciPy's solvers pass none) is differentiated by fun's general rule."""
    from fwdad.rules.ode_sensitivity import SensitivitySystem
    from fwdad.rules.scipy_integrate import _t_then_y
    args = [Dual(1.1, 0.5), Dual(0.4, 0.0), Dual(0.1, 0.0), Dual(0.4, 0.0)]
    z = np.array([1.0, 0.5, 0.3, -0.2])
    first = SensitivitySystem(Dual(lotka_volterra, None), args, 2, None, _t_then_y, "solve_ivp")
    other = SensitivitySystem(Dual(lotka_volterra, None), args, 2, None, _t_then_y, "solve_ivp")
    np.testing.assert_array_equal(first.rhs(0.5, z), other.rhs(0.5, z))
    single = z.astype(np.float32)
    np.testing.assert_array_equal(first.rhs(0.5, single), other.rhs(0.5, single))
    assert first.step_rule is not first.rule and first.step_state == (4,)


@pytest.mark.parametrize("method", ["DOP853", "BDF"])
def test_jacfwd_matches_finite_differences(method):
    def f(p):  # p: y0 (2), alpha, t_end
        return lv(p[:2], p[2], p[3], np.array([0.7, 1.5, 2.5]), method)
    p = np.array([1.0, 0.5, 1.1, 3.0])
    jacobian = fwdad.jacfwd(f)(p)
    want = np.stack([fd_jvp(f, (p,), (e,), h=H) for e in np.eye(4)], axis=-1)
    assert jacobian.shape == (2, 3, 4)
    np.testing.assert_allclose(jacobian, want, atol=2e-6 * np.max(np.abs(want)))


# ---- stiff: Robertson ---------------------------------------------------------------------------
def rober(y0, k1, k3, t_eval, method):
    return si.solve_ivp(robertson, (0.0, 10.0), y0, method=method, t_eval=t_eval,
                        args=(k1, ROBERTSON_ARGS[1], k3), **TIGHT).y


# LSODA's own result is the noisiest in its arguments (its switches of method and order):
# its finite differences agree to 5e-5 only (its sensitivities agree with Radau's to 2e-9
# here: the finite differences are the coarser side).
@pytest.mark.parametrize("method,rtol", [("BDF", 1e-5), ("Radau", 1e-5), ("LSODA", 5e-5)])
def test_stiff_sensitivities_match_finite_differences(method, rtol):
    args = (ROBERTSON_Y0, 0.04, 1e4, ROBERTSON_TIMES, method)
    for direction in [(np.array([0.1, 0.0, -0.1]), 0.0, 0.0, 0.0 * ROBERTSON_TIMES, None),
                      (0.0 * ROBERTSON_Y0, 0.01, 0.0, 0.0 * ROBERTSON_TIMES, None),
                      (0.0 * ROBERTSON_Y0, 0.0, 100.0, np.array([0.05, 0.3, -1.0]), None)]:
        assert_matches_fd(rober, args, direction, rtol=rtol, h=STIFF_H)


def test_stiff_jacfwd_matches_finite_differences():
    def f(k):
        return rober(ROBERTSON_Y0, k[0], k[1], ROBERTSON_TIMES, "Radau")
    k = np.array([0.04, 1e4])
    jacobian = fwdad.jacfwd(f)(k)
    for i, step in enumerate([0.01, 100.0]):
        want = fd_jvp(f, (k,), (step * np.eye(2)[i],), h=STIFF_H)
        np.testing.assert_allclose(jacobian[..., i] * step, want,
                                   atol=1e-5 * np.max(np.abs(want)))


# ---- odeint -------------------------------------------------------------------------------------
def test_odeint_matches_finite_differences():
    def f(y0, alpha, times):
        return si.odeint(lotka_volterra, y0, times, args=(alpha,) + LV_ARGS[1:],
                         tfirst=True, **TIGHT)
    times = np.array([0.2, 0.7, 1.5, 2.9])  # the first is the start time
    assert_matches_fd(f, (LV_Y0, 1.1, times), (np.array([0.3, -0.2]), 0.5,
                                                np.array([0.1, 0.5, -1.0, 0.7])), rtol=1e-5)
    jacobian = fwdad.jacfwd(f, argnums=1)(LV_Y0, 1.1, times)
    np.testing.assert_allclose(jacobian, fd_jvp(f, (LV_Y0, 1.1, times), (0 * LV_Y0, 1.0,
                                                                         0 * times), h=H),
                               atol=1e-5)


def test_odeint_with_array_tolerances():
    def f(y0):
        return si.odeint(lotka_volterra, y0, LV_TIMES, args=LV_ARGS, tfirst=True,
                         rtol=np.array([1e-10, 1e-9]), atol=np.array([1e-12, 1e-11]))
    assert_matches_fd(f, (LV_Y0,), (np.array([1.0, -0.5]),), rtol=1e-5)


def test_odeint_full_output_gives_the_info_dict():
    def f(y0):
        ys, info = si.odeint(lotka_volterra, y0, LV_TIMES, args=LV_ARGS, tfirst=True,
                             full_output=1, **TIGHT)
        assert info["message"] == "Integration successful."
        return ys
    assert_matches_fd(f, (LV_Y0,), (np.array([1.0, -0.5]),), rtol=1e-5)


# ---- options, refusals and failures -------------------------------------------------------------
def test_an_array_atol_covers_the_tangents_too():
    def f(y0):
        return si.solve_ivp(lotka_volterra, (0.0, 3.0), y0, t_eval=LV_TIMES, args=LV_ARGS,
                            rtol=1e-10, atol=np.array([1e-12, 1e-11])).y
    assert_matches_fd(f, (LV_Y0,), (np.array([0.3, -0.2]),))


def dense(alpha, y0, t):
    res = si.solve_ivp(lotka_volterra, (0.0, 3.0), y0, args=(alpha,) + LV_ARGS[1:],
                       dense_output=True, **TIGHT)
    return res.sol(t)


@pytest.mark.parametrize("t", [1.7, np.array([0.3, 1.1, 2.9])])
def test_the_dense_solution_carries_tangents(t):
    """res.sol(t): the augmented solve's dense output, and f(t, y(t)) dt for a moved t."""
    direction = (0.5, np.array([0.3, -0.2]), np.ones_like(t) * 0.7)
    assert_matches_fd(dense, (1.1, LV_Y0, t), direction)
    jacobian = fwdad.jacfwd(dense, argnums=0)(1.1, LV_Y0, t)
    np.testing.assert_allclose(jacobian, fd_jvp(dense, (1.1, LV_Y0, t), (1.0, 0 * LV_Y0,
                                                                         0 * t), h=H),
                               atol=2e-6)


def test_the_dense_solution_is_scipys_elsewhere():
    res = fwdad.jvp(lambda a: si.solve_ivp(lotka_volterra, (0.0, 3.0), LV_Y0,
                                           args=(a,) + LV_ARGS[1:], dense_output=True),
                    (1.1,), (1.0,))[0]
    plain = si.solve_ivp(lotka_volterra, (0.0, 3.0), LV_Y0, args=LV_ARGS, dense_output=True)
    np.testing.assert_array_equal(res.sol(np.array([0.5, 2.0])),
                                  plain.sol(np.array([0.5, 2.0])))
    assert res.sol.t_max == 3.0 and len(res.sol.ts) == len(plain.sol.ts)


def fall(t, y, g, drag):
    return [y[1], -g - drag * y[1]]


def ground(t, y, g, drag):
    return y[0]


def apex(t, y, g, drag):
    return y[1]


ground.terminal, ground.direction = True, -1


def thrown(x, t_eval=None):
    """A ball thrown up (x: height, speed, gravity, drag) until it lands (terminal):
    the times and states of its apex and landing, and its last output."""
    res = si.solve_ivp(fall, (0.0, 10.0), [x[0], x[1]], args=(x[2], x[3]), t_eval=t_eval,
                       events=[ground, apex], **TIGHT)
    return np.concatenate([res.t_events[0], res.t_events[1], np.ravel(res.y_events[0]),
                           np.ravel(res.y_events[1]), res.t[-1:], res.y[:, -1]])


@pytest.mark.parametrize("t_eval", [None, np.linspace(0.0, 1.5, 4)])
def test_event_times_and_states_match_finite_differences(t_eval):
    """dt_e = -(g_y dy + g_p dp) / (g_t + g_y f); a terminal event moves the end too."""
    x = np.array([10.0, 3.0, 9.81, 0.1])
    assert_matches_fd(thrown, (x, t_eval), (np.array([0.3, -0.5, 0.2, 0.05]), None))
    want = np.stack([fd_jvp(thrown, (x, t_eval), (e, None), h=1e-6) for e in np.eye(4)], -1)
    np.testing.assert_allclose(fwdad.jacfwd(thrown)(x, t_eval), want, atol=1e-7)


def test_an_event_of_a_captured_parameter():
    def landing(level):
        def hit(t, y, g, drag):
            return y[0] - level
        hit.terminal = True
        return si.solve_ivp(fall, (0.0, 10.0), [10.0, 3.0], args=(9.81, 0.1), events=hit,
                            **TIGHT).t_events[0]
    assert_matches_fd(landing, (2.0,), (1.0,))


def test_an_event_that_touches_zero_is_refused():
    from fwdad.rules.ode_events import crossing
    from fwdad.rules.ode_sensitivity import SensitivitySystem
    from fwdad.tangents import NoTangent
    still = SensitivitySystem(fwdad.Dual(lambda t, y: [0.0], NoTangent), [], 1, None,
                              lambda t, y, args: (t, y), "solve_ivp")
    with pytest.raises(NonDifferentiableError, match="without crossing"):
        crossing(lambda t, y: y[0] - 1.0, still, 0.5, np.array([1.0]),
                 lambda t: np.array([1.0, 0.3]))


def test_reverse_mode_refuses_events():
    def f(height):
        return np.sum(si.solve_ivp(fall, (0.0, 10.0), [height, 3.0], args=(9.81, 0.1),
                                   events=ground, t_eval=[0.5]).y)
    with pytest.raises(NonDifferentiableError, match="events"):
        fwdad.grad(f)(10.0)


def test_reverse_mode_refuses_the_dense_solution():
    def f(alpha):
        res = si.solve_ivp(lotka_volterra, (0.0, 3.0), LV_Y0, args=(alpha,) + LV_ARGS[1:],
                           dense_output=True)
        return np.sum(res.sol(1.5))
    with pytest.raises(NonDifferentiableError, match="dense_output"):
        fwdad.grad(f)(1.1)


def test_a_solver_class_as_the_method():
    def f(y0):
        return rober(y0, 0.04, 1e4, ROBERTSON_TIMES, si.Radau)
    direction = np.array([0.1, 0.0, -0.1])
    np.testing.assert_allclose(fwdad.jvp(f, (ROBERTSON_Y0,), (direction,))[1],
                               fwdad.jvp(lambda y0: rober(y0, 0.04, 1e4, ROBERTSON_TIMES,
                                                          "Radau"),
                                         (ROBERTSON_Y0,), (direction,))[1], rtol=1e-12)


def test_a_complex_state_is_refused():
    def f(y0):
        return si.solve_ivp(lambda t, y: -y, (0.0, 1.0), y0 * (1.0 + 1j), t_eval=[1.0]).y
    with pytest.raises(FwdadError, match="real input only"):
        fwdad.jvp(f, (LV_Y0,), (LV_Y0,))


def blow_up(t, y):
    return y * y


@pytest.mark.filterwarnings("ignore:Excess work done")  # (odeint's, as it fails)
def test_a_failed_solve_raises():
    def f(y0):
        return si.solve_ivp(blow_up, (0.0, 2.0), y0).y
    with pytest.raises(SolverError, match="solve_ivp .*failed"):
        fwdad.jvp(f, (np.array([1.0]),), (np.array([1.0]),))

    def g(y0):
        return si.odeint(blow_up, y0, [0.0, 2.0], tfirst=True, mxstep=50)
    with pytest.raises(SolverError, match="odeint .*failed"):
        fwdad.jvp(g, (np.array([1.0]),), (np.array([1.0]),))


def test_a_right_hand_side_of_the_wrong_size_is_refused():
    def f(y0):
        return si.solve_ivp(lambda t, y: np.concatenate([y, y]), (0.0, 1.0), y0).y
    with pytest.raises((FwdadError, ValueError)):
        fwdad.jvp(f, (LV_Y0,), (LV_Y0,))


def test_reverse_mode_refuses_a_right_hand_side_defined_inside():
    def model(beta):
        def rhs(t, y):
            return -beta * y
        return np.sum(si.solve_ivp(rhs, (0.0, 1.0), LV_Y0, t_eval=[0.5]).y)
    with pytest.raises(NonDifferentiableError, match="args="):
        fwdad.grad(model)(0.4)


def decay_sum(a):
    return np.sum(si.solve_ivp(lambda t, y, a: -a * y, (0.0, 1.0), LV_Y0, t_eval=[1.0],
                               args=(a,)).y)


def decay_sum_odeint(a):
    return np.sum(si.odeint(lambda y, t, a: -a * y, LV_Y0, [0.0, 1.0], args=(a,)))


@pytest.mark.parametrize("f", [decay_sum, decay_sum_odeint])
@pytest.mark.parametrize("second_order", [
    lambda f: fwdad.hessian(f)(0.3), lambda f: fwdad.hvp(f, (0.3,), (1.0,)),
    lambda f: fwdad.jvp(lambda a: fwdad.jvp(f, (a,), (1.0,))[1], (0.3,), (1.0,)),
    lambda f: fwdad.jacfwd(fwdad.jacfwd(f))(0.3)], ids=["hessian", "hvp", "jvp2", "jacfwd2"])
def test_second_order_is_refused(f, second_order):
    with pytest.raises(NonDifferentiableError, match="once"):
        second_order(f)
