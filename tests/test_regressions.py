"""Bugs found while the pieces came together, each against an independent reference."""
import dataclasses
import warnings

import numpy as np
import pytest

import fwdad
from fwdad.tangents import perturb
from tests.util import assert_close, fd_jvp


def int_grid_plus(v):
    y = np.arange(6).reshape(2, 3) + v   # the int operand gives the result its shape
    y[0, 0] = 7.0
    return y


def test_tangent_takes_the_shape_an_int_operand_gave_the_result():
    _, dy = fwdad.jvp(int_grid_plus, (np.zeros(3),), (np.ones(3),))
    np.testing.assert_array_equal(dy, [[0.0, 1.0, 1.0], [1.0, 1.0, 1.0]])


def sum_of_squares_over_flat(x):
    total = 0.0
    for v in x.flat:
        total = total + v * v
    return total


def test_iterating_x_flat_carries_tangents():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    _, dx = fwdad.jvp(sum_of_squares_over_flat, (x,), (np.ones_like(x),))
    assert dx == 2 * x.sum()                                   # closed form
    np.testing.assert_array_equal(fwdad.jacfwd(sum_of_squares_over_flat)(x), 2 * x)


def modulus(x):
    return abs(x[0] + 1j * x[1])


def test_abs_of_a_complex_number():
    out, d = fwdad.jvp(modulus, (np.array([0.3, 0.4]),), (np.array([1.0, 0.0]),))
    assert np.isclose(out, 0.5) and np.isclose(d, 0.3 / 0.5) and type(d) is float


def scalar_parts(x, z):
    """The parts of a float and a complex scalar, read as fields (not np.real)."""
    w = z * x
    return x.real * 2.0 + np.float64(x).real + x.imag + w.real * w.imag


@pytest.mark.parametrize("mode", ["jvp", "jacfwd", "linearize"])
def test_real_and_imag_fields_of_scalars_keep_their_tangents(mode):
    """x.real of a float (and z.imag of a complex) once read the field of the number and
    dropped the tangent: jvp gave 0 (found by the reverse-mode rows of complex getattr)."""
    args, direction = (1.5, 0.7 - 1.3j), (1.0, 0.4 + 0.9j)
    if mode == "jacfwd":
        jacobian = fwdad.jacfwd(scalar_parts)(*args)
        assert np.isclose(jacobian, fd_jvp(scalar_parts, args, (1.0, 0.0)), rtol=1e-6)
    elif mode == "linearize":
        _, lin = fwdad.linearize(scalar_parts, *args)
        assert np.isclose(lin(*direction), fd_jvp(scalar_parts, args, direction), rtol=1e-6)
    else:
        _, tangent = fwdad.jvp(scalar_parts, args, direction)
        assert np.isclose(tangent, fd_jvp(scalar_parts, args, direction), rtol=1e-6)


def test_perturbing_a_0d_array_keeps_an_array():
    moved = perturb(np.array(1.0), np.array(1.0), 1e-3)
    assert isinstance(moved, np.ndarray) and moved.shape == () and moved == 1.001


SCALE, SHIFT = (lambda a: a * 3.0), (lambda a: a + 3.0)  # noqa: E731


def test_lambdas_on_one_line_are_told_apart_by_column():
    assert fwdad.jvp(SCALE, (1.0,), (1.0,)) == (3.0, 3.0)
    assert fwdad.jvp(SHIFT, (1.0,), (1.0,)) == (4.0, 1.0)


def variance_of_nothing(x):
    return np.var(x[:0], axis=0)


