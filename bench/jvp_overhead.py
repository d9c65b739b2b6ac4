"""Measure how much slower `fwdad.jvp` is than the function it differentiates.

Two workloads, each next to a hand-written tangent version as the reference:
  W1  a pure-Python scalar loop: classic RK4 on dy/dt = -k*y + sin(t), d/dk;
  W2  an elementwise NumPy expression on a float64 array, d/dx.
The script checks once that fwdad's tangent equals the hand-written one (it exits
non-zero if not), then prints `jvp time / primal time` from one run: the median over
repeats, with the primal, fwdad and the hand-written version timed in turn in each
repeat so that load on a shared machine hits all three alike.

Run from the repository root: `python bench/jvp_overhead.py [--quick]`.
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

try:
    import fwdad
except ImportError:  # not installed: run from a checkout
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import fwdad

REPEATS = 51
QUICK_REPEATS = 3
MIN_SAMPLE_SECONDS = 0.02  # a fast callable is run several times per sample


@dataclass
class Workload:
    """A function at a point, with a tangent, and a hand-written tangent version.

    `hand(*primals, *tangents)` returns `(f(*primals), tangent of the output)`.
    """

    name: str
    f: Callable
    hand: Callable
    primals: Tuple[Any, ...]
    tangents: Tuple[Any, ...]


# ---- W1: RK4 on a scalar ODE, in plain Python floats -------------------------------
def make_rk4_solve(steps: int = 1000, t_end: float = 10.0) -> Callable:
    """`solve(k, y0)`: y(t_end) for dy/dt = -k*y + sin(t), y(0) = y0, by RK4."""
    h = t_end / steps

    def solve(k, y0):
        y, t = y0, 0.0
        for _ in range(steps):
            k1 = -k * y + math.sin(t)
            k2 = -k * (y + 0.5 * h * k1) + math.sin(t + 0.5 * h)
            k3 = -k * (y + 0.5 * h * k2) + math.sin(t + 0.5 * h)
            k4 = -k * (y + h * k3) + math.sin(t + h)
            y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
            t = t + h
        return y
    return solve


def make_rk4_solve_jvp(steps: int = 1000, t_end: float = 10.0) -> Callable:
    """`solve_jvp(k, y0, dk, dy0)`: `solve` and its tangent, written by hand."""
    h = t_end / steps

    def solve_jvp(k, y0, dk, dy0):
        y, dy, t = y0, dy0, 0.0
        for _ in range(steps):
            k1 = -k * y + math.sin(t)
            dk1 = -dk * y - k * dy
            y2, dy2 = y + 0.5 * h * k1, dy + 0.5 * h * dk1
            k2 = -k * y2 + math.sin(t + 0.5 * h)
            dk2 = -dk * y2 - k * dy2
            y3, dy3 = y + 0.5 * h * k2, dy + 0.5 * h * dk2
            k3 = -k * y3 + math.sin(t + 0.5 * h)
            dk3 = -dk * y3 - k * dy3
            y4, dy4 = y + h * k3, dy + h * dk3
            k4 = -k * y4 + math.sin(t + h)
            dk4 = -dk * y4 - k * dy4
            y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
            dy = dy + h / 6.0 * (dk1 + 2.0 * dk2 + 2.0 * dk3 + dk4)
            t = t + h
        return y, dy
    return solve_jvp


def rk4_workload(steps: int = 1000) -> Workload:
    """W1: d solve(k, y0) / dk at k = 0.7, y0 = 1.0."""
    return Workload(f"W1 RK4 loop, {steps} steps", make_rk4_solve(steps),
                    make_rk4_solve_jvp(steps), (0.7, 1.0), (1.0, 0.0))


# ---- W2: an elementwise NumPy expression --------------------------------------------
def elementwise(x):
    return np.sum(np.sin(x) * np.exp(-x**2) + np.log1p(x**2))


def elementwise_jvp(x, dx):
    """`elementwise` and its tangent, written by hand."""
    x2, dx2 = x**2, 2.0 * x * dx
    s, ds = np.sin(x), np.cos(x) * dx
    e = np.exp(-x2)
    de = -e * dx2
    lg, dlg = np.log1p(x2), dx2 / (1.0 + x2)
    return np.sum(s * e + lg), np.sum(ds * e + s * de + dlg)


def elementwise_workload(size: int = 10**6, seed: int = 0) -> Workload:
    """W2: the derivative of `elementwise` at a random x along a random dx."""
    rng = np.random.default_rng(seed)
    x, dx = rng.standard_normal(size), rng.standard_normal(size)
    return Workload(f"W2 NumPy elementwise, {size:,} floats", elementwise, elementwise_jvp,
                    (x,), (dx,))


# ---- W3: a tanh MLP, d/d(first weight matrix) --------------------------------------
def make_mlp(w2: np.ndarray, w3: np.ndarray, x: np.ndarray) -> Callable:
    """`mlp(w1)`: three tanh layers on the batch `x`; the other weights are constants."""
    def mlp(w1):
        h1 = np.tanh(x @ w1)
        h2 = np.tanh(h1 @ w2)
        return np.tanh(h2 @ w3)
    return mlp


def make_mlp_jvp(w2: np.ndarray, w3: np.ndarray, x: np.ndarray) -> Callable:
    """`mlp_jvp(w1, dw1)`: `mlp` and its tangent, written by hand."""
    def mlp_jvp(w1, dw1):
        h1 = np.tanh(x @ w1)
        dh1 = (1.0 - h1 * h1) * (x @ dw1)
        h2 = np.tanh(h1 @ w2)
        dh2 = (1.0 - h2 * h2) * (dh1 @ w2)
        h3 = np.tanh(h2 @ w3)
        return h3, (1.0 - h3 * h3) * (dh2 @ w3)
    return mlp_jvp


def mlp_workload(batch: int = 256, width: int = 512, seed: int = 0) -> Workload:
    """W3: the derivative of the MLP along a random direction of its first weights."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, width))
    w1, w2, w3, dw1 = (rng.standard_normal((width, width)) / np.sqrt(width)
                       for _ in range(4))
    return Workload(f"W3 tanh MLP, batch {batch}, width {width}", make_mlp(w2, w3, x),
                    make_mlp_jvp(w2, w3, x), (w1,), (dw1,))


