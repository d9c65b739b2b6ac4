"""Results written into operands the rule never reads again (forward/optimizer/
dead_operands.py), only when the operand is the rule's alone (owned_operands.py)."""
from __future__ import annotations

import ast
import textwrap
import types
import weakref

import numpy as np
import pytest

import fwdad
from fwdad.forward.optimizer import owned_operands
from fwdad.forward.optimizer.dead_operands import reused
from fwdad.forward.optimizer.owned_operands import into_left, into_right
from tests.forward.test_batched_updates import _args, _variant
from tests.util import assert_same, fd_jvp, run_rule


@pytest.fixture(autouse=True)
def _small_arrays_too(monkeypatch):
    """The tests' arrays are small: let them be written into."""
    monkeypatch.setattr(owned_operands, "MIN_SIZE", 1)


# ---- at run time: the operand must be the caller's alone -----------------------------
def test_an_operand_held_by_its_local_alone_takes_the_result():
    t = np.arange(4.0)
    r = into_left(np.add, t, 1.0)
    assert r is t and r.tolist() == [1.0, 2.0, 3.0, 4.0]
    s = np.arange(4.0)
    r = into_right(np.subtract, 10.0, s)
    assert r is s and r.tolist() == [10.0, 9.0, 8.0, 7.0]


def _held_in_a_list(t):
    return [t]


def _held_by_a_dual(t):
    return fwdad.Dual(t, t)


def _held_by_an_instance(t):
    return types.SimpleNamespace(value=t)


def _viewed(t):
    return t[1:]


def _weakly_referenced(t):
    return weakref.ref(t)


@pytest.mark.parametrize("holder", [_held_in_a_list, _held_by_a_dual, _held_by_an_instance,
                                    _viewed, _weakly_referenced], ids=lambda f: f.__name__)
def test_an_operand_held_elsewhere_keeps_its_values(holder):
    t = np.arange(4.0)
    held = holder(t)
    r = into_left(np.multiply, t, 2.0)
    assert r is not t and t.tolist() == [0.0, 1.0, 2.0, 3.0] and r.tolist() == [0, 2, 4, 6]
    del held


def test_an_alias_in_another_local_keeps_its_values():
    t = np.arange(1.0, 4.0)
    alias = t
    r = into_right(np.true_divide, 1.0, t)
    assert r is not alias and alias.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("make, other", [
    (lambda: np.arange(6.0)[1:], 1.0),                      # a view: its base is written
    (lambda: np.arange(3, dtype=np.float32), np.ones(3)),   # promotes to float64
    (lambda: np.arange(3.0), np.ones((2, 3))),              # broadcasts to a larger shape
    (lambda: np.arange(3), 0.5),                            # int array, float result
    (lambda: np.array(2.0), 1.0),                           # no axes: the operator's scalar
    (lambda: np.ma.masked_array(np.arange(3.0)), 1.0),      # a subclass
    (lambda: np.arange(3.0), np.ma.masked_array(np.ones(3), mask=[0, 1, 0])),
    (lambda: np.arange(3.0), 1j),                           # complex result
    (lambda: np.arange(3.0), np.ones(3, dtype=np.float32)),  # another dtype
    (lambda: np.arange(3.0), np.int64(2)),                  # a NumPy number of another
    (lambda: np.arange(3.0, dtype=np.float32), np.float64(2.0)),
    (lambda: np.arange(3), 2),                              # an int array
    (lambda: np.arange(3.0), [1.0, 2.0, 3.0]),              # a list
], ids=["view", "float32", "broadcast", "int", "0-d", "subclass", "subclass other",
        "complex", "other dtype", "np.int64", "np.float64 into float32", "int array",
        "list"])
def test_an_operand_that_cannot_take_the_result_is_left_alone(make, other):
    t = make()
    before = np.array(t, copy=True)
    want = t + other
    got = into_left(np.add, t, other)
    assert got is not t and type(got) is type(want)
    np.testing.assert_array_equal(np.asarray(t), before)
    np.testing.assert_array_equal(np.ma.getdata(got), np.ma.getdata(want))
    assert np.ma.is_masked(got) == np.ma.is_masked(want)


def test_a_small_operand_is_left_alone(monkeypatch):
    monkeypatch.setattr(owned_operands, "MIN_SIZE", 4096)
    t = np.arange(4095.0)
    assert into_left(np.add, t, 1.0) is not t
    t = np.arange(4096.0)
    assert into_left(np.add, t, 1.0) is t


def test_a_read_only_operand_is_left_alone():
    t = np.arange(3.0)
    t.flags.writeable = False
    assert into_left(np.add, t, 1.0) is not t


def test_the_count_of_a_lone_local_is_known():
    assert owned_operands._ALONE is not None  # (else no rule reuses anything)


def test_an_interpreter_that_counts_otherwise_reuses_nothing(monkeypatch):
    monkeypatch.setattr(owned_operands, "_LEAST", {})
    assert owned_operands._alone() is None
    monkeypatch.setattr(owned_operands, "_ALONE", None)
    t = np.arange(4.0)
    assert into_left(np.add, t, 1.0) is not t


# ---- the pass: which statements it rewrites -------------------------------------------
def _rewritten(source, candidates=("t", "s", "d")):
    body = ast.parse(textwrap.dedent(source)).body
    out = reused(body, set(candidates), lambda value, hint: ast.Name(hint, ast.Load()))
    return ast.unparse(ast.Module(body=out, type_ignores=[])).strip()


