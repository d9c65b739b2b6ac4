"""The quick paths batched tangents take (jacfwd's workload): rolls, in-place `+=` and
`-=` on tangents, indexing views, and the seeds and blocks of jacfwd. Each program is
checked by test_rule: central differences in float64, and a batch of tangents against
the same tangents one at a time."""
import numpy as np
import pytest

import fwdad
from fwdad import seeds, testing
from fwdad.rules.shapes import batched_roll

X = np.array([0.3, -1.2, 0.5, 2.0, 0.7])
GLOBAL = np.array([1.0, 2.0, 3.0, 4.0, 5.0])


def rolls(x):
    return np.roll(x, 1) + 2.0 * np.roll(x, -3) + np.roll(x, 0) * np.roll(x, 7)


def rolls_of_a_matrix(x):
    m = np.outer(x, x[:3])
    return np.roll(m, 2, axis=1) - np.roll(m, -1, 0) + np.roll(m, 1) + \
        np.roll(m, (1, 2), axis=(0, 1))


def add_into_a_view(x):
    r = x * 2.0
    r[1:-1] += (x[2:] - x[:-2]) / 0.5
    return r


def subtract_overlapping_views(x):
    r = x * x
    r[1:] -= r[:-1]
    return r


def add_itself(x):
    r = x * x
    r += r
    return r


def add_constants(x):
    r = x * 1.5
    r += 2.0
    r -= np.ones(5)
    r += 3
    r -= np.arange(5)
    return r


def add_broadcast(x):
    m = np.outer(x, x)
    m += x
    m -= x[0]
    m[0] += x[1] * x[2]
    return m


def add_into_new_arrays(x):
    r = np.zeros(5)
    r += x
    r -= 0.5 * x
    g = GLOBAL.copy()
    g += x * x
    return r * g


def index_views(x):
    m = np.outer(x, x)
    return m[1] + m[:, 0] + m[0, ::2].sum() + m[[0, 1], [1, 2]].sum() + m[:, 2] * m[3, 4]


PROGRAMS = [rolls, rolls_of_a_matrix, add_into_a_view, subtract_overlapping_views,
            add_itself, add_constants, add_broadcast, add_into_new_arrays, index_views]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
def test_program_batched_and_one_at_a_time(program):
    testing.test_rule(program, X)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
def test_jacfwd_of_program_against_central_differences(program):
    jac = fwdad.jacfwd(program)(X)
    columns = [(program(X + 1e-6 * e) - program(X - 1e-6 * e)) / 2e-6 for e in np.eye(5)]
    np.testing.assert_allclose(jac, np.stack(columns, axis=-1), rtol=1e-6, atol=1e-7)


ROLLS = [((5,), 1, 0), ((5,), -7, 0), ((5,), 0, -1), ((3, 4), 2, 1), ((3, 4), -1, -2),
         ((2, 0, 3), 1, 1), ((4, 1), 3, 1)]


@pytest.mark.parametrize("shape, shift, axis", ROLLS)
def test_batched_roll_is_the_roll_of_each_tangent(shape, shift, axis):
    rng = np.random.default_rng(0)
    x, dx = rng.standard_normal(shape), rng.standard_normal((3,) + shape)
    got = batched_roll(np.roll(x, shift, axis=axis), x, dx, shift, axis=axis)
    assert np.array_equal(got, np.stack([np.roll(t, shift, axis=axis) for t in dx]))


def test_seeds_are_the_rows_of_the_identity_in_any_chunks():
    leaves, total = seeds.leaves_of((np.ones(3), 2.0, np.ones((2, 2)), 4))
    identity = np.eye(total)
    for start, stop in [(0, 8), (0, 1), (2, 5), (3, 4), (4, 8), (7, 8)]:
        rows = [np.reshape(s, (stop - start, -1)) for s in seeds.seed(leaves, start, stop)
                if s is not fwdad.NoTangent]
        assert np.array_equal(np.concatenate(rows, axis=1), identity[start:stop])


def constant_output(x):
    return GLOBAL


def test_jacobians_are_writeable_and_do_not_share_memory():
    jac = fwdad.jacfwd(add_into_a_view)
    first, second = jac(X), jac(X)
    assert not np.shares_memory(first, second)
    zero = fwdad.jacfwd(constant_output)(X)
    assert zero.flags.writeable and not zero.any()


def axis_given_by_position(x):
    m = np.outer(x, x[:3])
    return np.roll(m, -1, 0) + np.take(m, [2, 0], 1).sum() + np.repeat(m, 2, 0)[::2]


def test_axis_given_by_position_batched_and_one_at_a_time():
    testing.test_rule(axis_given_by_position, X)
