"""The rows of bench/run.py for scaling (issue 18): jacfwd of the GMM objective under
the default memory budget against fixed chunk sizes, and a 2-worker Dask cluster
against the in-process run. The measurements are bench/memory_budget.py's and
bench/distributed.py's own; this module only puts them in the one table."""
from __future__ import annotations

from typing import List

from bench import distributed, memory_budget
from bench.report import Row

GMM_POINTS = 250  # (the 1,000 takes minutes: python bench/memory_budget.py)


def _seconds(t: float) -> str:
    return f"{t * 1e3:.3g} ms" if abs(t) >= 1e-3 else f"{t * 1e6:.3g} us"


def _verdict(value: float, limit: float) -> str:
    return f"<= {limit:g}: {'met' if value <= limit else 'MISSED'}"


def budget_rows(points: int = GMM_POINTS, repeats: int = 2) -> List[Row]:
    numbers = memory_budget.measure(points, repeats)
    default = numbers.pop("default budget")
    best = min(numbers, key=lambda k: numbers[k]["seconds"])
    name = f"jacfwd, GMM n={points} w.r.t. 1,650 parameters, 1 GiB budget"
    ratio = default["seconds"] / numbers[best]["seconds"]
    rows = [Row(name, "default budget: peak (tracemalloc)",
                f"{default['peak'] / 2**20:.0f} MiB", "",
                _verdict(default["peak"] / 2**30, 1) + " (GiB)"),
            Row(name, f"default budget: time (best of {repeats})",
                _seconds(default["seconds"]),
                f"{ratio:.2f}x best fixed", _verdict(ratio, 1.3))]
    return rows + [Row(name, f"fixed {k}", _seconds(v["seconds"]))
                   for k, v in numbers.items()]


def distributed_rows(repeats: int = 3) -> List[Row]:
    name = (f"jacfwd, {distributed.DIRECTIONS:,} directions in {distributed.CHUNKS} "
            f"chunks: Dask, 2 workers")
    t = distributed.measure(repeats)
    if not t:
        return [Row(name, "Dask LocalCluster", "absent (pip install fwdad[dask])")]
    per_chunk = (t["there"] - t["here"]) / distributed.CHUNKS
    return [Row(name, "in process", _seconds(t["here"])),
            Row(name, "on the cluster", _seconds(t["there"]),
                f"{t['there'] / t['here']:.2f}x in process"),
            Row(name, "overhead per chunk", _seconds(per_chunk),
                "(cluster - in process) / chunks"),
            Row(name, "an empty task's round trip", _seconds(t["empty"])),
            Row(name, "cluster start (once)", _seconds(t["start"]))]
