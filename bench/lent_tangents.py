"""What lending the caller's tangents uncopied saves (fwdad/lent_tangents.py).

Times `fwdad.jvp` with lending and with it turned off (every tangent copied, as before)
in turn in each repeat of one run, on W3 (tanh MLP, batch 256, width 512, d/dw1 with
the other weights in the closure), the MLP with its data and weights as arguments
(bench/arguments.py), a 3-operation function of a small array and of a float (the
small-call row). Prints the medians and the ratios lend / copy, and for the MLPs the
ratios to the primal and to the hand-written tangent code.

Run from the repository root: `python bench/lent_tangents.py [--quick]`.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Callable, Dict, List

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fwdad  # noqa: E402
from bench import arguments  # noqa: E402
from bench.jvp_overhead import mlp_workload  # noqa: E402
from bench.small_ops import tiny  # noqa: E402
from fwdad import lent_tangents  # noqa: E402

_LENDABLE = lent_tangents.lendable


def _copying(*args: object) -> frozenset:
    return frozenset()


def small_array(x, y):
    """tiny's three operations on an array."""
    return np.sin(x) * y + x


def _per_call(run: Callable[[], object], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        run()
    return (time.perf_counter() - start) / number


def measure(primal: Callable, hand: Callable, jvp: Callable, repeats: int,
            number: int) -> Dict[str, float]:
    """Medians per call of the primal, the hand-written code, and jvp lending and
    copying, sampled in turn in each repeat."""
    for run in (primal, hand, jvp):
        run()
    samples: Dict[str, List[float]] = {"primal": [], "hand": [], "lend": [], "copy": []}
    try:
        for _ in range(repeats):
            samples["primal"].append(_per_call(primal, number))
            samples["hand"].append(_per_call(hand, number))
            lent_tangents.lendable = _LENDABLE
            samples["lend"].append(_per_call(jvp, number))
            lent_tangents.lendable = _copying
            samples["copy"].append(_per_call(jvp, number))
    finally:
        lent_tangents.lendable = _LENDABLE
    return {k: statistics.median(v) for k, v in samples.items()}


def _report(name: str, m: Dict[str, float]) -> None:
    print(f"{name}: primal {m['primal'] * 1e3:.3f} ms, hand-written "
          f"{m['hand'] / m['primal']:.3f}x; jvp lending {m['lend'] / m['primal']:.3f}x "
          f"({m['lend'] / m['hand']:.3f}x hand), copying {m['copy'] / m['primal']:.3f}x "
          f"({m['copy'] / m['hand']:.3f}x hand); lend / copy {m['lend'] / m['copy']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats (a smoke test)")
    repeats = 3 if parser.parse_args().quick else 31
    w3 = mlp_workload()
    _report("W3 tanh MLP 256x512", measure(
        lambda: w3.f(*w3.primals), lambda: w3.hand(*w3.primals, *w3.tangents),
        lambda: fwdad.jvp(w3.f, w3.primals, w3.tangents), repeats, 3))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((arguments.MLP_BATCH, arguments.MLP_WIDTH))
    w1, w2, w3_, dw1 = (rng.standard_normal((arguments.MLP_WIDTH,) * 2) for _ in range(4))
    _report("tanh MLP with arguments", measure(
        lambda: arguments.mlp(w1, x, w2, w3_),
        lambda: arguments.mlp_hand(w1, x, w2, w3_, dw1),
        lambda: fwdad.jvp(arguments.mlp, (w1, x, w2, w3_), (dw1, None, None, None)),
        repeats, 5))
    small, dsmall = np.ones(8), np.ones(8)
    _report("3 operations on 8 numbers", measure(
        lambda: small_array(small, 1.2), lambda: small_array(small, 1.2),
        lambda: fwdad.jvp(small_array, (small, 1.2), (dsmall, 0.0)), repeats, 500))
    _report("small call (3 operations on floats)", measure(
        lambda: tiny(0.3, 1.2), lambda: tiny(0.3, 1.2),
        lambda: fwdad.jvp(tiny, (0.3, 1.2), (1.0, 0.0)), repeats, 2000))


if __name__ == "__main__":
    main()
