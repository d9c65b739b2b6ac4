"""Attributes that a class reads through a hook, `__getattr__` (a record that keeps its
fields in a dict) or a Python descriptor's `__get__`, at second order: level 2 read them
as plain fields, so forward over forward (jacfwd of a jvp, jacfwd of jacfwd) lost the
cross term of the field's two tangents. Found by the fuzzer's classes construct
(tests/fuzz/classes.py). Against differences of the gradient (reverse mode, which had
them right)."""
import numpy as np
import pytest

import fwdad
from fwdad.higher import Directional
from tests.util import assert_close

X = np.array([0.3, -0.2, 0.5])
T = np.array([1.0, 0.5, -0.25])
K = 0.7


class Record:
    """Fields kept in a dict, set through __setattr__, read through __getattr__."""

    def __init__(self):
        object.__setattr__(self, "store", {})

    def __setattr__(self, name, value):
        self.store[name] = value * 1.0

    def __getattr__(self, name):
        return self.store[name]


def through_getattr(x, k):
    r = Record()
    r.a = x * k
    r.b = np.sin(r.a)
    return np.sum(r.a * r.b)


class Scaled:
    """A descriptor: reads the owner's `raw` field, scaled."""

    def __get__(self, obj, kind=None):
        return obj.raw * 2.0


class Holder:
    twice = Scaled()

    def __init__(self, raw):
        self.raw = raw


def through_descriptor(x, k):
    return np.sum(np.cos(Holder(x * k).twice) * x)


def _differences_of_gradient(f, along, h=1e-5):
    grad = fwdad.grad(f, (0, 1))
    plus = grad(X + h * along[0], K + h * along[1])
    minus = grad(X - h * along[0], K - h * along[1])
    return [(p - m) / (2 * h) for p, m in zip(plus, minus)]


@pytest.mark.parametrize("f", [through_getattr, through_descriptor],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("along", [(T, 0.0), (np.zeros(3), 1.0)], ids=["x", "k"])
def test_jacfwd_of_a_directional_derivative(f, along):
    want = _differences_of_gradient(f, along)
    got = fwdad.jacfwd(Directional(f, along), argnums=(0, 1))(X.copy(), K)
    assert_close(got[0], want[0], rtol=1e-6, atol=1e-8)
    assert_close(got[1], want[1], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [through_getattr, through_descriptor],
                         ids=lambda f: f.__name__)
def test_jacfwd_of_jacfwd(f):
    want = _differences_of_gradient(f, (T, 0.0))[0]
    got = fwdad.jacfwd(fwdad.jacfwd(lambda x: f(x, K)))(X.copy()) @ T
    assert_close(got, want, rtol=1e-6, atol=1e-8)
