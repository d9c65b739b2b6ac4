"""lin.T: the recorded linear program (fwdad/recording.py) run backwards.

Every op of the tape is linear in its recorded arguments; its transpose takes the
cotangent of its result and adds what each recorded argument contributed:

    t3 = multiply(c, t1)    ->   ct1 += unbroadcast(ct3 * c)
    t4 = add(t3, t2)        ->   ct3 += ct4;  ct2 += ct4
    t5 = getitem(t4, idx)   ->   add.at(ct4, idx, ct5)          (a copy: fancy indexing)
    t6 = sum(t5, axis)      ->   ct5 += ct6, broadcast back over axis
    setitem(t7, idx, t8)    ->   ct8 += ct7[idx];  ct7[idx] = 0  (overwritten values;
                                 a repeated index: only the last write's value)
    add(t7, t9, out=t7)     ->   c = ct7; ct7 = 0; ct7 += c; ct9 += c

Views need no rule. Before the backward pass, each node gets a cotangent buffer laid out
as its value was: a node that viewed another's memory gets the same view of that node's
buffer (its op run on the buffer), so a cotangent added through a view lands where the
value came from, and an in-place write through a view zeroes the right entries, as in
reverse mode's adjoints (fwdad/reverse/). A tape with an op that has no transpose here
(or complex values) raises `NotTransposable`: lin.T then multiplies by the Jacobian.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, List, Optional, Tuple

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from fwdad import transposition_rules
from fwdad.cotangents import accumulate
from fwdad.recording import Linear, Tape, method_caller, resolved
from fwdad.reverse.rules_arrays import last_writes
from fwdad.rules.recorded_solves import RecordedTangent
from fwdad.transposition_rules import matmul


class NotTransposable(Exception):
    """This tape has an op without a transpose rule (lin.T falls back)."""


def check(tape: Tape) -> None:
    """Raise NotTransposable unless every op of the tape can be run backwards."""
    if any(node.dtype.kind != "f" for node in tape.nodes):
        raise NotTransposable("complex or non-float tangents")
    for (index, fn, args, kwargs), view in zip(tape.ops, tape.views):
        if view is None and _rule(fn, args, kwargs) is None:
            raise NotTransposable(getattr(fn, "__name__", repr(fn)))


def backward(tape: Tape, seeds: List[Tuple[Linear, Any]]) -> List[Optional[np.ndarray]]:
    """The cotangent of every node, given those of the outputs: (node, cotangent) pairs
    (a node that is two outputs gets both)."""
    buffers = _buffers(tape)
    for node, ct in seeds:
        accumulate(buffers, node, ct)
    for (index, fn, args, kwargs), view in zip(reversed(tape.ops), reversed(tape.views)):
        if view is None:
            _rule(fn, args, kwargs)(buffers, index, args, kwargs)
    return buffers


# ---- buffers laid out like the values -------------------------------------------------------
def _buffers(tape: Tape) -> list:
    buffers: list = [None] * len(tape.nodes)
    made = {op[0] for op in tape.ops if op[0] is not None}
    for node in tape.nodes:  # the inputs (made by no op; not those of dropped ops)
        if node.index not in made and node.index not in tape.dropped:
            buffers[node.index] = zeros_like_node(node)
    for (index, fn, args, kwargs), view in zip(tape.ops, tape.views):
        if index is None or buffers[index] is not None:
            continue  # in place: no new node
        if view is None:
            buffers[index] = zeros_like_node(tape.nodes[index])
            continue
        out = fn(*resolved(args, buffers), **resolved(kwargs, buffers))
        if not (isinstance(out, np.ndarray) and np.may_share_memory(out, buffers[view])):
            raise NotTransposable("a view of a value is not a view of its cotangent")
        if not out.flags.writeable:  # (np.diagonal's views are read-only)
            try:
                out.flags.writeable = True
            except ValueError:
                raise NotTransposable("a read-only view") from None
        buffers[index] = out
    return buffers


def zeros_like_node(node: Linear) -> np.ndarray:
    """Zeros shaped like the node, with its memory order (so views match)."""
    shape = node.shape
    if len(shape) < 2:
        return np.zeros(shape, node.dtype)
    order = sorted(range(len(shape)), key=lambda axis: -abs(node.strides[axis]))
    inverse = np.argsort(order)
    return np.zeros([shape[axis] for axis in order], node.dtype).transpose(inverse)


def _recorded(*values: Any) -> List[Linear]:
    return [v for v in values if type(v) is Linear]


# ---- the transpose rules: (buffers, node, args, kwargs) -> None -----------------------------
Rule = Callable[[list, Optional[int], tuple, dict], None]


def _in_place_aware(pure: Callable[[list, np.ndarray, tuple, dict], None]) -> Rule:
    """A rule for `out = f(args)`, also when `out=` is one of the recorded arguments'
    memory: its cotangent is taken, zeroed (the old values were overwritten), and passed
    on, so that f's own arguments (the old out among them) get theirs."""
    def rule(buffers: list, index: Optional[int], args: tuple, kwargs: dict) -> None:
        ct = buffers[index]
        if "out" in kwargs:
            ct = ct.copy()
            buffers[index][...] = 0.0
        pure(buffers, ct, args, {k: v for k, v in _given(kwargs).items() if k != "out"})
    return rule


