"""Work arrays kept between calls, lent to one call at a time.

    scratch = Scratch()                       # one per plan (a sparse Jacobian's)
    with scratch.lend() as work:
        seeds = work.array("seeds", (4, n), np.float64)   # the same memory next call
        ...                                   # read everything out of it before leaving
        work.hold("passes", out, compressed)  # freed at the next call's hold, not now

A fresh array past malloc's mmap threshold (128 KiB and up) is mapped anew, page by
page, at every call; and a heap that grew for a call's temporaries is given back to the
system when the last of them is freed, to fault in again at the next call: a sparse
Jacobian of a 10^4-point residual spent more time in page faults than in arithmetic
(bench/sparse.py). An array kept here is mapped once. `hold` keeps a call's last large
results (allocated last, so at the top of the heap: the sparse matrix returned, whose
arrays the caller may drop at once) until the next call has made its own: the
temporaries freed below them are reused, not given back and faulted in again.

Arrays lent and values held never leave the call that made them (what the user gets is
read out of them into arrays of its own). A call on another thread, or a nested call of
the same plan, while they are lent gets fresh arrays and holds nothing: the lock is
never waited for.

Note: rejected, a process-wide allocator setting (mallopt's trim and mmap thresholds):
it would change every other allocation of the program, which a library must not do.
"""
from __future__ import annotations

import threading
from typing import Any, Dict, Tuple

import numpy as np

# Past this, glibc maps every allocation on its own whatever the heap holds (its
# largest mmap threshold, 32 MiB on 64-bit): holding such a value would only keep it.
HOLD_LIMIT = 32 << 20


class Fresh:
    """What a borrower gets when the arrays are lent elsewhere: new arrays."""

    def array(self, name: str, shape: Tuple[int, ...], dtype: Any) -> np.ndarray:
        """An uninitialized array of this shape and dtype (`name` as Kept's)."""
        return np.empty(shape, dtype)

    def hold(self, name: str, *values: Any) -> None:
        """Keep `values` alive until the next hold of `name` (Kept); here, nothing."""


FRESH = Fresh()


class Kept(Fresh):
    """The arrays kept between calls, by name: one is made again only when the shape
    or dtype asked for changes."""

    def __init__(self) -> None:
        self._arrays: Dict[str, np.ndarray] = {}
        self._held: Dict[str, Tuple[Any, ...]] = {}

    def array(self, name: str, shape: Tuple[int, ...], dtype: Any) -> np.ndarray:
        array = self._arrays.get(name)
        if array is None or array.shape != shape or array.dtype != dtype:
            array = self._arrays[name] = np.empty(shape, dtype)
        return array

    def hold(self, name: str, *values: Any) -> None:
        if sum(getattr(value, "nbytes", 0) for value in values) <= HOLD_LIMIT:
            self._held[name] = values  # (the values held before are freed now)
        else:
            self._held.pop(name, None)


class Scratch:
    """Kept arrays lent to one borrower at a time (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept = Kept()

    def lend(self) -> "_Loan":
        """`with scratch.lend() as work:` the kept arrays, or FRESH when they are lent."""
        return _Loan(self._lock, self._kept)


class _Loan:
    """The context of one borrowing (a class: contextlib's generators cost a call of a
    small Jacobian a microsecond more)."""

    __slots__ = ("_lock", "_kept", "_locked")

    def __init__(self, lock: threading.Lock, kept: Kept) -> None:
        self._lock, self._kept, self._locked = lock, kept, False

    def __enter__(self) -> Fresh:
        self._locked = self._lock.acquire(blocking=False)
        return self._kept if self._locked else FRESH

    def __exit__(self, *exc: Any) -> None:
        if self._locked:
            self._lock.release()
