"""Reverse mode: builtins that consume (and iter and next on) an instance of a user
iterator class (its `__iter__` and `__next__` in Python) run those methods by their
reverse rules, as a `for` loop over it does (fwdad/reverse/iteration.py); they were
refused with a message about `**` reaching code without a rule. Against the closed form
and forward mode."""
import functools
import itertools
import math

import numpy as np
import pytest

import fwdad


class Powers:
    """x, x**2, ..., x**n."""

    def __init__(self, x, n):
        self.x, self.n, self.k = x, n, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.k >= self.n:
            raise StopIteration
        self.k += 1
        return self.x ** self.k


class Bag:
    """An iterable whose __iter__ hands out a separate iterator."""

    def __init__(self, x):
        self.x = x

    def __iter__(self):
        return Powers(self.x, 3)


def _by_hand(x):
    it = iter(Powers(x, 2))
    first = next(it)
    return first + next(it) + next(it, 10.0)  # (exhausted: the default)


CONSUMERS = [  # (name, f, d f / dx at x = 2: closed form)
    ("sum", lambda x: sum(Powers(x, 3)), 1 + 4 + 12),
    ("sum start", lambda x: sum(Bag(x), 1.0), 1 + 4 + 12),
    ("list", lambda x: list(Powers(x, 3))[2], 12),
    ("tuple", lambda x: tuple(Bag(x))[1], 4),
    ("sorted", lambda x: sorted(Powers(x, 3))[-1], 12),
    ("max", lambda x: max(Powers(x, 3)), 12),
    ("min", lambda x: min(Bag(x)), 1),
    ("enumerate", lambda x: [k * v for k, v in enumerate(Powers(x, 3))][2], 24),
    ("zip", lambda x: [a * b for a, b in zip(Powers(x, 2), Bag(x))][1], 4 * 4 * 2),
    ("map", lambda x: sum(map(math.sin, Powers(x, 1))), math.cos(2.0)),
    ("filter", lambda x: sum(filter(lambda v: v > 3.0, Powers(x, 3))), 4 + 12),
    ("reduce", lambda x: functools.reduce(lambda a, b: a * b, Powers(x, 3)), 6 * 2 ** 5),
    ("accumulate", lambda x: list(itertools.accumulate(Powers(x, 2)))[-1], 1 + 4),
    ("math.fsum", lambda x: math.fsum(Powers(x, 3)), 1 + 4 + 12),
    ("math.prod", lambda x: math.prod(Bag(x)), 6 * 2 ** 5),
    ("iter and next", _by_hand, 1 + 4),
]


@pytest.mark.parametrize("name, f, want", CONSUMERS, ids=[c[0] for c in CONSUMERS])
def test_a_builtin_consuming_a_user_iterator(name, f, want):
    assert np.isclose(fwdad.grad(f)(2.0), want, rtol=1e-12)
    assert np.isclose(fwdad.jvp(f, (2.0,), (1.0,))[1], want, rtol=1e-12)
