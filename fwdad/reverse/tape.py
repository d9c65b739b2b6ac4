"""The tape: a chaining stack run in reverse, a non-chaining stack, nested regions.

    chaining stack       (callback, output) pairs; the backward pass calls the callbacks
                         from last to first; each moves its output's adjoint to inputs
    non-chaining stack   variables with no inputs (arguments, new arrays): their
                         adjoints are only zeroed
    writes               in-place writes into arrays, kept so that after a backward
                         pass (which restores the old values) they can be redone
    stores               the lists, dicts and fields variables were written into, given
                         plain values when the forward pass ends (reverse/stores.py)

Regions nest (Stan's start_nested / recover_memory_nested): `vjp` records into a fresh
region, so a gradient taken inside a differentiated function, or by a rule, never
touches the outer region; `recover()` drops a region's memory.
"""
from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np

from fwdad.errors import FwdadError


class Tape:
    """One region of the tape."""

    __slots__ = ("chain", "nochain", "arguments", "writes", "stores", "used", "layout",
                 "state", "parts")

    def __init__(self, layout: str = "varmat") -> None:
        self.chain: List[Tuple[Callable[[], None], Any]] = []
        self.nochain: List[Any] = []
        self.arguments: List[Any] = []  # the boxed arguments of the vjp (in nochain too)
        self.writes: List[Tuple[np.ndarray, Any, np.ndarray]] = []
        self.stores: Dict[Any, Tuple[Any, Optional[str]]] = {}
        self.used = False  # a backward pass has run since the adjoints were zeroed
        self.layout = layout
        self.state: Any = None  # a vjp pass's stateful arrays (reverse/state.py)
        self.parts: Any = None  # where parts of complex variables were taken
        # (reverse/complex_parts.py)

    def push(self, callback: Callable[[], None], output: Any = None) -> None:
        self.chain.append((callback, output))

    def keep(self, var: Any, argument: bool = False) -> None:
        self.nochain.append(var)
        if argument:
            self.arguments.append(var)

    def zero_adjoints(self) -> None:
        for _, output in self.chain:
            _zero(output)
        for var in self.nochain:
            _zero(var)
        self.used = False

    def backward(self, release: bool = False) -> None:
        """Run the callbacks in reverse, then redo the in-place writes they undid, so
        that the values are those the forward pass left and a pullback can run again.
        With `release`, each callback is dropped once run (its memory is reused by the
        adjoints made after it) and the region cannot run again."""
        if self.used:
            raise FwdadError("this region's adjoints were not zeroed since its last "
                             "backward pass: call zero_adjoints() first.")
        self.used = True
        if release:
            chain, self.chain = self.chain, []
            while chain:
                chain.pop()[0]()
        else:
            for callback, _ in reversed(self.chain):
                callback()
        for target, key, new in self.writes:
            target[key] = new
        if release:
            self.recover()

    def recover(self) -> None:
        """Release the region's memory (it cannot be run again)."""
        self.chain, self.nochain, self.writes, self.arguments = [], [], [], []


def _zero(output: Any) -> None:
    """Zero the adjoints of a variable, a matvar or a tuple of them (others have none).
    Named tuples too: np.linalg's results (slogdet, qr, eigh, svd) are; a pullback of
    them called again had added the first call's cotangents
    (tests/reverse/test_tape.py::test_a_pullback_through_a_named_tuple_runs_again)."""
    if isinstance(output, tuple) or (type(output) is np.ndarray and output.dtype == object):
        for item in (output if isinstance(output, tuple) else output.flat):
            _zero(item)
    elif hasattr(output, "zero"):
        output.zero()


# The open regions, root first: one stack per thread (and per asyncio task), so that
# gradients taken concurrently record into regions of their own. A tuple, never
# mutated, so a context that copies another's never shares a stack with it.
# Note: a ContextVar rather than threading.local, as rules/batching.py's tangent
# context; pinned by tests/reverse/test_threads.py.
REGION_STACK: ContextVar[Optional[Tuple[Tape, ...]]] = ContextVar("fwdad_tape_regions",
                                                            default=None)


def regions() -> Tuple[Tape, ...]:
    """The regions open in this thread, the root first."""
    stack = REGION_STACK.get()
    if stack is None:
        stack = (Tape(),)
        REGION_STACK.set(stack)
    return stack


def current() -> Tape:
    """The region new operations are recorded in."""
    return regions()[-1]


def recording() -> bool:
    """True inside a vjp (the root region records nothing that will be run)."""
    return len(regions()) > 1


class nested:
    """Record into a fresh region for the duration of the block (start_nested); the
    caller owns the region afterwards and calls `recover()` when done with it.

    Note: a class rather than a @contextmanager generator: every vjp and grad enters
    one, and a generator's frame costs a microsecond a call.
    """

    __slots__ = ("layout", "region", "token")

    def __init__(self, layout: Optional[str] = None) -> None:
        self.layout = layout

    def __enter__(self) -> Tape:
        stack = regions()
        self.region = Tape(self.layout or stack[-1].layout)
        self.token = REGION_STACK.set(stack + (self.region,))
        return self.region

    def __exit__(self, *exc: Any) -> None:
        assert REGION_STACK.get()[-1] is self.region, \
            "tape regions must be closed in the order opened"
        REGION_STACK.reset(self.token)


@contextlib.contextmanager
def layout(name: str) -> Iterator[None]:
    """Evaluate in the "varmat" (default) or "matvar" layout inside the block: array
    arguments and arrays created inside become VarMats, or object arrays of Vars."""
    if name not in ("varmat", "matvar"):
        raise FwdadError(f"layout must be 'varmat' or 'matvar', not {name!r}.")
    stack = regions()
    token = REGION_STACK.set((Tape(name),) + stack[1:])  # a root of its own, in this thread
    try:
        yield
    finally:
        REGION_STACK.reset(token)


def current_layout() -> str:
    return current().layout


def zero_adjoints() -> None:
    """Zero every adjoint in the current region."""
    current().zero_adjoints()
