"""jvp lends the caller's tangent arrays, uncopied, to a function that writes nothing.

    jvp(mlp, (w1,), (dw1,))      ->  mlp's rule gets a read-only view of dw1 itself
    jvp(f, (w,), (dw,)), f(w)=w  ->  the output tangent, a view of dw, is copied
    f writes (w[0] = ..., w.sort(), an unknown call), or dw is small  ->  a copy

jvp copies each array tangent it is given, so that a rule that writes into its
argument's tangent (the function writes into its argument) does not write into the
caller's array. The copy is a pass over memory (0.4 ms of a 10 ms MLP step); where
fwdad/write_free.py finds that the function writes into nothing, the caller's tangent
goes in uncopied. Two guards stay: the view is read-only, so a write the analysis
missed is refused by NumPy (and reported as an InternalError) instead of made; and an
output tangent that may share memory with a lent one (`f(w) = w`, `w.T`, `w[1:]`) is
copied, so the caller never gets its own tangent back.
"""
from __future__ import annotations

import copy
import types
from typing import Any, Callable, FrozenSet, List, Sequence

import numpy as np

from fwdad import write_free
from fwdad.errors import FwdadError, InternalError, describe
from fwdad.tangents import NoTangent, rebuild

_NONE: FrozenSet[int] = frozenset()


def lendable(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
             constants: FrozenSet[int]) -> FrozenSet[int]:
    """The positions of the float arrays whose tangent arrays may go to f uncopied:
    none when they are small (the checks would cost more than the copies)."""
    arrays, size = [], 0
    for i, t in enumerate(tangents):
        if type(t) is np.ndarray and i not in constants:
            p = primals[i]
            if type(p) is np.ndarray and p.dtype.kind in "fc":
                arrays.append(i)
                size += t.size
    if size < LEND_FROM or type(f) is not types.FunctionType:
        return _NONE
    found = write_free.verdict(f)
    if found is None or not write_free.holds(found, primals):
        return _NONE
    return frozenset(arrays)


LEND_FROM = 4096  # numbers in the tangent arrays (below, copying them costs less than
# the checks: bench/lent_tangents.py)


def lent(tangent: np.ndarray) -> np.ndarray:
    """A read-only view of the caller's tangent (a write into it raises)."""
    view = tangent.view()
    view.flags.writeable = False
    return view


def unshared(tangent: Any, lent_arrays: List[np.ndarray]) -> Any:
    """The output tangent, with each array that may share memory with a lent one
    copied (tuples, lists and dicts rebuilt around them)."""
    if isinstance(tangent, np.ndarray):  # (a subclass too: its copy keeps its type)
        for a in lent_arrays:
            if np.may_share_memory(tangent, a):
                return tangent.copy()
        return tangent
    if isinstance(tangent, (tuple, list)):
        return rebuild(tangent, [unshared(t, lent_arrays) for t in tangent])
    if type(tangent) is dict:
        return {k: unshared(t, lent_arrays) for k, t in tangent.items()}
    if type(tangent) in _UNSHARED:
        return tangent
    return copy.deepcopy(tangent)  # (a library's result object: whatever it holds)


_UNSHARED = frozenset({float, complex, int, bool, type(None), type(NoTangent)} | {
    t for t in np.sctypeDict.values() if issubclass(t, np.generic)})


def refused_write(f: Callable[..., Any], exc: Exception) -> Exception:
    """The error to raise for `exc`: an InternalError when it is NumPy's (or a rule's)
    refusal to write into a lent tangent, which write_free found f does not do."""
    if not (isinstance(exc, ValueError) and "read-only" in str(exc) or
            isinstance(exc, FwdadError) and "reads as a constant" in str(exc)):
        return exc
    error = InternalError(
        f"jvp of {describe(f)}: fwdad found that {describe(f)} writes into none of its "
        f"arguments, and so passed it the caller's tangent arrays uncopied (read-only), "
        f"but a rule tried to write into one (the caller's tangent is unchanged). This "
        f"is a bug in fwdad (fwdad/write_free.py); please report it. Meanwhile "
        f"`fwdad.batched_jvp(f, primals, [t[None] for t in tangents])`, which copies "
        f"its tangents, gives the same derivative with a leading axis of 1.")
    error.__cause__ = exc
    return error