def _add(buffers, ct, args, kwargs):
    for a in _recorded(*args):
        accumulate(buffers, a, ct)


def _subtract(buffers, ct, args, kwargs):
    accumulate(buffers, args[0], ct)
    accumulate(buffers, args[1], -ct)


def _negative(buffers, ct, args, kwargs):
    accumulate(buffers, args[0], -ct)


def _multiply(buffers, ct, args, kwargs):
    a, b = args
    recorded, other = (a, b) if type(a) is Linear else (b, a)
    accumulate(buffers, recorded, ct * other)


def _divide(buffers, ct, args, kwargs):
    """ct / b, but 0 where ct is 0 (an element nothing reads: a norm's x / |x| at 0,
    which forward mode then replaces by its subgradient 0, passes nothing back)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        quotient = ct / args[1]
    if np.isnan(quotient).any():
        quotient = np.where(ct == 0, 0.0, quotient)
    accumulate(buffers, args[0], quotient)


def _copied(buffers, ct, args, kwargs):
    """np.copy, np.array, a.copy(), np.real of a real value, casts: the same values."""
    x = args[0]
    accumulate(buffers, x, np.reshape(ct, x.shape))


def _reduced(mean: bool) -> Callable:
    def rule(buffers, ct, args, kwargs):
        x, axis = args[0], args[1] if len(args) > 1 else kwargs.get("axis")
        axes = range(len(x.shape)) if axis is None else \
            normalize_axis_tuple(axis, len(x.shape))
        if not kwargs.get("keepdims", False):
            for a in sorted(axes):
                ct = np.expand_dims(ct, a)
        count = np.prod([x.shape[a] for a in axes]) if mean else 1
        accumulate(buffers, x, np.broadcast_to(ct, x.shape) / count)
    return rule


def _getitem(buffers, ct, args, kwargs):
    """A copy made by indexing (fancy or boolean): scatter-add the cotangent back."""
    x, index = args
    np.add.at(buffers[x.index], index, ct)


def _setitem(buffers, index, args, kwargs):
    """The written entries' cotangent goes to the value, and theirs is zeroed first: the
    value may be a view of those very entries (`c[0] *= 2` writes c[0] into c[0]). An
    integer-array index that repeats a position keeps NumPy's last write: only the
    values that landed get a cotangent (`c[[0, 0]] = v` loses v[0])."""
    target, where, value = args
    ct = buffers[target.index]
    written = ct[where].copy()
    landed = last_writes(ct.shape, where)
    ct[where] = 0.0
    accumulate(buffers, value, written if landed is None else written * landed)


def _copyto(buffers, index, args, kwargs):
    target, value = args
    where = kwargs.get("where", True)
    ct = buffers[target.index]
    written = np.where(where, ct, 0.0)
    np.copyto(ct, 0.0, where=where)
    accumulate(buffers, value, written)


def _reshaped(buffers, ct, args, kwargs):
    """A reshape that copied (its order, C or F, read the values as it reads ct back)."""
    x = args[0]
    order = kwargs.get("order", "C")
    accumulate(buffers, x, np.reshape(ct, x.shape, order=order))


def _where(buffers, ct, args, kwargs):
    condition, a, b = args
    accumulate(buffers, a, np.where(condition, ct, 0.0))
    accumulate(buffers, b, np.where(condition, 0.0, ct))


def _take_along_axis(buffers, ct, args, kwargs):
    """Picked along an axis: scatter-add back to where each entry was picked from."""
    x, picks = args[0], args[1]
    axis = normalize_axis_tuple(args[2] if len(args) > 2 else kwargs["axis"],
                                len(x.shape))[0]
    grids = np.ogrid[tuple(slice(n) for n in ct.shape)]
    where = tuple(np.broadcast_to(picks, ct.shape) if d == axis else grids[d]
                  for d in range(len(x.shape)))
    np.add.at(buffers[x.index], where, ct)


def _flattened(buffers, ct, args, kwargs):
    """ravel or flatten that copied, in C or F order."""
    x = args[0]
    order = args[1] if len(args) > 1 else kwargs.get("order", "C")
    accumulate(buffers, x, np.reshape(ct, x.shape, order=order))


_PURE = {np.add: _add, np.subtract: _subtract, np.negative: _negative,
         np.multiply: _multiply, np.true_divide: _divide, np.copy: _copied,
         np.real: _copied, np.conjugate: _copied, np.sum: _reduced(False),
         np.mean: _reduced(True), operator.getitem: _getitem, np.reshape: _reshaped,
         np.matmul: matmul, np.where: _where, np.take_along_axis: _take_along_axis,
         method_caller("copy"): _copied, method_caller("astype"): _copied,
         method_caller("conj"): _copied,
         method_caller("sum"): _reduced(False), method_caller("mean"): _reduced(True),
         method_caller("reshape"): _reshaped, method_caller("ravel"): _flattened,
         method_caller("flatten"): _flattened}
_REDUCTIONS = {np.sum, np.mean, method_caller("sum"), method_caller("mean")}
_REORDERING = {np.reshape, method_caller("reshape"), method_caller("ravel"),
               method_caller("flatten")}


def _rule(fn: Any, args: tuple, kwargs: dict) -> Optional[Rule]:
    """The transpose rule of one op, or None."""
    if fn is np.zeros or not _holds_linear((args, kwargs)):
        return _nothing  # a node made from constants
    if type(fn) is RecordedTangent:  # (SciPy's, one op: by its matrix)
        return fn.transpose
    if fn is operator.setitem:
        return _setitem if type(args[0]) is Linear else None
    if fn is np.copyto:
        return _copyto if type(args[0]) is Linear and "casting" not in kwargs else None
    if fn in transposition_rules.IN_PLACE:
        applies, in_place = transposition_rules.IN_PLACE[fn]
        return in_place if applies(args, _given(kwargs)) else None
    if fn in transposition_rules.RULES:
        applies, pure = transposition_rules.RULES[fn]
        return _in_place_aware(pure) if applies(args, _given(kwargs)) else None
    pure = _PURE.get(fn)
    if pure is None or not _linear_use(fn, args, _given(kwargs)):
        return None
    return _in_place_aware(pure)


def _given(kwargs: dict) -> dict:
    """The options a call was given: NumPy passes its defaults through
    __array_function__ too (dtype=None, where=True, keepdims=<no value>)."""
    return {k: v for k, v in kwargs.items()
            if not (v is np._NoValue or (v is None and k in ("dtype", "out")) or
                    (k == "where" and v is True))}


def _linear_use(fn: Any, args: tuple, kwargs: dict) -> bool:
    """Whether the op uses its recorded arguments as the rules above assume: one
    recorded factor of a product, a recorded numerator, a constant condition or index,
    an axis but no other option of a reduction, a C or F order."""
    recorded = [type(a) is Linear for a in args]
    options = set(kwargs) - {"out", "axis", "keepdims", "order"}
    if options:
        return False
    if fn in _REORDERING and kwargs.get("order", "C") not in ("C", "F"):
        return False
    if fn in (np.add, np.subtract):
        return True
    if fn in (np.multiply, np.matmul):
        return sum(recorded) == 1
    if fn is np.true_divide:
        return recorded == [True, False]
    if fn is np.where:
        return not recorded[0]
    if fn in _REDUCTIONS and len(args) > 2:
        return False
    if fn is np.take_along_axis:  # (axis=None picks from the raveled array)
        return recorded == [True, False] + [False] * (len(args) - 2) and \
            (args[2] if len(args) > 2 else kwargs.get("axis")) is not None
    if fn in (method_caller("ravel"), method_caller("flatten")) and len(args) > 1:
        return args[1] in ("C", "F")
    return recorded[0] and not _holds_linear(args[1:])


def _holds_linear(tree: Any) -> bool:
    if type(tree) is Linear:
        return True
    if type(tree) in (tuple, list):
        return any(_holds_linear(v) for v in tree)
    if type(tree) is dict:
        return any(_holds_linear(v) for v in tree.values())
    return False


def _nothing(buffers, index, args, kwargs) -> None:
    """An op with no recorded argument (np.zeros, a copy of a constant)."""
