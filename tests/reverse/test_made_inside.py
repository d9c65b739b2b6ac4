"""Writing variables into arrays the differentiated function makes from constants
(np.zeros, np.array, x.copy(), astype, ...): reverse mode differentiates through them,
checked against forward mode with the same constant (jacfwd) and finite differences,
and by the dot-product test; writes into arrays it did not make are refused clearly."""
import copy

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from fwdad.testing.varmat import test_varmat_matvar
from tests.reverse.dot_product import check_dot_product
from tests.util import assert_close, fd_jvp

S0 = np.array([0.5, -1.2, 2.0, 0.8])  # a constant: never in argnums below


# ---- each function: w a float (or float array) variable, s0 a constant float array ----
def lstm_step(w, s0):
    s = s0.copy()
    s[0] = s[0] * w
    s[1:] = np.tanh(s[1:] * w)
    return np.sum(s * s)


def into_zeros(w, s0):
    y = np.zeros(len(s0))
    y[1] = w * s0[1]
    return np.sum(y * s0)


def into_empty_ones_full(w, s0):
    a, b, c = np.empty(2), np.ones(2), np.full(2, 3.0)
    a[:] = w
    b[0] = w * w
    c[1] = np.sin(w)
    return np.sum(a * b * c) + s0[0]


def into_array_of_floats(w, s0):
    a = np.array([1.0, 2.0, 3.0])
    a[2] = w * a[1]
    b = np.array(s0)
    b[0] = w
    return np.sum(a * a) + np.prod(b)


def into_np_copy_and_slice_copy(w, s0):
    a = np.copy(s0)
    a[1] += w
    b = s0[1:].copy()
    b[0] = a[1] * w
    return np.sum(a[1:] * b) + b[0]


def into_astype(w, s0):
    a = s0.astype(np.float64)
    a[0] = w
    b = np.asarray(s0.astype(np.float32), dtype=np.float64)  # a conversion: a new array
    b[1] = w * 2.0
    return np.sum(a * b)


def through_a_view_of_a_copy(w, s0):
    s = s0.copy()
    v = s[1:3]          # a view: the write reaches s
    v[0] = w * 3.0
    v *= w
    return np.sum(s * s) + np.sum(v)


def through_a_reshape_of_a_method_copy(w, s0):
    """a.copy() is C-ordered (np.copy keeps the layout): a reshape of the copy of a
    transposed view is a view, so the write reaches the copy (it was lost, and the
    value wrong, in reverse mode)."""
    t = s0.reshape(2, 2).T.copy()
    t.reshape(4)[1:3] += w * 0.5
    return np.sum(t * t) * w


def rows_of_a_copy(w, s0):
    m = np.stack([s0, s0]).copy()
    for i in range(2):
        m[i] = m[i] * w[i]
    return m.sum(axis=0) * w[0]


SCALAR_ROWS = [lstm_step, into_zeros, into_empty_ones_full, into_array_of_floats,
               into_np_copy_and_slice_copy, into_astype, through_a_view_of_a_copy,
               through_a_reshape_of_a_method_copy]
POINT = 0.7


@pytest.mark.parametrize("fn", SCALAR_ROWS, ids=lambda f: f.__name__)
def test_gradient_with_a_constant_matches_forward_mode_and_finite_differences(fn):
    s0 = S0.copy()
    value, slope = fwdad.value_and_grad(fn)(POINT, s0)
    assert value == pytest.approx(fn(POINT, S0.copy()), rel=1e-12)
    forward = fwdad.jacfwd(fn)(POINT, S0.copy())  # forward mode, s0 a constant too
    assert_close(slope, forward, rtol=1e-10)
    assert_close(slope, fd_jvp(lambda w: fn(w, S0.copy()), [POINT], [1.0]), rtol=1e-6)
    assert_close(s0, S0, rtol=0, atol=0)  # the constant is left as it was


def _closing_over_the_constant(fn):
    def of_w(w):
        return fn(w, S0.copy())
    return of_w


@pytest.mark.parametrize("fn", SCALAR_ROWS + [rows_of_a_copy], ids=lambda f: f.__name__)
def test_dot_product(fn):
    w = np.array([POINT, -0.4]) if fn is rows_of_a_copy else POINT
    check_dot_product(_closing_over_the_constant(fn), [w])


@pytest.mark.parametrize("fn", SCALAR_ROWS, ids=lambda f: f.__name__)
def test_varmat_and_matvar_agree(fn):
    test_varmat_matvar(_closing_over_the_constant(fn), POINT)


# ---- writes that reach an array the function did not make ---------------------------
def write_through_asarray(w, s0):
    a = np.asarray(s0)   # s0 itself: the write changes the caller's array, as in Python
    a[0] = 10.0
    return np.sum(s0) * w


