"""Functions for tests/normalize/test_unbox.py: those whose instances the unbox pass
replaces by locals (UNBOXED), and those it must leave as they are (KEPT)."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Tuple

import numpy as np


# ---- classes ------------------------------------------------------------------------
@dataclass
class State:
    t: float
    pos: np.ndarray
    vel: np.ndarray


@dataclass
class Point:
    x: float
    y: float = 1.0
    w: float = field(default=2.0, kw_only=True)


@dataclass(frozen=True)
class Frozen:
    a: float
    b: float


@dataclass(slots=True)
class Slotted:
    a: float
    b: np.ndarray


class Pair:
    """A plain class: __init__ only stores its parameters."""

    def __init__(self, first, second=0.5):
        self.left = first
        self.right: float = second


class PlainSlots:
    __slots__ = ("u", "v")

    def __init__(self, u, v):
        self.u = u
        self.v = v


@dataclass
class PostInit:
    a: float

    def __post_init__(self):
        self.a = self.a * 2.0


class WithProperty:
    def __init__(self, v):
        self.v = v

    @property
    def doubled(self):
        return 2.0 * self.v


class Clamped:
    def __init__(self, v):
        self.v = v

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        self._v = min(value, 1.0)


class Guarded:
    def __init__(self, v):
        self.v = v

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value * 1.5 if name == "v" else value)


@dataclass
class Stepper:
    x: float

    def step(self, h):
        self.x = self.x + h * math.sin(self.x)


@dataclass
class NotInInit:
    a: float
    b: float = field(default=0.0, init=False)


@dataclass
class Base:
    a: float


@dataclass
class Overriding(Base):
    a: float = 1.0


@dataclass
class Factory:
    a: float
    items: list = field(default_factory=list)


def energy(s):
    return 0.5 * np.sum(s.vel ** 2) + s.t


# ---- unboxed ------------------------------------------------------------------------
def integrate(k, pos0, vel0, h, steps=20):
    s = State(0.0, pos0, vel0)
    for _ in range(steps):
        acc = -k * s.pos
        s.vel = s.vel + h * acc
        s.pos = s.pos + h * s.vel
        s.t += h
    return s.pos.sum() + s.t * k


def functional_update(k, pos0, vel0):
    s = State(t=0.0, pos=pos0, vel=vel0)
    for _ in range(5):
        s = State(s.t + 0.1, s.pos + 0.1 * s.vel, s.vel - 0.1 * k * s.pos)
    return np.sum(s.pos * s.vel) * s.t


def escapes_at_the_end(k, pos0, vel0):
    s = State(0.0, pos0 * k, vel0)
    s.vel *= k
    return energy(s)


def returns_from_a_branch(k, pos0, vel0):
    s = State(k, pos0, vel0)
    if k > 0.5:
        return energy(s)
    s.t = s.t * 3.0
    return energy(s) * k


def defaults_and_keywords(a, b):
    p = Point(a, w=b)
    q = Point(y=a * b, x=b)
    p.x = p.x * q.y + p.w
    return p.x * p.y + q.w * q.x


def made_in_each_iteration(xs, ys):
    total = 0.0
    for i in range(len(xs)):
        p = Point(xs[i], ys[i])
        p.y = p.y * p.x
        total = total + p.y * p.w
    return total


def branch_writes(a, b):
    p = Pair(a, b)
    if p.left > p.right:
        p.left = p.left - p.right
    else:
        p.right = p.right * p.left
    return p.left * math.exp(p.right)


def frozen_reads(a, b):
    f = Frozen(a, b)
    return f.a * f.b + math.sin(f.a)


def slotted(a, v):
    s = Slotted(a, v)
    s.b = s.b * s.a
    return np.sum(s.b ** 2)


def plain_slots(a, b):
    s = PlainSlots(a, b)
    s.u, s.v = s.v, s.u
    return s.u ** 2 * s.v


def default_parameter(a):
    p = Pair(a)
    return p.left * p.right


def two_instances(a, b):
    p = Pair(a, b)
    q = Pair(p.right, p.left)
    q.left += p.left
    return q.left * q.right


def made_again_from_its_fields(a, b):
    p = Pair(a, b)
    p = Pair(p.right, p.left)  # (reads both fields before it writes either)
    return p.left - 2.0 * p.right


def escapes_by_an_alias(a, b):
    p = Pair(a, b)
    p.left = p.left * 2.0
    q = p
    return q.left * q.right


def escapes_into_a_list(k, pos0, vel0):
    s = State(k, pos0, vel0)
    s.pos = s.pos * s.t
    states = [s]
    return energy(states[0]) + np.sum(states[0].pos)


# ---- passed to helpers as fields (normalize/field_calls.py) ---------------------------
def kick(s, k, h=0.1):
    s.vel = s.vel - h * k * np.sin(s.pos)
    s.pos = s.pos + h * s.vel
    s.t += h
    return np.sum(s.vel ** 2)


def helper_in_a_loop(k, pos0, vel0):
    s = State(0.0, pos0, vel0)
    for _ in range(4):
        kick(s, k)
    return np.sum(s.pos * s.vel) + s.t


def helper_gives_a_value(k, pos0, vel0):
    s = State(k, pos0, vel0)
    e = kick(s, k, h=0.2)
    return e * s.t + np.sum(s.pos)


def passed_by_keyword(k, pos0, vel0):
    s = State(0.5, pos0 * k, vel0)
    kick(k=k, s=s)
    return np.sum(s.vel) * s.t


def swap_fields(p):
    p.left, p.right = p.right * 2.0, p.left


def plain_class_helper(a, b):
    p = Pair(a, b)
    swap_fields(p)
    swap_fields(p)
    return p.left * math.sin(p.right)


# ---- helpers that keep the instance: passed as it is --------------------------------
def same(s):
    s.t = s.t * 2.0
    return s


def helper_returns_it(k, pos0, vel0):
    s = State(k, pos0, vel0)
    q = same(s)
    q.t = q.t + k
    return s.t * np.sum(s.pos)


def remember(p, box):
    p.left = p.left * 1.5
    box.append(p)


def helper_stores_it(a):
    p = Pair(a, a * a)
    box = []
    remember(p, box)
    p.right = p.right + 1.0
    return box[0].right * box[0].left + p.left


def shrink(p, n):
    if n > 0:
        p.left = p.left * 0.5
        shrink(p, n - 1)
    p.right = p.right + p.left


def recursive_helper(a):
    p = Pair(a, 1.0)
    shrink(p, 3)
    return p.left * p.right


def combine(p, q):
    p.left = p.left + q.left * q.right
    q.right = q.right * 0.5


def two_instances_to_one_helper(a, b):
    p = Pair(a, b)
    q = Pair(b * b, a)
    combine(p, q)
    return p.left * q.right


def helper_in_a_try(k, pos0, vel0):
    s = State(k, pos0, vel0)
    try:
        kick(s, k)
    except ValueError:
        pass
    return np.sum(s.vel) * s.t


# ---- kept ---------------------------------------------------------------------------
def post_init(a):
    s = PostInit(a)
    return s.a * a


def property_read(a):
    w = WithProperty(a)
    return w.doubled * w.v


def property_field(a):
    c = Clamped(a)
    c.v = c.v * 4.0
    return c.v * a


def own_setattr(a):
    g = Guarded(a)
    g.v = g.v + a
    return g.v * a


def method_call(a):
    s = Stepper(a)
    s.step(0.1)
    return s.x * a


def identity_check(a):
    p = Pair(a, a)
    q = p
    if p is q:
        return p.left * 2.0
    return p.left


def used_after_escape(k, pos0, vel0):
    s = State(0.0, pos0, vel0)
    e = energy(s)
    s.t = s.t + k * e
    return s.t * e


def escapes_in_a_loop(a):
    items = []
    p = Pair(a, a)
    for _ in range(3):
        p.left = p.left * 1.5
        items.append(p)
    return sum(q.left for q in items)


def made_in_branches(a):
    if a > 0.0:
        p = Pair(a, 2.0)
    else:
        p = Pair(2.0, a)
    return p.left * p.right


def rebound_by_a_call(a):
    p = Pair(a, a)
    p = swapped(p)
    return p.left * p.right


def swapped(p):
    return Pair(p.right, p.left * 2.0)


def in_a_closure(a):
    p = Pair(a, 2.0)

    def scaled(v):
        return v * p.right
    return scaled(p.left)


def init_false_field(a):
    n = NotInInit(a)
    n.b = a * a
    return n.a + n.b


def overridden_field(a):
    o = Overriding(a)
    return o.a * a


def default_factory(a):
    f = Factory(a)
    return f.a * len(f.items)


def escapes_inside_a_try(k, pos0, vel0):
    s = State(k, pos0, vel0)
    try:
        e = energy(s)
    except ValueError:
        e = s.t
    return e


def other_attribute(a):
    p = Pair(a, a)
    return p.left * len(type(p).__name__)


R = np.random.default_rng(3)
V = R.standard_normal(4)
W = R.standard_normal(4)


@dataclasses.dataclass
class Row:
    fn: Callable[..., Any]
    args: Tuple[Any, ...]
    kwargs: Dict[str, Any] = dataclasses.field(default_factory=dict)
    fields: Tuple[str, ...] = ()  # locals the unboxed code must have
    escapes: bool = False  # made again at an escape
    passes: bool = False  # given to a helper as its fields (normalize/field_calls.py)

    def __str__(self) -> str:
        return self.fn.__name__


UNBOXED = [
    Row(integrate, (0.7, V, W, 0.05), {"steps": 20}, ("s_t", "s_pos", "s_vel")),
    Row(functional_update, (0.7, V, W), fields=("s_t", "s_pos", "s_vel")),
    Row(escapes_at_the_end, (0.7, V, W), fields=("s_t", "s_vel"), passes=True),
    Row(returns_from_a_branch, (0.7, V, W), fields=("s_t",), passes=True),
    Row(returns_from_a_branch, (0.3, V, W), fields=("s_t",), passes=True),
    Row(used_after_escape, (0.7, V, W), fields=("s_t",), passes=True),
    Row(helper_in_a_loop, (0.7, V, W), fields=("s_t", "s_pos"), passes=True),
    Row(helper_gives_a_value, (0.7, V, W), fields=("s_t", "s_pos"), passes=True),
    Row(passed_by_keyword, (0.7, V, W), fields=("s_t", "s_vel"), passes=True),
    Row(plain_class_helper, (0.7, 1.3), fields=("p_left", "p_right"), passes=True),
    Row(defaults_and_keywords, (0.4, 1.3), fields=("p_x", "p_w", "q_y")),
    Row(made_in_each_iteration, (V, W), fields=("p_x", "p_y", "p_w")),
    Row(branch_writes, (0.9, 0.4), fields=("p_left", "p_right")),
    Row(branch_writes, (0.2, 0.4), fields=("p_left", "p_right")),
    Row(frozen_reads, (0.4, 1.3), fields=("f_a", "f_b")),
    Row(slotted, (0.4, V), fields=("s_a", "s_b")),
    Row(plain_slots, (0.4, 1.3), fields=("s_u", "s_v")),
    Row(default_parameter, (0.4,), fields=("p_left", "p_right")),
    Row(two_instances, (0.4, 1.3), fields=("p_left", "q_left")),
    Row(made_again_from_its_fields, (0.4, 1.3), fields=("p_left", "p_right")),
    Row(escapes_by_an_alias, (0.4, 1.3), fields=("p_left", "p_right"), escapes=True),
    Row(escapes_into_a_list, (0.7, V, W), fields=("s_t", "s_pos"), escapes=True),
]

KEPT = [
    Row(post_init, (0.4,)),
    Row(property_read, (0.4,)),
    Row(property_field, (0.4,)),
    Row(property_field, (0.1,)),
    Row(own_setattr, (0.4,)),
    Row(method_call, (0.4,)),
    Row(identity_check, (0.4,)),
    Row(helper_returns_it, (0.7, V, W)),
    Row(helper_stores_it, (0.7,)),
    Row(recursive_helper, (0.7,)),
    Row(helper_in_a_try, (0.7, V, W)),
    Row(two_instances_to_one_helper, (0.7, 1.3)),
    Row(escapes_in_a_loop, (0.4,)),
    Row(made_in_branches, (0.4,)),
    Row(rebound_by_a_call, (0.4,)),
    Row(in_a_closure, (0.4,)),
    Row(init_false_field, (0.4,)),
    Row(overridden_field, (0.4,)),
    Row(default_factory, (0.4,)),
    Row(other_attribute, (0.4,)),
    Row(escapes_inside_a_try, (0.7, V, W)),
]
