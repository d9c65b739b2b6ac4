"""Instance arguments whose fields a sealed function keeps in locals (Routes key FIELDS:
normalize/sealed.py, param_locals.py, forward/plain_instances.py, field_writes.py).

Each row runs the rule on Duals and compares the result and the arguments after the
call, primal and tangent, with the plain rule's (the reference the optimized rule must
match), and the derivative with central finite differences (fwdad.testing.test_rule).
The rows that must not keep the fields in locals (another name for the instance could
see it, the class is not plain, an in-place update of an array field) check that the
call went elsewhere, and still match.
"""
import copy
import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest

from fwdad.dual import Dual
from fwdad.forward import plain_instances
from fwdad.forward.derive import build_rule
from fwdad.forward.routes import FIELDS
from fwdad.frontend import normalized
from fwdad.normalize.instance_params import instance_params
from fwdad.tangents import NoTangent, Tangent, random_tangent
from fwdad.testing import test_rule as check_rule

R = np.random.default_rng(11)
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


class Watched(Pair):
    def __setattr__(self, name, value):
        object.__setattr__(self, name, value * 1.0)


class WithProperty:
    def __init__(self, x, y):
        self.x = x
        self._y = y

    @property
    def y(self):
        return self._y * 2.0

    @y.setter
    def y(self, value):
        self._y = value


class SubPair(Pair):
    @property
    def doubled(self):
        return 2.0 * self.x


# ---- functions ----------------------------------------------------------------------
def energy(s, k):
    return 0.5 * np.sum(s.vel ** 2) + k * np.sum(1.0 - np.cos(s.pos)) + s.t * s.pos[0]


def step(s, k, h):
    s.vel = s.vel - 0.5 * h * k * np.sin(s.pos)
    s.pos = s.pos + h * s.vel
    s.vel = s.vel - 0.5 * h * k * np.sin(s.pos)
    s.t += h


def kick(p, k):
    p.x = p.x * k
    if p.x > 1.0:
        return p.x * p.y
    p.y = np.sin(p.y) + p.x
    return p.y


def grow(s, k):
    s.pos += k * s.vel  # in place, on the caller's array
    return np.sum(s.pos)


def two(p, q, k):
    p.x = p.x * k + q.y
    q.y = q.y * p.x
    return p.y + q.x


HOLDER = []


def via_global(p, k):
    p.x = p.x * k
    return HOLDER[0].x * p.y


def via_list(p, ps, k):
    p.x = p.x * k
    return ps[0].x * p.y


def helper(v, k):
    return v * k


def via_helper(p, k):
    p.x = helper(p.x, k)
    return p.x * p.y


def fails(p, k):
    p.x = p.x * k
    p.y = p.y / (k - 0.7)  # ZeroDivisionError at k = 0.7, after a write
    return p.y


@dataclasses.dataclass
class Row:
    fn: object
    args: tuple
    kept: bool  # the call keeps the fields in locals (key FIELDS)

    def __str__(self):
        return f"{self.fn.__name__}-{type(self.args[0]).__name__}"


ROWS = [
    Row(energy, (State(0.3, V, W), 0.8), True),
    Row(step, (State(0.3, V, W), 0.8, 0.01), True),
    Row(kick, (Pair(0.4, 1.3), 0.7), True),
    Row(kick, (Pair(0.4, 1.3), 5.0), True),  # the early return
    Row(two, (Pair(0.4, 1.3), Pair(0.2, 0.9), 0.7), True),
    Row(kick, (Watched(0.4, 1.3), 0.7), False),  # __setattr__
    Row(kick, (WithProperty(0.4, 1.3), 0.7), False),  # a property
    Row(kick, (SubPair(0.4, 1.3), 0.7), False),  # a subclass that is not plain
    Row(grow, (State(0.3, V, W), 0.8), False),  # an array field updated in place
    Row(via_helper, (Pair(0.4, 1.3), 0.7), False),  # a Python function runs
]


def duals(args, seed=0):
    rng = np.random.default_rng(seed)
    return [Dual(a, random_tangent(a, rng)) for a in copy.deepcopy(args)]


def fields_keys(rule):
    return [key for key in rule.routes.variants if any(k == FIELDS for _, k in key)]


def assert_same(got, want):
    """Two results or two arguments after the call, primal and tangent alike."""
    for a, b in [(got.primal, want.primal), (got.tangent, want.tangent)]:
        if a is None or a is NoTangent:
            assert b is a
        elif isinstance(a, (Tangent, Pair, State, WithProperty)):
            assert type(a) is type(b)
            a, b = vars(a), vars(b)
            assert a.keys() == b.keys()
            for key in a:
                np.testing.assert_allclose(a[key], b[key], rtol=1e-13, atol=1e-15)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def run_both(fn, args, seed=0):
    rule = build_rule(fn)
    given, reference = duals(args, seed), duals(args, seed)
    got, want = rule(*given), rule.unoptimized(*reference)
    assert_same(got, want)
    for a, b in zip(given, reference):
        assert_same(a, b)
    return rule


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_fields_stay_in_locals_only_where_nothing_else_sees_them(row):
    rule = run_both(row.fn, row.args)
    assert bool(fields_keys(rule)) == row.kept, list(rule.routes.variants)
    check_rule(row.fn, *copy.deepcopy(row.args))  # finite differences, batches


