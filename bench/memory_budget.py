"""Peak memory and time of jacfwd under the default memory budget, against fixed chunk
sizes: the Gaussian-mixture objective (tests/reverse/gmm.py, d=10, k=25) with respect
to all 1,650 parameters (alphas, means, icf).

    python bench/memory_budget.py              # n=1000 points, the issue's size
    python bench/memory_budget.py --points 250 --repeats 2  # what bench/run.py runs

The default budget (1 GiB) is checked for its peak (tracemalloc, which sees NumPy's
arrays) and its time against the best of the fixed chunk sizes (target: 1.3x). The
first call measures its first passes (fwdad/budget.py) and keeps the estimate; the
timed call is the second, as in a loop of Jacobians. Every Jacobian is checked against
fwdad.grad (reverse mode) before it counts.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
from typing import Callable, Dict, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fwdad  # noqa: E402
from tests.reverse.gmm import gmm_inputs, gmm_objective  # noqa: E402

FIXED = (64, 128, 256)  # chunk sizes to compare with


def gmm_problem(points: int) -> Tuple[Callable, Tuple[np.ndarray, ...]]:
    alphas, means, icf, x, gamma, m = gmm_inputs(n=points)

    def objective(alphas, means, icf):
        return gmm_objective(alphas, means, icf, x, gamma, m)
    return objective, (alphas, means, icf)


def peak_and_time(run: Callable[[], object]) -> Tuple[float, int]:
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak


def measure(points: int, repeats: int = 1) -> Dict[str, Dict[str, float]]:
    """The best of `repeats` seconds (untraced, the variants in turn so that load on
    the machine hits them alike) and the peak bytes (traced, the default's only) of
    each variant, each checked first."""
    f, args = gmm_problem(points)
    reference = fwdad.grad(f, argnums=(0, 1, 2))(*args)
    variants = {"default budget": fwdad.jacfwd(f, argnums=(0, 1, 2))}
    variants.update({f"chunk_size={c}": fwdad.jacfwd(f, argnums=(0, 1, 2), chunk_size=c)
                     for c in FIXED})
    for name, jac in variants.items():
        blocks = jac(*args)  # (builds the rules; the default measures its passes)
        for got, want in zip(blocks, reference):
            if not np.allclose(got, want, rtol=1e-9, atol=1e-9):
                sys.exit(f"{name}: jacfwd disagrees with fwdad.grad")
    samples: Dict[str, list] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, jac in variants.items():
            start = time.perf_counter()
            jac(*args)
            samples[name].append(time.perf_counter() - start)
    peak = peak_and_time(lambda: variants["default budget"](*args))[1]
    return {name: {"seconds": min(times), "peak": peak if name == "default budget" else 0}
            for name, times in samples.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=1, help="best of this many")
    args = parser.parse_args(argv)
    numbers = measure(args.points, args.repeats)
    default = numbers.pop("default budget")
    best = min(numbers, key=lambda k: numbers[k]["seconds"])
    ratio = default["seconds"] / numbers[best]["seconds"]
    print(f"GMM n={args.points}, jacfwd w.r.t. 1,650 parameters; budget "
          f"{fwdad.get_memory_budget() / 2**30:g} GiB")
    print(f"default budget: {default['seconds']:.2f} s, peak "
          f"{default['peak'] / 2**20:.0f} MiB")
    for name, value in numbers.items():
        print(f"{name}: {value['seconds']:.2f} s")
    print(f"default / best fixed ({best}): {ratio:.2f}x (target 1.3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
