"""normal(loc, scale) and uniform(low, high) with parameters that have a derivative, in
both modes (fwdad/rules/random_params.py): d sample = dloc + dscale z and dlow (1 - u) +
dhigh u, the unit draw read back from the sample. Against central differences with the
same seed (a fresh generator at each evaluation), the other mode, a batch of tangents
and the Hessian by differences of gradients."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError

P = np.array([0.3, 1.2, 2.0])


def generator_normal(p):
    rng = np.random.default_rng(5)
    return np.sum(rng.normal(p[0], p[1], size=4) ** 2)


def generator_keywords(p):
    rng = np.random.default_rng(6)
    return np.sum(np.cos(rng.uniform(low=p[0], high=p[2], size=(2, 3))))


def broadcast_parameters(p):
    rng = np.random.default_rng(7)
    return np.sum(rng.normal(loc=p[:2], scale=p[1:], size=(3, 2))
                  * rng.uniform(p[0] - 1.0, p)[:, None])


def global_state(p):
    np.random.seed(3)
    return np.sum(np.random.normal(p[0], scale=p[1], size=3)) * np.sum(np.random.uniform(p[1:]))


def scale_only(p):
    rng = np.random.default_rng(8)
    return np.sum(rng.normal(scale=p[2], size=3)) + np.sum(rng.uniform(high=p[1], size=2))


def loc_at_zero_scale(p):
    """scale 0: the sample is loc, and only loc has a derivative (allowed)."""
    return np.sum(np.random.default_rng(9).normal(p[0], 0.0, size=3))


FUNCTIONS = [generator_normal, generator_keywords, broadcast_parameters, global_state,
             scale_only, loc_at_zero_scale]


def _central(f, p, h=1e-6):
    return np.array([(f(p + h * e) - f(p - h * e)) / (2 * h) for e in np.eye(p.size)])


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["jacfwd", "grad", "jacrev"])
def test_against_central_differences_with_the_same_seed(f, mode):
    np.testing.assert_allclose(getattr(fwdad, mode)(f)(P), _central(f, P), rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_the_modes_agree(f):
    """The dot-product test: <grad, t> == jvp(t); and a batch of two tangents."""
    t = np.array([0.4, -1.1, 0.7])
    forward = fwdad.jvp(f, (P,), (t,))[1]
    assert np.isclose(forward, fwdad.grad(f)(P) @ t, rtol=1e-12, atol=1e-12)
    _, batch = fwdad.batched_jvp(f, (P,), (np.stack([t, 2.0 * t]),))
    np.testing.assert_allclose(batch, [forward, 2.0 * forward], rtol=1e-12, atol=1e-12)


def test_second_derivatives():
    f = broadcast_parameters
    h = 1e-4
    want = np.array([(fwdad.grad(f)(P + h * e) - fwdad.grad(f)(P - h * e)) / (2 * h)
                     for e in np.eye(3)])
    np.testing.assert_allclose(fwdad.hessian(f)(P), want, rtol=1e-6, atol=1e-7)


def zero_scale(p):
    return np.sum(np.random.default_rng(1).normal(1.0, p[0] * 0.0 + 0.0 * p[1], size=3))


def equal_bounds(p):
    return np.sum(np.random.default_rng(1).uniform(p[0], p[0], size=3))


@pytest.mark.parametrize("f", [zero_scale, equal_bounds], ids=lambda f: f.__name__)
def test_a_zero_scale_with_a_derivative_is_refused(f):
    """The sample is loc (low) there: it does not tell the unit draw the derivative
    along the scale needs. Reverse mode cannot see that the scale's derivative is 0 (in
    zero_scale); forward mode can, and gives it."""
    with pytest.raises(FwdadError, match=r"np.random's Generator.(normal|uniform) in "
                                         rf"{f.__name__} at .*: its parameters have a "
                                         r"derivative and a (scale is 0|high equals low)"):
        fwdad.grad(f)(P)
    if f is equal_bounds:
        with pytest.raises(FwdadError, match="high equals low"):
            fwdad.jacfwd(f)(P)
