"""fwdad/write_free.py: which functions write into nothing (so jvp may lend them the
caller's tangents), and the checks made at each call."""
from __future__ import annotations

import operator

import numpy as np
import pytest

from fwdad import write_free

_G = np.ones(3)


def _pure_helper(a):
    return a * 2.0


def _writing_helper(a):
    a[0] = 1.0
    return a


def _recursive(w, n):
    return w if n == 0 else _recursive(w, n - 1)


def _method_bound_twice(w):
    m = w.sum
    if w[0] > 0:
        m = w.sort
    return m()


WRITES_NOTHING = [
    lambda w: np.tanh(w @ w) + 1.0,
    lambda w: w.T[1:],
    lambda w: (w, [w, 2.0], {"k": w}),
    lambda w: np.roll(w, 1) * _G,
    lambda w: _pure_helper(w) + operator.neg(w),
    lambda w, k=2.0: np.sum(w, 0) ** k,
    lambda w: w.sum(0) + w.reshape(3, 1).max() * w.T.copy(),
]

MAY_WRITE = {
    "setitem": lambda w: operator.setitem(w, 0, 1.0),
    "in-place operator": lambda w: operator.iadd(w, 1.0),
    "out=": lambda w: np.sin(w, out=w),
    "out by position (entry)": lambda w: np.dot(w, w, w),
    "out by position (signature)": lambda w: np.fix(w, w),
    "round into itself": lambda w: np.round(w, 0, w),
    "copyto": lambda w: np.copyto(w, 0.0),
    "a method that writes": lambda w: w.sort(),
    "a method given out": lambda w: w.sum(out=w),
    "a method given out by position": lambda w: w.max(0, w),
    "a method name bound twice": _method_bound_twice,
    "a writing helper": lambda w: _writing_helper(w),
    "recursion": _recursive,
    "a callback": lambda w: list(map(_pure_helper, w)),
    "a nested def": lambda w: (lambda: w)(),
    "a class": lambda w: np.ndarray(3),
}


@pytest.mark.parametrize("f", WRITES_NOTHING, ids=[f"case{i}" for i in range(len(WRITES_NOTHING))])
def test_functions_that_write_nothing(f):
    assert write_free.verdict(f) is not None


@pytest.mark.parametrize("name", MAY_WRITE)
def test_functions_that_may_write(name):
    assert write_free.verdict(MAY_WRITE[name]) is None


def _reads_global(w):
    return w * _G


def test_the_globals_read_and_the_callees_are_checked_at_each_call(monkeypatch):
    found = write_free.verdict(_reads_global)
    assert found.reads == {(_reads_global, "_G")}
    args = (np.ones(3),)
    assert write_free.holds(found, args)
    monkeypatch.setitem(_reads_global.__globals__, "_G", [object()])
    assert not write_free.holds(found, args)


@pytest.mark.parametrize("value, plain", [
    (1.0, True), (np.float32(2.0), True), ("s", True), (None, True),
    (np.ones(2), True), ((1, [2.0, {"a": np.ones(1)}]), True),
    (np.array([object()]), False), (np.ma.ones(2), False), (object(), False),
    ([1.0, object()], False), (np.ones(2).view(type("Sub", (np.ndarray,), {})), False),
])
def test_plain_values(value, plain):
    assert write_free.plain(value) is plain
