"""In-place updates and aliasing, end to end: each program of tests/numpy/programs.py is
checked by test_rule (output and final argument state, primal and tangent, against
central differences of the same mutating code, and a batch of tangents), and jvp
leaves the caller's array exactly as a plain call does."""
import copy

import numpy as np
import pytest

import fwdad
from fwdad import testing
from tests.numpy.programs import PROGRAMS

X = np.array([0.3, -1.2, 0.5, 2.0])


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
def test_rule_of_a_mutating_program(program):
    testing.test_rule(program, X)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
def test_rule_of_a_mutating_program_one_tangent_at_a_time(program):
    testing.test_rule(program, X, batch=0)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
def test_jvp_leaves_the_callers_array_as_a_plain_call(program):
    plain = X.copy()
    want = program(plain)
    mine = X.copy()
    out, _ = fwdad.jvp(program, (mine,), (np.ones(4),))
    assert np.array_equal(mine, plain)
    assert np.allclose(out, want, rtol=1e-14, atol=0)


def test_the_tangent_of_a_view_is_a_view_of_the_tangent():
    def f(x):
        v = x[1:3]
        v[0] = 10.0 * x[0]
        return x
    x = np.array([1.0, 2.0, 3.0])
    out, dout = fwdad.jvp(f, (x.copy(),), (np.array([1.0, 0.0, 0.0]),))
    assert np.array_equal(out, [1.0, 10.0, 3.0])
    assert np.array_equal(dout, [1.0, 10.0, 0.0])


def test_repeated_indices_last_write_wins_and_add_at_accumulates():
    def f(x):
        y = np.zeros(2)
        y[[0, 0]] = x          # the last write wins: y[0] = x[1]
        z = np.zeros(2)
        np.add.at(z, [0, 0], x)  # accumulates: z[0] = x[0] + x[1]
        return np.concatenate([y, z])
    out, dout = fwdad.jvp(f, (np.array([1.0, 2.0]),), (np.array([1.0, 10.0]),))
    assert np.array_equal(out, [2.0, 0.0, 3.0, 0.0])
    assert np.array_equal(dout, [10.0, 0.0, 11.0, 0.0])


def test_batched_values_into_an_array_made_inside():
    """An array made inside the function has an unbatched zero tangent; writing a
    batched value into it gives it a batch axis (test_rule batches every program)."""
    def f(x):
        out = np.zeros(3)
        out[1] = x[0] * x[1]
        out[2:] = x[1:2]
        return out
    testing.test_rule(f, np.array([0.4, 1.5]), batch=4)


def test_mutation_of_an_input_with_a_copy_made_first():
    x = np.array([0.3, -1.2, 0.5, 2.0])
    keep = copy.deepcopy(x)
    fwdad.jvp(lambda x: x.copy().sort(), (x,), (np.ones(4),))
    assert np.array_equal(x, keep)
