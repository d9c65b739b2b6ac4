"""Measure sparse Jacobians by colouring against the primal, in one run.

1. The 1-D reaction-diffusion residual with n = 10^4 unknowns (tridiagonal Jacobian,
   3 colours): `sparse_jacfwd time / primal time` with the pattern given (target <= 10),
   with and without the probe direction that checks the pattern; next to central
   differences along the same colours (2 x 3 evaluations of the residual), one
   unbatched `fwdad.jvp` per colour (what the batched pass is to beat), the same
   colours' tangents by hand in batched NumPy (the floor of a batched pass), the floor of
   sparse_jacfwd itself (that pass with the probe's direction too, read back and checked
   by sparse_jacfwd's own code: what is left without fwdad's transformation), and dense
   `jacfwd` at n = 10^3 (n = 10^4 would be 10^4 directions and an 800 MB Jacobian).
2. The 2-D five-point stencil on a 100 x 100 grid (target <= 15).

The colouring is computed once, when `sparse_jacfwd` is made: it is timed separately
and not part of the per-call time. Every Jacobian is checked once before it is timed
(the script exits non-zero if one is wrong). Times are medians, the variants of one
workload sampled in turn in each repeat, from a different one each time (why:
bench/jvp_overhead.median_times).

Run from the repository root: `python bench/sparse.py [--quick]` (about 5 seconds).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fwdad  # noqa: E402
from bench.jvp_overhead import median_times  # noqa: E402  (the same sampler)
from fwdad.coloring import column_coloring  # noqa: E402
from fwdad.compression import Compression  # noqa: E402

REPEATS, QUICK_REPEATS = 15, 3
N_1D, N_DENSE, M_2D = 10_000, 1_000, 100


# ---- workloads -----------------------------------------------------------------------
def residual_1d(u: np.ndarray) -> np.ndarray:
    """u'' + k u (1 - u) on a grid of spacing h, u = 0 outside (Fisher-KPP)."""
    h2 = (1.0 / (u.size + 1)) ** 2
    lap = -2.0 * u
    lap[1:] += u[:-1]
    lap[:-1] += u[1:]
    return lap / h2 + 4.0 * u * (1.0 - u)


def residual_2d(u: np.ndarray) -> np.ndarray:
    """The five-point Laplacian plus a cubic reaction on an m x m grid (flat u)."""
    m = int(round(np.sqrt(u.size)))
    grid = u.reshape(m, m)
    lap = -4.0 * grid
    lap[1:, :] += grid[:-1, :]
    lap[:-1, :] += grid[1:, :]
    lap[:, 1:] += grid[:, :-1]
    lap[:, :-1] += grid[:, 1:]
    return (lap * (m + 1) ** 2 + grid - grid ** 3).reshape(-1)


def residual_1d_hand(u: np.ndarray, du: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """residual_1d and its derivative along the rows of `du` (k, n), by hand: batched
    NumPy, the floor of a batched forward pass over the same directions."""
    h2 = (1.0 / (u.size + 1)) ** 2
    lap, dlap = -2.0 * u, -2.0 * du
    lap[1:] += u[:-1]
    dlap[:, 1:] += du[:, :-1]
    lap[:-1] += u[1:]
    dlap[:, :-1] += du[:, 1:]
    return lap / h2 + 4.0 * u * (1.0 - u), dlap / h2 + 4.0 * (1.0 - 2.0 * u) * du


def residual_2d_hand(u: np.ndarray, du: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """residual_2d and its derivative along the rows of `du` (k, m * m), by hand."""
    m = int(round(np.sqrt(u.size)))
    grid, dgrid = u.reshape(m, m), du.reshape(len(du), m, m)
    lap, dlap = -4.0 * grid, -4.0 * dgrid
    for target, source in (((slice(1, None), slice(None)), (slice(None, -1), slice(None))),
                           ((slice(None, -1), slice(None)), (slice(1, None), slice(None))),
                           ((slice(None), slice(1, None)), (slice(None), slice(None, -1))),
                           ((slice(None), slice(None, -1)), (slice(None), slice(1, None)))):
        lap[target] += grid[source]
        dlap[(slice(None),) + target] += dgrid[(slice(None),) + source]
    scale = (m + 1) ** 2
    out = (lap * scale + grid - grid ** 3).reshape(-1)
    return out, (dlap * scale + (1.0 - 3.0 * grid ** 2) * dgrid).reshape(len(du), -1)


HAND = {residual_1d: residual_1d_hand, residual_2d: residual_2d_hand}


def tridiagonal(n: int) -> Any:
    ones = np.ones(n)
    return sp.diags_array([ones[1:], ones, ones[1:]], offsets=[-1, 0, 1]).astype(bool).tocsr()


def five_point(m: int) -> Any:
    line, eye = tridiagonal(m).astype(np.int8), sp.eye_array(m, dtype=np.int8)
    return (sp.kron(line, eye) + sp.kron(eye, line)).astype(bool).tocsr()


def colored_central_differences(f: Callable, pattern: Any, colors: np.ndarray,
                                h: float = 1e-6) -> Callable[[np.ndarray], Any]:
    """The Jacobian by central differences along the colours' directions (Curtis,
    Powell and Reid): 2 evaluations of f per colour."""
    rows = np.repeat(np.arange(pattern.shape[0]), np.diff(pattern.indptr))
    seeds = (colors == np.arange(colors.max() + 1)[:, None]).astype(float)

    def jacobian(x: np.ndarray) -> Any:
        compressed = np.array([(f(x + h * s) - f(x - h * s)) / (2 * h) for s in seeds])
        data = compressed[colors[pattern.indices], rows]
        return sp.csr_array((data, pattern.indices, pattern.indptr), shape=pattern.shape)
    return jacobian


FLOOR = "the floor: that pass with the probe, read back and checked as sparse_jacfwd does"


def checked_hand_jacobian(f: Callable, pattern: Any, colors: np.ndarray
                          ) -> Callable[[np.ndarray], Any]:
    """The floor of sparse_jacfwd: the hand-written batched pass of the colours' and the
    probe's directions, read back and checked by sparse_jacfwd's own Compression
    (misses_at, decompress, probe_mismatch, in its kept arrays): the same arithmetic,
    without the transformation's dispatch and the checks of the call."""
    plan = Compression(pattern, colors, "column")
    seeds, hand = plan.directions(np.float64, True), HAND[f]

    def jacobian(x: np.ndarray) -> Any:
        with plan.lend() as work:
            tangents = work.array("seeds", seeds.shape, seeds.dtype)
            np.copyto(tangents, seeds)
            out, compressed = hand(x.copy(), tangents)
            colours = compressed[:plan.ncolors]
            jac = plan.decompress(colours)
            if plan.misses_at(colours, work) is not None or \
                    plan.probe_mismatch(jac, seeds[-1], compressed, work) is not None:
                sys.exit("the pattern misses a nonzero: nothing to time")
            work.hold("passes", out, compressed, jac.data, jac.indices, jac.indptr)
            return jac
    return jacobian


