"""NumPy reverse rules outside their domain raise clear fwdad errors."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.reverse.dot_product import check_dot_product


def _complex(x):
    return np.complex128(x)


def _pad_mean(a):
    return np.pad(a, 1, mode="mean")


def _power_reduce(a):
    return np.power.reduce(a)


@pytest.mark.parametrize("fn, args, message", [
    (_complex, (0.5,), "works on real values"),
    (_pad_mean, (np.ones(3),), "mode='mean' has no reverse rule"),
    (_power_reduce, (np.ones(3),), "reduce has no reverse rule"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_clear_errors(fn, args, message):
    with pytest.raises(FwdadError, match=message):
        fwdad.vjp(fn, *args)


SHAPES = [((2, 3), (3,)), ((1, 3), (2, 1)), ((), (2,)), ((2, 0), (1,))]


def _binary_rows():
    from fwdad.reverse.rules_ufuncs import BINARY
    return [(ufunc, shapes) for ufunc in BINARY if ufunc is not np.ldexp
            for shapes in SHAPES]


@pytest.mark.parametrize("ufunc, shapes", _binary_rows(),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_binary_ufunc_rows_broadcast(ufunc, shapes):
    """Each binary row with broadcast (0-d, empty) arguments: the wrapper sums the
    cotangent back to each argument's shape."""
    rng = np.random.default_rng(1)
    a, b = (np.abs(rng.standard_normal(s)) + 0.5 for s in shapes)
    check_dot_product(ufunc, (a, b))
