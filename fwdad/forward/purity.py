"""Which calls of Dual code are pure: they mutate none of their arguments (their results
may alias them). The optimizer keeps a value boxed when a call may mutate it, and
static_graph replays only schedules whose calls are pure; both ask here.

A rule is pure as a whole (`is_pure`), or per call site (`call_is_pure`): the NumPy
functions that take `out` mutate only `out`, so a call that passes none is pure.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, Dict, List, Optional, Set

import numpy as np

from fwdad import lang
from fwdad.rules.registry import RuleEntry, on_register

_PURE_PRIMALS = (operator.add, operator.sub, operator.mul, operator.truediv,
                 operator.pow, operator.neg, operator.pos, operator.abs, operator.mod,
                 operator.matmul, operator.getitem, getattr, lang.build_list,
                 lang.build_tuple, lang.build_dict, lang.build_set, builtins.abs,
                 builtins.pow, builtins.max, builtins.min, builtins.sum, builtins.float,
                 np.sum, np.mean, np.ndarray.sum, np.ndarray.mean, np.matmul, np.dot,
                 np.ndarray.dot, np.array, np.asarray)


PURE_HELPERS: Set[Any] = set()  # helpers of generated code that mutate nothing


def is_pure(entry: RuleEntry) -> bool:
    """Rules that mutate none of their arguments (their results may alias them)."""
    fn = entry.primal
    return (entry.kind != "frule" or isinstance(fn, np.ufunc)
            or getattr(fn, "__module__", None) == "math" or fn in _PURE_PRIMALS)


def call_is_pure(entry: Optional[RuleEntry], positional: int, keywords: Any,
                 starred: bool = False) -> bool:
    """Whether one call of the rule `entry` (with `positional` positional arguments,
    the names `keywords`, None for `**kw`, and `starred` for `*args`) mutates none of
    its arguments. The NumPy functions that take `out` (fwdad/rules/outputs.py, which
    also wraps reductions `is_pure` knows as pure) mutate nothing else: a call is pure
    when it passes no `out`; a ufunc's `out` may also be positional, after its inputs."""
    if entry is None:
        return False
    fn = entry.primal
    position = _out_positions().get(fn, _NO_OUT) if _hashable(fn) else _NO_OUT
    if position is not _NO_OUT:
        return not (starred or "out" in keywords or None in keywords or (
            position is not None and positional > position))
    if isinstance(fn, np.ufunc) and (starred or positional > fn.nin):
        return False
    return is_pure(entry) and "out" not in keywords


_NO_OUT = object()


def _out_positions() -> Dict[Any, Optional[int]]:
    """fwdad.rules.outputs.WITH_OUT, read when first needed (importing that module
    registers its rules: fwdad's own import of the rules does it first)."""
    if not _WITH_OUT:
        from fwdad.rules.outputs import WITH_OUT
        _WITH_OUT.append(WITH_OUT)
    return _WITH_OUT[0]


_WITH_OUT: List[Dict[Any, Optional[int]]] = []


def _hashable(fn: Any) -> bool:
    try:
        hash(fn)
    except TypeError:
        return False
    return True


# (id(entry), positional) -> (entry, whether such a call without keywords is pure)
_PLAIN_PURITY: Dict[tuple, tuple] = {}


def plain_call_is_pure(entry: RuleEntry, positional: int) -> bool:
    """call_is_pure for a call with `positional` arguments alone (kept per entry)."""
    key = (id(entry), positional)
    known = _PLAIN_PURITY.get(key)
    if known is None or known[0] is not entry:
        known = _PLAIN_PURITY[key] = entry, call_is_pure(entry, positional, [])
    return known[1]


on_register(lambda fn: _PLAIN_PURITY.clear())
