"""The unique values of a float array (np.unique, np.unique_values, unique_counts,
unique_inverse, unique_all) are elements of it: where no two elements are equal, each
value carries its element's derivative, in both modes and at second order (against
closed forms); a tie among values with a derivative is refused in both modes, naming
the user's line (a perturbation splits a repeated value: no derivative there)."""
import numpy as np
import pytest

import fwdad

X = np.array([[0.7, -0.2, 1.5], [0.1, 2.0, -1.1]])
T = np.array([[1.0, 0.5, -2.0], [0.3, 0.0, 1.0]])
UNIQUE = [np.unique, np.unique_values,
          lambda a: np.unique(a, return_counts=True, return_index=True)[0],
          lambda a: np.unique_counts(a).values, lambda a: np.unique_inverse(a).values,
          lambda a: np.unique_all(a).values]


def _sorted_tangent(x, t):
    order = np.argsort(x, axis=None)
    return np.ravel(t)[order]


@pytest.mark.parametrize("unique", UNIQUE)
def test_unique_values_carry_their_elements_derivatives(unique):
    out, tangent = fwdad.jvp(unique, (X,), (T,))
    np.testing.assert_array_equal(np.sort(out), np.sort(X, axis=None))
    order = np.argsort(out)  # (unique_values' order is NumPy's to choose)
    np.testing.assert_array_equal(tangent[order], _sorted_tangent(X, T))

    def loss(x):
        return np.sum(unique(x) ** 3)
    np.testing.assert_allclose(fwdad.grad(loss)(X), 3 * X ** 2, rtol=1e-12)
    np.testing.assert_allclose(fwdad.jacfwd(loss)(X), 3 * X ** 2, rtol=1e-12)
    np.testing.assert_allclose(fwdad.hessian(loss)(X).reshape(6, 6),
                               np.diag(6 * np.ravel(X)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("unique", UNIQUE)
def test_a_tie_is_refused_in_both_modes(unique):
    ties = np.array([0.5, 2.0, 0.5])
    with pytest.raises(fwdad.NonDifferentiableError, match="test_unique.py.*two of "
                       "whose elements are equal"):
        fwdad.jvp(lambda x: unique(x) * 1.0, (ties,), (np.array([1.0, 0.0, 2.0]),))
    with pytest.raises(fwdad.NonDifferentiableError, match="test_unique.py.*two of "
                       "whose elements are equal"):
        fwdad.grad(lambda x: np.sum(unique(x)))(ties)


def test_tied_elements_with_equal_tangents_move_together():
    """Forward mode sees the tangents: constants tied (zero tangents), or one value
    used twice, stay tied along the tangent, and the value's derivative is theirs."""
    def f(x):
        return np.unique(np.array([x[0], 1.0, 1.0, x[1], x[1]]))
    x = np.array([3.0, 2.0])
    _, tangent = fwdad.jvp(f, (x,), (np.array([1.0, 5.0]),))
    np.testing.assert_array_equal(tangent, [0.0, 5.0, 1.0])
    np.testing.assert_array_equal(fwdad.jacfwd(f)(x), [[0, 0], [0, 1], [1, 0]])


def test_two_nans_are_a_tie_and_axis_is_refused():
    with pytest.raises(fwdad.NonDifferentiableError, match="equal"):
        fwdad.jvp(np.unique_values, (np.array([np.nan, 1.0, np.nan]),),
                  (np.array([1.0, 2.0, 3.0]),))
    with pytest.raises(fwdad.NonDifferentiableError, match="axis="):
        fwdad.grad(lambda x: np.sum(np.unique(x, axis=0)))(X)
