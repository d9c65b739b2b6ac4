"""Measure second derivatives: hvp against grad, and hessian against the peers, in one run.

1. `hvp time / grad time` for the chained Rosenbrock function of n variables
   (bench/workloads_higher.py). Target: at most 5 at n = 10^5 (the default; set it
   with --n). fwdad's hvp is forward over reverse, one reverse pass run on Dual values
   (fwdad/over_reverse.py). JAX (eager `jvp` of `grad`) and torch.func (`jvp` of
   `grad`) are timed at the same n when installed.
2. `hessian time / primal time` for the same function of 100 variables, next to
   `jax.hessian` (eager, not jitted) and `torch.func.hessian` when installed.

Every derivative is checked against the closed forms before it is timed (the script
exits non-zero if one is wrong). Times are medians over repeats, with the variants of
one workload sampled in turn in each repeat so that load on a shared machine hits them
alike. Peers run in float64, as fwdad does.

Run from the repository root: `python bench/higher_order.py [--quick] [--n N]`.
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
from bench.jvp_overhead import median_times  # noqa: E402  (the same sampler)
from bench.workloads_higher import (  # noqa: E402
    rosenbrock,
    rosenbrock_gradient,
    rosenbrock_hessian,
    rosenbrock_hvp,
    rosenbrock_point,
)

REPEATS = 11
QUICK_REPEATS = 3
HVP_N = 100_000       # the n of the target
HESSIAN_N = 100
PEERS = ("jax (eager)", "torch.func")

Derivatives = Dict[str, Callable[..., Any]]  # "grad", "hvp", "hessian" -> NumPy in, out


def check(name: str, got: Any, want: np.ndarray) -> None:
    """Exit unless `got` is the closed-form `want` (to rounding)."""
    got = np.asarray(got)
    scale = max(1.0, float(np.max(np.abs(want))))
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-10, atol=1e-10 * scale):
        sys.exit(f"{name} is wrong (shape {got.shape}, want {want.shape}), so there is "
                 f"nothing to time.")


# ---- the derivatives of each library ---------------------------------------------------
def fwdad_derivatives() -> Derivatives:
    return {"grad": fwdad.grad(rosenbrock),
            "hvp": lambda x, v: fwdad.hvp(rosenbrock, (x,), (v,))[0],
            "hessian": fwdad.hessian(rosenbrock)}


def jax_derivatives() -> Optional[Derivatives]:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def f(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    grad, hessian = jax.grad(f), jax.hessian(f)
    done = jax.block_until_ready
    return {"grad": lambda x: done(grad(x)),
            "hvp": lambda x, v: done(jax.jvp(grad, (x,), (v,))[1]),
            "hessian": lambda x: done(hessian(x)), "array": jnp.asarray}


def torch_derivatives() -> Optional[Derivatives]:
    try:
        import torch
        import torch.func
    except ImportError:
        return None

    def f(x):
        return torch.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    grad, hessian = torch.func.grad(f), torch.func.hessian(f)
    return {"grad": grad, "hvp": lambda x, v: torch.func.jvp(grad, (x,), (v,))[1],
            "hessian": hessian,
            "array": lambda a: torch.as_tensor(np.asarray(a, dtype=np.float64))}


def installed_peers() -> Dict[str, Optional[Derivatives]]:
    """Each peer's derivatives, None when it is not installed."""
    return {"jax (eager)": jax_derivatives(), "torch.func": torch_derivatives()}


# ---- the two measurements ---------------------------------------------------------------
def hvp_times(n: int, repeats: int, peers: Dict[str, Optional[Derivatives]]
              ) -> Dict[str, float]:
    """Median seconds of the primal, and of "<library> grad" and "<library> hvp"."""
    x, v = rosenbrock_point(n), np.cos(np.arange(n))
    runs = {"primal": lambda: rosenbrock(x)}
    for library, d in [("fwdad", fwdad_derivatives())] + list(peers.items()):
        if d is None:
            continue
        convert = d.get("array", lambda a: a)
        xs, vs = convert(x), convert(v)
        check(f"{library} grad", d["grad"](xs), rosenbrock_gradient(x))
        check(f"{library} hvp", d["hvp"](xs, vs), rosenbrock_hvp(x, v))
        runs[f"{library} grad"] = lambda d=d, xs=xs: d["grad"](xs)
        runs[f"{library} hvp"] = lambda d=d, xs=xs, vs=vs: d["hvp"](xs, vs)
    return median_times(runs, repeats)


def hessian_times(n: int, repeats: int, peers: Dict[str, Optional[Derivatives]]
                  ) -> Dict[str, float]:
    """Median seconds of the primal and of each library's hessian."""
    x = rosenbrock_point(n)
    runs = {"primal": lambda: rosenbrock(x)}
    for library, d in [("fwdad", fwdad_derivatives())] + list(peers.items()):
        if d is None:
            continue
        xs = d.get("array", lambda a: a)(x)
        check(f"{library} hessian", d["hessian"](xs), rosenbrock_hessian(x))
        runs[library] = lambda d=d, xs=xs: d["hessian"](xs)
    return median_times(runs, repeats)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_REPEATS} repeats and n = 200 (a smoke test)")
    parser.add_argument("--n", type=int, default=None,
                        help=f"variables of the hvp workload (default {HVP_N})")
    args = parser.parse_args(argv)
    repeats = QUICK_REPEATS if args.quick else REPEATS
    n = args.n or (200 if args.quick else HVP_N)
    peers = installed_peers()
    times = hvp_times(n, repeats, peers)
    print(f"hvp / grad, chained Rosenbrock, n = {n} (primal {times['primal'] * 1e6:.3g} us)")
    for library in ("fwdad",) + PEERS:
        if f"{library} hvp" in times:
            ratio = times[f"{library} hvp"] / times[f"{library} grad"]
            print(f"  {library:<12} grad {times[f'{library} grad'] * 1e3:9.3f} ms   "
                  f"hvp {times[f'{library} hvp'] * 1e3:9.3f} ms   hvp / grad {ratio:8.1f}")
        else:
            print(f"  {library:<12} (not installed)")
    times = hessian_times(HESSIAN_N, repeats, peers)
    print(f"hessian, chained Rosenbrock, n = {HESSIAN_N} "
          f"(primal {times['primal'] * 1e6:.3g} us)")
    for library in ("fwdad",) + PEERS:
        if library in times:
            print(f"  {library:<12} {times[library] * 1e3:9.3f} ms   "
                  f"{times[library] / times['primal']:10.1f} x primal")
        else:
            print(f"  {library:<12} (not installed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
