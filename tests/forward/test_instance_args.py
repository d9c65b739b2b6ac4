"""Instances of plain classes given as arguments: a rule that only reads their fields
runs its optimized variant for them (forward/routes.py, INSTANCE, or FIELDS where the
function is sealed: tests/forward/test_instance_fields.py), and every instance that
could make that variant wrong goes where it went before.

Each row runs the rule on Duals and compares with the plain rule (the reference the
optimized rule must match) and with finite differences (fwdad.testing.test_rule).
"""
import copy
import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.forward.routes import FIELDS, INSTANCE
from fwdad.frontend import normalized
from fwdad.normalize.instance_params import instance_params
from fwdad.rules.registry import rules_restored
from fwdad.tangents import Tangent, random_tangent
from fwdad.testing import test_rule as check_rule

R = np.random.default_rng(5)
V, W = R.standard_normal(4), R.standard_normal(4)


@dataclass
class State:
    t: float
    pos: np.ndarray
    vel: np.ndarray


class Pair:
    def __init__(self, x, y):
        self.x = x
        self.y = y


@dataclass
class PostInit:
    t: float
    pos: np.ndarray
    vel: np.ndarray

    def __post_init__(self):
        self.t = self.t * 2.0


class Watched:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)


class WithProperty:
    def __init__(self, x, y):
        self.x = x
        self._y = y

    @property
    def y(self):
        return self._y * 2.0


@dataclass(slots=True)
class Slots:
    x: float
    y: float


class SubPair(Pair):
    @property
    def doubled(self):
        return 2.0 * self.x


# ---- functions ----------------------------------------------------------------------
def energy(s, k):
    return 0.5 * np.sum(s.vel ** 2) + k * np.sum(1.0 - np.cos(s.pos)) + s.t


def kinetic(vel, s):
    return 0.5 * np.sum(vel ** 2) * s.t


def energy_with_a_helper(s, k):
    return k * np.sum(s.pos ** 2) + kinetic(s.vel, s)


def product(p, k):
    return p.x * p.y * k + np.sin(p.x)


def bump(p):
    p.x = p.x * 3.0


def reads_after_a_helper_writes(a, b):
    before = a.x * b.y
    bump(b)
    return before * a.x + b.x


def returns_it(p, k):
    y = p.x * k
    if y > 100.0:
        return p
    return y + p.y


def first(p, k):
    return p.x * k


def with_extra(x, y):
    p = Pair(x, y)
    p.extra = 1.0
    return p


def slotted_without_y(x):
    s = Slots(x, 0.0)
    del s.y
    return s


@dataclasses.dataclass
class Row:
    fn: object
    args: tuple
    taken: bool  # the variant for instances runs
    compared: bool = True  # test_rule compares the argument after the call with ==

    def __str__(self):
        return f"{self.fn.__name__}-{type(self.args[0]).__name__}"


ROWS = [
    Row(energy, (State(0.3, V, W), 0.8), True),
    Row(energy_with_a_helper, (State(0.3, V, W), 0.8), True),
    Row(product, (Pair(0.4, 1.3), 0.7), True),
    Row(product, (Slots(0.4, 1.3), 0.7), False),  # (no tangent: fwdad sees no fields)
    Row(energy, (PostInit(0.3, V, W), 0.8), False),  # __post_init__
    Row(product, (Watched(0.4, 1.3), 0.7), False),  # __setattr__
    Row(product, (WithProperty(0.4, 1.3), 0.7), False),  # a property
    Row(product, (SubPair(0.4, 1.3), 0.7), False),  # a subclass that is not plain
    Row(product, (with_extra(0.4, 1.3), 0.7), False),  # an attribute that is no field
    Row(first, (Pair(0.4, [1.3]), 0.7), False),  # a field that is no number or array
    Row(first, (slotted_without_y(0.4), 0.7), False, compared=False),  # a slot left empty
]


def duals(args, seed=0):
    rng = np.random.default_rng(seed)
    return [Dual(a, random_tangent(a, rng)) for a in copy.deepcopy(args)]