def workloads() -> List[Workload]:
    return [rk4_workload(), elementwise_workload(), mlp_workload()]


# ---- checking ---------------------------------------------------------------------
def mismatch(workload: Workload, fwdad_result: Tuple[Any, Any]) -> str:
    """What differs between fwdad's `(out, tangent_out)` and the hand-written one
    (the primal output is compared too); '' when they agree."""
    out, tangent = fwdad_result
    want_out, want_tangent = workload.hand(*workload.primals, *workload.tangents)
    problems = [f"{what}: fwdad gives {got!r}, the hand-written version {want!r}"
                for what, got, want in (("output", out, want_out),
                                        ("tangent", tangent, want_tangent))
                if not np.all(np.isclose(got, want, rtol=1e-9, atol=1e-12))]
    return "; ".join(problems)


# ---- timing -----------------------------------------------------------------------
@dataclass
class Timing:
    name: str
    first_call: float
    primal: float
    fwdad: float
    hand: float


class _Timer:
    """Per-call time of one callable, several calls per sample when it is fast."""

    def __init__(self, run: Callable[[], Any]) -> None:
        self.run = run
        start = time.perf_counter()
        run()  # warm-up, and a first estimate of one call
        once = time.perf_counter() - start
        self.number = max(1, math.ceil(MIN_SAMPLE_SECONDS / max(once, 1e-9)))
        self.samples: List[float] = []

    def sample(self) -> None:
        run, start = self.run, time.perf_counter()
        for _ in range(self.number):
            run()
        self.samples.append((time.perf_counter() - start) / self.number)

    def median(self) -> float:
        return statistics.median(self.samples)


def median_times(runs: Dict[str, Callable[[], Any]], repeats: int) -> Dict[str, float]:
    """The median per-call time of each run, sampled in turn (so that a slow spell of
    the machine touches all of them alike), each repeat starting one run further on.

    Note: the rotation is there because the first calls of a sample pay for the run
    before it: the caches hold that run's data. After the primal of bench/sparse.py's
    1-D residual (about a thousand calls), a sparse Jacobian's first call took 600 us
    and its fifth 250 us, against 215 us later, so in a fixed order the run sampled
    after the primal paid that at every repeat and the others never did (the same
    hand-written code measured 12.9x in that place and 9.7x in the next)."""
    gc.collect()
    timers = list({name: _Timer(run) for name, run in runs.items()}.items())
    for repeat in range(repeats):
        start = repeat % len(timers)
        for _, timer in timers[start:] + timers[:start]:
            timer.sample()
    return {name: timer.median() for name, timer in timers}


def measure(workload: Workload, repeats: int) -> Timing:
    """Check fwdad against the hand-written tangent, then time all three versions.

    Raises:
        SystemExit: fwdad's output or tangent differs from the hand-written one.
    """
    f, primals, tangents = workload.f, workload.primals, workload.tangents
    gc.collect()
    start = time.perf_counter()
    result = fwdad.jvp(f, primals, tangents)  # builds and caches the derived rule
    first_call = time.perf_counter() - start
    problem = mismatch(workload, result)
    if problem:
        sys.exit(f"{workload.name}: fwdad's jvp is wrong, so there is nothing to time. "
                 f"{problem}")
    timers = [_Timer(lambda: f(*primals)),
              _Timer(lambda: fwdad.jvp(f, primals, tangents)),
              _Timer(lambda: workload.hand(*primals, *tangents))]
    for _ in range(repeats):
        for timer in timers:
            timer.sample()
    primal, jvp, hand = (timer.median() for timer in timers)
    return Timing(workload.name, first_call, primal, jvp, hand)


# ---- report -----------------------------------------------------------------------
COLUMNS = ("workload", "primal", "fwdad jvp", "ratio", "hand-written ratio", "first call")


def _seconds(t: float) -> str:
    return f"{t * 1e3:.3g} ms" if t >= 1e-3 else f"{t * 1e6:.3g} us"


def table(timings: List[Timing]) -> str:
    rows = [COLUMNS] + [(t.name, _seconds(t.primal), _seconds(t.fwdad),
                         f"{t.fwdad / t.primal:.1f}x", f"{t.hand / t.primal:.1f}x",
                         _seconds(t.first_call)) for t in timings]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ["  ".join([row[0].ljust(widths[0])] +
                       [cell.rjust(w) for cell, w in zip(row[1:], widths[1:])])
             for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_REPEATS} repeats instead of {REPEATS} (a smoke test)")
    args = parser.parse_args(argv)
    repeats = QUICK_REPEATS if args.quick else REPEATS
    print(f"fwdad jvp overhead: median of {repeats} repeats; Python "
          f"{platform.python_version()}, NumPy {np.__version__}, "
          f"{os.cpu_count()} CPUs")
    timings = [measure(w, repeats) for w in workloads()]
    print(table(timings))
    print("ratio = time / primal time; first call = the first jvp, which builds and "
          "caches the derived rule")
    return 0


if __name__ == "__main__":
    sys.exit(main())
