"""Rules for the methods of ufuncs: `np.add.at`, `reduce`, `accumulate`, `reduceat` and
`outer`.

`np.add.at` is a method bound to the ufunc `np.add`: dispatch keys it by its type's
method (`np.ufunc.at`), and the rule receives the ufunc as its first argument.
"""
from __future__ import annotations

import numpy as np

from fwdad.core.missing_rules import missing_rule_error
from fwdad.dual import Dual
from fwdad.errors import MissingRuleError, in_user_code
from fwdad.rules import reductions as red
from fwdad.rules.batching import dense, fit, is_batched, lift, tangent_axis, tangent_index
from fwdad.rules.indexing import getitem_rule, setitem_rule
from fwdad.rules.registry import frule, get_frule
from fwdad.rules.widening import widen_for
from fwdad.tangents import NoTangent

_REDUCE = {np.add: red.sum_rule, np.multiply: red.prod_rule, np.maximum: red.extreme_rule(
    np.max, np.argmax), np.minimum: red.extreme_rule(np.min, np.argmin)}


def _running(ufunc):
    """maximum/minimum.accumulate: the running extreme's tangent is that of the element
    it came from (on a tie, the earlier one)."""
    def rule(array: Dual, axis=0, dtype=None) -> Dual:
        x = red.as_array(array)
        out = ufunc.accumulate(x.primal, axis, dtype)
        dx = dense(x.primal, x.tangent)
        t_axis = tangent_axis(x.primal, dx, axis)
        xs, dxs = np.moveaxis(x.primal, axis, -1), np.moveaxis(dx, t_axis, -1).copy()
        best = np.moveaxis(out, axis, -1)
        for k in range(1, xs.shape[-1]):
            kept = best[..., k - 1] == best[..., k]  # the earlier extreme still holds
            dxs[..., k] = np.where(kept, dxs[..., k - 1], dxs[..., k])
        return Dual(out, np.moveaxis(dxs, -1, t_axis))
    return rule


_ACCUMULATE = {np.add: red.cumsum_rule, np.multiply: red.cumprod_rule,
               np.maximum: _running(np.maximum), np.minimum: _running(np.minimum)}


def _method(table, ufunc, name):
    rule = table.get(ufunc)
    if ufunc not in table:
        known = ", ".join(f"{u.__name__}.{name}" for u in table)
        raise MissingRuleError(
            f"no rule to differentiate numpy.{ufunc.__name__}.{name}: fwdad has rules for "
            f"{known}. Write the loop in Python (fwdad derives it), or register one with "
            f"@fwdad.frule(numpy.ufunc.{name}).")
    return rule


@frule(np.ufunc.reduce)
def _reduce(ufunc, array: Dual, axis=0, dtype=None, out=None, keepdims=False,
            initial: Dual = None, where=True) -> Dual:
    """add.reduce is sum, multiply.reduce prod, maximum/minimum.reduce max/min (with
    their `initial` and `where`)."""
    if out is not None:
        refuse_out(ufunc, "reduce")
    given = {} if initial is None else {"initial": initial}
    if ufunc in (np.maximum, np.minimum):
        return _method(_REDUCE, ufunc, "reduce")(array, axis, keepdims, where=where, **given)
    return _method(_REDUCE, ufunc, "reduce")(array, axis, dtype, keepdims, where=where,
                                              **given)


def refuse_out(ufunc, name: str) -> None:
    """A ufunc method given `out=`, which the rules do not write (it was ignored: the
    value and the derivative of `out` stayed as they were, tests/rules/
    test_ufunc_method_outputs.py)."""
    raise MissingRuleError(
        f"no rule to differentiate numpy.{ufunc.__name__}.{name} with out="
        f"{in_user_code()}: assign its result instead, "
        f"`r[...] = np.{ufunc.__name__}.{name}(a, ...)`.")


@frule(np.ufunc.accumulate)
def _accumulate(ufunc, array: Dual, axis=0, dtype=None, out=None) -> Dual:
    """add.accumulate is cumsum, multiply.accumulate cumprod (along axis 0 by default)."""
    if out is not None:
        refuse_out(ufunc, "accumulate")
    return _method(_ACCUMULATE, ufunc, "accumulate")(array, axis, dtype)


