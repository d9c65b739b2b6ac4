"""Progress of work done in many steps (jacfwd's passes, jacrev's rows, hessian's).

    with progress.steps("jacfwd of f", total=8, unit="direction", shown=True) as step:
        for ...: step(2)       # a tqdm bar, or plain lines on stderr without tqdm

tqdm is optional (the `progress` extra), and imported on the first progress shown:
without it, a line goes to stderr on the first step, at most once a second after that,
and on the last step.
"""
from __future__ import annotations

import contextlib
import sys
import time
from typing import Any, Callable, Iterator, Optional

_UNKNOWN = object()
_tqdm: Any = _UNKNOWN  # tqdm's bar, None without tqdm (read by _bar on first use)

Step = Callable[..., None]  # step(count=1)

EVERY_SECONDS = 1.0  # the plain lines' pace: one a second is readable in a log


@contextlib.contextmanager
def steps(what: str, total: int, unit: str, shown: bool) -> Iterator[Step]:
    """A function to call with the steps done (1 unless given), of `total`, showing
    progress when `shown`."""
    bar_of = _bar() if shown else None
    if not shown:
        yield _nothing
    elif bar_of is not None:
        with bar_of(total=total, desc=what, unit=f" {unit}", leave=True) as bar:
            yield lambda count=1: bar.update(count)
    else:
        yield _Lines(what, total, unit)


def _nothing(count: int = 1) -> None:
    pass


def _bar() -> Any:
    """tqdm's bar, or None without tqdm (imported once, when asked for)."""
    global _tqdm
    if _tqdm is _UNKNOWN:
        try:
            from tqdm import tqdm as _tqdm
        except ImportError:  # tqdm is optional
            _tqdm = None
    return _tqdm


class _Lines:
    """Progress as plain lines on stderr: `jacfwd of f: 3/8 passes (0.4 s)`."""

    def __init__(self, what: str, total: int, unit: str) -> None:
        self.what, self.total, self.unit = what, total, unit
        self.done, self.start = 0, time.perf_counter()
        self.last: Optional[float] = None

    def __call__(self, count: int = 1) -> None:
        self.done += count
        now = time.perf_counter()
        if self.last is None or self.done >= self.total or now - self.last >= EVERY_SECONDS:
            self.last = now
            plural = "" if self.total == 1 else ("es" if self.unit.endswith("s") else "s")
            print(f"{self.what}: {self.done}/{self.total} {self.unit}{plural} "
                  f"({now - self.start:.1f} s)", file=sys.stderr, flush=True)
