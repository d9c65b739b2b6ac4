"""The same workloads written for the peers that are installed: JAX (eager jax.jvp),
PyTorch (torch.func.jvp) and autograd (make_jvp). Each maker returns a zero-argument
callable that computes the JVP, or None when the library is absent.

All peers run in float64, as fwdad and NumPy do.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Dict, Optional

import numpy as np


def versions() -> Dict[str, Optional[str]]:
    """name -> version of each peer, None when it is not installed."""
    out = {}
    for name in ("jax", "torch", "autograd"):
        try:
            out[name] = importlib.metadata.version(name)
            importlib.import_module(name)
        except Exception:  # not installed, or broken: reported as absent
            out[name] = None
    return out


def _jax():
    import jax
    jax.config.update("jax_enable_x64", True)
    return jax, jax.numpy


# ---- W1: RK4 on a scalar ODE ------------------------------------------------------------
def rk4(lib, sin, steps: int, t_end: float = 10.0) -> Callable:
    h = t_end / steps

    def solve(k, y0):
        y, t = y0, 0.0 * y0
        for _ in range(steps):
            k1 = -k * y + sin(t)
            k2 = -k * (y + 0.5 * h * k1) + sin(t + 0.5 * h)
            k3 = -k * (y + 0.5 * h * k2) + sin(t + 0.5 * h)
            k4 = -k * (y + h * k3) + sin(t + h)
            y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
            t = t + h
        return y
    return solve


def elementwise(lib) -> Callable:
    return lambda x: lib.sum(lib.sin(x) * lib.exp(-x ** 2) + lib.log1p(x ** 2))


def mlp(lib, w2, w3, x) -> Callable:
    def run(w1):
        h1 = lib.tanh(x @ w1)
        h2 = lib.tanh(h1 @ w2)
        return lib.tanh(h2 @ w3)
    return run


def tiny(lib) -> Callable:
    return lambda x, y: lib.sin(x) * y + x


# ---- one JVP call per library ----------------------------------------------------------
def jax_jvp(make: Callable, primals: tuple, tangents: tuple) -> Optional[Callable]:
    try:
        jax, jnp = _jax()
    except Exception:
        return None
    f = make(jnp)
    ps, ts = (tuple(jnp.asarray(v) for v in vs) for vs in (primals, tangents))
    return lambda: jax.block_until_ready(jax.jvp(f, ps, ts))


def torch_jvp(make: Callable, primals: tuple, tangents: tuple) -> Optional[Callable]:
    try:
        import torch
        import torch.func
    except Exception:
        return None
    f = make(torch)
    ps, ts = (tuple(torch.as_tensor(np.asarray(v, dtype=np.float64)) for v in vs)
              for vs in (primals, tangents))
    return lambda: torch.func.jvp(f, ps, ts)


def autograd_jvp(make: Callable, primals: tuple, tangents: tuple) -> Optional[Callable]:
    try:
        import autograd
        import autograd.numpy as anp
    except Exception:
        return None
    f = make(anp)
    nargs = len(primals)
    # one argument at a time, summed: autograd's make_jvp differentiates one argument
    jvps = [autograd.make_jvp(f, i) for i in range(nargs) if _nonzero(tangents[i])]
    return lambda: [j(*primals)(tangents[i]) for i, j in zip(
        [i for i in range(nargs) if _nonzero(tangents[i])], jvps)]


def _nonzero(t: Any) -> bool:
    return t is not None and bool(np.any(np.asarray(t) != 0))


def convert(lib_name: str, value: Any) -> Any:
    """A NumPy value as the peer's array (for closures such as the MLP's weights)."""
    if lib_name == "jax":
        return _jax()[1].asarray(value)
    if lib_name == "torch":
        import torch
        return torch.as_tensor(value)
    return value