def test_variance_over_an_empty_axis_is_nan_as_in_numpy():
    """The value is NumPy's NaN; the derivative is 0 in both modes (the variance of no
    entry moves with none: forward mode gave NaN, reverse mode 0)."""
    x = np.ones((3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = variance_of_nothing(x)
        value, tangent = fwdad.jvp(variance_of_nothing, (x,), (np.ones_like(x),))
        gradient = fwdad.vjp(variance_of_nothing, x)[1](np.ones(2))[0]
    np.testing.assert_array_equal(value, want)
    np.testing.assert_array_equal(tangent, np.zeros(2))
    np.testing.assert_array_equal(gradient, np.zeros((3, 2)))


def scaled_shifted_squared(a):
    return a * 1.0 + a / 2.0 + a ** 2.0


def test_constants_add_no_nan_at_infinity():
    """d/da (a + a/2 + a^2) = 1.5 + 2a: inf at a = inf, in the plain rule too (a
    constant's zero tangent times an infinite value must not give nan)."""
    from fwdad.dual import Dual
    from fwdad.forward.derive import build_rule
    a = np.array([np.inf, 1.0])
    want = np.array([np.inf, 3.5])                                   # closed form
    for optimized in (True, False):
        rule = build_rule(scaled_shifted_squared, optimized=optimized)
        np.testing.assert_array_equal(rule(Dual(a, np.ones(2))).tangent, want)


# ---- np.bincount's weights and np.unique of floats had no derivative (silently zero) ----
BINS = np.array([0, 1, 1, 3])


def weighted_counts(w):
    return np.sum(np.bincount(BINS, weights=w * w, minlength=5) ** 2)


def test_bincount_is_differentiated_in_its_weights_in_both_modes():
    w = np.array([0.5, -1.0, 2.0, 0.3])
    bins = np.bincount(BINS, weights=w * w, minlength=5)
    closed_form = 4.0 * bins[BINS] * w  # d/dw_i sum_b (sum_{j in b} w_j^2)^2
    np.testing.assert_allclose(fwdad.grad(weighted_counts)(w), closed_form, rtol=1e-12)
    np.testing.assert_allclose(fwdad.jacfwd(weighted_counts)(w), closed_form, rtol=1e-12)


def test_unique_of_a_differentiated_float_array_is_refused_in_both_modes():
    x = np.array([0.5, 0.5, 2.0])  # the tied two move apart (equal tangents would keep
    with pytest.raises(fwdad.NonDifferentiableError, match="np.unique"):  # them tied:
        fwdad.jvp(np.unique, (x,), (np.array([1.0, 2.0, 3.0]),))  # tests/test_unique.py)
    with pytest.raises(fwdad.NonDifferentiableError, match="np.unique"):
        fwdad.grad(lambda x: np.sum(np.unique(x)))(x)


# ---- a derivative written into a global array, read again -----------------------------
GLOBAL = np.array([0.7, 0.2])


def written_into_a_global_then_read_again(w):
    GLOBAL[0] = GLOBAL[0] * w  # the next read of GLOBAL had a fresh zero tangent: 0.0
    return np.sum(GLOBAL * GLOBAL)


def written_through_a_view_of_a_global(w):
    v = GLOBAL[1:]
    v[0] = w
    return np.sum(v) + np.sum(GLOBAL)


@pytest.mark.parametrize("f", [written_into_a_global_then_read_again,
                               written_through_a_view_of_a_global])
def test_a_derivative_written_into_a_global_array_is_read_back(f):
    """Each read of GLOBAL made a new zero tangent, which lost the derivative written
    (refused since); GLOBAL, written by name, now keeps it within the derivative
    (forward/written_globals.py)."""
    saved = GLOBAL.copy()

    def from_saved(w):
        GLOBAL[...] = saved
        return f(w)
    try:
        want = fd_jvp(from_saved, (2.0,), (1.0,))
        assert_close(fwdad.jvp(from_saved, (2.0,), (1.0,))[1], want, rtol=1e-6)
    finally:
        GLOBAL[...] = saved


def test_a_constant_written_into_a_global_array_is_allowed():
    def reset_then_scale(w):
        GLOBAL[1] = 0.5  # no derivative: the write is allowed
        return np.sum(GLOBAL) * w
    saved = GLOBAL.copy()
    try:
        assert fwdad.jvp(reset_then_scale, (2.0,), (1.0,))[1] == pytest.approx(1.2)
    finally:
        GLOBAL[...] = saved


# ---- np.where mixed the tangents (mask * dx + ~mask * dy): inf * 0 came out NaN ------
def sqrt_where_positive(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, np.sqrt(x), 0.0)


def test_where_takes_the_selected_tangent_even_when_the_other_is_infinite():
    x = np.array([0.0, 4.0])
    np.testing.assert_array_equal(fwdad.jvp(sqrt_where_positive, (x,), (np.ones(2),))[1],
                                  [0.0, 0.25])  # d sqrt(x) = 1 / (2 sqrt(x))
    np.testing.assert_array_equal(fwdad.jacfwd(sqrt_where_positive)(x),
                                  np.diag([0.0, 0.25]))


# ---- an adjoint laid out unlike its value (fuzz seed 98010917) -------------------------
def write_through_reshaped_transpose(x0, x1):
    c = x1.T + 0.0          # F-ordered, as NumPy keeps the operand's layout
    view = c.T.reshape(3, 2)  # a view of c (a copy had the adjoint been C-ordered)
    view += x0
    return c.T


def test_adjoint_views_follow_value_views_whatever_the_layout():
    rng = np.random.default_rng(0)
    x0, x1, ct = rng.normal(size=(3, 2)), rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    _, pullback = fwdad.vjp(write_through_reshaped_transpose, x0.copy(), x1.copy())
    for i, got in enumerate(pullback(ct)):
        jacobian = fwdad.jacfwd(write_through_reshaped_transpose, i)(x0.copy(), x1.copy())
        np.testing.assert_allclose(got, np.tensordot(ct, jacobian, axes=2), rtol=1e-12)


# ---- np.copy keeps the layout, a.copy() is C-ordered (fuzz seed 99503889) ----------------
def update_through_reshape_of_copy(x):
    c = np.copy(x.T)        # F-ordered (order="K"): the reshape below is a copy
    view = c.reshape(2, 3)
    view *= view            # so c is unchanged
    return c.sum(axis=1)


def update_through_reshape_of_method_copy(x):
    c = x.T.copy()          # C-ordered: the reshape below is a view
    view = c.reshape(2, 3)
    view *= view            # so c is squared
    return c.sum(axis=1)


@pytest.mark.parametrize("f", [update_through_reshape_of_copy,
                               update_through_reshape_of_method_copy])
def test_copies_keep_numpy_memory_layout(f):
    x, t = np.arange(6.0).reshape(2, 3) * 0.1 + 0.3, np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    out, tangent = fwdad.jvp(f, (x.copy(),), (t,))
    np.testing.assert_allclose(out, f(x.copy()), rtol=1e-15)
    assert_close(tangent, fd_jvp(f, (x,), (t,)), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(np.tensordot(fwdad.jacfwd(f)(x.copy()), t, axes=2), tangent,
                               rtol=1e-12)


# ---- vjp with respect to an instance of a class with __slots__ gave NoTangent -----------
@dataclasses.dataclass(slots=True)
class Slotted:
    a: float


def test_vjp_of_an_instance_with_slots_is_refused_not_zero():
    with pytest.raises(fwdad.NonDifferentiableError, match="__slots__"):
        fwdad.vjp(lambda p: p.a * 2.0, Slotted(1.5))


# ---- NumPy's functions on Python floats compute as NumPy does (optimized rules too) -------
def numpy_power_of_a_negative_float(x):
    return np.power(x, 1.0 / 3.0)       # nan in NumPy; -8.0 ** (1/3) is complex


def numpy_division_by_zero(x):
    return np.true_divide(1.0, x) + np.log(x)


def numpy_result_methods(x):
    return np.subtract(x, 1.0).item() * np.multiply(x, 2.0).item()


def test_numpy_functions_of_python_floats_keep_numpy_semantics():
    with np.errstate(all="ignore"):
        out, tangent = fwdad.jvp(numpy_power_of_a_negative_float, (-8.0,), (1.0,))
        assert np.isnan(out) and np.isnan(tangent) and not np.iscomplexobj(out)
        out, tangent = fwdad.jvp(numpy_division_by_zero, (0.0,), (1.0,))
        assert np.isnan(out) and np.isnan(tangent)  # inf + -inf, as NumPy gives
        assert fwdad.jvp(np.log, (0.0,), (1.0,)) == (-np.inf, np.inf)
    assert fwdad.jvp(numpy_result_methods, (2.0,), (1.0,)) == (4.0, 6.0)