def variant_keys(fn, args):
    rule = build_rule(fn)
    out = rule(*duals(args))
    return rule, out, [key for key in rule.routes.variants
                       if any(kind in (INSTANCE, FIELDS) for _, kind in key)]


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_instances_take_the_variant_only_when_it_is_right(row):
    rule, out, keys = variant_keys(row.fn, row.args)
    assert bool(keys) == row.taken, keys
    want = rule.unoptimized(*duals(row.args))
    np.testing.assert_allclose(out.primal, want.primal, rtol=1e-13)
    np.testing.assert_allclose(out.tangent, want.tangent, rtol=1e-12, atol=1e-14)
    if row.compared:
        check_rule(row.fn, *copy.deepcopy(row.args))  # finite differences, batches


def test_a_helper_writing_an_argument_is_seen_by_later_reads():
    a, b = Pair(0.4, 1.3), Pair(0.9, 0.2)
    rule, _, keys = variant_keys(reads_after_a_helper_writes, (a, b))
    assert keys
    for args in [(a, b), (a, a)]:  # the same instance twice: the write to b is a's
        got, want = rule(*duals(args)), rule.unoptimized(*duals(args))
        np.testing.assert_allclose(got.primal, want.primal, rtol=1e-13)
        np.testing.assert_allclose(got.tangent, want.tangent, rtol=1e-12)
        assert got.primal == pytest.approx(
            reads_after_a_helper_writes(*copy.deepcopy(args)), rel=1e-13)


def test_a_returned_argument_is_the_callers_own():
    p = Pair(40.0, 1.3)
    rule = build_rule(returns_it)
    given = Dual(p, Tangent(x=1.0, y=0.5))
    out = rule(given, Dual(7.0, 0.0))
    assert out.primal is p and out.tangent is given.tangent
    assert [key for key in rule.routes.variants if any(k == INSTANCE for _, k in key)]
    # (returned: not sealed, so its fields are read where the code reads them)


def test_batched_tangents_do_not_take_the_variant():
    s = State(0.3, V, W)
    rule = build_rule(energy)
    batch = Tangent(t=np.ones(3), pos=np.ones((3, 4)), vel=np.zeros((3, 4)))
    got = rule(Dual(s, batch), Dual(0.8, np.zeros(3)))
    want = rule.unoptimized(Dual(s, batch), Dual(0.8, np.zeros(3)))
    np.testing.assert_allclose(got.tangent, want.tangent, rtol=1e-12)
    assert not [key for key in rule.routes.variants
                if any(kind in (INSTANCE, FIELDS) for _, kind in key)]


PARAMS = [
    (energy, {"s": {"t", "pos", "vel"}}),
    (energy_with_a_helper, {"s": {"pos", "vel"}}),
    (bump, {"p": {"x"}}),  # a field written, by a sealed function: kept in a local
    (reads_after_a_helper_writes, {"a": {"x"}, "b": {"y", "x"}}),  # passed on: read
    (returns_it, {"p": {"x", "y"}}),
]


@pytest.mark.parametrize("fn, want", PARAMS, ids=lambda x: getattr(x, "__name__", ""))
def test_parameters_read_only_through_their_fields(fn, want):
    assert instance_params(normalized(fn)[1]) == want


class LatePair:
    def __init__(self, x, y):
        self.x = x
        self.y = y


def test_a_rule_registered_for_the_class_later_sends_its_instances_elsewhere():
    args = (LatePair(0.4, 1.3), 0.7)
    assert variant_keys(product, args)[2]
    with rules_restored():
        @fwdad.frule(LatePair)
        def _made(x: Dual, y: Dual) -> Dual:
            return Dual(LatePair(x.primal, y.primal), Tangent(x=x.tangent, y=y.tangent))
        rule, out, keys = variant_keys(product, args)
        assert not keys  # a class with a rule is no plain class
        want = rule.unoptimized(*duals(args))
        np.testing.assert_allclose(out.tangent, want.tangent, rtol=1e-12)
