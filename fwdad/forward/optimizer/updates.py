"""Helpers that optimized rules call at run time: in-place updates of array locals.

    r[1:-1] += v        ->    r = _fw_update_owned(_fw_update, _fw_Dual(r, dr), key, v)
                              r, dr = r.primal, r.tangent
With ints and slices for the index and `=`, `+=` or `-=`, the update writes the primal
and the tangent itself (`dr[:, 1:-1] += dv` for a batch); otherwise it runs the plain
rule's own frules (getitem, the in-place operator, setitem) on a Dual of the split
local. `ufunc(a, b, out=r)` (Update.out) writes `dr[...] = da * b + a * db` itself for
add, subtract and multiply of float64 arrays of r's shape, and otherwise runs the
ufunc's frule on the split local. Either way the primal and the tangent change exactly
as in the plain rule.
forward/optimizer/inplace.py splits only locals whose arrays nothing else holds, so
their tangent is private: a zero tangent (NoTangent, the templates' symbolic zero)
becomes an array first, and a batched value widens it, with no count of its references
(rules/widening.py counts them because a boxed Dual's tangent may be shared; the split
local `dr` is one more holder, known to be the only one).
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Dict, NamedTuple, Tuple

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import created_tangent, holds_sets, is_batched, lift, running_context
from fwdad.tangents import NoTangent


class Update(NamedTuple):
    """What an update line calls: the frules of the plain rule (getitem, the in-place
    operator or None for `r[k] = v`, setitem; None for a whole `r op= v`)."""

    getitem: Any
    op: Any
    setitem: Any
    whole: bool
    primal_op: Any  # the in-place operator itself (operator.iadd), or None
    out: bool = False  # `ufunc(a, b, out=x)`: op is the ufunc's frule, primal_op the ufunc


def update_boxed(update: Update, x: Dual, key: Any, value: Dual, *more: Dual) -> Dual:
    """`x[key] op= value` (op None: `x[key] = value`; `x op= value` for a whole update;
    `ufunc(value, *more, out=x)` for an out update) on the Dual x, as the plain rule
    does it; the Dual x holds after it."""
    if update.out:
        update.op(value, *more, out=x)
        return x
    if update.whole:
        return update.op(x, value)
    if update.op is not None:
        value = update.op(update.getitem(x, key), value)
    update.setitem(x, key, value)
    return x


def update_owned(update: Update, x: Dual, key: Any, value: Dual, *more: Dual) -> Dual:
    """update_boxed for the Dual of a split local whose tangent nothing else holds."""
    if update.out:
        return _out_owned(update, x, (value,) + more)
    primal = x.primal
    tangent = _writable(primal, x.tangent, value)
    index = key.primal if isinstance(key, Dual) else key  # (the frules take it boxed)
    if update.primal_op in _LINEAR and _direct(primal, tangent, index, value.tangent):
        _update_directly(update.primal_op, primal, tangent, index, value)
        return Dual(primal, tangent)
    return update_boxed(update, x if tangent is x.tangent else Dual(primal, tangent),
                        key, value)


def update_primal(update: Update, x: Any, key: Any, value: Any) -> Any:
    """The update on primals alone (a local with no tangent, written a value with
    none); what x holds after it."""
    op = update.primal_op
    if update.whole:
        return op(x, value)
    x[key] = value if op is None else op(x[key], value)
    return x


def out_primal(update: Update, x: Any, *inputs: Any) -> Any:
    """`ufunc(*inputs, out=x)` on primals alone (no tangent anywhere); x after it."""
    update.primal_op(*inputs, out=x)
    return x


def _out_owned(update: Update, x: Dual, inputs: Tuple[Dual, ...]) -> Dual:
    """`ufunc(*inputs, out=x)` on the Dual of a split local, in a rule for unbatched
    tangents (inplace.py joins no out= in the variant for batched ones): add, subtract
    and multiply of float64 arrays of x's shape and floats written directly, the
    tangent from the inputs' values before the primal is written (an input may be x);
    other calls through the ufunc's frule, on a zero tangent made an array first."""
    primal, tangent = x.primal, x.tangent
    if tangent is NoTangent or type(tangent) is float:
        if type(primal) is not np.ndarray or primal.dtype.kind not in "fc":
            return update_boxed(update, x, None, *inputs)
        tangent = created_tangent(primal)
    rule = _OUT_TANGENTS.get(update.primal_op)
    if rule is not None and _plain_out(primal, tangent, inputs):
        dy = rule(*inputs)
        update.primal_op(*[d.primal for d in inputs], out=primal)
        tangent[...] = dy
        return Dual(primal, tangent)
    return update_boxed(update, x if tangent is x.tangent else Dual(primal, tangent),
                        None, *inputs)


