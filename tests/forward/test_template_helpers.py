"""The reductions templates call give exactly what np.sum and np.mean give (the same
value, bit for bit, and the same type) on every kind of operand."""
import warnings

import numpy as np
import pytest

from fwdad.forward.optimizer.templates import array_mean, array_sum

OPERANDS = [
    np.linspace(-1.0, 2.0, 7), np.random.default_rng(0).standard_normal((5, 3)),
    np.random.default_rng(1).standard_normal(1001).astype(np.float32),
    np.arange(6), np.array([True, False, True]), np.array(2.5), np.float64(1.5),
    np.array([1 + 2j, 3 - 1j]), np.arange(4.0).astype(np.float16), [1.0, 2.0, 4.0], 3.0,
    np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0]), np.empty(0),
]


@pytest.mark.parametrize("helper, reference", [(array_sum, np.sum), (array_mean, np.mean)],
                         ids=["sum", "mean"])
@pytest.mark.parametrize("x", OPERANDS, ids=lambda x: type(x).__name__ + str(np.shape(x)))
def test_same_as_numpy(helper, reference, x):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the mean of nothing warns, either way)
        got, want = helper(x), reference(x)
    assert type(got) is type(want)
    assert np.array_equal(got, want, equal_nan=True) and \
        np.asarray(got).tobytes() == np.asarray(want).tobytes()

