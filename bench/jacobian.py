"""Measure fwdad's Jacobians and linearizations against the primal, in one run.

1. `jacfwd time / primal time` for an R^n -> R^n function (n = 100): a discretized
   nonlinear PDE residual with slicing, np.roll and in-place updates
   (bench/workloads_jacobian.py), next to the hand-written batched NumPy Jacobian,
   central finite differences, and torch.func.jacfwd / jax.jacfwd (eager) when those
   are installed (this script never installs them).
2. `lin(t) time / jvp time` for a function whose primal dominates its cost
   (a transcendental chain on 10^6 values): what `fwdad.linearize` saves by replaying
   only the tangent operations.

Every derivative is checked once before it is timed (the script exits non-zero if one
is wrong). Times are medians over repeats, with the variants of one workload sampled in
turn in each repeat so that load on a shared machine hits them alike.

Run from the repository root: `python bench/jacobian.py [--quick]`.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Dict, List, Optional

import numpy as np

try:
    import fwdad
except ImportError:  # not installed: run from a checkout
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import fwdad

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.jvp_overhead import make_mlp, median_times  # noqa: E402  (the same sampler)
from bench.workloads_jacobian import (  # noqa: E402
    pde_point,
    pde_residual,
    pde_residual_central_differences,
    pde_residual_hand_jacobian,
    transcendental_chain,
)

REPEATS = 31
QUICK_REPEATS = 3
MIN_SAMPLE_SECONDS = 0.02


def _check(name: str, got: Any, want: Any, rtol: float, atol: float = 0.0) -> None:
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        sys.exit(f"{name} is wrong (max abs error {np.max(np.abs(got - want)):.3g}), so "
                 f"there is nothing to time.")


# ---- optional frameworks --------------------------------------------------------------
def _torch_jacfwd(u: np.ndarray) -> Optional[Callable[[], Any]]:
    try:
        import torch
        from torch.func import jacfwd as torch_jacfwd
    except ImportError:
        return None

    def residual(v):
        n = v.shape[0]
        h = 1.0 / (n + 1)
        lap = (torch.roll(v, 1) - 2.0 * v + torch.roll(v, -1)) / (h * h)
        flux = 0.5 * v ** 2
        r = lap + 3.0 * torch.exp(v)
        r = torch.cat([r[:1], r[1:-1] + (flux[2:] - flux[:-2]) / (2.0 * h), r[-1:]])
        r = torch.cat([(v[0] - 0.5).reshape(1), r[1:-1], (r[-1] - torch.sum(v) * h)
                       .reshape(1)])
        return r
    x = torch.tensor(u, dtype=torch.float64)
    _check("torch.func.jacfwd", torch_jacfwd(residual)(x).numpy(),
           pde_residual_hand_jacobian(u)[1], 1e-10, 1e-8)
    return lambda: torch_jacfwd(residual)(x)


def _jax_jacfwd(u: np.ndarray) -> Optional[Callable[[], Any]]:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def residual(v):
        n = v.shape[0]
        h = 1.0 / (n + 1)
        lap = (jnp.roll(v, 1) - 2.0 * v + jnp.roll(v, -1)) / (h * h)
        flux = 0.5 * v ** 2
        r = lap + 3.0 * jnp.exp(v)
        r = r.at[1:-1].add((flux[2:] - flux[:-2]) / (2.0 * h))
        r = r.at[0].set(v[0] - 0.5)
        return r.at[-1].add(-jnp.sum(v) * h)
    x = jnp.asarray(u)
    _check("jax.jacfwd", np.asarray(jax.jacfwd(residual)(x)),
           pde_residual_hand_jacobian(u)[1], 1e-10, 1e-8)
    return lambda: jax.jacfwd(residual)(x)


# ---- the two measurements ---------------------------------------------------------------
def jacobian_ratios(repeats: int, n: int = 100) -> Dict[str, float]:
    u = pde_point(n)
    jacobian = fwdad.jacfwd(pde_residual)
    want = pde_residual_hand_jacobian(u)[1]
    _check("fwdad.jacfwd", jacobian(u), want, 1e-12, 1e-9)
    _check("central differences", pde_residual_central_differences(u), want, 1e-5, 1e-3)
    runs = {"primal": lambda: pde_residual(u), "fwdad.jacfwd": lambda: jacobian(u),
            "hand-written batched NumPy": lambda: pde_residual_hand_jacobian(u),
            "central differences": lambda: pde_residual_central_differences(u)}
    for name, make in (("torch.func.jacfwd", _torch_jacfwd), ("jax.jacfwd (eager)",
                                                             _jax_jacfwd)):
        run = make(u)
        if run is not None:
            runs[name] = run
    times = median_times(runs, repeats)
    return {name: t / times["primal"] for name, t in times.items()}, times["primal"]


def linearize_ratio(repeats: int, size: int = 2 * 10**5) -> dict:
    """primal, jvp, lin(t) and lin.T(ct) of the transcendental chain, in seconds."""
    x = np.random.default_rng(0).standard_normal(size)
    t = np.random.default_rng(1).standard_normal(size)
    return _linearize_times(transcendental_chain, x, t, 1.3, repeats)


def linearize_mlp_times(repeats: int) -> dict:
    """The same for a tanh MLP (batch 256, 64-64-10), d/d(first weight matrix)."""
    rng = np.random.default_rng(0)
    w1, w2 = rng.standard_normal((64, 64)) / 8, rng.standard_normal((64, 64)) / 8
    w3, x = rng.standard_normal((64, 10)) / 8, rng.standard_normal((256, 64))
    return _linearize_times(make_mlp(w2, w3, x), w1, rng.standard_normal(w1.shape),
                            rng.standard_normal((256, 10)), repeats)


def _linearize_times(f: Callable, x: np.ndarray, t: np.ndarray, ct: Any,
                     repeats: int) -> dict:
    _, lin = fwdad.linearize(f, x)
    _check("lin(t)", lin(t), fwdad.jvp(f, (x,), (t,))[1], 1e-12)
    if lin.T.method != "transpose":
        raise SystemExit(f"lin.T multiplies by the Jacobian here: {lin.T.why}")
    _check("lin.T(ct)", np.sum(lin.T(ct)[0] * t), np.sum(ct * lin(t)), 1e-10)
    return median_times({"primal": lambda: f(x), "jvp": lambda: fwdad.jvp(f, (x,), (t,)),
                         "lin(t)": lambda: lin(t), "lin.T(ct)": lambda: lin.T(ct)}, repeats)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_REPEATS} repeats instead of {REPEATS} (a smoke test)")
    repeats = QUICK_REPEATS if parser.parse_args(argv).quick else REPEATS
    ratios, primal = jacobian_ratios(repeats)
    print(f"Jacobian of the PDE residual, R^100 -> R^100 (primal {primal * 1e6:.3g} us)")
    for name, ratio in ratios.items():
        if name != "primal":
            print(f"  {name:<28} {ratio:8.1f} x primal")
    for name in ("torch.func.jacfwd", "jax.jacfwd (eager)"):
        if name not in ratios:
            print(f"  {name:<28}      (not installed)")
    for name, times in (("a transcendental chain on 2x10^5 values", linearize_ratio(repeats)),
                        ("a tanh MLP", linearize_mlp_times(repeats))):
        print(f"linearize of {name} (primal {times['primal'] * 1e3:.3g} ms)")
        print(f"  jvp                          {times['jvp'] / times['primal']:8.2f} x primal")
        print(f"  lin(t)                       {times['lin(t)'] / times['primal']:8.2f} x primal")
        print(f"  lin(t) / jvp                 {times['lin(t)'] / times['jvp']:8.2f}")
        print(f"  lin.T(ct) / lin(t)           {times['lin.T(ct)'] / times['lin(t)']:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
