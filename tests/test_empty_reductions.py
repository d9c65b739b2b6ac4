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


def batched_products(x, w):
    return np.sum(np.matmul(x, w)) + np.sum(np.matvec(x, w[:, 0]))


def running_extremes(x):
    return np.sum(np.maximum.accumulate(x, axis=1)) + np.sum(np.minimum.accumulate(x))


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value")
@pytest.mark.parametrize("f, shapes", [
    (batched_products, [(0, 2, 2), (2, 3)]), (running_extremes, [(2, 0)]),
    (lambda x: np.sum(np.median(x, axis=0)) + np.median(x), [(0, 3)])],
    ids=["matmul", "accumulate", "median"])
def test_gradients_through_empty_arrays(f, shapes):
    """The gradient of an empty argument is empty, and of the others what their part
    of the sum gives (reverse mode raised a reshape error, ZeroDivisionError and
    IndexError): checked by the dot-product test against jvp."""
    args = [np.zeros(s) for s in shapes]
    if f is batched_products:  # (w's gradient is zero: x is empty)
        args[1] = np.ones((2, 3))
    tangents = [np.full(s, 0.5) for s in shapes]
    for at in range(len(args)):
        got = fwdad.grad(f, argnums=at)(*args)
        assert got.shape == args[at].shape
        only = [t if i == at else np.zeros_like(t) for i, t in enumerate(tangents)]
        assert np.sum(got * tangents[at]) == fwdad.jvp(f, tuple(args), tuple(only))[1]


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value")
def test_the_gradient_of_the_mean_of_nothing_is_empty():
    """(reverse mode divided by a count of zero)"""
    assert fwdad.grad(np.mean)(np.zeros((0, 3))).shape == (0, 3)


def tiled_and_squared(x, w):
    return np.sum(np.tile(x, (2, 2))) + np.sum(w ** 3)


def gradients(x, w):
    gx, gw = fwdad.grad(tiled_and_squared, argnums=(0, 1))(x, w)
    return np.concatenate([gx, gw])


def test_a_gradient_inside_a_derivative_with_respect_to_an_empty_array():
    """grad taken inside jvp (level 2) stacked no column for the empty argument (a
    ValueError from np.stack); its block is empty, and the other's is 3 w^2."""
    w, tw = np.array([0.5, -1.0]), np.array([1.0, 2.0])
    value, tangent = fwdad.jvp(gradients, (np.zeros(0), w), (np.zeros(0), tw))
    np.testing.assert_allclose(value, 3 * w ** 2, rtol=1e-14)
    np.testing.assert_allclose(tangent, 6 * w * tw, rtol=1e-14)
