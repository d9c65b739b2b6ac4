"""Dependency sets: arithmetic is the union and never cancels."""
import numpy as np
import pytest

from fwdad.sparsity.deps import Deps, bits_of, indices, seeds


def test_arithmetic_is_the_union():
    a, b = Deps(0b011), Deps(0b110)
    for result in (a + b, a - b, a * b, a / b, b - a):
        assert result.bits == 0b111


def test_cancellation_and_zero_factors_keep_the_sets():
    a = Deps(0b101)
    assert (a - a).bits == 0b101
    assert (0.0 * a).bits == (a * 0).bits == (-a).bits == 0b101


def test_numbers_are_the_empty_set_and_sets_are_not_numbers():
    assert bits_of(0.0) == 0 and bits_of(Deps(4)) == 4
    assert not Deps(0) and Deps(1)
    with pytest.raises(TypeError, match="not a number"):
        float(Deps(1))


def test_arrays_of_sets_broadcast_like_numbers():
    x = seeds((3,), 0)
    y = (np.ones((2, 1)) * x).sum(axis=0) + x[::-1]
    assert [item.bits for item in y] == [0b101, 0b010, 0b101]


def test_seeds_count_from_their_offset_in_c_order():
    x = seeds((2, 2), 3)
    assert [item.bits for item in x.ravel()] == [1 << 3, 1 << 4, 1 << 5, 1 << 6]
    assert seeds((), 2).bits == 4


def test_indices_of_a_mask():
    np.testing.assert_array_equal(indices(0b1001001, 9), [0, 3, 6])
    assert indices(0, 5).size == 0
