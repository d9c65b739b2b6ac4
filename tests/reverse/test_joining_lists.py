"""np.concatenate / np.stack of a sequence holding a list of values with derivatives
beside arrays (`np.concatenate(([x[0]], 2 * x))`): reverse mode lost the cotangents of
the array items (jacrev gave rows of zeros), and a batch of tangents (jacfwd) raised an
IndexError when the list's items came from an array made by a rule (np.atleast_1d).
Against the closed-form Jacobian, in both modes."""
import numpy as np
import pytest

import fwdad

X = np.array([0.3, -1.2, 0.5])


def _first_then_doubled(x):
    return np.concatenate(([0.5, x[0]], x * 2.0))


def _doubled_then_a_constant_item(x):
    constants = np.atleast_1d([0.5, -1.0])
    return np.concatenate((x * 2.0, [constants[1]]))


def _stacked_with_a_list(x):
    return np.stack([x * 2.0, [x[2], x[1], 0.5]])


WANT = {
    _first_then_doubled: np.vstack([np.zeros(3), [1.0, 0.0, 0.0], 2.0 * np.eye(3)]),
    _doubled_then_a_constant_item: np.vstack([2.0 * np.eye(3), np.zeros(3)]),
    _stacked_with_a_list: np.stack([2.0 * np.eye(3), [[0, 0, 1.0], [0, 1.0, 0], [0, 0, 0]]]),
}


@pytest.mark.parametrize("f", list(WANT), ids=lambda f: f.__name__)
@pytest.mark.parametrize("jacobian", [fwdad.jacfwd, fwdad.jacrev])
def test_the_jacobian_is_the_closed_form(f, jacobian):
    np.testing.assert_array_equal(jacobian(f)(X), WANT[f])
