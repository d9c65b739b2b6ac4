"""The long campaign: check a range of seeds in worker processes, then summarize.

Prints the per-oracle table (pass / wrong / crash / refused / skipped), the discards by
reason, the refusals grouped by message, the passes that carry a note (a part of the
check an oracle could not run, such as a global-mode sparsity refusal), the failing
seeds of each distinct failure, and, for each distinct failure, a program shrunk while
that failure persists.
"""
from __future__ import annotations

import collections
import functools
import multiprocessing
import signal
import time
from typing import Dict, Iterable, List, Optional

from tests.fuzz.check import Result, check
from tests.fuzz.oracles import ORACLES
from tests.fuzz.progress import Progress
from tests.fuzz.shrink import shrink

STATUSES = ("pass", "wrong", "crash", "refused", "skipped")
PROGRAM_SECONDS = 120  # a program still running after this is reported as a crash


class ProgramTimeout(Exception):
    """A program's oracles ran longer than PROGRAM_SECONDS."""


def _on_alarm(signum, frame):
    raise ProgramTimeout(f"still running after {PROGRAM_SECONDS} s")


def run_one(seed: int, exclude: frozenset = frozenset(),
            oracles: Optional[tuple] = None) -> Result:
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(PROGRAM_SECONDS)
    try:
        return check(seed, oracles, exclude=exclude)
    finally:
        signal.alarm(0)


def run(seeds: Iterable[int], workers: int, exclude: frozenset = frozenset(),
        progress: Optional[Progress] = None, oracles: Optional[tuple] = None) -> List[Result]:
    """The results of `seeds` (by `oracles`, all when None), in order; each is counted by
    `progress` as it comes."""
    seeds = list(seeds)
    one = functools.partial(run_one, exclude=exclude, oracles=oracles)
    count = progress.add if progress is not None else (lambda result: None)
    if workers <= 1:
        return [_counted(one(s), count) for s in seeds]
    context = multiprocessing.get_context("fork")
    with context.Pool(workers, maxtasksperchild=500) as pool:
        return sorted((_counted(r, count) for r in pool.imap_unordered(one, seeds, chunksize=8)),
                      key=lambda r: r.seed)


def _counted(result: Result, count) -> Result:
    count(result)
    return result


def table(results: List[Result]) -> str:
    counts = collections.Counter((name, o.status) for r in results
                                 for name, o in r.outcomes.items())
    lines = [f"{'oracle':14}" + "".join(f"{s:>9}" for s in STATUSES)]
    for name in ORACLES:
        lines.append(f"{name:14}" + "".join(f"{counts[name, s]:>9}" for s in STATUSES))
    return "\n".join(lines)


def discards(results: List[Result]) -> str:
    reasons = collections.Counter(r.discard for r in results if r.discard)
    lines = [f"checked {sum(1 for r in results if not r.discard)} of {len(results)} programs"]
    lines += [f"  discarded {n:6}  {reason}" for reason, n in reasons.most_common()]
    return "\n".join(lines)


def refusals(results: List[Result]) -> str:
    groups: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in results:
        for name, o in r.outcomes.items():
            if o.status == "refused":
                groups[o.kind][name] += 1
    lines = ["refusals (by message):"]
    for kind, by_oracle in sorted(groups.items(), key=lambda kv: -sum(kv[1].values())):
        where = ", ".join(f"{n} {k}" for k, n in by_oracle.most_common())
        lines.append(f"  {sum(by_oracle.values()):6}  {kind}\n          ({where})")
    return "\n".join(lines)


def notes(results: List[Result]) -> str:
    counts = collections.Counter((name, o.kind) for r in results
                                 for name, o in r.outcomes.items()
                                 if o.status == "pass" and o.kind)
    lines = ["passes with a note:"]
    lines += [f"  {n:6}  {name}: {kind}" for (name, kind), n in counts.most_common()]
    return "\n".join(lines)


def failure_classes(results: List[Result]) -> Dict[tuple, List[Result]]:
    """Distinct failures (oracle, status, kind) -> the results that show it."""
    classes: Dict[tuple, List[Result]] = collections.defaultdict(list)
    for r in results:
        for name, o in r.failures().items():
            classes[o.signature(name)].append(r)
    return dict(sorted(classes.items(), key=lambda kv: -len(kv[1])))


def failures(classes: Dict[tuple, List[Result]], shrink_seconds: float,
             examples: int = 1) -> str:
    lines = ["failures (distinct classes):"]
    for signature, shown in classes.items():
        oracle, status, kind = signature
        seeds = " ".join(str(r.seed) for r in shown[:12]) + (" ..." if len(shown) > 12 else "")
        lines.append(f"\n== {oracle} {status}: {kind}  ({len(shown)} programs; seeds {seeds})")
        smallest = sorted(shown, key=lambda r: len(r.source))
        lines.append(f"   {smallest[0].outcomes[oracle].detail[:500]}")
        if shrink_seconds > 0:
            lines += _shrunk(signature, smallest[:examples], shrink_seconds)
    return "\n".join(lines)


def _shrunk(signature: tuple, shown: List[Result], seconds: float) -> List[str]:
    """Minimal programs of the first few seeds of a class (each distinct one once)."""
    oracle, seen, lines = signature[0], set(), []
    for r in shown:
        small = shrink(r.seed, oracle, signature, r.source, seconds)
        if small in seen:
            continue
        seen.add(small)
        again = check(r.seed, [oracle], source=small).outcomes[oracle]
        lines.append(f"-- minimal program (seed {r.seed}): {again.detail[:500]}")
        lines.append(small)
    return lines


def summary(results: List[Result], elapsed: float, workers: int) -> str:
    checked = [r for r in results if not r.discard]
    mean = sum(r.seconds for r in results) / max(1, len(results))
    return (f"{len(results)} programs in {elapsed:.0f} s with {workers} worker(s); "
            f"{mean * 1000:.0f} ms per program on average; {len(checked)} checked")


def campaign(seed: int, count: int, workers: int, shrink_seconds: float,
             examples: int = 1, exclude: frozenset = frozenset(),
             progress: bool = True, oracles: Optional[tuple] = None) -> str:
    """The report of seeds seed .. seed+count-1; with `progress`, a line on stderr now and
    then while they run (progress.py); `oracles` (all when None) those to run."""
    start = time.perf_counter()
    results = run(range(seed, seed + count), workers, exclude,
                  Progress(count) if progress else None, oracles)
    elapsed = time.perf_counter() - start
    classes = failure_classes(results)
    return "\n\n".join([summary(results, elapsed, workers), table(results),
                        discards(results), refusals(results), notes(results),
                        failures(classes, shrink_seconds, examples)])
