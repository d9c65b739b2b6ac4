"""Measure reverse mode: varmat against matvar, and gradient time over primal time.

  chain  the gradient of sum(M1 @ M2 @ ... @ Mk) for 200x200 matrices, with the arrays
         as VarMats (varmat) and as object arrays of Vars (matvar); target: varmat at
         least 10x faster.
  gmm    ADBench's Gaussian mixture objective (d=10, k=25, n=1000; definition in
         tests/reverse/gmm.py): `gradient time / primal time`; target: at most 3.5.
         With --peers, autograd, torch and jax join the same run when installed.

Each figure is the minimum over repeats, with the timed callables run in turn within
each repeat so that load on a shared machine hits them alike. The gradient is checked
once against the matvar one (chain) before anything is timed.

Run from the repository root: `python bench/reverse.py [--quick] [--peers]`.
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import time
from typing import Callable, Dict, List

import numpy as np

try:
    import fwdad
except ImportError:  # not installed: run from a checkout
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import fwdad
from fwdad.reverse import layout  # noqa: E402
from tests.reverse.gmm import gmm_inputs, gmm_objective  # noqa: E402


def chain(mats):
    out = mats[0]
    for m in mats[1:]:
        out = out @ m
    return np.sum(out)


def chain_inputs(size: int = 200, count: int = 4, seed: int = 0) -> List[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((size, size)) / math.sqrt(size) for _ in range(count)]


def matvar_grad(f: Callable, *args):
    with layout("matvar"):
        return fwdad.grad(f)(*args)


def best_times(callables: Dict[str, Callable], repeats: int,
               inner: Dict[str, int] = None) -> Dict[str, float]:
    """The minimum time of each callable, running them in turn in each repeat (`inner`
    runs a fast one several times per turn)."""
    best = {name: math.inf for name in callables}
    for _ in range(repeats):
        for name, fn in callables.items():
            for _ in range((inner or {}).get(name, 1)):
                gc.collect()
                start = time.perf_counter()
                fn()
                best[name] = min(best[name], time.perf_counter() - start)
    return best


# ---- peers (only when installed; nothing here installs them) ---------------------------
def _selection(d: int) -> np.ndarray:
    """A 0/1 matrix putting icf[:, d:] into the strict lower triangles, column by column
    (a scatter without in-place writes, which some peers do not allow)."""
    cols = [(row, col) for col in range(d) for row in range(col + 1, d)]
    out = np.zeros((len(cols), d * d))
    for i, (row, col) in enumerate(cols):
        out[i, row * d + col] = 1.0
    return out


def peer_objective(xp, amax, sum_, alphas, means, icf, x, gamma, m, selection):
    """The same objective on a NumPy-like module `xp` (autograd.numpy, jax.numpy,
    torch) without in-place writes."""
    n, d = x.shape
    k = alphas.shape[0]
    qdiags, sum_qs = xp.exp(icf[:, :d]), sum_(icf[:, :d], 1)
    ls = xp.reshape(icf[:, d:] @ selection, (k, d, d))
    centered = x[:, None, :] - means[None, :, :]
    lower = xp.matmul(ls, centered[:, :, :, None])[:, :, :, 0]
    inner = alphas + sum_qs - 0.5 * sum_((qdiags * centered + lower) ** 2, 2)
    top = amax(inner, 1)
    lse = xp.log(sum_(xp.exp(inner - top[:, None]), 1)) + top
    a_top = amax(alphas, 0)
    lse_alphas = xp.log(sum_(xp.exp(alphas - a_top), 0)) + a_top
    frob = sum_(qdiags ** 2, 1) + sum_(icf[:, d:] ** 2, 1)
    prior = sum_(0.5 * gamma * gamma * frob - m * sum_qs, 0)
    nn = d + m + 1
    c = nn * d * math.log(gamma / math.sqrt(2))
    lgam = 0.25 * d * (d - 1) * math.log(math.pi) + sum(
        math.lgamma(0.5 * nn + 0.5 * (1 - j)) for j in range(1, d + 1))
    return (-n * d * 0.5 * math.log(2 * math.pi) + sum_(lse, 0) - n * lse_alphas
            + prior - k * (c - lgam))


def peers(args) -> Dict[str, Callable]:
    alphas, means, icf, x, gamma, m = args
    sel, out = _selection(x.shape[1]), {}
    try:
        import autograd
        import autograd.numpy as anp
        f = lambda a, mu, q: peer_objective(anp, lambda v, ax: anp.max(v, axis=ax),  # noqa
                                            lambda v, ax: anp.sum(v, axis=ax), a, mu, q,
                                            x, gamma, m, sel)
        out["autograd"] = lambda: autograd.grad(f, (0, 1, 2))(alphas, means, icf)
    except ImportError:
        pass
    try:
        import torch
        t = [torch.tensor(v) for v in (alphas, means, icf, x, sel)]

        def torch_grad():
            p = [v.clone().requires_grad_() for v in t[:3]]
            peer_objective(torch, lambda v, ax: torch.amax(v, dim=ax),
                           lambda v, ax: torch.sum(v, dim=ax), *p, t[3], gamma, m,
                           t[4]).backward()
            return [v.grad for v in p]
        out["torch"] = torch_grad
    except ImportError:
        pass
    try:
        import jax
        import jax.numpy as jnp
        g = jax.grad(lambda a, mu, q: peer_objective(
            jnp, lambda v, ax: jnp.max(v, axis=ax), lambda v, ax: jnp.sum(v, axis=ax),
            a, mu, q, x, gamma, m, sel), (0, 1, 2))
        out["jax.grad (eager)"] = lambda: jax.block_until_ready(g(alphas, means, icf))
    except ImportError:
        pass
    return out


# ---- the measurements ---------------------------------------------------------------------
def chain_times(repeats: int, size: int = 200) -> Dict[str, float]:
    """Best seconds of the chain's gradient with varmat and matvar values (checked equal
    first). Raises AssertionError when the two gradients differ."""
    mats = chain_inputs(size=size)
    varmat, matvar = fwdad.grad(chain)(mats), matvar_grad(chain, mats)
    assert all(np.allclose(a, b, rtol=1e-10) for a, b in zip(varmat, matvar)), \
        "varmat and matvar gradients differ"
    return best_times({"varmat": lambda: fwdad.grad(chain)(mats),
                       "matvar": lambda: matvar_grad(chain, mats)},
                      max(2, repeats // 3), inner={"varmat": 5})


def gmm_times(repeats: int, with_peers: bool) -> Dict[str, float]:
    """Best seconds of the GMM objective ("primal") and of each gradient."""
    args = gmm_inputs()
    grad = fwdad.grad(gmm_objective, argnums=(0, 1, 2))
    timed = {"primal": lambda: gmm_objective(*args), "fwdad": lambda: grad(*args)}
    if with_peers:
        timed.update(peers(args))
    return best_times(timed, repeats)


# ---- the run ----------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repeats, small chain")
    parser.add_argument("--peers", action="store_true", help="time installed peers too")
    opts = parser.parse_args()
    repeats = 2 if opts.quick else 7
    size = 60 if opts.quick else 200
    times = chain_times(repeats, size)
    rows = [(f"chain of 3 products {size}x{size}: varmat grad",
             f"{times['varmat'] * 1e3:.1f} ms"),
            ("  matvar grad", f"{times['matvar'] * 1e3:.1f} ms"),
            ("  matvar / varmat (target >= 10)", f"{times['matvar'] / times['varmat']:.1f}x")]
    gmm = gmm_times(repeats * 4, opts.peers)
    rows.append(("GMM d=10 k=25 n=1000: primal", f"{gmm['primal'] * 1e3:.2f} ms"))
    for name in [n for n in gmm if n != "primal"]:
        target = " (target <= 3.5)" if name == "fwdad" else ""
        rows.append((f"  {name} gradient / primal{target}",
                     f"{gmm[name] / gmm['primal']:.2f}  ({gmm[name] * 1e3:.2f} ms)"))
    if opts.peers and len(gmm) == 2:
        rows.append(("  peers", "none of autograd, torch, jax is installed"))
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