@pytest.mark.parametrize("source, expected", [
    # dead after the statement: written into
    ("t = a * b\nr = t + c\nreturn r", "into_left(np_add, t, c)"),
    ("t = a * b\nr = c - t\nreturn r", "into_right(np_subtract, c, t)"),
    # a chain along first operands: one statement per operator, in order
    ("d = a * b\nr = d / h + m\nreturn r",
     "d = into_left(np_divide, d, h)\nr = into_left(np_add, d, m)"),
    # bound again by the statement itself
    ("t = a * b\nt = t * 2.0\nreturn t", "t = into_left(np_multiply, t, 2.0)"),
    # in a loop, bound afresh before the statement, read nowhere else in the loop
    ("for k in K:\n    t = a * k\n    r = t + c\n    acc = acc + r\nreturn acc",
     "r = into_left(np_add, t, c)"),
    # in a branch, read in the other branch only
    ("t = a * b\nif p:\n    r = t + c\nelse:\n    r = t - c\nreturn r",
     "r = into_left(np_add, t, c)"),
])
def test_dead_operands_are_written_into(source, expected):
    assert expected in _rewritten(source)


@pytest.mark.parametrize("source", [
    "t = a * b\nr = t + c\nreturn r + t",                    # read later
    "t = a * b\nr = t + t\nreturn r",                        # read twice by the statement
    "t = a * b\nr = t * 2.0 + t\nreturn r",                  # read again after the write
    "t = a * b\nif p:\n    r = t + c\nreturn t",             # read after the branch
    # a loop whose next iteration reads the value: bound before the loop
    "t = a * b\nfor k in K:\n    r = t + c\n    acc = acc + r\nreturn acc",
    # read at the loop's top, before it is bound again
    "t = a * b\nfor k in K:\n    acc = acc + t\n    t = a * k\n    r = t + c\nreturn r",
    "t = a\nwhile t.sum() < 3:\n    t = a * 2.0\n    r = t + c\nreturn r",  # the test
    "t = a * b\ntry:\n    r = t + c\nexcept E:\n    r = t\nreturn r",  # a handler
    # a manager that suppresses an exception after the write (errstate raising, or the
    # second operator of a chain): t, bound again, would keep the value written into it
    "t = a * b\nwith m:\n    t = t * 2.0 + q\nreturn t",
    "t = a * b\nwith m:\n    r = t + c\nreturn r",
    "t = a * b\nf = lambda: t\nr = t + c\nreturn f",         # a nested scope reads it
    "t = a * b\nr = t + c\nreturn locals()",                 # the frame is read
])
def test_live_or_unknown_operands_are_left(source):
    assert "into_" not in _rewritten(source)


def test_a_loop_that_binds_a_name_from_itself_reads_the_last_iteration():
    out = _rewritten("for k in K:\n    t = t * 2.0\n    r = t + c\nreturn r")
    assert "r = t + c" in out, out  # (the next iteration reads t)
    assert "t = into_left(np_multiply, t, 2.0)" in out, out  # (bound again: dead)


def test_a_name_the_rule_never_binds_is_not_its_local():
    assert "into_" not in _rewritten("r = t + c\nreturn r")


# ---- in the batched variants, against the plain rule and differences -----------------
def aliased(u):
    a = 2.0 * u
    b = a
    c = a + 1.0  # (a is dead; b, live, holds the same array)
    return b * c


def viewed(u):
    t = 2.0 * u
    v = t[1:]
    r = t * u  # (t is dead; v, a view of it, is live)
    return r[1:] + v


def listed(u):
    t = 2.0 * u
    keep = [t]
    r = t + u  # (t is dead; the list holds it)
    return r + keep[0]


def loop_carried(u):
    t = 2.0 * u
    acc = u * 0.0
    for k in range(3):
        s = t + u  # (the next iteration reads t)
        acc = acc + s * s
    return acc


def loop_fresh(u):
    acc = u * 0.0
    for k in range(3):
        t = u * 2.0
        s = t + u  # (t is made again each iteration: written into)
        acc = acc + s * t[0]
    return acc


def loop_kept(u):
    prev = u * 1.0
    acc = u * 0.0
    for k in range(3):
        t = prev * 2.0
        keep = t
        s = t + u  # (t is dead; keep, read below, holds it)
        acc = acc + s * keep
        prev = s
    return acc


def returned_alias(u):
    a = u * 3.0
    b = a
    c = a * u  # (a is dead; b is returned)
    return c + b


def residual(u):
    h2 = (1.0 / (u.size + 1)) ** 2
    lap = -2.0 * u
    lap[1:] += u[:-1]
    lap[:-1] += u[1:]
    return lap / h2 + 4.0 * u * (1.0 - u)


PROGRAMS = [aliased, viewed, listed, loop_carried, loop_fresh, loop_kept, returned_alias,
            residual]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_variants_match_the_plain_rule_and_differences(fn):
    args = _args([(6,)])
    rule, variant = _variant(fn, args)
    assert "_fw_into_" in variant.source, variant.source  # (the case is exercised)
    rng = np.random.default_rng(1)
    for batch in (1, 3):
        tangents = [rng.standard_normal((batch,) + a.shape) for a in args]
        assert_same(run_rule(rule, args, tangents), run_rule(rule.unoptimized, args, tangents))
    jac = fwdad.jacfwd(fn)(*args)
    for k, column in enumerate(np.eye(args[0].size)):
        np.testing.assert_allclose(jac[..., k], fd_jvp(fn, args, [column]),
                                   rtol=1e-6, atol=1e-8)


def test_the_residual_writes_two_of_its_batch_arrays_into_dead_ones():
    _, variant = _variant(residual, _args([(6,)]))
    source = variant.source
    assert "dlap = _fw_into_left(_fw_np_divide, dlap, h2)" in source, source
    assert "_fw_dadd2 = _fw_into_left(_fw_np_add, dlap, _fw_dmul2)" in source, source
