"""At run time: an arithmetic operator that writes its result into an operand nobody
else holds, instead of into a new array.

    dadd = _fw_into_left(_fw_np_add, dlap, dmul)    # dlap + dmul, into dlap when it may

The batched variant (optimizer/dead_operands.py) calls these where the operand is a
local that its rule never reads again; here, at each call, the operand must also be
the rule's alone: a float array of at least MIN_SIZE items that owns its memory (no
view of another), that no other object references (no list, instance, Dual or view of
it holds it: each adds to its reference count) or weakly references, writable, with
at least one axis; and the other operand a number or an array that broadcasts into its
shape and keeps its dtype. Otherwise the operator runs as written. Either way the
values are the operator's: the same ufunc, on the same operands; only where the
result goes differs.

The reference count an operand has when the rule's local is its only holder is measured
once, at import, with a call of the same shape (_alone), and must be the least CPython
gives for it (_LEAST: the caller's local, the parameter, getrefcount's argument; 3.10
also counts the caller's stack). A count that is higher (a tracer in 3.10, a frame
evaluator of PEP 523 that copies arguments) would let one more holder pass for none
once that mode ended, and an interpreter not in the table may count in other ways
(3.14 borrows references): those get no reuse at all.
"""
from __future__ import annotations

import operator
import sys
import sysconfig
import weakref
from typing import Any, Callable, Optional

import numpy as np

_OPERATORS = {np.add: operator.add, np.subtract: operator.sub,
              np.multiply: operator.mul, np.true_divide: operator.truediv}
# Below this many items a new array costs about what the checks cost (it comes from
# malloc's small bins, cached): the operator runs as written.
MIN_SIZE = 4096
_count = sys.getrefcount
_weak_count = weakref.getweakrefcount


def into_left(ufunc: Callable, t: Any, other: Any) -> Any:
    """`t <op> other`, into t when t is the caller's alone (the module docstring)."""
    if type(t) is np.ndarray and t.size >= MIN_SIZE and _count(t) == _ALONE and \
            _fits(t, other):
        return ufunc(t, other, out=t)
    return _OPERATORS[ufunc](t, other)


def into_right(ufunc: Callable, other: Any, t: Any) -> Any:
    """`other <op> t`, into t when t is the caller's alone."""
    if type(t) is np.ndarray and t.size >= MIN_SIZE and _count(t) == _ALONE and \
            _fits(t, other):
        return ufunc(other, t, out=t)
    return _OPERATORS[ufunc](other, t)


def _fits(t: np.ndarray, other: Any) -> bool:
    """Whether t may take the result: it owns its memory, is writable and has axes, and
    `other` broadcasts to no larger shape and keeps t's dtype: an array or NumPy
    number of that dtype, or a Python float or int where t is a float or complex array
    (which NumPy casts to t's dtype, NEP 50)."""
    if t.base is not None or not t.ndim or not t.flags.writeable or \
            _weak_count(t):  # (a weak reference adds no count, yet reads t later)
        return False
    kind = type(other)
    if kind is np.ndarray:
        return other.dtype == t.dtype and other.ndim <= t.ndim and \
            other.shape == t.shape[t.ndim - other.ndim:]
    if kind is float or kind is int:
        return t.dtype.kind in "fc"
    return isinstance(other, np.number) and other.dtype == t.dtype


def _counted(t: Any) -> int:
    """The reference count of `t` as into_left sees its operand (a parameter, counted)."""
    return _count(t)


def _alone() -> Optional[int]:
    """The count of an operand whose only holder is the caller's local; None (no reuse)
    when it is not the least this interpreter gives (_LEAST), when one more holder does
    not add exactly one, or in a build without the GIL (its counts are split between
    threads)."""
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        return None
    def only_local() -> int:
        t = np.empty(1)
        return _counted(t)

    def held_once_more() -> int:
        t = np.empty(1)
        holder = [t]
        count = _counted(t)
        del holder
        return count
    alone = only_local()
    if alone != _LEAST.get(sys.version_info[:2]) or held_once_more() != alone + 1:
        return None
    return alone


# the count of an operand held by the caller's local alone, as into_left sees it
# (measured under 3.10 to 3.13, with and without a tracer or profiler running)
_LEAST = {(3, 10): 4, (3, 11): 3, (3, 12): 3, (3, 13): 3}


_ALONE = _alone()
