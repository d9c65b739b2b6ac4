"""NumPy's polynomial functions (fwdad/rules/polynomials.py): a fit's derivative against
its closed form, and the refusals (the case tables check the rest)."""
import numpy as np
import pytest

import fwdad
from tests.util import central_difference, central_gradient

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


# ---- polymul and np.poly1d's leading zeros ---------------------------------------------
# NumPy's polymul drops leading zero coefficients (np.poly1d semantics). Where the zeros
# are constants the product is exact; where they carry a derivative the result would be
# longer at any nearby point, so that derivative does not exist and is refused.
ZEROS_FIRST, B = np.array([0.0, 0.0, 1.0, 2.0]), np.array([1.5, -1.0, 0.5])

# (name, f, x): the zeros are constants, x moves
CONSTANT_ZEROS = [
    ("first argument", lambda b: np.polymul(ZEROS_FIRST, b)),
    ("second argument", lambda b: np.polymul(b, ZEROS_FIRST)),
    ("a list", lambda b: np.polymul(b, [0.0, 2.0, 1.0])),
    ("both, the square", lambda b: np.polymul(np.polymul(ZEROS_FIRST, b), ZEROS_FIRST)),
    ("the zero polynomial", lambda b: np.polymul(np.zeros(3), b)),
]


@pytest.mark.parametrize("name, f", CONSTANT_ZEROS, ids=[r[0] for r in CONSTANT_ZEROS])
def test_polymul_by_constant_leading_zeros_is_exact(name, f):
    """Against central differences (the Jacobian), and at second order forward over
    reverse against forward over forward."""
    want = central_gradient(f, B).T
    for jacobian in (fwdad.jacfwd, fwdad.jacrev):
        np.testing.assert_allclose(jacobian(f)(B), want, rtol=1e-8, atol=1e-8)

    def total(b):
        return np.sum(np.sin(f(b)))
    np.testing.assert_allclose(fwdad.hessian(total)(B),
                               fwdad.jacfwd(fwdad.jacfwd(total))(B), rtol=1e-12, atol=1e-12)


def _times_b(a):
    return np.polymul(a, B)


def test_polymul_along_a_direction_that_keeps_the_zeros_is_exact_in_forward_mode():
    """jvp along t with t = 0 at the dropped zeros: the length stays; against central
    differences along t (the derivative exists along t, not in every direction)."""
    t = np.array([0.0, 0.0, 1.0, -2.0])
    np.testing.assert_allclose(fwdad.jvp(_times_b, (ZEROS_FIRST,), (t,))[1],
                               central_difference(_times_b, ZEROS_FIRST, t), rtol=1e-8)


@pytest.mark.parametrize("mode", ["jvp", "jacfwd", "grad", "jacrev"])
def test_polymul_refuses_leading_zeros_that_carry_a_derivative(mode):
    f = _times_b
    run = {"jvp": lambda: fwdad.jvp(f, (ZEROS_FIRST,), (np.ones(4),)),
           "jacfwd": lambda: fwdad.jacfwd(f)(ZEROS_FIRST),
           "grad": lambda: fwdad.grad(lambda a: np.sum(f(a)))(ZEROS_FIRST),
           "jacrev": lambda: fwdad.jacrev(f)(ZEROS_FIRST)}[mode]
    with pytest.raises(fwdad.FwdadError, match=r"np.polymul in _times_b at .*test_polynomials"
                       r".py:\d+: .* leading zero that carries a derivative\. .* np.convolve"):
        run()
