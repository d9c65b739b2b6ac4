"""Instances of user classes: fields are differentiated, and operators and subscripts on
instances run the reverse rule of the class's own method (checked against central
finite differences, since forward mode does not dispatch operators to methods)."""
import copy

import numpy as np
import pytest

import fwdad
from fwdad.structured import Diagonal
from fwdad.tangents import Tangent


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __mul__(self, other):
        return Pair(self.a * other.a, self.b * other.b)

    def __rmul__(self, scale):
        return Pair(scale * self.a, scale * self.b)

    def __getitem__(self, i):
        return self.a if i == 0 else self.b

    def __setitem__(self, i, value):
        if i == 0:
            self.a = value
        else:
            self.b = value


def products(p, q):
    r = 2.0 * (p * q)
    r[1] = r[1] + r[0]
    return r[0] * r[1]


def diagonal_entries(d):
    return d[0, 0] * d[1, 1] + (d @ d).sum()


def _fd(f, obj, field, h=1e-6):
    value = getattr(obj, field)
    plus, minus = Pair(0.0, 0.0), Pair(0.0, 0.0)
    plus.__dict__.update(vars(obj))
    minus.__dict__.update(vars(obj))
    setattr(plus, field, value + h)
    setattr(minus, field, value - h)
    return (f(plus) - f(minus)) / (2 * h)


def test_operators_and_subscripts_on_instances():
    p, q = Pair(0.5, 1.5), Pair(-1.0, 2.0)
    value, (dp, dq) = fwdad.value_and_grad(products, argnums=(0, 1))(p, q)
    assert value == pytest.approx(products(p, q))
    for field in ("a", "b"):
        assert getattr(dp, field) == pytest.approx(_fd(lambda x: products(x, q), p, field))
        assert getattr(dq, field) == pytest.approx(_fd(lambda x: products(p, x), q, field))


def test_structured_array_subscripts_and_matmul_operator():
    d = Diagonal(np.array([0.5, -1.5, 2.0]))
    ct = fwdad.grad(diagonal_entries)(d)
    assert isinstance(ct, Tangent)
    h, expected = 1e-6, []
    for i in range(3):
        step = np.eye(3)[i] * h
        expected.append((diagonal_entries(Diagonal(d.diag + step))
                         - diagonal_entries(Diagonal(d.diag - step))) / (2 * h))
    np.testing.assert_allclose(ct.diag, expected, rtol=1e-7)


class Base:
    def __init__(self, v):
        self.v = v

    def energy(self):
        return self.v ** 2


class Child(Base):
    def energy(self):
        return super(Child, self).energy() * 3.0


def child_energy(x):
    return Child(x).energy()


def test_methods_reached_through_super():
    assert fwdad.grad(child_energy)(0.7) == pytest.approx(6.0 * 0.7)


# ---- an instance's operators meeting a variable: the method's reverse rule runs ------
class Box:
    """Operators that take plain numbers (or variables) as the other operand."""

    def __init__(self, v):
        self.v = v

    def __mul__(self, o):
        return Box(self.v * o)

    def __rmul__(self, o):
        return Box(o * self.v)

    def __add__(self, o):
        return Box(self.v + (o.v if isinstance(o, Box) else o))

    def __radd__(self, o):
        return Box(o + self.v)

    def __sub__(self, o):
        return Box(self.v - o)

    def __neg__(self):
        return Box(-self.v)

    def __truediv__(self, o):
        return Box(self.v / o)

    def __pow__(self, o):
        return Box(self.v ** o)

    def __abs__(self):
        return Box(abs(self.v))

    def __lt__(self, o):
        return self.v < o

    def __matmul__(self, o):
        return Box(self.v @ o)

    def __getitem__(self, i):
        return self.v[i]


def _reported(x):  # the reported case: V(x) * x, then a + a
    a = Box(x) * x
    return (a + a).v


def _in_place(x):
    a = Box(x)
    a += x
    a *= x
    return a.v


def _compared(x):
    return x * (1.0 if Box(x) < 2.0 else 3.0) + x * (1.0 if 2.0 > Box(x) else 5.0)


OPERATORS = [_reported, _in_place, _compared, lambda x: (x * Box(x)).v,
             lambda x: (x + Box(2.0)).v, lambda x: (Box(x) - x * x).v,
             lambda x: (-Box(x * x)).v, lambda x: (Box(3.0) / x).v,
             lambda x: (Box(x) ** x).v, lambda x: abs(Box(-x)).v,
             lambda x: np.sum((Box(np.array([x, 2 * x])) * x).v),
             lambda x: (Box(np.array([x, 1.0])) @ np.array([x, 2.0])).v,
             lambda x: Box(np.array([x, x * x]))[1]]


@pytest.mark.parametrize("f", OPERATORS)
@pytest.mark.parametrize("x", [1.5, 2.5])
def test_operators_of_instances_with_a_variable_operand(f, x):
    h = 1e-6
    assert fwdad.grad(f)(x) == pytest.approx((f(x + h) - f(x - h)) / (2 * h), rel=1e-6)


def test_holds_variable_looks_into_lists_tuples_and_dicts_at_any_depth():
    from fwdad.reverse.tracked import holds_variable
    from fwdad.reverse.var import Var
    x = Var(1.0)
    assert holds_variable([1.0, (2.0, {"k": [x]})])
    assert not holds_variable([1.0, (2.0, {"k": [3.0]})])


class Accumulator:
    """`+=` and `*=` differ from `+` and `*` (and `+=` updates the instance in place,
    seen through an alias): reverse mode must run them, as Python does."""

    def __init__(self, v):
        self.v = v

    def __add__(self, o):
        return Accumulator(self.v + o.v)

    def __iadd__(self, o):
        self.v = self.v + 2.0 * o.v
        return self

    def __imul__(self, k):
        self.v = self.v * k * k
        return self

    def __isub__(self, o):
        return NotImplemented  # Python then runs a = a - o: __sub__


def _updated_through_an_alias(x):
    a = Accumulator(x[:2])
    alias = a
    alias += Accumulator(x[2:])
    alias *= x[0]
    return np.sum(a.v * a.v) + np.sum((a + Accumulator(x[2:])).v)


def _update_without_a_plain_operator(x):
    a = Accumulator(x[0])
    a *= x[1]
    return a.v * x[2]


@pytest.mark.parametrize("f", [_updated_through_an_alias, _update_without_a_plain_operator])
def test_in_place_operators_run_the_instances_own_method(f):
    x, h = np.array([0.3, 0.5, 0.7, 1.1]), 1e-6
    want = np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(fwdad.grad(f)(x), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(fwdad.jacfwd(f)(x), want, rtol=1e-6, atol=1e-9)


class _Pair:
    def __init__(self, a, b):
        self.a = a
        self.b = b


def _copied_then_changed(x):
    p = _Pair(x[0], x[1])
    q = copy.copy(p)  # (copyreg reaches object.__new__, a C method bound to a class)
    q.a = q.a * 3.0
    return p.a * q.a + q.b


def test_a_shallow_copy_of_an_instance():
    """grad through copy.copy gave a bare TypeError: `object.__new__` was taken for a
    method of an instance and looked up on its type (type.__new__)."""
    x, h = np.array([0.3, -0.7]), 1e-6
    want = np.array([(_copied_then_changed(x + h * e) - _copied_then_changed(x - h * e))
                     / (2 * h) for e in np.eye(2)])
    np.testing.assert_allclose(fwdad.grad(_copied_then_changed)(x), want, rtol=1e-6)
