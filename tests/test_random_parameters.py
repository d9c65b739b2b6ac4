"""A random draw whose parameter depends on the inputs: the sample moves with it
(an exponential's is scale e), which fwdad does not differentiate, so both modes refuse
it at the user's line (both gave the derivative without that term, silently: grad of
sum(rng.normal(loc=x)) was 0). normal and uniform are differentiated instead
(tests/test_random_location_scale.py). Draws with constant parameters stay constants,
and the transform the message suggests is differentiated exactly."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError

X = np.array([0.3, 0.9, -0.7])


def laplace_around(x):
    return np.sum(np.random.default_rng(0).laplace(loc=x, scale=2.0))


def gumbel_up_to(x):
    return np.sum(np.random.default_rng(0).gumbel(0.0, x + 2.0))


def global_logistic(x):
    np.random.seed(0)
    return np.sum(np.random.logistic(x))


def transformed(x):
    rng = np.random.default_rng(0)
    return np.sum(x + 2.0 * x * rng.standard_normal(3) + rng.random(3) * x)


def noise_added(x):
    return np.sum(x * x + np.random.default_rng(1).normal(size=3, scale=0.5))


@pytest.mark.parametrize("f, what", [(laplace_around, "loc="), (gumbel_up_to, "argument 2"),
                                     (global_logistic, "argument 1")],
                         ids=["loc", "scale", "np.random"])
@pytest.mark.parametrize("mode", ["jacfwd", "grad"])
def test_a_draw_whose_parameter_has_a_derivative_is_refused(f, what, mode):
    with pytest.raises(FwdadError, match=rf"np.random's .* in {f.__name__} at .*"
                                         rf"test_random_parameters.py:\d+: its {what} has a "
                                         rf"derivative"):
        getattr(fwdad, mode)(f)(X)


@pytest.mark.parametrize("f", [transformed, noise_added], ids=["transformed", "noise"])
@pytest.mark.parametrize("mode", ["jacfwd", "grad"])
def test_draws_with_constant_parameters_are_constants(f, mode):
    h = 1e-6
    want = np.array([(f(X + h * e) - f(X - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(getattr(fwdad, mode)(f)(X), want, rtol=1e-6)


def chosen(x):
    return np.sum(np.random.default_rng(0).choice(x * 2.0, size=2))


def counted(x):
    return np.sum(np.random.default_rng(0).poisson(lam=np.abs(x) * 10.0) * x)


@pytest.mark.parametrize("mode", ["jacfwd", "grad"])
def test_choice_of_an_array_with_a_derivative_is_refused(mode):
    with pytest.raises(FwdadError, match=r"Generator.choice in chosen .* its argument 1 has "
                                         r"a derivative.*a\[rng.integers"):
        getattr(fwdad, mode)(chosen)(X)


@pytest.mark.parametrize("mode", ["jacfwd", "grad"])
def test_an_integer_draw_is_piecewise_constant_in_its_parameters(mode):
    """(its derivative is 0 almost everywhere: the counts times their derivative-free
    factor x give d/dx = counts)"""
    counts = np.random.default_rng(0).poisson(lam=np.abs(X) * 10.0)
    np.testing.assert_array_equal(getattr(fwdad, mode)(counted)(X), counts)