@frule(np.ufunc.reduceat, pure=True)
def _reduceat(ufunc, array: Dual, indices, axis=0, dtype=None, out=None) -> Dual:
    """add.reduceat sums slices, so its tangent is add.reduceat of the tangent (the
    other ufuncs' reduceat has no rule)."""
    _method({np.add: None}, ufunc, "reduceat")
    if out is not None:
        refuse_out(ufunc, "reduceat")
    x = red.as_array(array)
    out = np.add.reduceat(x.primal, indices, axis, dtype)
    if x.tangent is NoTangent:
        return Dual(out, NoTangent)
    t_axis = tangent_axis(x.primal, x.tangent, axis % max(x.primal.ndim, 1))
    return Dual(out, fit(np.add.reduceat(x.tangent, indices, t_axis, dtype), out))


@frule(np.ufunc.outer)
def _outer(ufunc, a: Dual, b: Dual, **kwargs) -> Dual:
    """ufunc.outer(a, b) is ufunc(a[..., None, ...], b): the ufunc's own rule."""
    a = red.as_array(a)
    extra = (1,) * np.ndim(b.primal)
    expanded = Dual(a.primal.reshape(a.primal.shape + extra), NoTangent if a.tangent is
                    NoTangent else a.tangent.reshape(a.tangent.shape + extra))
    return _rule(ufunc)(expanded, b, **kwargs)


def _rule(ufunc):
    rule = get_frule(ufunc)
    if rule is None:
        raise missing_rule_error(ufunc, ())
    return rule


@frule(np.ufunc.at)
def _at(ufunc, a: Dual, indices, b: Dual = None) -> Dual:
    """a[indices] = ufunc(a[indices], b), unbuffered: repeated indices apply again
    (add.at accumulates). add and subtract update the tangent at once; other ufuncs
    apply their own rule one element at a time, in index order."""
    if b is not None and isinstance(b.primal, (list, tuple)):  # (its items' tangents
        b = red.as_array(b)                                      # batched as one array)
    positions = np.arange(a.primal.size).reshape(a.primal.shape)[indices]
    index = np.unravel_index(positions, a.primal.shape)
    if ufunc in (np.add, np.subtract) and b is not None:
        ufunc.at(a.primal, index, b.primal)
        if a.tangent is not NoTangent and b.tangent is not NoTangent:
            _promote(a, b)
            ufunc.at(a.tangent, tangent_index(a.primal, a.tangent, index),
                     lift(b.primal, b.tangent, positions.ndim))
    else:
        _at_each(_rule(ufunc), a, positions, b)
    return Dual(None, NoTangent)


def _promote(a: Dual, b: Dual) -> None:
    """A batched tangent written into an unbatched one makes it batched."""
    if b is not None:
        widen_for(a, b, "ufunc.at(a, indices, b)")


def _at_each(rule, a: Dual, positions, b) -> None:
    """a[p] = rule(a[p], b[k]) for each position p, in order, through the rules of
    getitem and setitem (which batch and promote tangents)."""
    _promote(a, b)
    items = None if b is None else _flat_items(b, positions)
    for k, pos in enumerate(positions.reshape(-1)):
        where = Dual(np.unravel_index(pos, a.primal.shape), NoTangent)
        args = (getitem_rule(a, where),) + (() if items is None else (items(k),))
        setitem_rule(a, where, rule(*args))


def _flat_items(b: Dual, positions):
    """The Duals of b broadcast against `positions`, by flat position."""
    bp = np.broadcast_to(b.primal, positions.shape).reshape(-1)
    dense_t = dense(b.primal, b.tangent)
    batched = is_batched(b.primal, dense_t)
    lead = dense_t.shape[:1] if batched else ()
    bt = np.broadcast_to(lift(b.primal, dense_t, positions.ndim), lead + positions.shape)
    bt = bt.reshape(lead + (-1,))
    return lambda k: Dual(bp[k], bt[:, k] if batched else bt[k])
