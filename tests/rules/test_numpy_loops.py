"""NumPy's functions that call a Python function per item or row
(fwdad/rules/numpy_loops.py): what the case tables cannot say. Closures and second
order against closed forms, what NumPy's own computes (dtype, shape), and the refusals."""
import math

import numpy as np
import pytest

import fwdad
from tests.rules.loop_cases import WAVE

X = np.array([[0.3, 1.7, -2.5], [0.4, 0.1, 2.0]])


def _scaled_by_closure(x):
    a = x[0, 0]
    return np.vectorize(lambda v: a * v)(x)


@pytest.mark.parametrize("jacobian", [fwdad.jacfwd, fwdad.jacrev])
def test_a_vectorized_lambda_carries_the_tangents_it_closes_over(jacobian):
    """d(a x_ij)/dx_kl = a [ij = kl] + x_ij [kl = 00]."""
    want = X[0, 0] * np.eye(6).reshape(2, 3, 2, 3)
    want[:, :, 0, 0] += X
    np.testing.assert_allclose(jacobian(_scaled_by_closure)(X), want, rtol=1e-14)


def _total_wave(v):
    return np.sum(WAVE(v))


def _total_cubes_by_rows(v):
    return np.sum(np.apply_along_axis(lambda row: row * row * row, 1, v))


def test_hessians_through_the_calls_are_the_closed_forms():
    v = np.array([[0.3, 1.0], [-0.7, 2.0]])
    np.testing.assert_allclose(fwdad.hessian(_total_wave)(v),
                               np.diag((2.0 - np.sin(v)).ravel()).reshape(2, 2, 2, 2),
                               rtol=1e-14)
    np.testing.assert_allclose(fwdad.hessian(_total_cubes_by_rows)(v),
                               np.diag((6.0 * v).ravel()).reshape(2, 2, 2, 2), rtol=1e-14)


def _integer_first(x):
    return np.apply_along_axis(lambda row: math.floor(row[0]) if row[0] > 0 else row[0] * 2,
                               1, x)


def test_the_result_has_the_dtype_of_the_first_result_as_numpy_gives():
    """NumPy stores every row's result in an array of the first result's dtype."""
    x = np.array([[1.5, 0.0], [-0.25, 1.0]])
    out, dout = fwdad.jvp(_integer_first, (x,), (np.ones_like(x),))
    want = _integer_first(x)
    assert out.dtype == want.dtype and np.array_equal(out, want)


def _two_then_the_next(x):
    items = iter([x, 2.0 * x, 3.0 * x])
    first_two = np.fromiter(items, dtype=float, count=2)
    return np.append(first_two, next(items))


def test_fromiter_with_count_reads_only_that_many_items():
    for derivative in (fwdad.jvp(_two_then_the_next, (0.5,), (1.0,))[1],
                       fwdad.jacrev(_two_then_the_next)(0.5)):
        np.testing.assert_array_equal(derivative, [1.0, 2.0, 3.0])


def _with_signature(x):
    return np.vectorize(lambda row: row.sum(), signature="(n)->()")(x)


def _with_keyword(x):
    return np.vectorize(math.atan2)(x, x=x)


@pytest.mark.parametrize("differentiate", [
    lambda f: fwdad.jvp(f, (X,), (X,)), lambda f: fwdad.jacrev(f)(X)], ids=["jvp", "jacrev"])
def test_a_signature_or_keywords_are_refused_saying_what_to_write(differentiate):
    with pytest.raises(fwdad.FwdadError, match=r"np.vectorize\(lambda \.\.\., signature="
                       r"'\(n\)->\(\)'\) called in _with_signature at "
                       r".*test_numpy_loops.py:\d+: .* np.apply_along_axis"):
        differentiate(_with_signature)
    with pytest.raises(fwdad.FwdadError, match=r"np.vectorize\(atan2\) called with keyword "
                       r"arguments \(x\) .* by position"):
        differentiate(_with_keyword)
