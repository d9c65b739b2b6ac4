"""Second derivatives through creating instances: user classes, dataclasses (frozen
too), NamedTuples, `with` on a user manager and on contextlib.nullcontext, property
setters. Each Hessian is checked against central differences of fwdad.jacfwd, and
jvp of jvp against a closed form."""
import contextlib
import dataclasses
from typing import NamedTuple

import numpy as np
import pytest

import fwdad
from fwdad.higher import Directional
from tests.util import central_difference, central_gradient


class Box:
    def __init__(self, v):
        self.v = v * 2.0

    def scaled(self, k):
        return self.v * k


@dataclasses.dataclass
class Spring:
    k: float
    rest: float = 1.0

    def energy(self, x):
        return 0.5 * self.k * (x - self.rest) ** 2


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    b: float = 0.5

    def __post_init__(self):
        object.__setattr__(self, "b", self.b * self.a)


class Pair(NamedTuple):
    first: float
    second: float


class Tripled:
    def __init__(self, s):
        self.s = s

    def __enter__(self):
        return self.s * 3.0

    def __exit__(self, *exc):
        return False


class Squared:
    def __init__(self, v):
        self._v = v

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        self._v = value * value


def through_box(x):
    return np.sum(Box(x).scaled(x) ** 2)                  # sum 4 x^4


def through_dataclass(x):
    return np.sum(Spring(x).energy(x * x) + Spring(x, x).rest)


def through_frozen(x):
    return np.sum(Frozen(x * x).b * x)                     # sum 0.5 x^3


def through_namedtuple(x):
    pair = Pair(x, second=x * x)
    return np.sum(pair.second ** 2 * pair[0])              # sum x^5


def through_with(x):
    with Tripled(x) as y:
        z = y * y
    with contextlib.nullcontext(x * x) as w:
        z = z * w
    return np.sum(z)                                       # sum 9 x^4


def through_setter(x):
    s = Squared(x)
    s.v = s.v * x
    return np.sum(s.v * x)                                 # sum x^5


def box_in_a_loop(x):
    boxes = [Box(x[i]) for i in range(len(x))]
    return sum(b.v * b.v * x[0] for b in boxes)


X = np.array([0.7, -1.3, 1.1])
FUNCTIONS = [through_box, through_dataclass, through_frozen, through_namedtuple,
             through_with, through_setter, box_in_a_loop]


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_hessian_matches_differences_of_jacfwd(f):
    h = 1e-5
    gradient = fwdad.jacfwd(f)
    want = np.stack([(gradient(X + h * e) - gradient(X - h * e)) / (2 * h)
                     for e in np.eye(X.size)], axis=-1)
    np.testing.assert_allclose(fwdad.hessian(f)(X), want, rtol=1e-6, atol=1e-7)
    v = np.array([0.5, -1.0, 2.0])
    (hv,) = fwdad.hvp(f, (X,), (v,))
    np.testing.assert_allclose(hv, want @ v, rtol=1e-6, atol=1e-7)


SECOND_DERIVATIVES = [  # (f, d^2/dx^2 of f along ones, at x)
    (through_box, lambda x: np.sum(48 * x ** 2)),
    (through_frozen, lambda x: np.sum(3 * x)),
    (through_namedtuple, lambda x: np.sum(20 * x ** 3)),
    (through_with, lambda x: np.sum(108 * x ** 2)),
    (through_setter, lambda x: np.sum(20 * x ** 3)),
]


@pytest.mark.parametrize("f, closed_form", SECOND_DERIVATIVES,
                         ids=lambda v: getattr(v, "__name__", ""))
def test_jvp_of_jvp_equals_closed_form(f, closed_form):
    ones = np.ones_like(X)
    _, second = fwdad.jvp(Directional(f, (ones,)), (X,), (ones,))
    np.testing.assert_allclose(second, closed_form(X), rtol=1e-12)


class _Interned:
    def __new__(cls, v):
        return super().__new__(cls)

    def __init__(self, v):
        self.v = v


def _creates_an_interned(x):
    return np.sum(_Interned(x).v * x)


def test_a_class_with_its_own_new_is_refused_at_second_order_as_at_first():
    with pytest.raises(fwdad.FwdadError, match="its own __new__"):
        fwdad.jacfwd(_creates_an_interned)(X)
    with pytest.raises(fwdad.FwdadError, match="its own __new__"):
        fwdad.hessian(_creates_an_interned)(X)


class _Bag:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


def _unpacked_bag(x):
    a, b = _Bag([x, np.sin(x)])
    return np.sum(a * b) + np.sum(np.stack(list(_Bag([x, x * x]))) ** 2)


def _zipped_bags(x):
    return np.sum([u * v for u, v in zip(_Bag([x, x * 2.0]), _Bag([np.cos(x), x]))])


@pytest.mark.parametrize("f", [_unpacked_bag, _zipped_bags], ids=lambda f: f.__name__)
def test_an_instance_iterated_through_its_own_iter_to_third_order(f):
    """Iterating an instance that carries a derivative runs the derived rule of its
    __iter__ (it was refused), at every order; against central differences."""
    x, t, h = np.array([0.3, -0.4, 0.8]), np.array([1.0, 0.5, -0.25]), 1e-5

    def second(y):
        return fwdad.jvp(lambda z: fwdad.jvp(f, (z,), (t,))[1], (y,), (t,))[1]
    assert fwdad.grad(f)(x) @ t == pytest.approx(central_difference(f, x, t, h), rel=1e-7)
    want = central_gradient(fwdad.grad(f), x, h)
    np.testing.assert_allclose(fwdad.hessian(f)(x), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(fwdad.jacfwd(fwdad.jacfwd(f))(x), want, rtol=1e-6, atol=1e-8)
    assert fwdad.jvp(second, (x,), (t,))[1] == pytest.approx(
        central_difference(second, x, t, h), rel=1e-5, abs=1e-7)
