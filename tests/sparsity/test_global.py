"""Global mode: a pattern valid for every input, or a refusal naming the user's line."""
import inspect
import math

import numpy as np
import pytest

import fwdad
from fwdad import ValueDependentPatternError
from tests.sparsity.reference import pattern_and_nonzeros


def branch(x):
    if x[0] > 0:  # the line the error must name
        return x * 2.0
    return x[::-1]


def loop_on_values(x):
    while np.sum(x) < 10.0:
        x = x * 2.0
    return x


def index_from_values(x):
    return x[np.argmax(x)] * x


def mask_from_values(x):
    return x[x > 0]


def count_from_values(x):
    total = 0.0
    for i in range(int(x[0])):
        total = total + x[i]
    return total


def python_float(x):
    return math.sin(x[0]) * x


def written_into_a_constant(x, c):
    c[0] = x[0]
    if c[0] > 0:
        return x
    return -x


# (the function, what the message says, the text of the line it must name)
REFUSED = [(branch, "a branch on values", "if x[0] > 0"),
           (loop_on_values, "a branch on values", "while np.sum(x)"),
           (index_from_values, "an index", "x[np.argmax(x)]"),
           (mask_from_values, "an index", "x[x > 0]"),
           (count_from_values, "Python int", "range(int(x[0]))"),
           (python_float, "Python float", "math.sin(x[0])")]


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("fn, what, text", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_global_mode_refuses_value_dependent_code_at_its_line(fn, what, text):
    x = np.array([3.5, -1.0, 2.0, 0.5])
    with pytest.raises(ValueDependentPatternError) as err:
        fwdad.jacobian_sparsity(fn, x, mode="global")
    message = str(err.value)
    assert what in message and "mode='local'" in message
    assert f"test_global.py:{_line_of(fn, text)}:" in message


@pytest.mark.parametrize("fn", [branch, index_from_values, count_from_values, python_float])
def test_local_mode_takes_the_way_these_values_take(fn):
    x = np.array([3.5, -1.0, 2.0, 0.5])
    pattern, nonzeros = pattern_and_nonzeros(fn, x)
    np.testing.assert_array_equal(pattern, nonzeros)


def test_python_floats_are_followed_locally():
    pattern, nonzeros = pattern_and_nonzeros(lambda x: float(np.sum(x[1:])) * x[0],
                                             np.array([0.5, 1.0, 2.0]))
    np.testing.assert_array_equal(pattern, nonzeros)


def test_a_value_written_into_an_argument_not_differentiated_is_refused():
    with pytest.raises(ValueDependentPatternError, match="not differentiated"):
        fwdad.jacobian_sparsity(written_into_a_constant, np.ones(3), np.zeros(3),
                                mode="global")


def fixed_loops(x):
    y = x.copy()
    for _ in range(3):
        y = 0.5 * (y + np.roll(y, 1))
    n = 0
    while n < 2:  # a counter, not a value of x
        y[n] = y[n] * x[-1]
        n += 1
    return y[: x.shape[0] - 1]


def test_loops_with_a_fixed_trip_count_are_fine():
    x = np.linspace(0.5, 1.0, 6)
    pattern, nonzeros = pattern_and_nonzeros(fixed_loops, x, mode="global")
    np.testing.assert_array_equal(pattern, nonzeros)


def selections(x):
    return np.where(x > 0, x, 2.0 * x[::-1]) + np.max(x) + np.clip(x, -0.5, 0.5)


def test_global_patterns_take_both_ways_of_a_selection():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(5)
    global_ = fwdad.jacobian_sparsity(selections, x, mode="global").toarray()
    local = fwdad.jacobian_sparsity(selections, x, mode="local").toarray()
    assert (global_ >= local).all() and global_.sum() > local.sum()
    for _ in range(20):
        _, nonzeros = pattern_and_nonzeros(selections, x, at=(rng.standard_normal(5),))
        assert not (nonzeros & ~global_).any()


def test_an_unknown_mode_is_an_error():
    with pytest.raises(fwdad.FwdadError, match="'local' or 'global'"):
        fwdad.jacobian_sparsity(np.sin, np.ones(2), mode="both")
