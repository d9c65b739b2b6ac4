"""The memory budget of batched passes, and the chunk sizes that stay under it.

    fwdad.set_memory_budget(512 * 2**20)    # bytes, for every later call (1 GiB default)
    plan = ChunkPlan(total=1650, budget=2**30, known=None)
    plan.probe(0) -> 1        # directions 0:1, run with its peak memory measured
    plan.record(1, peak)      # ... then 1:17, measured too
    plan.rest(17) -> [(17, 28), (28, 39), ...]   # sized from the measured peaks

A batched pass holds, for every direction, a tangent as large as each intermediate
value of the function, so its memory grows linearly with the directions it carries.
The first passes (1 direction, then up to 16) run under tracemalloc, which sees
NumPy's allocations (chunked.py runs the very first pass untraced, as it builds the
rules, and measures a second pass of one direction instead); the peak of the larger
one, divided by its directions, is the estimate per direction (it includes the fixed
cost of the primal values, so it errs on the large side). The other passes take as
many directions as fit the budget, and no more than fit EFFICIENT_PASS (128 MiB), past
which passes are no faster. The
estimate is kept per function and argument shapes, so a later call with the same
shapes runs its passes untraced from the start.
"""
from __future__ import annotations

import math
import tracemalloc
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar

import numpy as np

from fwdad.errors import FwdadError

DEFAULT_MEMORY_BUDGET = 2**30  # bytes: 1 GiB
# Note: a pass larger than this is no faster a direction: batching saves the Python
# work of a pass, which is paid off well before this size, while arrays past the
# caches and the allocator's reuse threshold (32 MiB) cost page faults. On the GMM
# Jacobian (bench/memory_budget.py), passes of 64 directions (180 MiB) took half the
# time of passes filling the 1 GiB budget. So passes stay under the smaller of the two;
# `chunk_size` asks for larger ones.
EFFICIENT_PASS = 128 * 2**20
PROBES = (1, 16)  # directions of the measured first passes
_budget = [DEFAULT_MEMORY_BUDGET]

Result = TypeVar("Result")


def set_memory_budget(nbytes: Optional[float]) -> None:
    """Set the memory budget of every later batched pass (`jacfwd`, `hessian`,
    `batched_jvp` with `chunk_size=None`), in bytes; None restores the default, 1 GiB.
    A call's own `memory_budget=` wins over it. Passes also stay under 128 MiB, past
    which a larger pass is no faster (`chunk_size=` asks for larger ones).

    Raises:
        FwdadError: nbytes is not a positive number.
    """
    _budget[0] = DEFAULT_MEMORY_BUDGET if nbytes is None else _checked(nbytes)


def get_memory_budget() -> int:
    """The memory budget in bytes of batched passes that are given none of their own."""
    return _budget[0]


def resolve(memory_budget: Optional[float]) -> int:
    """A call's budget: its own when given, else the global one."""
    return _budget[0] if memory_budget is None else _checked(memory_budget)


def _checked(nbytes: Any) -> int:
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int, float, np.integer,
                                                           np.floating)) or not nbytes > 0:
        raise FwdadError(f"A memory budget is a positive number of bytes (2**30 is "
                         f"1 GiB), not {nbytes!r}.")
    return max(1, int(nbytes))


def measured(run: Callable[[], Result]) -> Tuple[Result, int]:
    """`(run(), the peak bytes it allocated above what was allocated before)`.

    Note: when tracemalloc is already tracing (a benchmark measuring its own peak), its
    peak is reset to time this run, then raised again to what it was by a calloc'd
    buffer that touches no page, so that the outer measurement still sees it."""
    if not tracemalloc.is_tracing():
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            result = run()
            return result, tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
    base, outer_peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    result = run()
    now, peak = tracemalloc.get_traced_memory()
    if outer_peak > max(now, peak):
        _raised_to(outer_peak - now)
    return result, peak - base


def _raised_to(nbytes: int) -> bytes:
    return bytes(nbytes)  # (calloc'd: counted by tracemalloc, no memory touched)


class ChunkPlan:
    """Which directions each pass of a batched computation takes (see the module's
    docstring): measured probes first unless the estimate is `known`, then passes of
    as many directions as the budget holds."""

    def __init__(self, total: int, budget: int, known: Optional[float] = None) -> None:
        self.total, self.budget = total, budget
        self.per_direction = known  # bytes, estimated
        self._probes = 0 if known is None else len(PROBES)

    def probe(self, start: int) -> Optional[int]:
        """The end of the next measured pass from `start`, or None when done probing."""
        if self._probes >= len(PROBES) or start >= self.total:
            return None
        if self._probes > 0 and self.step() >= self.total - start:
            return None  # (what is left fits: one untraced pass)
        size = PROBES[self._probes] if self._probes == 0 else min(PROBES[self._probes],
                                                                  self.step())
        self._probes += 1
        return min(self.total, start + size)

    def record(self, directions: int, peak: int) -> None:
        """The measured peak of a pass of `directions`."""
        self.per_direction = max(1.0, peak / directions)

    def step(self) -> int:
        """Directions per pass under the budget and EFFICIENT_PASS (at least one)."""
        if self.per_direction is None:
            return self.total
        target = min(self.budget, EFFICIENT_PASS)
        return max(1, min(self.total, int(target // self.per_direction)))

    def rest(self, start: int, pieces: int = 1) -> List[Tuple[int, int]]:
        """The passes from `start` on: as large as the budget allows, and at least
        `pieces` of them (to keep the workers of an executor busy)."""
        left = self.total - start
        step = min(self.step(), max(1, math.ceil(left / pieces)))
        return [(a, min(self.total, a + step)) for a in range(start, self.total, step)]


# ---- the estimates, per function and argument shapes ---------------------------------
_known: "weakref.WeakKeyDictionary[Any, Dict[Any, float]]" = weakref.WeakKeyDictionary()


def known(f: Any, key: Any) -> Optional[float]:
    """The bytes per direction measured before for f at arguments of this `key`."""
    try:
        return _known.get(f, {}).get(key)
    except TypeError:  # (f not weakly referenceable, or the key not hashable)
        return None


def remember(f: Any, key: Any, per_direction: Optional[float]) -> None:
    if per_direction is None:
        return
    try:
        _known.setdefault(f, {})[key] = per_direction
    except TypeError:
        pass


def shapes_key(tree: Any) -> Any:
    """What the memory of a pass depends on, besides f: the shapes and dtypes of the
    arrays in `tree`, and the values of its ints, bools and strings (sizes, modes)."""
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__,) + tuple(shapes_key(v) for v in tree)
    if isinstance(tree, dict):
        return ("dict",) + tuple((k, shapes_key(v)) for k, v in tree.items())
    if isinstance(tree, np.ndarray):
        return ("array", tree.shape, tree.dtype.str)
    if isinstance(tree, (int, str, np.integer)):  # (bool is an int)
        return (type(tree).__name__, tree)
    return type(tree).__name__