def _plain_out(primal: Any, tangent: Any, inputs: Tuple[Dual, ...]) -> bool:
    if type(primal) is not np.ndarray or primal.dtype != np.float64 or \
            type(tangent) is not np.ndarray or tangent.shape != primal.shape or \
            not tangent.flags.writeable or holds_sets():
        return False
    for d in inputs:
        p, t = d.primal, d.tangent
        if type(p) is float:
            if type(t) is not float and t is not NoTangent:
                return False
        elif type(p) is not np.ndarray or p.dtype != np.float64 or p.shape != primal.shape \
                or not (t is NoTangent or type(t) is np.ndarray and t.shape == p.shape):
            return False
    return True


def _d(x: Dual) -> Any:
    return 0.0 if x.tangent is NoTangent else x.tangent


# the tangents of the ufuncs whose out= _out_owned writes directly (no batch axis)
_OUT_TANGENTS: Dict[Any, Callable[..., Any]] = {
    np.add: lambda a, b: _d(a) + _d(b),
    np.subtract: lambda a, b: _d(a) - _d(b),
    np.multiply: lambda a, b: _d(a) * b.primal + a.primal * _d(b),
}
_LINEAR = (None, operator.iadd, operator.isub)  # (None: `r[k] = v`)
_BASIC = (int, slice)


def _direct(primal: Any, tangent: Any, key: Any, value_tangent: Any) -> bool:
    """Whether the update can skip the frules: float arrays with plain array tangents,
    a basic index (ints and slices, which keep a batch axis in front), a value tangent
    that is an array, a float or none, and tangents that are numbers (not dependency
    sets, fwdad/sparsity, nor recorded ones, fwdad/recording.py)."""
    if type(primal) is not np.ndarray or type(tangent) is not np.ndarray or \
            not tangent.flags.writeable or holds_sets():
        return False
    if type(key) is tuple:
        if not all(type(k) in _BASIC for k in key):
            return False
    elif type(key) not in _BASIC:
        return False
    return value_tangent is NoTangent or type(value_tangent) in (float, np.ndarray)


def _update_directly(op: Any, primal: np.ndarray, tangent: np.ndarray, key: Any,
                     value: Dual) -> None:
    """`primal[key] op= v` as Python runs it (get, update, set), and the same on the
    tangent, as setitem_rule and the in-place rules do it (rules/widening.assign,
    rules/operators._in_place): the value's tangent lifted to broadcast as its primal
    does, the batch axis in front."""
    part = np.ndim(primal[key])
    index = (slice(None),) + (key if type(key) is tuple else (key,)) \
        if is_batched(primal, tangent) else key
    dv = value.tangent
    if op is None:
        primal[key] = value.primal
        tangent[index] = 0.0 if dv is NoTangent else lift(value.primal, dv, part)
        return
    primal[key] = op(primal[key], value.primal)
    if dv is not NoTangent:
        tangent[index] = op(tangent[index], lift(value.primal, dv, part))


def _writable(primal: Any, tangent: Any, value: Dual) -> Any:
    """The tangent an update of the array `primal` writes into: `tangent` itself, or a
    zero array for no tangent (a float array's), widened when `value` is batched."""
    if not isinstance(primal, np.ndarray) or not np.issubdtype(primal.dtype, np.inexact):
        return tangent
    if tangent is NoTangent or (type(tangent) is float and tangent == 0.0):
        tangent = created_tangent(primal)
    if type(tangent) is np.ndarray and not is_batched(primal, tangent):
        context = running_context()
        if context.needs_widening(Dual(primal, tangent), value):
            return context.widen(tangent, value)
    return tangent
