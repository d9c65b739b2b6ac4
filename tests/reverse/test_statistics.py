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


def _std_of_a_difference(x):
    return np.std(x - x)


# (f, x, the gradient): where std is 0 the gradient is the subgradient 0, which is the
# gradient for a group of one value (std is 0 whatever it is) and for x - x; elsewhere
# the closed form (x - mean) / (n std)
ROWS = [
    (_std_rows, [[1.5], [2.0]], [[0.0], [0.0]]),
    (_std_all, [0.5], [0.0]),
    (_nanstd_rows, [[1.5, np.nan], [2.0, 3.0]], [[0.0, 0.0], [-0.5, 0.5]]),
    (_std_rows, [[1.0, 1.0], [2.0, 3.0]], [[0.0, 0.0], [-0.5, 0.5]]),
    (_nanstd_rows, [[1.0, 1.0], [2.0, 3.0]], [[0.0, 0.0], [-0.5, 0.5]]),
    (_std_of_a_difference, [1.0, 2.0, 4.0], [0.0, 0.0, 0.0]),
]


@pytest.mark.parametrize("f, x, expected", ROWS, ids=lambda v: getattr(v, "__name__", ""))
def test_gradient_of_std_at_zero_spread(f, x, expected):
    np.testing.assert_array_equal(fwdad.grad(f)(np.array(x)), expected)


@pytest.mark.parametrize("f, x, expected", ROWS, ids=lambda v: getattr(v, "__name__", ""))
def test_forward_mode_agrees(f, x, expected):
    """Forward mode gives the same 0 where std is 0: for one value and x - x, where it is
    the derivative, and where equal values could part, where it is the subgradient both
    modes take (docs/errors-and-debugging.md, "Kinks")."""
    np.testing.assert_array_equal(fwdad.jacfwd(f)(np.array(x)), expected)
