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


@pytest.mark.parametrize("f, x, expected", [r for r in ROWS if r[0] is not _std_rows
                                            or len(r[1][0]) == 1],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_forward_mode_agrees_where_the_derivative_exists(f, x, expected):
    """Where std is 0 for every input nearby (one value, x - x), forward mode gives the
    same 0; where equal values could part, it gives NaN along directions that part them
    (tests/rules/test_core_rules.py), so those rows are left out here."""
    x = np.array(x)
    forward = fwdad.jacfwd(f)(x)
    if f is _nanstd_rows:
        if np.isnan(x).any():
            forward = np.where(np.isnan(x), 0.0, forward)
        else:
            return
    np.testing.assert_array_equal(forward, expected)
