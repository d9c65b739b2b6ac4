"""A property read through `super()` (an override that extends its parent's property),
found by the fuzzer's classes construct (tests/fuzz/classes.py): the parent's getter ran
as plain code on the object super wraps, so the derivative through it was lost at
every order. Each mode is checked against the closed form."""
import numpy as np
import pytest

import fwdad
from fwdad.higher import Directional
from tests.util import assert_close

X = np.array([0.3, -0.2, 0.5])
T = np.array([1.0, 0.5, -0.25])


class Base:
    def __init__(self, a):
        self._a = a

    @property
    def value(self):
        return self._a * self._a


class Mid(Base):
    @property
    def value(self):  # sin(a^2)
        return np.sin(super().value)


class Child(Mid):
    @property
    def value(self):  # 2 sin(a^2) + a^3, through both parents
        return super().value * 2.0 + super(Mid, self).value * self._a


def through_super(x):
    return np.sum(Child(x * 1.0).value)


def _first(x):
    return 4.0 * x * np.cos(x * x) + 3.0 * x * x


def _second(x):
    return 4.0 * np.cos(x * x) - 8.0 * x * x * np.sin(x * x) + 6.0 * x


def _third(x):
    return -24.0 * x * np.sin(x * x) - 16.0 * x ** 3 * np.cos(x * x) + 6.0


def test_jvp_and_gradient():
    assert_close(fwdad.jvp(through_super, (X.copy(),), (T,))[1], np.sum(_first(X) * T))
    assert_close(fwdad.grad(through_super)(X.copy()), _first(X))
    assert_close(fwdad.jacrev(through_super)(X.copy()), _first(X))


@pytest.mark.parametrize("mode", ["hessian", "hvp", "jacfwd of jacfwd", "jacrev of jacfwd"])
def test_second_order(mode):
    if mode == "hessian":
        got = fwdad.hessian(through_super)(X.copy()) @ T
    elif mode == "hvp":
        got = fwdad.hvp(through_super, (X.copy(),), (T,))[0]
    elif mode == "jacfwd of jacfwd":
        got = fwdad.jacfwd(fwdad.jacfwd(through_super))(X.copy()) @ T
    else:
        got = fwdad.jacrev(fwdad.jacfwd(through_super))(X.copy()) @ T
    assert_close(got, _second(X) * T)


def test_third_order():
    third = Directional(Directional(Directional(through_super, (T,)), (T,)), (T,))
    assert_close(third(X.copy()), np.sum(_third(X) * T ** 3))


def scaled_through_super(x, k):
    """The outer derivative along another argument than the inner one (jacfwd of a
    directional derivative along x, with respect to k) took a path of its own."""
    return np.sum(Child(x * k).value)


def test_forward_over_forward_along_another_argument():
    k = 0.7
    got = fwdad.jacfwd(Directional(scaled_through_super, (T, 0.0)), argnums=1)(X.copy(), k)
    # d/dk of sum(f'(k x) k T) = sum(f''(k x) x k T + f'(k x) T)
    assert_close(got, np.sum(_second(k * X) * X * k * T + _first(k * X) * T))