def test_asarray_of_a_constant_is_the_constant_itself():
    plain, mine = S0.copy(), S0.copy()
    want = write_through_asarray(POINT, plain)
    value, slope = fwdad.value_and_grad(write_through_asarray)(POINT, mine)
    assert value == pytest.approx(want, rel=1e-12)
    assert_close(mine, plain, rtol=0, atol=0)
    assert slope == pytest.approx(fd_jvp(lambda w: write_through_asarray(w, S0.copy()),
                                         [POINT], [1.0]), rel=1e-6)


def into_the_constant_argument(w, s0):
    s0[0] = s0[0] * w
    return np.sum(s0 * s0)


def into_a_view_of_the_constant_argument(w, s0):
    v = s0[1:]
    v[0] = w
    return np.sum(s0)


GLOBAL = np.array([1.0, 2.0])


def into_a_global(w, s0):
    GLOBAL[0] = w
    return np.sum(GLOBAL) + s0[0]


def into_a_default(w, s0, buf=np.zeros(2)):
    buf[0] = w
    return np.sum(buf) + s0[0]


def into_a_value_computed_from_constants(w, s0):
    y = s0 * 2.0   # computed, not made by a creation function or a copy
    y[0] = w
    return np.sum(y)


REFUSED = [into_the_constant_argument, into_a_view_of_the_constant_argument,
           into_a_value_computed_from_constants]


@pytest.mark.parametrize("fn", [into_a_global, into_a_default], ids=lambda f: f.__name__)
def test_a_global_or_default_written_by_name_is_a_variable_of_the_pass(fn):
    """(fwdad/reverse/state.py; tests/reverse/test_written_state.py has more.)"""
    test_gradient_with_a_constant_matches_forward_mode_and_finite_differences(fn)


@pytest.mark.parametrize("fn", REFUSED, ids=lambda f: f.__name__)
def test_a_write_into_an_array_not_made_inside_is_a_clear_error(fn):
    """Such an array cannot become a variable: every other reference to it (the caller's
    name, a view, the global) would stay constant and its derivative would be lost."""
    with pytest.raises(FwdadError, match=r"(?s)written into a constant array.*"
                                         r"s = s0\.copy\(\).*argnums.*test_made_inside"):
        fwdad.grad(fn)(POINT, S0.copy())


@pytest.mark.parametrize("fn", [into_the_constant_argument,
                                into_a_view_of_the_constant_argument],
                         ids=lambda f: f.__name__)
def test_differentiating_with_respect_to_the_written_argument_too_works(fn):
    """What the error suggests: with s0 in argnums, the gradient in w matches forward
    mode with s0 a constant (jacfwd), and finite differences."""
    slope, _ = fwdad.grad(fn, argnums=(0, 1))(POINT, S0.copy())
    assert_close(slope, fwdad.jacfwd(fn)(POINT, S0.copy()), rtol=1e-10)
    assert_close(slope, fd_jvp(lambda w: fn(w, S0.copy()), [POINT], [1.0]), rtol=1e-6)


# ---- integer arrays: the write truncates, without a derivative ------------------------
def into_an_int_array(w, n0):
    n = n0.copy()
    n[0] = w * 3.0    # NumPy truncates to an int: no derivative through n
    return w * n[0] + w * w


def test_a_variable_written_into_an_int_array_is_truncated_as_in_forward_mode():
    n0 = np.array([1, 2, 3])
    slope = fwdad.grad(into_an_int_array)(POINT, copy.copy(n0))
    assert slope == pytest.approx(fwdad.jvp(into_an_int_array, (POINT, n0.copy()),
                                            (1.0, None))[1], rel=1e-12)
    assert slope == pytest.approx(int(POINT * 3.0) + 2 * POINT, rel=1e-12)


# ---- conversions of variables ----------------------------------------------------------
def converted_back_to_float64(x):
    a = np.asarray(x.astype(np.float32), dtype=np.float64)  # float64 again: a new array
    a[0] = x[1] * 1.4
    b = np.array(x.astype(np.float32), dtype=np.float64)
    b[1] = x[0] / 3.0
    return a * b


def test_asarray_and_array_of_a_float32_variable_to_float64_convert():
    x = np.array([0.3, -1.1, 0.7])
    out, _ = fwdad.vjp(converted_back_to_float64, x.copy())
    assert_close(out, converted_back_to_float64(x.copy()), rtol=1e-15, atol=0)
    check_dot_product(converted_back_to_float64, [x], rtol=1e-6)


def with_leading_axes(x):
    a = np.array(x * 2.0, ndmin=3)  # (1, 1, n): the program reads its shape
    weights = np.arange(a.shape[0] + 2.0).reshape(-1, 1, 1)[:a.shape[0]] + 1.0
    return np.sum(a * weights * a) + a.ndim * x[0]


def test_array_of_a_variable_with_ndmin_adds_the_leading_axes():
    x = np.array([0.3, -1.1])
    assert_close(fwdad.grad(with_leading_axes)(x.copy()), 8.0 * x + [3.0, 0.0], rtol=1e-12)
    check_dot_product(with_leading_axes, [x], rtol=1e-6)
