"""NumPy reverse rules outside their domain raise clear fwdad errors."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError


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
