"""Sparsity rules: how each primitive moves dependency sets, and the dense fallback.

A sparsity rule takes the registry entry and the call's Duals and returns a Dual whose
tangent holds dependency sets. Four kinds:
- `through_frule`: the frule itself, run on sets. Sound for rules whose tangent is a
  sum of products and moves of the argument tangents (set arithmetic is the union),
  with no choice made on values: moves, linear maps, matmul, sums, containers.
- `elementwise`: each output item depends on the items of the arguments it is
  broadcast from (ufuncs, math.*, the arithmetic operators on numbers).
- `reduce_union`: each output item depends on every item reduced into it (global
  max/min, var, std: which item wins depends on the values).
- `dense`: everything else (the fallback): each output item depends on every input.
Local mode may use rules that choose on values (max picks its argmax); global mode
uses the value-free rule for those (fwdad/sparsity/table.py says which gets which).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import FwdadError, a_type, describe
from fwdad.forward.dispatch import derived_rule
from fwdad.rules.layout import laid_out_like
from fwdad.rules.registry import RuleEntry
from fwdad.rules.ufuncs import write_outputs
from fwdad.rules.widening import widen_for
from fwdad.sparsity.deps import Deps, full
from fwdad.sparsity.unknown import Unknown, plain
from fwdad.tangents import NoTangent, Tangent

SparsityRule = Callable[[RuleEntry, tuple, dict], Dual]


def through_frule(entry: RuleEntry, args: tuple, kwargs: dict) -> Dual:
    out: Dual = entry.callable(*args, **kwargs)
    return out


def elementwise(entry: RuleEntry, args: tuple, kwargs: dict) -> Optional[Dual]:
    """None (no rule: the caller falls back) for a call that is not elementwise here:
    arguments that are not numbers or arrays, or keywords such as `where=`."""
    if any(isinstance(a.tangent, Tangent) for a in args):  # (`v * 2.0`, v an instance
        return through_frule(entry, args, kwargs)  # whose __mul__ is Python: its rule)
    out = kwargs.pop("out", None)
    if set(kwargs) - {"dtype", "casting"} or not all(_numeric(a.primal) for a in args):
        return None
    compute = entry.primal
    if entry.primal in _WITHOUT_BRANCHES:
        if len(args) != 2:
            return None
        compute = _WITHOUT_BRANCHES[entry.primal]
    primal = compute(*(a.primal for a in args), **{k: v.primal for k, v in kwargs.items()})
    union = None
    for a in args:
        if carries_deps(a.tangent):
            union = a.tangent if union is None else union + a.tangent
    result = Dual(primal, shaped_like(primal, union))
    if out is None or out.primal is None:
        return result
    return write_outputs((out,), result.primal, result.tangent, {})  # out= overwrites


# max(a, b) compares (a branch, which global mode refuses); NumPy's picks without one.
_WITHOUT_BRANCHES = {max: np.maximum, min: np.minimum}


def reduce_union(entry: RuleEntry, args: tuple, kwargs: dict) -> Optional[Dual]:
    """A reduction `fn(x, axis=None, ..., keepdims=False)`: the union over the axes.
    None (the fallback) for other arguments: `out`, `where`, or more positional ones."""
    primals = [a.primal for a in args]
    named = {k: v.primal for k, v in kwargs.items()}
    if len(primals) > 2 or not _numeric(primals[0]) or \
            set(named) - {"axis", "keepdims", "ddof"}:
        return None
    axis = named.get("axis", primals[1] if len(primals) > 1 else None)
    keepdims = named.get("keepdims", False)
    primal = entry.primal(*primals, **named)
    sets = np.asarray(args[0].tangent, dtype=object)
    union = np.sum(sets, axis=axis, keepdims=keepdims) if sets.size else None
    return Dual(primal, shaped_like(primal, union))


def dense(every: Deps) -> SparsityRule:
    """The fallback: run the frule on zero tangents for the output, then give each of
    its float items the set of every input. An argument the call may write into (its
    `out=`, the array of an in-place method) depends on every input too."""
    def dense_rule(entry: RuleEntry, args: tuple, kwargs: dict) -> Dual:
        plain_args = [_without_sets(a) for a in args]
        plain_kwargs = {k: _without_sets(v) for k, v in kwargs.items()}
        out: Dual = entry.callable(*plain_args, **plain_kwargs)
        written = [kwargs.get("out")] + ([args[0]] if entry.primal in _MUTATING else []) \
            + ([args[1]] if entry.primal is np.ufunc.at and len(args) > 1 else [])
        for target in written:
            if isinstance(target, Dual) and isinstance(target.primal, np.ndarray):
                _depend_on_all(target, every)
        for original, stand_in in zip(list(args) + list(kwargs.values()),
                                      plain_args + list(plain_kwargs.values())):
            if out is stand_in and out.primal is not None:  # (it returns its `out`)
                return original
        try:
            return Dual(out.primal, _all_of(out.tangent, every))
        except _Unreachable as err:
            raise FwdadError(
                f"jacobian_sparsity: {describe(entry.primal)} has no sparsity rule, and "
                f"its result's tangent is {a_type(err.args[0])}, which the dense "
                f"fallback cannot make depend on every input. Call it on arrays (or "
                f"tuples of them), or keep it out of the function.") from None
    return dense_rule


def _depend_on_all(target: Dual, every: Deps) -> None:
    """Make every float item of the array `target` depend on every input, in place."""
    if target.primal.dtype.kind not in "fc" or target.tangent is NoTangent:
        return
    sets = full(target.primal.shape, every)
    widen_for(target, Dual(target.primal, sets), "an in-place update")
    target.tangent[...] = sets


def carries_deps(tangent: Any) -> bool:
    """Whether a tangent may hold dependency sets (anything but a plain zero)."""
    if tangent is NoTangent or tangent is None or isinstance(tangent, (float, complex, int)):
        return False
    return not (isinstance(tangent, np.ndarray) and tangent.dtype != object)


def _numeric(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic, int, float, complex))


def shaped_like(primal: Any, union: Any) -> Any:
    """The union broadcast to the output: an object array for an array, one Deps for
    a scalar, NoTangent for an output without a tangent (an int, a bool)."""
    kind = np.asarray(primal).dtype.kind
    if kind not in "fc":
        return NoTangent
    union = Deps(0) if union is None else union
    if isinstance(primal, np.ndarray):
        spread = np.broadcast_to(np.asarray(union, dtype=object), primal.shape)
        return laid_out_like(primal, spread, object)  # (a copy, in primal's memory order)
    return union[()] if isinstance(union, np.ndarray) else union


def _without_sets(arg: Any) -> Any:
    """The Dual with a zero tangent in place of sets (what the frule expects), and
    its value as a plain array: the fallback's own choices on values (a branch inside
    the frule) decide nothing, as every output item depends on every input anyway.
    Only an array is made plain (a view: the call's writes still land); a list made
    plain would be a copy, which would not see them."""
    if not isinstance(arg, Dual):
        return arg
    primal = plain(arg.primal) if isinstance(arg.primal, Unknown) else arg.primal
    if primal is arg.primal and not carries_deps(arg.tangent):
        return arg
    return Dual(primal, NoTangent if carries_deps(arg.tangent) else arg.tangent)


def _all_of(tangent: Any, every: Deps) -> Any:
    """`tangent` with each float leaf depending on every input."""
    if tangent is NoTangent or tangent is None:
        return tangent
    if isinstance(tangent, np.ndarray):
        if tangent.dtype.kind not in "fcO":
            return tangent
        sets = np.empty_like(tangent, dtype=object)  # (in its memory order: the frule's
        sets.fill(every)                             # tangent's, rules/layout.py)
        return sets
    if isinstance(tangent, (float, complex, np.inexact, Deps)):
        return every
    if isinstance(tangent, (tuple, list)):
        return type(tangent)(_all_of(t, every) for t in tangent)
    if isinstance(tangent, dict):
        return {k: _all_of(v, every) for k, v in tangent.items()}
    # Structured tangents (objects with fields) hold leaves this does not reach.
    raise _Unreachable(tangent)


class _Unreachable(Exception):
    """A tangent whose float leaves the dense fallback cannot reach."""


# In-place writes: the fallback cannot tell which items they overwrite.
_MUTATING = {np.copyto, np.put, np.ndarray.put, np.ndarray.fill, np.fill_diagonal, np.place,
             np.putmask, np.ndarray.sort, np.ndarray.partition}


def in_place(entry: RuleEntry, args: tuple, kwargs: dict) -> Optional[Dual]:
    """`a += b`: through the frule for an array; elementwise for a scalar, and for the
    0-d arrays that stand for scalars in global mode (updating a copy, as NumPy's
    scalars are copies). An array whose tangent is plain zeros (a copy an index made of
    an undifferentiated argument) is first widened to hold the value's sets: the
    frule's `da += db` would not cast them into a float array."""
    if np.ndim(args[0].primal) > 0:
        if len(args) == 2 and isinstance(args[1], Dual):
            widen_for(args[0], args[1], f"{describe(entry.primal)}(a, b)")
        return through_frule(entry, args, kwargs)
    return elementwise(entry, args, kwargs)


def ufunc_at(entry: RuleEntry, args: tuple, kwargs: dict) -> Optional[Dual]:
    """`np.add.at(a, indices, b)`: through the frule, which adds b's sets into a's at
    each index (a repeated index takes them again), where a's tangent holds sets. None
    (the dense fallback, which takes a as written: every input) for other ufuncs, and
    where a has no sets yet (a constant array: the frule would leave b's out)."""
    ufunc, a = args[0].primal, args[1] if len(args) > 1 else None
    if ufunc not in (np.add, np.subtract) or a is None or kwargs or \
            not isinstance(a.primal, np.ndarray) or not carries_deps(a.tangent):
        return None
    return through_frule(entry, args, kwargs)


def full_rule(entry: RuleEntry, args: tuple, kwargs: dict) -> Dual:
    """A @static_graph function: its derived rule, whose primitives run their sparsity
    rules (its recorded schedules call the frules themselves)."""
    out: Dual = derived_rule(entry.rule.fn)(*args, **kwargs)
    return out
