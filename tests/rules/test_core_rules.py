"""Every registered rule, checked by test_rule at the rows of tests/rules/cases.py, and
the unary and binary arithmetic rules again at random points of their domains."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fwdad
from fwdad import testing
from fwdad.errors import FwdadError, NonDifferentiableError
from fwdad.testing.strategies import broadcastable_shapes, scalars_or_arrays, values_in
from tests.rules.cases import BINARY_CASES, CASES, M23, UNARY_CASES

# Note: `testing.test_rule`, not `from fwdad.testing import test_rule`: pytest would
# collect an imported `test_rule` as a test of this module.
RANDOM = settings(max_examples=15, deadline=None, database=None)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_rule_on_case(case):
    testing.test_rule(case.fn, *case.args, batch=case.batch, **case.tolerances,
                      **case.kwargs)


def test_batch_check_of_a_zero_tangent():
    """A zero tangent made inside a rule has no batch axis; it is every item's."""
    testing.test_rule(np.floor, M23, batch=3)


@pytest.mark.parametrize("case", UNARY_CASES, ids=str)
@RANDOM
@given(data=st.data())
def test_unary_rule_on_random_values(case, data):
    domain = case.domain_of(0)
    x = data.draw(values_in(domain) if case.scalar_only else
                  scalars_or_arrays(domain, min_side=0), label="x")  # empty arrays too
    testing.test_rule(case.fn, x)


@pytest.mark.parametrize("case", BINARY_CASES, ids=str)
@RANDOM
@given(data=st.data())
def test_binary_rule_on_random_values(case, data):
    x_shape, y_shape = data.draw(broadcastable_shapes(min_side=0), label="shapes")
    x = data.draw(values_in(case.domain_of(0), x_shape), label="x")
    y = data.draw(values_in(case.domain_of(1), y_shape), label="y")
    testing.test_rule(case.fn, x, y)


def _grid_to(x):
    return np.mgrid[0:x:3j] + np.r_[0.0:x:3j]


def test_a_slice_with_moving_bounds_is_refused():
    """np.mgrid[0:x:3j] is linspace(0, x, 3), but a slice carries no tangent: refused
    rather than a zero derivative (constant bounds are fine: tests/rules/cases.py)."""
    with pytest.raises(NonDifferentiableError, match="np.linspace"):
        fwdad.jvp(_grid_to, (1.5,), (1.0,))


def _std(x):
    return np.std(x, axis=-1)


def _nanstd(x):
    """nanstd skips the NaN column: the same values as _std's."""
    return np.nanstd(np.concatenate([x, np.full((2, 1), np.nan)], axis=1), axis=-1)


@pytest.mark.parametrize("std", [_std, _nanstd])
def test_std_where_the_values_are_equal(std):
    """std(x + h t) = |h| std(t) where x's values are equal: 0 along a t that keeps them
    equal; along one that does not, no derivative, and the subgradient 0 (as grad gives:
    tests/test_kink_conventions.py)."""
    x = np.array([[3.0, 3.0], [1.0, 2.0]])
    _, still = fwdad.jvp(std, (x,), (np.array([[1.0, 1.0], [0.0, 0.0]]),))
    _, spread = fwdad.jvp(std, (x,), (np.array([[1.0, -1.0], [0.0, 0.0]]),))
    assert still[0] == 0.0 and spread[0] == 0.0
    jac = fwdad.jacfwd(std)(x)  # a basis tangent moving one of the equal values: 0
    assert (jac[0] == 0).all()
    assert np.allclose(jac[1, 1], [-0.5, 0.5]) and (jac[1, 0] == 0).all()


def _r_of_qr(a):
    return np.linalg.qr(a)[1]


def test_qr_of_a_complex_matrix_is_refused():
    """The qr rule is for real matrices (the diagonal of a complex R is kept real)."""
    a = np.array([[1.0 + 0.5j, 0.2], [0.3j, 1.5]])
    with pytest.raises(FwdadError, match="np.linalg.qr for real input only"):
        fwdad.jvp(_r_of_qr, (a,), (np.ones_like(a),))


def _sign(z):
    return np.sign(z)


def test_sign_of_a_complex_zero():
    """sign(0 + h t) = sign(h) t / |t|: no derivative at 0 (NaN), except along t = 0;
    real sign keeps its zero tangent (rows of tests/rules/complex_cases.py elsewhere)."""
    z = np.array([0j, 1.0 + 1.0j])
    _, still = fwdad.jvp(_sign, (z,), (np.array([0j, 1.0]),))
    _, moved = fwdad.jvp(_sign, (z,), (np.array([1j, 0j]),))
    assert still[0] == 0 and np.isnan(moved[0]) and moved[1] == 0
    assert fwdad.jvp(_sign, (np.array([0.0, -2.0]),), (np.ones(2),))[1].tolist() == [0, 0]


def _lstsq(a, b):
    return np.linalg.lstsq(a, b)[0]


def test_lstsq_of_a_rank_deficient_matrix_is_refused():
    """The formula solves with a^H a: a rank-deficient a (or a wide one) raised a bare
    ValueError or LinAlgError."""
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 0.1, 0.6], [1.5, 2.1, 3.6]])
    with pytest.raises(FwdadError, match="lstsq for a matrix a of full column rank"):
        fwdad.jvp(_lstsq, (a, np.ones(4)), (np.ones_like(a), np.ones(4)))


