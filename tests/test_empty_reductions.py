"""Reductions of empty arrays, which real code meets when a filter keeps nothing: the
result is empty, or `initial` alone, whose derivative it then carries (forward mode
raised NumPy's reshape and argmax errors)."""
import numpy as np
import pytest

import fwdad

EMPTY = np.zeros((0, 3))


def max_or_floor(c):
    return np.max(EMPTY * c, axis=0, initial=c * c) + np.min(EMPTY, axis=0, initial=c)


def products_or_start(c):
    return np.prod(EMPTY + c, axis=0, initial=np.sin(c))


def reduced_rows(x):
    return np.sum(np.max(x, axis=1)) + np.sum(np.prod(x, axis=1)) + np.sum(np.ptp(x, axis=1))


@pytest.mark.parametrize("f, want", [(max_or_floor, lambda c: np.full(3, 2 * c + 1)),
                                     (products_or_start, lambda c: np.full(3, np.cos(c)))],
                         ids=["max-min", "prod"])
@pytest.mark.parametrize("mode", ["jvp", "grad-of-sum"])
def test_initial_carries_the_derivative_of_an_empty_reduction(f, want, mode):
    c = 0.7
    if mode == "jvp":
        got = fwdad.jvp(f, (c,), (1.0,))[1]
    else:
        got = np.full(3, fwdad.grad(lambda c: np.sum(f(c)))(c) / 3)
    np.testing.assert_allclose(got, want(c), rtol=1e-12)


def test_rows_of_an_empty_matrix():
    value, derivative = fwdad.jvp(reduced_rows, (EMPTY,), (EMPTY,))
    assert value == 0.0 and derivative == 0.0
    assert fwdad.grad(reduced_rows)(EMPTY).shape == (0, 3)
