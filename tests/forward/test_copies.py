"""copy.copy and copy.deepcopy in forward mode (fwdad/rules/copies.py): the tangent is
copied as the value is, so writes into the copy reach the original's tangent exactly
where they reach its value. Checked against central differences, single and batched."""
import copy
from dataclasses import dataclass

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.util import assert_close, central_gradient


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


@dataclass
class Record:
    a: float
    b: np.ndarray


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b


class CopiesItself(Pair):
    def __copy__(self):
        return CopiesItself(self.a * 2.0, self.b)


class DeepCopiesItself(Pair):
    def __deepcopy__(self, memo):
        return DeepCopiesItself(self.a, self.b)


def shallow_shares_arrays(x):
    p = Pair(x[0], x[1:] * 2.0)
    q = copy.copy(p)
    q.a = q.a * 3.0  # the copy's own field
    q.b[0] = q.b[0] * q.a  # p.b too: the array is shared
    return p.a * q.a + (q.b * p.b).sum()


def shallow_dataclass(x):
    d = Record(x[0], x[1:] * 1.0)
    e = copy.copy(d)
    e.b[0] = e.b[0] * 2.0
    return d.b.sum() * e.a


def shallow_slots(x):
    s = Slotted(x[0], x[1:] * 1.0)
    t = copy.copy(s)
    t.a = t.a * 2.0
    return s.a * t.a + t.b.sum()


def shallow_own_copy(x):
    return copy.copy(CopiesItself(x[0], x[1:])).a * x[2]


def deep_lists(x):
    items = [x[0], [x[1], x[2]]]
    d = copy.deepcopy(items)
    d[1][0] = d[1][0] * 4.0  # not items[1]
    return items[1][0] * d[1][0] + d[0]


def deep_keeps_what_is_shared(x):
    a = x * 2.0
    q = copy.deepcopy(Pair(a, a))
    q.a[0] = q.a[0] * 3.0  # q.b is q.a
    return (q.b * a).sum()


GLOBAL = Pair(1.5, np.array([1.0, 2.0]))


def deep_copy_of_a_global(x):
    q = copy.deepcopy(GLOBAL)
    q.b[0] = x[0] * 2.0  # the copy is the function's own: it may carry a derivative
    q.a = q.a * x[1]
    return q.a * q.b.sum() + GLOBAL.b.sum() * x[2]


@pytest.mark.parametrize("f", [shallow_shares_arrays, shallow_dataclass, shallow_slots,
                               shallow_own_copy, deep_lists, deep_keeps_what_is_shared,
                               deep_copy_of_a_global], ids=lambda f: f.__name__)
def test_copies_against_central_differences(f):
    x = np.array([0.3, -1.2, 0.8])
    want = central_gradient(f, x)
    assert_close(fwdad.jacfwd(f)(x), want)
    direction = np.array([1.0, 2.0, -0.5])
    assert_close(fwdad.jvp(f, (x,), (direction,))[1], want @ direction)
    assert_close(fwdad.grad(f)(x), want)  # (reverse mode, for comparison)
    assert GLOBAL.a == 1.5 and list(GLOBAL.b) == [1.0, 2.0]


def test_a_class_that_deep_copies_itself_is_refused():
    def f(x):
        return copy.deepcopy(DeepCopiesItself(x[0], [x[1]])).a

    with pytest.raises(FwdadError, match=r"DeepCopiesItself in \S+ at .*test_copies.py:\d+, "
                                         r"whose class defines __deepcopy__"):
        fwdad.jacfwd(f)(np.array([0.3, -1.2]))