# ---- measurements --------------------------------------------------------------------
def _check(name: str, got: Any, want: Any, rtol: float) -> None:
    """Exit unless `got` is `want` to rtol of want's largest entry (sparse or dense,
    compared without densifying a 10^4 x 10^4 matrix)."""
    error = abs(sp.csr_array(got) - sp.csr_array(want)).max()
    if not error <= rtol * abs(sp.csr_array(want)).max():
        sys.exit(f"{name} is wrong (max abs error {error:.3g}), so there is nothing to "
                 f"time.")


def workload_times(f: Callable, x: np.ndarray, pattern: Any, repeats: int
                   ) -> Dict[str, Any]:
    """Median seconds of the primal, sparse_jacfwd (with and without the probe) and
    coloured central differences, the colouring's time, and the number of colours."""
    start = time.perf_counter()
    colors = column_coloring(pattern)
    coloring_time = time.perf_counter() - start
    probed = fwdad.sparse_jacfwd(f, sparsity=pattern, coloring=colors)
    unprobed = fwdad.sparse_jacfwd(f, sparsity=pattern, coloring=colors, probe=False)
    differences = colored_central_differences(f, pattern, colors)
    reference = probed(x)  # builds the rule
    _check("sparse_jacfwd without the probe", unprobed(x), reference, 1e-14)
    _check("central differences", differences(x), reference, 1e-5)
    seeds = [(colors == c).astype(float) for c in range(colors.max() + 1)]
    stacked = np.array(seeds)
    hand, floor = HAND[f], checked_hand_jacobian(f, pattern, colors)
    _check("the hand-written batched tangents", hand(x.copy(), stacked.copy())[1],
           fwdad.batched_jvp(f, (x,), (stacked,))[1], 1e-12)
    _check("the floor", floor(x), reference, 1e-12)
    times = median_times({"primal": lambda: f(x), "sparse_jacfwd": lambda: probed(x),
                          "hand-written batched NumPy, one pass of the colours":
                              lambda: hand(x.copy(), stacked.copy()),
                          FLOOR: lambda: floor(x),
                          "sparse_jacfwd, probe=False": lambda: unprobed(x),
                          "fwdad.jvp per colour (no batch axis)":
                              lambda: [fwdad.jvp(f, (x,), (s,)) for s in seeds],
                          "central differences, coloured": lambda: differences(x)},
                         repeats)
    return dict(times, coloring=coloring_time, ncolors=int(colors.max()) + 1)


def workloads() -> List[Any]:
    """(label, residual, point, pattern, target) of the two sparse workloads."""
    return [(f"1-D reaction-diffusion, n={N_1D:,}", residual_1d, np.linspace(0.1, 0.9, N_1D),
             tridiagonal(N_1D), 10.0),
            (f"2-D five-point stencil, {M_2D}x{M_2D}", residual_2d,
             np.random.default_rng(0).uniform(0, 1, M_2D * M_2D), five_point(M_2D), 15.0)]


def dense_times(repeats: int) -> Dict[str, float]:
    """The primal and dense jacfwd of the 1-D residual at n = N_DENSE."""
    x = np.linspace(0.1, 0.9, N_DENSE)
    jac = fwdad.jacfwd(residual_1d)
    _check("dense jacfwd", jac(x), fwdad.sparse_jacfwd(residual_1d,
                                                       sparsity=tridiagonal(N_DENSE))(x), 1e-14)
    return median_times({"primal": lambda: residual_1d(x), "jacfwd": lambda: jac(x)},
                        max(3, repeats // 3))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats (a smoke test)")
    args = parser.parse_args(argv)
    from bench.companion_rows import sparse_rows
    from bench.report import table
    print(table(sparse_rows(QUICK_REPEATS if args.quick else REPEATS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
