"""Progress of a campaign on stderr: programs done, and wrong and crash so far.

    1200/5000 programs, 3 wrong, 0 crash (210 s)

A line at most every `every` seconds (and one at the end), so that a long run shows
that it is alive, and a line for each failing program as it comes (its seed and failure
classes: a long hunt can be triaged before the report); stdout, the report, is left as
it was.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Counts results as they come and reports them now and then on `stream`."""

    def __init__(self, total: int, every: float = 10.0, stream: TextIO = None) -> None:
        self.total, self.every = total, every
        self.stream = stream if stream is not None else sys.stderr
        self.done = self.wrong = self.crash = 0
        self.start = self.last = time.perf_counter()

    def add(self, result) -> None:
        """Count one result (a check.Result), and report when `every` has passed."""
        self.done += 1
        statuses = [o.status for o in result.outcomes.values()]
        self.wrong += "wrong" in statuses
        self.crash += "crash" in statuses
        failed = [f"{name} {o.status}: {o.kind}" for name, o in result.outcomes.items()
                  if o.status in ("wrong", "crash")]
        if failed:
            print(f"seed {result.seed}: {'; '.join(failed)}", file=self.stream, flush=True)
        now = time.perf_counter()
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            self.report(now)

    def report(self, now: float) -> None:
        print(f"{self.done}/{self.total} programs, {self.wrong} wrong, {self.crash} crash "
              f"({now - self.start:.0f} s)", file=self.stream, flush=True)
