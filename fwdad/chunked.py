"""Work split into chunks (of tangent directions, or of points), run in this process or
on the workers of an executor, under a memory budget; results in order.

    results = run_chunks(f, total=1650, make_task=lambda a, b: Task(a, b), key=shapes,
                         options=Options(executor=pool), label="jacfwd of f")
    # -> [Task(0, 1).run(f), Task(1, 17).run(f), Task(17, 108).run(f), ...]

With `chunk_size`, every chunk has that many items. Without it, the chunks' size comes
from the memory budget (fwdad/budget.py): the first chunks run here, measured, and the
rest as large as the budget allows. With an executor, the rest go to it (all submitted
at once, at least `EXECUTOR_CHUNKS` of them so that every worker gets some), and the
results are put back in order as they arrive.
"""
from __future__ import annotations

import concurrent.futures
import numbers
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

from fwdad import budget
from fwdad.errors import FwdadError, a_type
from fwdad.progress import steps
from fwdad.shipping import Failure, Shipped, Task, run_task, unwrap
from fwdad.transformed import Transformed

EXECUTOR_CHUNKS = 16  # at least this many chunks on an executor (a few per worker)

Span = Tuple[int, int]


@dataclass
class Options:
    """How a batched computation is split: `chunk_size` items per chunk (None: by the
    memory budget, `memory_budget` bytes or the global one), run on `executor` (None:
    in this process), with progress shown when `progress`."""

    chunk_size: Optional[int] = None
    memory_budget: Optional[float] = None
    executor: Optional[concurrent.futures.Executor] = None
    progress: bool = False

    def check(self, api: str) -> "Options":
        if self.chunk_size is not None:
            if isinstance(self.chunk_size, bool) or not (
                    isinstance(self.chunk_size, numbers.Integral) and self.chunk_size >= 1):
                raise FwdadError(f"{api}: chunk_size is a positive int (or None to size "
                                 f"the chunks by the memory budget), not "
                                 f"{self.chunk_size!r}.")
            self.chunk_size = int(self.chunk_size)  # (a NumPy int too)
        budget.resolve(self.memory_budget)
        check_executor(api, self.executor)
        return self


def check_executor(api: str, executor: Any) -> None:
    """Nothing when `executor` is None or has `submit`; else a FwdadError naming `api`."""
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise FwdadError(f"{api}: executor is a concurrent.futures.Executor (for Dask, "
                         f"client.get_executor()), not {a_type(executor)}.")


def run_chunks(f: Any, total: int, make_task: Callable[[int, int], Task], key: Any,
               options: Options, label: str, unit: str = "direction") -> List[Any]:
    """`[make_task(a, b).run(f) for each chunk a:b of range(total)]`, the chunks sized
    and run as the module's docstring says."""
    results: List[Any] = []
    with steps(label, total, unit, options.progress) as done:
        start, spans = 0, fixed_spans(total, options.chunk_size)
        if spans is None:
            owner, key = estimate_owner(f, key)
            plan = budget.ChunkPlan(total, budget.resolve(options.memory_budget),
                                    budget.known(owner, key))
            start = _probe(f, plan, make_task, results, done)
            budget.remember(owner, key, plan.per_direction)
            pieces = 1 if options.executor is None else EXECUTOR_CHUNKS
            spans = plan.rest(start, pieces)
        tasks = [make_task(a, b) for a, b in spans]
        if options.executor is None:
            for task, (a, b) in zip(tasks, spans):
                results.append(task.run(f))
                done(b - a)
        else:
            results += _on_executor(options.executor, f, tasks, spans, unit, done)
    return results


def estimate_owner(f: Any, key: Any) -> Tuple[Any, Any]:
    """Whose estimate a pass of `f` keeps: a transformation made anew at each call (the
    gradient inside hessian) keeps it on the user's function, keyed by what it is."""
    if isinstance(f, Transformed):
        return f.f, (f.kind, repr(f.argnums), key)
    return f, key


def fixed_spans(total: int, chunk_size: Optional[int]) -> Optional[List[Span]]:
    if chunk_size is None:
        return None
    return [(a, min(total, a + chunk_size)) for a in range(0, total, chunk_size)]


def _probe(f: Any, plan: budget.ChunkPlan, make_task: Callable[[int, int], Task],
           results: List[Any], done: Callable[..., None]) -> int:
    """Run the measured first chunks here; the index where the rest starts."""
    start = 0
    while True:
        stop = plan.probe(start)
        if stop is None:
            return start
        if start == 0 and stop == 1 < plan.total:
            # The rules are built in the first pass, which tracing would slow tenfold:
            # it runs untraced, and a second pass of one direction is measured.
            results.append(make_task(0, 1).run(f))
            done(1)
            start, stop = 1, 2
        task = make_task(start, stop)
        result, peak = budget.measured(lambda: task.run(f))
        plan.record(stop - start, peak)
        results.append(result)
        done(stop - start)
        start = stop


def _on_executor(executor: concurrent.futures.Executor, f: Any, tasks: List[Task],
                 spans: List[Span], unit: str, done: Callable[..., None]) -> List[Any]:
    """The tasks' results in order, run on the executor; the first error raised again
    (the user's, from the worker) with the chunks not yet started cancelled."""
    if not tasks:
        return []
    shipped = Shipped(f)
    futures = [executor.submit(run_task, shipped, task) for task in tasks]
    span_of = dict(zip(futures, spans))
    try:
        for future in concurrent.futures.as_completed(futures):
            a, b = span_of[future]
            result = future.result()
            if isinstance(result, Failure):
                unwrap(result, f"in the chunk of {unit}s {a}:{b}")
            done(b - a)
    finally:
        for future in futures:
            future.cancel()  # (a no-op for those done)
    return [future.result() for future in futures]
