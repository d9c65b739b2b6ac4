"""Reverse rules of std and nanstd where the spread is 0, against the closed form and the
forward rule (tests/rules/test_core_rules.py checks the forward side)."""
import numpy as np
import pytest

import fwdad


def _std_rows(x):
    return np.sum(np.std(x, axis=1))


def _nanstd_rows(x):
    return np.sum(np.nanstd(x, axis=1))


def _std_all(x):
    return np.std(x)


# (f, x, the gradient): a group of one value has std 0 whatever the value, so gradient 0;
# equal values have no derivative (std(x + h t) = |h| std(t)): NaN, as jvp gives
ROWS = [
    (_std_rows, [[1.5], [2.0]], [[0.0], [0.0]]),
    (_std_all, [0.5], [0.0]),
    (_nanstd_rows, [[1.5, np.nan], [2.0, 3.0]], [[0.0, 0.0], [-0.5, 0.5]]),
    (_std_rows, [[1.0, 1.0], [2.0, 3.0]], [[np.nan, np.nan], [-0.5, 0.5]]),
]


@pytest.mark.parametrize("f, x, expected", ROWS, ids=lambda v: getattr(v, "__name__", ""))
def test_gradient_of_std_at_zero_spread(f, x, expected):
    x = np.array(x)
    with np.errstate(invalid="ignore"):
        grad = fwdad.grad(f)(x)
        forward = fwdad.jacfwd(f)(x)
    np.testing.assert_array_equal(grad, expected)
    np.testing.assert_array_equal(np.where(np.isnan(x), 0.0, forward), expected)
