"""In-place writes of tangents: `assign` (x[i] = v on the tangent side) and
`widen_for`, which gives an array a tangent that can hold a batched value first.

    a = x1 + 0.0        # an unbatched zero tangent (x1 inactive) in a batched call
    a[0] = x0[0]        # widen_for: a's tangent becomes a batch of zeros, then assign

A new tangent replaces the old one only if it can replace it everywhere: the old one
must be held by the Dual being written and, for a Dual read from an object's field
(`FieldDual`), by that field, which is moved along. Anything else that holds it (a view
of it, another Dual, a list, code that unboxed it) would keep the old, unbatched
tangent, so widening is refused there. The holders are counted with reference counts:
NumPy arrays are not tracked by the garbage collector, so nothing else can see them.
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
    field = _field_holding(x, tangent)
    if not _owned(tangent, 4 + (field is not None)):
        raise _shared_error(x, where)
    x.tangent = context.widen(tangent, value)
    if field is not None:
        setattr(*field, x.tangent)


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
    field = _field_holding(x, tangent)
    if not _owned(tangent, 4 + (field is not None)):  # (as widen_for's)
        return
    x.tangent = _as_the_contexts(context, tangent)
    if field is not None:
        setattr(*field, x.tangent)


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


def _field_holding(x: Any, tangent: np.ndarray) -> Optional[Tuple[Any, str]]:
    """(owner, name) when x was read from a field that still holds `tangent`."""
    if type(x) is FieldDual and getattr(x.owner, x.name, None) is tangent:
        return x.owner, x.name
    return None


def _owned(tangent: np.ndarray, holders: int) -> bool:
    """Whether `tangent` has no references but the `holders` known ones (the Dual's
    slot, the field, widen_for's local, this call's argument and getrefcount's), and
    so whether its memory has no other users: views hold their base, fields and lists
    their items. A view whose base nothing else holds (NumPy often returns a view of a
    temporary: reshape, linspace) is owned too; NumPy points every view at the array
    that owns the memory, so other views of it count."""
    count = getattr(sys, "getrefcount", None)
    if count is None or count(tangent) > holders:
        return False
    return tangent.base is None or count(tangent.base) <= 2  # (its base slot, the arg)


def _shared_error(x: Any, where: str) -> SharedTangentError:
    context = running_context()
    kind = "a dependency set (a sparsity detection)" if context.holds_sets else \
        "a batched value" if context.size is not None else \
        "a value whose derivative linearize records"
    if _of_a_rule(x):
        needs = "dependency sets" if context.holds_sets else "a batch" if \
            context.size is not None else "a derivative that linearize records"
        primal = x.primal.primal if isinstance(x.primal, Dual) else x.primal
        return SharedTangentError(
            f"{where}{in_user_code()}: under a derivative of a derivative taken by "
            f"linearize or with a batch of tangents (e.g. linearize(fwdad.grad(f))), "
            f"this write needs the first-order tangent of an array of shape "
            f"{np.shape(primal)} to hold {needs}, but fwdad's own rules hold that tangent "
            f"in more than one place, so a new one could not replace it everywhere (the "
            f"write itself is fine at first order). Take the second derivative one "
            f"direction at a time (fwdad.hvp(f, x, v), or fwdad.jvp of fwdad.grad(f)), "
            f"or build the array without writing into it (e.g. np.where(mask, new, a) "
            f"instead of a[mask] = new).")
    return SharedTangentError(
        f"{where}{in_user_code()}: {kind} is written into an array of shape "
        f"{np.shape(x.primal)} whose tangent has no batch axis and is shared (with a view "
        f"of it, a list or tuple, or another name for the same field), so a new tangent "
        f"could not replace it everywhere. The array was read from a global, made by a "
        f"function with no derivative, or is a view of such an array: write into a copy "
        f"made inside the function (e.g. `a = a.copy()`) before taking views of it.")


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
