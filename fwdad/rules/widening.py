"""In-place writes of tangents: `assign` (x[i] = v on the tangent side) and
`widen_for`, which gives an array a tangent that can hold a batched value first.

    a = x1 + 0.0        # an unbatched zero tangent (x1 inactive) in a batched call
    a[0] = x0[0]        # widen_for: a's tangent becomes a batch of zeros, then assign

A new tangent replaces the old one only if it can replace it everywhere: in the Dual
being written and, for a Dual read from an object's field (`FieldDual`), in that field
(the common case, seen from the reference count alone), and in every list, dict, tuple,
object field and other Dual that holds the array with it (found by
fwdad/rules/tangent_holders.py). Anything else that holds it (a view of it, a closure,
code that unboxed it, another array given the same tangent) would keep the old,
unbatched tangent, so widening is refused there, naming what holds it.
"""
from __future__ import annotations

import sys
from typing import Any, NamedTuple, Optional, Tuple

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import (
    FwdadError,
    SharedTangentError,
    UnrecordableError,
    global_holding,
    in_user_code,
)
from fwdad.rules import tangent_holders
from fwdad.rules.batching import (
    batch_position,
    in_a_context,
    is_batched,
    lift,
    running_context,
    tangent_index,
)
from fwdad.tangents import NoTangent, Tangent


class FieldDual(Dual):
    """A Dual read from the field `name` of an object whose tangent `owner` is a
    structural Tangent: it shares the field's tangent (writing into it writes into the
    object's), and widening its tangent widens the field's alike. At level 2 (second
    derivatives) `x.primal` and `x.tangent` of a rule's argument are such reads."""

    __slots__ = ("owner", "name")

    def __init__(self, primal: Any, tangent: Any, owner: Any, name: str) -> None:
        super().__init__(primal, tangent)
        self.owner, self.name = owner, name


def widen_for(x: Any, value: Any, where: str) -> None:
    """Before an in-place update of Dual `x` with the Dual `value`: when value's tangent
    is batched (or recorded) and x's is a plain array, give x a new tangent that can
    hold it (and the field x was read from, for a FieldDual). The caller must hold no
    reference to x's tangent.

    Raises:
        SharedTangentError: something else holds x's tangent, and would not follow.
    """
    tangent = x.tangent
    if type(tangent) is not np.ndarray or is_batched(x.primal, tangent):
        return
    context = running_context()
    if not context.needs_widening(x, value):
        return
    slots = _slots(x, tangent)
    if slots.slots is None:
        raise _shared_error(x, where, slots.refusal)
    tangent_holders.replace(slots.slots, context.widen(tangent, value))


def widen_before_view(x: Any, view: Any) -> None:
    """Before the tangent of `view`, a view of Dual x's array, is taken in a batched,
    recorded or sets call: when x's tangent is a writable plain array the context did
    not make (computed from constants: `C * 2.0`, `C.copy()`) and x alone holds it, x
    gets the context's tangent now. A batched write through this view, or through one
    taken later, then reaches x and every view of it; widening at the write could not
    reach the views taken before it. Read-only tangents (globals and other constants,
    which cost no batch work) are left as they are."""
    context = running_context()
    tangent = x.tangent
    if type(tangent) is not np.ndarray or tangent.dtype == object or \
            not tangent.flags.writeable or is_batched(x.primal, tangent) or \
            not np.may_share_memory(view, x.primal):
        return
    slots = _slots(x, tangent)
    if slots.slots is not None:
        tangent_holders.replace(slots.slots, _as_the_contexts(context, tangent))


def widen_before_view_of(x: Any, out: Any) -> None:
    """`widen_before_view` for a rule whose result `out` may be a view of Dual x's array
    (x.T, reshape, ravel, swapaxes; x itself for a bound method such as `x.reshape`,
    which will give one): only in a batched, recorded or sets call. The caller must
    hold no reference to x's tangent."""
    if type(out) is np.ndarray and type(x) in (Dual, FieldDual) and in_a_context():
        widen_before_view(x, out)