def test_the_entry_reads_each_field_once_and_the_exit_writes_back():
    rule = run_both(step, (State(0.3, V, W), 0.8, 0.01))
    source = rule.routes.variants[fields_keys(rule)[0]].source
    assert source.count("_fw_getattr(") == 3  # t, pos, vel, on entry
    assert "_fw_setattr(" not in source and "_fw_s__vel = " in source
    assert "_fw_iadd(" not in source  # s.t += h on a float: a plain add


def test_an_alias_in_a_global_is_refused():
    assert instance_params(normalized(via_global)[1]) == {}
    rule = build_rule(via_global)
    results = []
    for r in (rule, rule.unoptimized):
        p = Pair(0.4, 1.3)
        HOLDER[:] = [p]
        try:
            results.append(r(Dual(p, Tangent(x=1.0, y=0.5)), Dual(0.7, 1.0)))
        finally:
            HOLDER.clear()
    assert results[0].primal == pytest.approx(0.4 * 0.7 * 1.3)  # the write, seen via G
    assert_same(*results)
    assert not fields_keys(rule)


def test_an_alias_in_a_list_argument_takes_the_general_rule():
    rule = build_rule(via_list)
    results = []
    for r in (rule, rule.unoptimized):
        p, d = Pair(0.4, 1.3), Tangent(x=1.0, y=0.5)
        results.append(r(Dual(p, d), Dual([p], [d]), Dual(0.7, 1.0)))
    assert results[0].primal == pytest.approx(0.4 * 0.7 * 1.3)  # the write, seen via ps
    assert results[0].tangent == pytest.approx(0.7 * 1.3 + 0.4 * 1.3 + 0.4 * 0.7 * 0.5)
    assert_same(*results)
    assert not fields_keys(rule)


def test_the_same_instance_twice_takes_the_general_rule():
    p = Pair(0.4, 1.3)
    rule = build_rule(two)
    d = Tangent(x=1.0, y=0.5)
    got = rule(Dual(p, d), Dual(p, d), Dual(0.7, 1.0))
    q, e = Pair(0.4, 1.3), Tangent(x=1.0, y=0.5)
    want = rule.unoptimized(Dual(q, e), Dual(q, e), Dual(0.7, 1.0))
    assert_same(got, want)
    assert vars(p) == vars(q) and vars(d) == pytest.approx(vars(e))
    assert not fields_keys(rule)


def test_an_exception_after_a_write_leaves_the_write_done():
    rule = build_rule(fails)
    rule(*duals((Pair(0.4, 1.3), 0.9)))  # builds the variant
    assert fields_keys(rule)
    for r in (rule, rule.unoptimized):
        p, d = Pair(0.4, 1.3), Tangent(x=1.0, y=0.5)
        with pytest.raises(ZeroDivisionError):
            r(Dual(p, d), Dual(0.7, 1.0))
        assert p.x == pytest.approx(0.28) and d.x == pytest.approx(0.7 + 0.4)
        assert p.y == 1.3


def test_a_missing_array_tangent_takes_the_general_rule():
    rule = build_rule(step)
    s, t = State(0.3, V.copy(), W.copy()), State(0.3, V.copy(), W.copy())
    d, e = Tangent(t=1.0, vel=np.ones(4)), Tangent(t=1.0, vel=np.ones(4))  # no pos
    rule(Dual(s, d), Dual(0.8, 1.0), Dual(0.01, 0.0))
    rule.unoptimized(Dual(t, e), Dual(0.8, 1.0), Dual(0.01, 0.0))
    assert_same(Dual(s, d), Dual(t, e))
    assert not fields_keys(rule)


def test_random_numbers_keep_writes_out_of_locals():
    def noisy(p, k):
        p.x = p.x * k + np.random.normal()
        return p.x
    assert instance_params(normalized(noisy)[1]) == {}


def test_the_switch_keeps_fields_where_they_are(monkeypatch):
    monkeypatch.setattr(plain_instances, "IN_LOCALS", False)
    rule = run_both(kick, (Pair(0.4, 1.3), 0.7))
    assert not fields_keys(rule)


def test_an_instance_given_by_keyword_is_written_back():
    rule = build_rule(kick)
    results = []
    for r in (rule, rule.unoptimized):
        p, d = Pair(0.4, 1.3), Tangent(x=1.0, y=0.5)
        results.append((r(k=Dual(0.7, 1.0), p=Dual(p, d)), Dual(p, d)))
    assert_same(results[0][0], results[1][0])
    assert_same(results[0][1], results[1][1])
    assert fields_keys(rule)