def test_lstsq_with_repeated_singular_values_is_refused_naming_lstsq():
    """Forward mode differentiates every result of lstsq, and its singular values have
    no derivative where two are equal: the refusal named np.linalg.svd, which the user
    did not call (found probing beside the fuzzer's array calls); it names lstsq
    and the way out, which has a derivative there (checked)."""
    a = np.diag([2.0, 2.0, 3.0])
    with pytest.raises(FwdadError, match=r"np\.linalg\.lstsq in _lstsq at .*: two "
                       r"singular values .* np\.linalg\.pinv\(a\) @ b"):
        fwdad.jvp(_lstsq, (a, np.ones(3)), (np.ones_like(a), np.ones(3)))
    testing.test_rule(_pinv_solve, a, np.ones(3))


def _pinv_solve(a, b):
    return np.linalg.pinv(a) @ b


# ---- infinite derivatives at finite values: NumPy's inf, not ZeroDivisionError -------------
def _math_sqrt(x):
    return math.sqrt(x)


def _power_half(x):
    return x ** 0.5  # (inlined as the x ** c template)


def _power_of_two_values(x, y):
    return x ** y  # (the pow rule's base term)


def _math_pow(x):
    return math.pow(x, 0.5)


def _cbrt(x):
    return math.cbrt(x)


def _asin(x):
    return math.asin(x)


def _acos(x):
    return math.acos(x)


def _acosh(x):
    return math.acosh(x)


def _atan2_of_same(x):
    return math.atan2(x, x)


def _hypot_with_zero(x):
    return math.hypot(x, 0.0)


def _np_sqrt(x):
    return np.sqrt(x)


with np.errstate(divide="ignore", invalid="ignore"):  # the closed forms, in NumPy float64
    INFINITE_DERIVATIVES = [  # (f, point, d f / dx there)
        (_math_sqrt, 0.0, 0.5 / np.sqrt(np.float64(0.0))),
        (_power_half, 0.0, 0.5 * np.float64(0.0) ** -0.5),
        (_math_pow, 0.0, 0.5 * np.float64(0.0) ** -0.5),
        (_cbrt, 0.0, 1.0 / (3.0 * np.cbrt(np.float64(0.0)) ** 2)),
        (_asin, 1.0, 1.0 / np.sqrt(1.0 - np.float64(1.0) ** 2)),
        (_asin, -1.0, 1.0 / np.sqrt(1.0 - np.float64(-1.0) ** 2)),
        (_acos, 1.0, -1.0 / np.sqrt(1.0 - np.float64(1.0) ** 2)),
        (_acosh, 1.0, 1.0 / np.sqrt(np.float64(1.0) ** 2 - 1.0)),
        (_atan2_of_same, 0.0, np.float64(0.0) / (np.float64(0.0) ** 2 * 2)),  # 0 / 0
        (_hypot_with_zero, 0.0, 0.0),  # |x|: the subgradient 0 at 0 (as abs, norm)
        (_np_sqrt, 0.0, 0.5 / np.sqrt(np.float64(0.0))),
    ]


@pytest.mark.parametrize("f, x, want", INFINITE_DERIVATIVES,
                         ids=lambda v: getattr(v, "__name__", ""))
def test_an_infinite_derivative_is_numpys_inf(f, x, want):
    """math.sqrt at 0 raised ZeroDivisionError from `0.5 / sqrt(x)`; every rule and
    template of the family gives what NumPy gives, through jvp (inlined templates),
    jacfwd (batched) and the unoptimized rule."""
    with np.errstate(divide="ignore", invalid="ignore"):
        _, tangent = fwdad.jvp(f, (x,), (1.0,))
        batched = fwdad.jacfwd(f)(x)
        plain = fwdad.derive_frule(f).frule.unoptimized(fwdad.Dual(x, 1.0)).tangent
    for got in (tangent, batched, plain):
        np.testing.assert_equal(got, want)
    assert type(tangent) is type(f(x))  # (a Python float stays one)


def test_pow_of_a_zero_base_to_a_variable_power():
    """d x ** y at x = 0, y = 0.5: the base term 0.5 * 0 ** -0.5 = inf; the exponent
    term log(0) * 0 ** 0.5 is taken as 0 (tests/rules/cases.py)."""
    _, tangent = fwdad.jvp(_power_of_two_values, (0.0, 0.5), (1.0, 0.0))
    assert tangent == np.inf


def test_hypot_at_zero_along_a_zero_tangent_is_zero():
    assert fwdad.jvp(_hypot_with_zero, (0.0,), (0.0,))[1] == 0.0


@pytest.mark.parametrize("f, x, want", INFINITE_DERIVATIVES,
                         ids=lambda v: getattr(v, "__name__", ""))
def test_an_infinite_gradient_is_numpys_inf(f, x, want):
    """The reverse rules of the same family: grad at the same points."""
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_equal(fwdad.grad(f)(x), want)


def _drop_imaginary_zeros(z):
    return np.real_if_close(z * 2.0)


def test_real_if_close_dropping_imaginary_parts_gives_the_real_part_of_the_tangent():
    """Where NumPy returns the real part (imaginary parts within tol eps of zero), the
    tangent is that of the real part: test_rule's finite differences would leave the
    branch (a step moves the imaginary parts off zero), so compare with np.real's."""
    z, dz = np.array([0.3 + 0j, -1.2 + 0j]), np.array([0.5 + 0.7j, -0.1 + 2.0j])
    out, tangent = fwdad.jvp(_drop_imaginary_zeros, (z,), (dz,))
    assert out.dtype == np.float64 and tangent.dtype == np.float64
    np.testing.assert_array_equal(tangent, np.real(dz) * 2.0)
