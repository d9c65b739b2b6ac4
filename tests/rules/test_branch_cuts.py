"""The complex inverse trigonometric and hyperbolic functions (fwdad/rules/branch_cuts.py):
refused on their branch cuts in both modes; off them, first and second derivatives
against closed forms and finite differences in the real and imaginary directions, and
grad of real functions of them (and of np.sign, cumprod) against finite differences."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import NonDifferentiableError
from fwdad.rules.branch_cuts import CUTS
from tests.reverse.test_complex import fd_grad

# a point on each cut (a branch point too), and one just off it on each side
ON_CUT = {np.arcsin: [2.0 + 0j, -1.0 + 0j], np.arccos: [-3.0 + 0j, 1.0 + 0j],
          np.arctanh: [1.5 - 0j, -1.0 + 0j], np.arctan: [2j, -1j],
          np.arcsinh: [-1.5j, 1j], np.arccosh: [-2.0 + 0j, 0.5 + 0j]}
OFF_CUT = {np.arcsin: 2.0, np.arccos: -3.0, np.arctanh: 1.5, np.arctan: 2j,
           np.arcsinh: -1.5j, np.arccosh: -2.0}
# f'(z) and f''(z), in closed form on the principal branches
FIRST = {np.arcsin: lambda z: 1 / np.sqrt(1 - z * z),
         np.arccos: lambda z: -1 / np.sqrt(1 - z * z),
         np.arctan: lambda z: 1 / (1 + z * z),
         np.arcsinh: lambda z: 1 / np.sqrt(1 + z * z),
         np.arccosh: lambda z: 1 / (np.sqrt(z - 1) * np.sqrt(z + 1)),
         np.arctanh: lambda z: 1 / (1 - z * z)}
SECOND = {np.arcsin: lambda z: z / np.sqrt(1 - z * z) ** 3,
          np.arccos: lambda z: -z / np.sqrt(1 - z * z) ** 3,
          np.arctan: lambda z: -2 * z / (1 + z * z) ** 2,
          np.arcsinh: lambda z: -z / np.sqrt(1 + z * z) ** 3,
          np.arccosh: lambda z: -z / (np.sqrt(z - 1) * np.sqrt(z + 1)) ** 3,
          np.arctanh: lambda z: 2 * z / (1 - z * z) ** 2}
Z = np.array([0.3 + 1.1j, -1.2 + 0.7j, -0.5 - 0.4j, 2.1 - 1.6j, -0.8 - 0.05j])
T = np.array([0.4 - 0.9j, 1.3 + 0.2j, -0.6 + 0.5j, 0.1 + 1.0j, -1.1 - 0.3j])
S = T[::-1].copy()
H = 1e-6


def test_every_cut_has_rows():
    assert set(ON_CUT) == set(OFF_CUT) == set(FIRST) == set(SECOND) == set(CUTS)


@pytest.mark.parametrize("f", list(CUTS), ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["jvp", "vjp"])
@pytest.mark.filterwarnings("ignore:divide by zero")  # (NumPy's value at a branch point)
def test_on_the_cut_is_refused(f, mode):
    for z in ON_CUT[f]:
        x = np.array([0.1 + 0.2j, z])
        with pytest.raises(NonDifferentiableError, match=f"numpy.{f.__name__}.*branch cut"):
            if mode == "jvp":
                fwdad.jvp(f, (x,), (np.ones(2, complex),))
            else:
                fwdad.vjp(f, x)[1](np.ones(2, complex))


@pytest.mark.parametrize("f", list(CUTS), ids=lambda f: f.__name__)
def test_just_off_the_cut_matches_differences_from_that_side(f):
    """A small step off the cut is holomorphic there: both modes give the derivative of
    that side, which differences smaller than the step see."""
    for side in (1e-4, -1e-4):
        z0 = OFF_CUT[f]
        z = z0 + side * (1j if np.real(z0) else 1.0)
        want = (f(z + 1e-8) - f(z - 1e-8)) / 2e-8
        assert np.isclose(fwdad.jvp(f, (z,), (1.0 + 0j,))[1], want, rtol=1e-5)
        assert np.isclose(fwdad.vjp(f, z)[1](1.0 + 0j)[0], want, rtol=1e-5)


def test_a_real_argument_is_not_checked():
    """Real values: the real function (NaN outside its domain), as before."""
    assert fwdad.jvp(np.arcsin, (0.5,), (1.0,))[1] == pytest.approx(1 / np.sqrt(0.75))
    assert fwdad.grad(np.arccosh)(2.0) == pytest.approx(1 / np.sqrt(3.0))


@pytest.mark.parametrize("f", list(CUTS), ids=lambda f: f.__name__)
def test_first_derivative_matches_closed_form_and_differences(f):
    _, tangent = fwdad.jvp(f, (Z,), (T,))
    np.testing.assert_allclose(tangent, FIRST[f](Z) * T, rtol=1e-10)
    np.testing.assert_allclose(tangent, (f(Z + H * T) - f(Z - H * T)) / (2 * H), rtol=1e-6)
    (ct,) = fwdad.vjp(f, Z)[1](S)
    np.testing.assert_allclose(ct, S * FIRST[f](Z), rtol=1e-10)


@pytest.mark.parametrize("f", list(CUTS), ids=lambda f: f.__name__)
def test_second_derivative_forward_over_forward(f):
    """d/ds of jvp(f, z, t) is f''(z) t s: against the closed form and differences of
    the first jvp along s. (Reverse mode over or under a nested transformation refuses
    complex arguments, as it does real ones: docs/higher_order.md.)"""
    def tangent(z):
        return fwdad.jvp(f, (z,), (T,))[1]
    _, second = fwdad.jvp(tangent, (Z,), (S,))
    np.testing.assert_allclose(second, SECOND[f](Z) * T * S, rtol=1e-9)
    differences = (tangent(Z + H * S) - tangent(Z - H * S)) / (2 * H)
    np.testing.assert_allclose(second, differences, rtol=1e-5)


def _through_inverses(z):
    return np.sum(np.abs(np.arcsin(z) * np.arccosh(z) + np.arctan(z)) ** 2
                  + np.real(np.arctanh(z / 3.0) * np.conj(np.arcsinh(z))))


def _through_sign(z):
    return np.sum(np.real(np.sign(z) * (2.0 - 1.0j)) + np.imag(np.sign(z * z)) * np.abs(z))


def _through_cumprod(z):
    return np.sum(np.abs(np.cumprod(z)) + np.real(np.cumprod(z * 1j) ** 2))


@pytest.mark.parametrize("f", [_through_inverses, _through_sign, _through_cumprod],
                         ids=lambda f: f.__name__)
def test_grad_matches_finite_differences(f):
    g = fwdad.grad(f)(Z)
    np.testing.assert_allclose(g, fd_grad(f, Z), rtol=1e-6, atol=1e-7)


def test_sign_at_zero_has_no_derivative():
    """sign(0 + h t) = sign(h) t / |t|: NaN, as forward mode gives along t != 0."""
    (ct,) = fwdad.vjp(np.sign, np.array([0j, 1 + 1j]))[1](np.ones(2, complex))
    assert np.isnan(ct[0]) and np.isfinite(ct[1])
    assert fwdad.vjp(np.sign, np.array([0j]))[1](np.zeros(1, complex))[0] == 0


@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_cmath_on_the_cut_is_refused_as_numpy_is(mode):
    """cmath.acosh is numpy.arccosh on one number (fwdad/rules/cmathfns.py): 0.4 is on
    its cut. The message names the function the user called."""
    import cmath
    with pytest.raises(NonDifferentiableError, match=r"^cmath\.acosh\(z\) .*complex z value "
                       r"\(0\.4\+0j\) on its branch cut"):
        if mode == "jvp":
            fwdad.jvp(cmath.acosh, (0.4,), (1.0,))
        else:
            fwdad.vjp(cmath.acosh, 0.4)[1](1.0 + 0j)


def _second_derivative(f, z):
    return fwdad.jvp(lambda w: fwdad.jvp(f, (w,), (1.0 + 0j,))[1], (z,), (1.0 + 0j,))[1]


@pytest.mark.parametrize("name", ["cmath.acosh", "numpy.arccosh"])
def test_on_the_cut_at_second_order_the_refusal_is_the_same(name):
    """The check runs on values in the rule differentiated again (it raised an error
    about x.flat there)."""
    import cmath
    f = cmath.acosh if name == "cmath.acosh" else np.arccosh
    with pytest.raises(NonDifferentiableError, match=rf"^{name}\(\w\) .*branch cut"):
        _second_derivative(f, 0.5 + 0j)
