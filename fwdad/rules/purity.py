"""Which calls of Dual code are pure: they mutate none of their arguments (their results
may alias them). The optimizer keeps a value boxed when a call may mutate it, and
static_graph replays only schedules whose calls are pure; both ask here.

A rule is pure as a whole (`is_pure`), or per call site (`call_is_pure`): the NumPy
functions that take `out` mutate only `out`, so a call that passes none is pure.
"""
from __future__ import annotations

import inspect
from typing import Any, Dict, Optional, Set, Tuple

import numpy as np

from fwdad.rules.registry import KEYWORD_ONLY, RuleEntry, on_register

PURE_HELPERS: Set[Any] = set()  # helpers of generated code that mutate nothing


def is_pure(entry: RuleEntry) -> bool:
    """Rules that mutate none of their arguments (their results may alias them): what
    their entry says (RuleEntry.pure)."""
    return entry.pure


def call_is_pure(entry: Optional[RuleEntry], positional: int, keywords: Any,
                 starred: bool = False) -> bool:
    """Whether one call of the rule `entry` (with `positional` positional arguments,
    the names `keywords`, None for `**kw`, and `starred` for `*args`) mutates none of
    its arguments. The NumPy functions that take `out` (RuleEntry.out_at, whose rules
    fwdad/rules/outputs.py wraps) mutate nothing else: a call is pure when it passes no
    `out`; a ufunc's `out` may also be positional, after its inputs."""
    if entry is None:
        return False
    fn = entry.primal
    position = entry.out_at
    if position is not None:
        return not (starred or "out" in keywords or None in keywords or (
            position != KEYWORD_ONLY and positional > position))
    if isinstance(fn, np.ufunc) and (starred or positional > fn.nin):
        return False
    return entry.pure and "out" not in keywords and positional <= positional_out(entry)


_NO_OUT = 1 << 30
_POSITIONAL_OUT: Dict[int, Tuple[RuleEntry, int]] = {}  # id(entry) -> (entry, position)


def positional_out(entry: RuleEntry) -> int:
    """The position of an `out` parameter its entry does not know of (np.clip(a, lo,
    hi, out) writes out), from the primal's signature; a large number when there is
    none (kept per entry: a signature costs microseconds)."""
    known = _POSITIONAL_OUT.get(id(entry))
    if known is None or known[0] is not entry:
        known = _POSITIONAL_OUT[id(entry)] = entry, _out_in_signature(entry)
    return known[1]


def _out_in_signature(entry: RuleEntry) -> int:
    if entry.out_at is not None or isinstance(entry.primal, np.ufunc):
        return _NO_OUT  # (call_is_pure knows these)
    try:
        params = list(inspect.signature(entry.primal).parameters.values())
    except (TypeError, ValueError):  # (a C function without a signature)
        return _NO_OUT
    for i, p in enumerate(params):
        if p.name == "out" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            return i
    return _NO_OUT


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
