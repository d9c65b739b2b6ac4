"""The builtin rules added for rule code (tuple, list, zip, enumerate, dict), checked
like any rule: primal, finite differences and a batch of tangents (test_rule)."""
import numpy as np
import pytest

from fwdad.testing import test_rule as check_rule


def make_tuple(xs):
    return tuple(xs)[1] * 2.0


def make_list(a):
    return list(a)[0] * list(a)[2]


def zipped(xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        total = total + x * y
    return total


def enumerated(xs):
    total = 0.0
    for i, x in enumerate(xs):
        total = total + i * x
    return total


def keywords(x, y):
    table = dict(a=x, b=y)
    return table["a"] * table["b"]


def from_pairs(x, y):
    table = dict([("a", x), ("b", y)])
    return dict(table, c=x)["c"] + table["b"]


CASES = [(make_tuple, ([0.5, 1.5, 2.5],)), (make_list, (np.array([0.5, -1.0, 2.0]),)),
         (zipped, ([0.5, 1.5], (2.0, -1.0))), (enumerated, ([0.5, 1.5, 2.5],)),
         (keywords, (0.3, 1.7)), (from_pairs, (0.3, 1.7))]


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_builtin_rule(f, args):
    check_rule(f, *args)


@pytest.mark.parametrize("fn", [tuple, list])
def test_container_builtins_as_primitives(fn):
    check_rule(fn, [0.5, 1.5])


def zip_is_lazy(xs, ys):
    pairs = zip(xs, ys)
    numbered = enumerate(ys)
    first = sum([x * y for x, y in pairs]) + sum([i * y for i, y in numbered])
    assert list(pairs) == [] and list(numbered) == []  # used up, as in Python
    return first


def test_zip_and_enumerate_are_lazy():
    check_rule(zip_is_lazy, [1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
