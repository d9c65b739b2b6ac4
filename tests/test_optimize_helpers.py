"""fwdad.optimize: derivatives as scipy.optimize takes them, against SciPy's own closed
forms (rosen_der, rosen_hess, rosen_hess_prod) and in the solvers themselves."""
import numpy as np
import pytest

import fwdad

optimize = pytest.importorskip("scipy.optimize")


def rosenbrock(x, scale=100.0):
    return np.sum(scale * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


X = np.array([1.3, 0.7, 0.8, 1.9, 1.2])
P = np.array([0.5, -1.0, 2.0, 0.1, 0.3])


def test_each_helper_against_scipys_closed_forms():
    np.testing.assert_allclose(fwdad.optimize.jac(rosenbrock)(X), optimize.rosen_der(X),
                               rtol=1e-12)
    value, gradient = fwdad.optimize.value_and_jac(rosenbrock)(X)
    assert value == pytest.approx(optimize.rosen(X), rel=1e-14)
    np.testing.assert_allclose(gradient, optimize.rosen_der(X), rtol=1e-12)
    np.testing.assert_allclose(fwdad.optimize.hess(rosenbrock)(X), optimize.rosen_hess(X),
                               rtol=1e-12)
    np.testing.assert_allclose(fwdad.optimize.hessp(rosenbrock)(X, P),
                               optimize.rosen_hess_prod(X, P), rtol=1e-12)


def test_solver_args_are_constants():
    """SciPy passes args= after x: the derivatives are with respect to x alone."""
    gradient = fwdad.optimize.jac(rosenbrock)
    h = 1e-6
    want = (gradient(X + h * P, 50.0) - gradient(X - h * P, 50.0)) / (2 * h)
    np.testing.assert_allclose(fwdad.optimize.hessp(rosenbrock)(X, P, 50.0), want,
                               rtol=1e-6)
    np.testing.assert_allclose(gradient(X, 100.0), optimize.rosen_der(X), rtol=1e-12)


@pytest.mark.parametrize("method, keywords", [
    ("BFGS", {"jac": "jac"}), ("Newton-CG", {"jac": "jac", "hessp": "hessp"}),
    ("trust-exact", {"jac": "jac", "hess": "hess"})])
def test_minimize_converges_with_fwdad_derivatives(method, keywords):
    given = {k: getattr(fwdad.optimize, v)(rosenbrock) for k, v in keywords.items()}
    result = optimize.minimize(rosenbrock, np.full(5, 0.5), method=method, **given)
    assert result.success, result.message
    np.testing.assert_allclose(result.x, np.ones(5), atol=1e-5)


def test_least_squares_with_the_jacobian_of_residuals():
    t = np.linspace(0.0, 2.0, 12)
    data = 2.5 * np.exp(-1.3 * t)

    def residuals(p):
        return p[0] * np.exp(-p[1] * t) - data
    jacobian = fwdad.optimize.jac(residuals)(np.array([1.0, 1.0]))
    want = np.stack([np.exp(-t), -t * np.exp(-t)], axis=1)
    np.testing.assert_allclose(jacobian, want, rtol=1e-12)
    fit = optimize.least_squares(residuals, [1.0, 1.0], jac=fwdad.optimize.jac(residuals))
    np.testing.assert_allclose(fit.x, [2.5, 1.3], rtol=1e-8)


def test_a_value_instead_of_a_function_is_refused():
    with pytest.raises(fwdad.FwdadError, match="pass f itself"):
        fwdad.optimize.jac(rosenbrock(X))
