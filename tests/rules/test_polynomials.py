"""NumPy's polynomial functions (fwdad/rules/polynomials.py): a fit's derivative against
its closed form, and the refusals (the case tables check the rest)."""
import numpy as np
import pytest

import fwdad

X = np.linspace(-1.0, 2.0, 7)


def _fitted_quadratic(y):
    return np.polyfit(X, y, 2)


@pytest.mark.parametrize("jacobian", [fwdad.jacfwd, fwdad.jacrev])
def test_polyfit_is_linear_in_y_with_the_pseudo_inverse_of_the_vandermonde_matrix(jacobian):
    y = np.cos(X)
    want = np.linalg.pinv(np.vander(X, 3))
    np.testing.assert_allclose(jacobian(_fitted_quadratic)(y), want, rtol=1e-12, atol=1e-14)


LINE = np.poly1d([2.0, 1.0])


def _plus_a_poly1d(c):
    return np.polyadd(LINE, c)


def _full_fit(y):
    return np.polyfit(X, y, 2, full=True)[0]


def _of_complex_roots(r):
    return np.poly(r + 1j)


@pytest.mark.parametrize("f, message", [
    (_plus_a_poly1d, r"np.polyadd in _plus_a_poly1d at .*test_polynomials.py:\d+: "
                     r".* np.poly1d .* p.coeffs"),
    (_full_fit, r"np.polyfit in _full_fit at .*: fwdad does not differentiate full=True or cov=\. "
                r"Differentiate the coefficients"),
    (_of_complex_roots, r"np.poly in _of_complex_roots at .*: .* complex roots")],
    ids=["poly1d", "full", "complex"])
def test_what_is_not_modelled_is_refused_saying_what_to_pass(f, message):
    with pytest.raises(fwdad.FwdadError, match=message):
        fwdad.jvp(f, (np.ones(7) if f is _full_fit else np.ones(3),),
                  (np.ones(7) if f is _full_fit else np.ones(3),))


def _roots_of(c):
    return np.roots(c)


@pytest.mark.parametrize("mode", ["jvp", "vjp"])
@pytest.mark.parametrize("c, message", [
    (np.array([1.0, -2.0, 1.0]),
     r"np.roots\(p\) in _roots_of at .*: .* a multiple root .* no derivative"),
    (np.array([0.0, 1.0, -2.0]),
     r"np.roots\(p\) in _roots_of at .*: .* leading zero .* np.roots\(p\[k:\]\)")],
    ids=["double root", "leading zero"])
def test_roots_where_they_have_no_derivative_are_refused(mode, c, message):
    with pytest.raises(fwdad.FwdadError, match=message):
        if mode == "jvp":
            fwdad.jvp(_roots_of, (c,), (np.ones(3),))
        else:
            fwdad.vjp(_roots_of, c)