def _as_the_contexts(context: Any, tangent: np.ndarray) -> Any:
    """`tangent` as the running context makes a new array's: with a batch axis, recorded
    or holding sets (the recorded and sets contexts do not read the written value)."""
    if context.size is None:
        return context.widen(tangent, None)
    new = context.zeros(tangent)
    new[...] = tangent
    return new


def _slots(x: Any, tangent: np.ndarray) -> tangent_holders.Found:
    """The slots holding `tangent`, x's, when a new tangent can replace it in all of
    them: when its memory has no other users. The common case is quick: the Dual x
    alone holds it (and the field it was read from, for a FieldDual), as the reference
    count shows. Else its holders are looked for (fwdad/rules/tangent_holders.py): the
    lists, dicts and objects the array is in, e.g. `holder = [a]; holder[0][i] = v`.
    A view whose base nothing else holds (NumPy often returns a view of a temporary:
    reshape, linspace) is owned too; NumPy points every view at the array that owns the
    memory, so other views of it count."""
    count = getattr(sys, "getrefcount", None)
    if count is None:
        return tangent_holders.Found(None, "a Python without reference counts")
    if tangent.base is not None and count(tangent.base) > 2:  # (its base slot, the arg)
        return tangent_holders.Found(None, "a view of the same memory")
    field = _field_holding(x, tangent)
    # (known: x's slot, the field, widen_for's local, this call's argument, getrefcount's)
    if count(tangent) <= 4 + (field is not None):
        return tangent_holders.Found([tangent_holders.Slot(x, "tangent", True)] + (
            [tangent_holders.Slot(*field, True)] if field else []), "")
    del field  # (a tuple holding the object would be a holder the search cannot place)
    return tangent_holders.holders(x.primal, tangent, 2)  # (widen_for's local, the arg)


def _field_holding(x: Any, tangent: np.ndarray) -> Optional[Tuple[Any, str]]:
    """(owner, name) when x was read from a field that still holds `tangent`."""
    if type(x) is FieldDual and getattr(x.owner, x.name, None) is tangent:
        return x.owner, x.name
    return None


def _shared_error(x: Any, where: str, holder: str) -> SharedTangentError:
    """The refusal of a write that needs x's tangent replaced, where `holder` (what
    tangent_holders found) also holds it and would keep the old one."""
    context = running_context()
    line = in_user_code()
    if _of_a_rule(x):
        needs = "dependency sets" if context.holds_sets else "a batch" if \
            context.size is not None else "a derivative that linearize records"
        primal = x.primal.primal if isinstance(x.primal, Dual) else x.primal
        return SharedTangentError(
            f"{where}{line}: under a derivative of a derivative taken by linearize or "
            f"with a batch of tangents (e.g. linearize(fwdad.grad(f))), this write needs "
            f"the first-order tangent of an array of shape {np.shape(primal)} to hold "
            f"{needs}; a new one replaces it in the lists, dicts, tuples and objects that "
            f"hold the array, but {holder} holds it too, and would keep the old one (the "
            f"write itself is fine at first order). Take the second derivative one "
            f"direction at a time (fwdad.hvp(f, x, v), or fwdad.jvp of fwdad.grad(f)), "
            f"or build the array without writing into it (e.g. np.where(mask, new, a) "
            f"instead of a[mask] = new).")
    kind = "a dependency set (a sparsity detection)" if context.holds_sets else \
        "a batched value" if context.size is not None else \
        "a value whose derivative linearize records"
    return SharedTangentError(
        f"{where}{line}: {kind} is written into an array of shape {np.shape(x.primal)} "
        f"whose tangent has no batch axis (an argument not differentiated, or an array "
        f"computed from constants only), so it needs a new tangent; the new one replaces "
        f"it in the lists, dicts, tuples and objects that hold the array, but {holder} "
        f"holds it too, and would keep the old one. Write into a copy made inside the "
        f"function with np.copy, np.array or np.zeros (their tangents can hold one from "
        f"the start) before sharing it or taking views of it.")


