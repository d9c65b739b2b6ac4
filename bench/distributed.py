"""jacfwd on a 2-worker Dask LocalCluster against the in-process run: a 2,000-direction
Jacobian of the PDE residual (bench/workloads_jacobian.py, n = 2,000) in 16 chunks.

    python bench/distributed.py          # about 20 s, cluster start included

Reports the cluster's start, both times (second calls: the first builds the rules, on
each worker too), and the overhead per chunk: (cluster time - in-process time) / chunks,
the cost of shipping a chunk's task and result through the scheduler, net of what two
workers save by running chunks side by side (negative when they save more). Also the
round trip of an empty task. The Jacobians are checked against the hand-written one.
Needs `pip install "fwdad[dask]"`.
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Dict, List

import numpy as np

# This file's name is the package's: with bench/ on sys.path (`python bench/run.py`,
# `python bench/distributed.py`), `import distributed` would find this file, here and
# in the worker processes, which start with this path. bench/'s modules import each
# other as `bench.x`, so bench/ leaves the path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
sys.path.insert(0, os.path.dirname(_HERE))
import fwdad  # noqa: E402
from bench.workloads_jacobian import pde_point, pde_residual, pde_residual_hand_jacobian  # noqa: E402,E501

DIRECTIONS, CHUNKS = 2000, 16


def _nothing() -> None:
    return None


def _dask():
    """distributed's Client and LocalCluster."""
    from distributed import Client, LocalCluster
    return Client, LocalCluster


def measure(repeats: int = 3) -> Dict[str, float]:
    """Seconds of each part (medians of `repeats`), or {} without distributed."""
    try:
        Client, LocalCluster = _dask()
    except ImportError:
        return {}
    u = pde_point(DIRECTIONS)
    expected = pde_residual_hand_jacobian(u)[1]
    chunk = DIRECTIONS // CHUNKS
    here = fwdad.jacfwd(pde_residual, chunk_size=chunk)
    start = time.perf_counter()
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        started = time.perf_counter() - start
        executor = client.get_executor()
        there = fwdad.jacfwd(pde_residual, chunk_size=chunk, executor=executor)
        for jac in (here, there):
            if not np.allclose(jac(u), expected, rtol=1e-10, atol=1e-8):
                sys.exit("bench/distributed.py: a Jacobian disagrees with the hand-written one")
        times: Dict[str, List[float]] = {"here": [], "there": [], "empty": []}
        for _ in range(repeats):  # (in turn: load on the machine hits both alike)
            for name, jac in (("here", here), ("there", there)):
                start = time.perf_counter()
                jac(u)
                times[name].append(time.perf_counter() - start)
            start = time.perf_counter()
            executor.submit(_nothing).result()
            times["empty"].append(time.perf_counter() - start)
    out = {k: statistics.median(v) for k, v in times.items()}
    out["start"] = started
    return out


def main() -> int:
    t = measure()
    if not t:
        sys.exit('bench/distributed.py needs distributed: pip install "fwdad[dask]"')
    print(f"jacfwd, {DIRECTIONS:,} directions in {CHUNKS} chunks, 2 Dask workers")
    print(f"in process: {t['here']:.3f} s; on the cluster: {t['there']:.3f} s "
          f"({t['there'] / t['here']:.2f}x)")
    print(f"overhead per chunk: {(t['there'] - t['here']) / CHUNKS * 1e3:.1f} ms "
          f"(cluster - in process) / chunks; an empty task's round trip: "
          f"{t['empty'] * 1e3:.1f} ms; cluster start: {t['start']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
