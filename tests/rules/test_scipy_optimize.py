"""The rules of SciPy's solvers and quad beyond their table rows
(tests/rules/scipy_optimize_cases.py): functions defined inside the differentiated
function (their captured Duals carry the tangents), Jacobians (jacfwd), the minimizers
against a minimizer refined by Newton's method, the fields of the results, and the
errors: a failed solve, a singular Jacobian, a saddle, and what is refused."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import ImplicitFunctionError, NonDifferentiableError
from tests.rules.scipy_optimize_cases import (
    DATA,
    P,
    bowl,
    cubic,
    damped,
    decay,
    least_squares_x,
    minimize_x,
    root_x,
    system,
)
from tests.util import central_jacobian

so = pytest.importorskip("scipy.optimize")
si = pytest.importorskip("scipy.integrate")


# ---- functions defined inside the differentiated function ------------------------------------
def brentq_of_a_closure(p):
    def f(x):
        return x ** 3 + p[0] * x - 2.0 * p[1]
    return so.brentq(f, 0.0, 3.0, xtol=1e-15)


def root_of_a_closure(p):
    def f(x):
        return system(x, p)
    return so.root(f, np.ones(2), tol=1e-14).x


def fsolve_of_a_lambda_with_args(p):
    scale = 2.0 * p[1]
    return so.fsolve(lambda x, q: system(x, q) * scale, np.ones(2), args=(p,), xtol=1e-14)


def quad_of_a_closure(p):
    def f(t):
        return damped(t, p)
    return si.quad(f, 0.2, 1.0 + p[0], epsabs=1e-13, epsrel=1e-13)[0]


@pytest.mark.parametrize("f", [brentq_of_a_closure, root_of_a_closure,
                               fsolve_of_a_lambda_with_args, quad_of_a_closure])
def test_a_closure_jvp_and_jacfwd_match_finite_differences(f):
    want = central_jacobian(f, P)
    np.testing.assert_allclose(fwdad.jacfwd(f)(P), want, rtol=1e-7, atol=1e-9)
    direction = np.array([0.3, -1.1])
    _, tangent = fwdad.jvp(f, (P,), (direction,))  # (one tangent: the unbatched path)
    np.testing.assert_allclose(tangent, want @ direction, rtol=1e-7, atol=1e-9)


def test_a_closure_minimize_matches_the_module_level_function():
    def closed(p):
        def f(x):
            return bowl(x, p)
        return so.minimize(f, np.zeros(2), method="BFGS", options={"gtol": 1e-10}).x

    def with_args(p):
        return so.minimize(bowl, np.zeros(2), args=(p,), method="BFGS",
                           options={"gtol": 1e-10}).x
    np.testing.assert_allclose(fwdad.jacfwd(closed)(P), fwdad.jacfwd(with_args)(P),
                               rtol=1e-8)


# ---- the minimizers, against the minimizer refined by Newton's method --------------------
def _newton_refined(objective, x, *args):
    """The minimizer to float64's precision: Newton's method on the gradient, from x
    (SciPy's minimizers stop near 1e-11 in x, which finite differences magnify)."""
    gradient, hessian = fwdad.optimize.jac(objective), fwdad.optimize.hess(objective)
    for _ in range(6):
        x = x - np.linalg.solve(hessian(x, *args), gradient(x, *args))
    return x


def _half_squared_norm(q, data):
    return 0.5 * np.sum(decay(q, data) ** 2)


def test_minimize_against_newtons_method():
    def refined(p):
        return _newton_refined(bowl, minimize_x(p), p)
    np.testing.assert_allclose(fwdad.jacfwd(minimize_x)(P), central_jacobian(
        refined, P, 1e-5), rtol=1e-8)


def test_least_squares_against_newtons_method_with_the_full_hessian():
    """The residuals stay nonzero at the fit, so the Hessian's second-order terms
    count: Gauss-Newton's J^T J alone would be off by 1.7e-3 here."""
    def refined(data):
        return _newton_refined(_half_squared_norm, least_squares_x(data), data)
    got = fwdad.jacfwd(least_squares_x)(DATA)
    np.testing.assert_allclose(got, central_jacobian(refined, DATA, 1e-5), rtol=1e-8,
                               atol=1e-10)


def test_least_squares_fields():
    def fields(data):
        res = so.least_squares(decay, np.ones(2), args=(data,), method="lm", xtol=1e-15,
                               ftol=1e-15, gtol=1e-15)
        return res.cost, res.fun

    def refined_fields(data):
        x = _newton_refined(_half_squared_norm, least_squares_x(data), data)
        return _half_squared_norm(x, data), decay(x, data)
    cost, residuals = fwdad.jacfwd(fields)(DATA)
    np.testing.assert_allclose(cost, central_jacobian(
        lambda d: refined_fields(d)[0], DATA, 1e-5), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(residuals, central_jacobian(
        lambda d: refined_fields(d)[1], DATA, 1e-5), rtol=1e-8, atol=1e-10)


def test_a_result_item_reads_as_its_attribute():
    def both(p):
        res = so.root(system, np.ones(2), args=(p,), tol=1e-14)
        return res["x"] - res.x, res.fun
    difference, fun = fwdad.jacfwd(both)(P)
    assert np.all(difference == 0.0) and np.all(fun == 0.0)
    np.testing.assert_allclose(fwdad.jacfwd(lambda p: root_x(p) * 2.0)(P),
                               2.0 * central_jacobian(root_x, P), rtol=1e-7)


def test_full_output_keeps_scipys_items():
    def full(p):
        x, info = so.brentq(cubic, 0.0, 3.0, args=(p,), xtol=1e-15, full_output=True)
        return x, info.root, info.converged
    (x, root, converged), (dx, droot, _) = fwdad.jvp(full, (1.3,), (1.0,))
    assert converged and x == root and dx == droot
    h = 1e-6
    np.testing.assert_allclose(dx, (full(1.3 + h)[0] - full(1.3 - h)[0]) / (2 * h), rtol=1e-7)


# ---- the conditions ---------------------------------------------------------------------------
def test_a_failed_bracketing_solve_raises():
    def f(p):
        return so.brentq(cubic, 0.0, 3.0, args=(p,), maxiter=2)
    with pytest.raises(ImplicitFunctionError, match=r"scipy\.optimize\.brentq in \S+ at .*"
                       r"test_scipy_optimize\.py:\d+: .* a converged solve \(here "
                       r"converged is False"):
        fwdad.jvp(f, (1.3,), (1.0,))


def test_a_failed_minimize_raises():
    def f(p):
        return so.minimize(bowl, np.zeros(2), args=(p,), method="BFGS",
                           options={"maxiter": 1}).x
    with pytest.raises(ImplicitFunctionError, match="success is False: Maximum number"):
        fwdad.jacfwd(f)(P)


def test_a_singular_jacobian_raises():
    """Two equations that say the same thing: x0 + x1 = p has a line of solutions."""
    def same_twice(x, p):
        return np.array([x[0] + x[1] - p, 2.0 * (x[0] + x[1] - p)])

    def f(p):
        return so.root(same_twice, np.ones(2), args=(p,), method="lm").x
    with pytest.raises(ImplicitFunctionError, match="nonsingular Jacobian dF/dx at the "
                       "solution"):
        fwdad.jvp(f, (0.5,), (1.0,))


def test_a_saddle_point_is_not_a_minimum():
    def saddle(x, p):
        return x[0] ** 2 - x[1] ** 2 + p * x[0]

    def f(p):
        return so.minimize(saddle, np.array([-p / 2.0, 0.0]), args=(p,)).x
    with pytest.raises(ImplicitFunctionError, match="strict local minimum"):
        fwdad.jvp(f, (1.0,), (1.0,))


def test_an_active_bound_is_refused():
    def f(p):
        return so.minimize(bowl, np.zeros(2), args=(p,), bounds=[(None, 0.1), (None, None)],
                           method="L-BFGS-B").x
    with pytest.raises(ImplicitFunctionError, match=r"bounds are active at entries \[0\]"):
        fwdad.jvp(f, (P,), (P,))


@pytest.mark.parametrize("call", [
    lambda p: so.minimize(bowl, np.zeros(2), args=(p,),
                          constraints={"type": "eq", "fun": lambda x: x[0]}),
    lambda p: so.least_squares(decay, np.ones(2), args=(p,), loss="soft_l1"),
    lambda p: si.quad(damped, 0.0, 1.0, args=(p,), weight="cos", wvar=2.0)],
    ids=["constraints", "robust loss", "weight"])
def test_what_is_refused(call):
    point = DATA if call.__code__.co_names[-1] == "least_squares" else P
    with pytest.raises(NonDifferentiableError, match="fwdad does not differentiate"):
        fwdad.jvp(call, (point,), (point,))


def test_a_tangent_on_an_infinite_limit_is_refused():
    def f(b):
        return si.quad(damped, 0.0, b, args=(P,))[0]
    with pytest.raises(NonDifferentiableError, match="with respect to an infinite limit"):
        fwdad.jvp(f, (np.inf,), (1.0,))


# ---- reverse mode (the dot-product tests are rows of tests/reverse/cases_scipy_optimize.py) --
def test_reverse_mode_gradients_match_forward_mode():
    def objective(p):
        return np.sum(root_x(p) ** 2) + so.brentq(cubic, 0.0, 3.0, args=(p[0],), xtol=1e-15) \
            + si.quad(damped, 0.2, 1.5, args=(p,), epsabs=1e-13, epsrel=1e-13)[0]
    np.testing.assert_allclose(fwdad.grad(objective)(P), fwdad.jacfwd(objective)(P),
                               rtol=1e-10)


def test_reverse_mode_refuses_a_closure():
    def f(p):
        def g(x):
            return cubic(x, p)
        return so.brentq(g, 0.0, 3.0)
    with pytest.raises(NonDifferentiableError, match=r"scipy\.optimize\.brentq.*defined "
                       r"inside the differentiated function .* pass the parameters with "
                       r"args="):
        fwdad.grad(f)(1.3)


def test_reverse_mode_raises_on_a_failed_solve():
    def f(p):
        return so.root(system, np.ones(2), args=(p,), options={"maxfev": 2}).x[0]
    with pytest.raises(ImplicitFunctionError, match=r"scipy\.optimize\.root.*success is "
                       r"False"):
        fwdad.grad(f)(P)


def test_a_second_derivative_is_refused():
    def crossing(p):
        return so.brentq(cubic, 0.0, 3.0, args=(p,), xtol=1e-15)

    def area(p):
        return si.quad(damped, 0.0, 1.0, args=(p,))[0]
    for hessian in (lambda: fwdad.hessian(crossing)(1.3), lambda: fwdad.hessian(area)(P),
                    lambda: fwdad.hessian(lambda p: np.sum(minimize_x(p)))(P)):
        with pytest.raises(NonDifferentiableError, match=r"scipy\.(optimize|integrate)\."
                           r"\w+ in \S+ at .*: fwdad differentiates its result once"):
            hessian()