def _of_a_rule(x: Any) -> bool:
    """Whether x is the primal or tangent part of a Dual that a rule is differentiated
    on (level 2 of a second derivative: FieldDual's docstring)."""
    return type(x) is FieldDual and x.name in ("primal", "tangent") and \
        type(x.owner) is Tangent


class _Value(NamedTuple):
    primal: Any
    tangent: Any


def _carries(tangent: Any) -> bool:
    """Whether a tangent may be nonzero (an instance's tangent always may)."""
    if tangent is NoTangent:
        return False
    try:
        return bool(np.any(np.asarray(tangent, dtype=float) != 0))
    except (TypeError, ValueError, UnrecordableError):  # (linearize's have no value yet)
        return True


def refused_as_constant(target_tangent: Any, tangent: Any, where: str,
                        primal: Any = None) -> bool:
    """Whether `target_tangent` is the read-only zero tangent of a constant array (a
    global, a closure variable, a value bound outside the differentiated code: see
    core/duals.const); then writing a zero `tangent` into it changes nothing, and any
    other is refused: the next read of the array would not see the derivative. The
    message names the global that holds the array `primal`, when one does."""
    if not isinstance(target_tangent, np.ndarray) or target_tangent.flags.writeable:
        return False
    if not _carries(tangent):
        return True
    line = in_user_code()
    name = global_holding(primal)
    held = f"the global or closure variable `{name}`" if name else \
        "a global or closure variable, or a value bound outside the differentiated code"
    raise FwdadError(
        f"{where}{line}: a value with a derivative was written "
        f"into an array that fwdad "
        f"reads as a constant ({held}): the next read of it would not see the "
        f"derivative. fwdad follows a global or closure array that the code writes "
        f"into by its name (`G[i] = v`); else pass the array as an argument, or write "
        f"into a copy (`a = A.copy()`).")


def overwrite(x: Any, tangent: Any, where: str) -> None:
    """`x.tangent[...] = tangent` after an in-place update of the array in the Dual x
    (sort, shuffle, nan_to_num(copy=False)); into a constant's zero tangent only zeros
    go (refused_as_constant)."""
    if not refused_as_constant(x.tangent, tangent, where, x.primal):
        x.tangent[...] = tangent


def assign(target: Any, index: Any, primal: Any, tangent: Any, where: str = "x[i] = v"
           ) -> None:
    """`target.tangent[index] = tangent` for a Dual `target` holding an array, where
    `tangent` (of the value `primal`) broadcasts into the target as the value does.
    A batched tangent written into an unbatched one first widens the target's tangent
    (`widen_for`, which refuses when views or fields share the old one)."""
    if target.tangent is NoTangent:
        if getattr(target.primal, "dtype", None) == np.dtype(object) and _carries(tangent):
            raise FwdadError(
                f"{where}: a value with a derivative was written into an object array, "
                f"whose items fwdad gives no tangents: the derivative would be lost. "
                f"Keep such values in a list, or in a float array.")
        return  # (an int array truncates: no derivative)
    if refused_as_constant(target.tangent, tangent, where, target.primal):
        return  # a constant written into a constant
    widen_for(target, _Value(primal, tangent), where)  # holding no reference to it
    base = target.tangent
    value = target.primal[index]
    part = value.shape if isinstance(value, (np.ndarray, np.generic)) else np.shape(value)
    dv = 0.0 if tangent is NoTangent else lift(primal, tangent, len(part))
    position = batch_position(index)
    if is_batched(target.primal, base) and position and np.ndim(dv):
        dv = np.moveaxis(np.broadcast_to(dv, base.shape[:1] + part), 0, position)
    base[tangent_index(target.primal, base, index)] = dv
