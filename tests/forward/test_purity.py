"""Purity per call site: a NumPy function that takes `out` mutates nothing when `out`
is not passed, so the optimizer splits its result and static_graph schedules it; a call
that passes `out` (by keyword or by position) stays a mutation, with right derivatives."""
import copy

import numpy as np
import pytest

import fwdad
from fwdad import frontend
from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.forward.optimizer import activity
from fwdad.forward.transform.dual_code import transform_lines
from fwdad.rules import purity
from fwdad.rules.registry import entry_of
from fwdad.tangents import random_tangent
from fwdad.testing import test_rule as check_rule
from tests.util import assert_close, fd_jvp


# ---- no `out`: pure ---------------------------------------------------------------------
def peak(x):
    m = np.max(x)
    return np.sin(x) * m


def column_floor(a):
    low = np.min(a, axis=0)
    return a * low + np.max(a, 1, keepdims=True)


def peak_method(x):
    return x.max() * x


def folded(x, c):  # NumPy functions of rules/fresh_results.py, pure by default
    y = np.sin(x) * c
    z = np.where(y > 0, y * y, -y)
    w = np.clip(z, 0.1, 2.0) + np.linalg.norm(y)
    return np.linalg.solve(np.outer(w, w) * 0.1 + 3.0 * np.eye(w.size), y) * w


# ---- `out` passed: a mutation -----------------------------------------------------------
def max_into_keyword(a, buf):
    np.max(a, axis=0, out=buf)
    return buf * a[0]


def max_into_position(a, buf):
    np.max(a, 0, buf)
    return np.sin(buf) + a[1]


def sum_into_position(a, buf):
    np.sum(a, 1, None, buf)
    return buf * 2.0


def clip_into_position(a, buf):
    np.clip(a[0], -0.5, 0.6, buf)
    return np.cos(buf) * a[1]


A = np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.5]])
PURE = [(peak, (np.array([0.2, 1.4, -0.3]),), [np.max]),
        (column_floor, (A,), [np.min, np.max]),
        (folded, (np.array([0.2, 1.4, -0.3]), 0.7), [np.where, np.clip, np.linalg.solve])]
MUTATING = [(max_into_keyword, (A, np.zeros(3)), np.max),
            (max_into_position, (A, np.zeros(3)), np.max),
            (sum_into_position, (A, np.zeros(2)), np.sum),
            (clip_into_position, (A, np.zeros(3)), np.clip)]


# (function, positional arguments, keyword names (None: **kw), *args, pure)
CALL_SITES = [
    (np.max, 1, [], False, True), (np.max, 2, ["keepdims"], False, True),
    (np.max, 3, [], False, False), (np.max, 1, ["out"], False, False),
    (np.max, 1, [None], False, False), (np.max, 1, [], True, False),
    (np.sum, 3, [], False, True), (np.sum, 4, [], False, False),
    (np.ndarray.max, 2, [], False, True), (np.ndarray.max, 3, [], False, False),
    (np.einsum, 3, [], False, True), (np.einsum, 3, ["out"], False, False),
    (np.add, 2, [], False, True), (np.add, 3, [], False, False),
    (np.add, 2, ["out"], False, False), (np.sin, 1, [], True, False),
    (np.where, 3, [], False, True), (np.clip, 3, [], False, True),
    (np.clip, 4, [], False, False), (np.clip, 3, ["out"], False, False),
    (np.linalg.solve, 2, [], False, True), (np.copyto, 2, [], False, False),
]


@pytest.mark.parametrize("fn, positional, keywords, starred, pure", CALL_SITES)
def test_call_site_purity(fn, positional, keywords, starred, pure):
    entry = entry_of(fn)
    assert purity.call_is_pure(entry, positional, keywords, starred) is pure


def _analysis(fn):
    src, normalized = frontend.normalized(fn)
    tree, constants, lines = transform_lines(normalized, src)
    return activity.analyse(tree, lines, constants.values)


def _calls_of(analysis, primal):
    return [line for line in analysis.lines
            if line.entry is not None and line.entry.primal is primal]


def _run(rule, args, tangents):
    duals = [Dual(copy.deepcopy(a), copy.deepcopy(t)) for a, t in zip(args, tangents)]
    out = rule(*duals)
    return out.primal, out.tangent, [(d.primal, d.tangent) for d in duals]


@pytest.mark.parametrize("fn, args, primals", PURE, ids=lambda c: getattr(c, "__name__", ""))
def test_calls_without_out_are_pure_and_split(fn, args, primals):
    analysis = _analysis(fn)
    for primal in primals:
        lines = _calls_of(analysis, primal)
        assert lines and all(line.pure for line in lines), primal.__name__
        for line in lines:
            assert all(analysis.kinds[t] == activity.SPLIT for t in line.targets)
    assert activity.BOXED not in analysis.kinds.values()


@pytest.mark.parametrize("fn, args, primals", PURE + [
    (peak_method, (np.array([0.2, 1.4, -0.3]),), [])], ids=lambda c: getattr(c, "__name__", ""))
def test_pure_calls_match_plain_rule_and_finite_differences(fn, args, primals):
    rng = np.random.default_rng(1)
    tangents = [random_tangent(a, rng) for a in args]
    got = _run(build_rule(fn), args, tangents)
    want = _run(build_rule(fn, optimized=False), args, tangents)
    for g, w in zip(got[:2], want[:2]):
        assert_close(g, w, rtol=1e-12, atol=1e-15)
    assert_close(got[1], fd_jvp(fn, args, tangents), rtol=1e-6, atol=1e-8)
    check_rule(fn, *args)


@pytest.mark.parametrize("fn, args, primal", MUTATING, ids=lambda c: getattr(c, "__name__", ""))
def test_calls_with_out_stay_mutations(fn, args, primal):
    analysis = _analysis(fn)
    lines = _calls_of(analysis, primal)
    assert lines and not any(line.pure for line in lines)
    assert analysis.kinds["buf"] == activity.BOXED
    check_rule(fn, *args)  # outputs and the mutated buffer against finite differences


@pytest.mark.usefixtures("restore_rules")  # static_graph registers a rule
@pytest.mark.parametrize("fn, args, replays", [
    (peak, (np.array([0.2, 1.4, -0.3]),), True),
    (max_into_position, (A, np.zeros(3)), False)], ids=["pure", "out"])
def test_static_graph_records_pure_calls_only(fn, args, replays):
    graph = fwdad.static_graph(fn)
    rng = np.random.default_rng(2)
    tangents = tuple(random_tangent(a, rng) for a in args)
    for _ in range(2):
        primal, tangent = fwdad.jvp(graph, tuple(copy.deepcopy(a) for a in args), tangents)
    assert (graph.static_graph.counts["replays"] == 1) is replays
    assert_close(tangent, fd_jvp(fn, [copy.deepcopy(a) for a in args], tangents),
                 rtol=1e-6, atol=1e-8)
