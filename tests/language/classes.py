"""Constructs: user classes (one function each, for tests/language/constructs.py)."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np


class Particle:
    def __init__(self, position, velocity):
        self.position = position
        self.velocity = velocity

    def step(self, dt):
        self.position = self.position + dt * self.velocity
        return self

    @property
    def energy(self):
        return 0.5 * self.velocity ** 2

    @staticmethod
    def clamp(v):
        return max(-10.0, min(10.0, v))

    @classmethod
    def at_rest(cls, position):
        return cls(position, 0.0)


class Charged(Particle):
    def __init__(self, position, velocity, charge):
        super().__init__(position, velocity * charge)
        self.charge = charge

    def step(self, dt):
        super().step(dt)
        self.velocity = self.velocity * math.exp(-self.charge * dt)
        return self


class Vec2:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, other):
        return Vec2(self.x + other.x, self.y + other.y)

    def __mul__(self, s):
        return Vec2(self.x * s, self.y * s)

    def __rmul__(self, s):
        return self * s

    def __matmul__(self, other):
        return self.x * other.x + self.y * other.y

    def __neg__(self):
        return Vec2(-self.x, -self.y)

    def __getitem__(self, i):
        return self.x if i == 0 else self.y

    def __len__(self):
        return 2


class Polynomial:
    def __init__(self, coefficients):
        self.coefficients = coefficients

    def __call__(self, x):
        total = 0.0
        for c in reversed(self.coefficients):
            total = total * x + c
        return total


@dataclass
class Spring:
    stiffness: float
    rest: float = 1.0
    history: list = field(default_factory=list)

    def force(self, x):
        self.history.append(x)
        return -self.stiffness * (x - self.rest)


@dataclass
class Box:
    width: float
    height: float
    area: float = field(init=False)

    def __post_init__(self):
        self.area = self.width * self.height


class Point(NamedTuple):
    x: float
    y: float
    label: str = "p"


def instantiate_and_attributes(x):
    p = Particle(x, 2.0)
    p.velocity = p.velocity * x
    return p.position * p.velocity


def bound_methods(x):
    p = Particle(x, 3.0)
    step = p.step
    step(0.1)
    return p.step(x).position


def static_and_class_methods(x):
    p = Particle.at_rest(x)
    return Particle.clamp(x * 20.0) + p.clamp(x) + p.position


def properties(x):
    return Particle(1.0, x).energy


def inheritance_and_super(x):
    c = Charged(x, 1.5, 0.5)
    c.step(x)
    return c.position + c.velocity


def callable_objects(x):
    poly = Polynomial([1.0, x, 3.0])
    return poly(x) + poly(2.0)


def operator_dunders(x):
    a, b = Vec2(x, 2.0), Vec2(3.0, x * x)
    c = -(a + 2.0 * b) * x
    return (c @ a) + c[1] * len(c)


class Samples:
    """NumPy reads it as an array, by its __array__ (no operators of its own)."""

    def __init__(self, values):
        self.values = values

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.values, dtype=dtype)


def array_protocol(x):
    s = Samples(np.array([x, 2.0 * x, x * x]))
    return np.sum(np.sin(s)) + np.mean(np.asarray(s)) + np.sum(np.ones(3) * s - s)


def dataclass_inside(x):
    spring = Spring(x)
    return spring.force(x * 3.0) + Box(x, 2.0).area + len(spring.history)


def dataclass_argument(spring, x):
    return spring.force(x) * spring.stiffness


def dataclass_output(x):
    return Box(x, x * 3.0)


def namedtuple_inside(x):
    p = Point(x, 2.0 * x)
    q = p._replace(y=3.0) if False else Point(p.y, p.x, "q")
    return p.x * q.x + p[1]


def namedtuple_argument(p):
    return p.x * p.y ** 2


def array_fields(x):
    p = Particle(np.array([x, 1.0]), np.array([2.0, x]))
    p.step(0.5)
    return p.position @ p.velocity


class Doubling:
    """A property setter, a __setattr__ override (through super()), a descriptor with
    __get__/__set__, __getattr__, __slots__ and functools.cached_property."""

    def __init__(self):
        self._v = 1.0

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        self._v = value * 2.0


class Tripling:
    def __setattr__(self, name, value):
        super().__setattr__(name, value * 3.0)


class Absolute:
    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, owner=None):
        return self if obj is None else getattr(obj, self.name) * 10.0

    def __set__(self, obj, value):
        setattr(obj, self.name, abs(value))


class Holder:
    p = Absolute()

    def __init__(self, v):
        self.p = v
        self.fields = {"k": v * v}

    def __getattr__(self, name):
        return self.fields[name] * 2.0

    @functools.cached_property
    def square(self):
        return self.p * self.p


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a):
        self.a, self.b = a, a * 2.0


def attribute_protocol(x):
    d = Doubling()
    d.v = x
    t = Tripling()
    t.u = x
    setattr(t, "w", x * x)
    h = Holder(-x)
    s = Slotted(x)
    s.a = s.a * 3.0
    return d.v + d._v + t.u + t.w + h.p + h.k + h.square + getattr(h, "k") + s.a + s.b


class Key:
    """Equal by its name: a dict looks it up through the user's __eq__ and __hash__."""

    def __init__(self, name, weight):
        self.name, self.weight = name, weight

    def __eq__(self, other):
        return isinstance(other, Key) and self.name == other.name

    def __hash__(self):
        return hash(self.name)


def instances_as_dict_keys(x):
    first = Key("a", x)
    d = {first: x * 2.0}
    d[Key("b", 1.0)] = math.sin(x)
    if Key("b", 0.0) in d:
        d[Key("b", 0.0)] = d[Key("b", 2.0)] * x
    return d[Key("a", 0.0)] * first.weight + d.pop(Key("b", 0.0)) + len(d)
