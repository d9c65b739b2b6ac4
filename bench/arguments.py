"""Workloads written the way people write them: constants passed as arguments.

  RK4      rk4(k, y0, steps, h), jvp along k only (h, y0 given no tangent)
  MLP      mlp(w1, x, w2, w3), jvp along w1 only (the data and other weights none)
  lsq      a linear least-squares objective whose design matrix is built inside from
           arange/cumprod/repeat of constants, gradient along x

Each sits next to its hand-written tangent code (RK4, MLP) or a peer in the same run
(lsq: autograd, when installed). Ratios are time / plain primal time; the targets are
the specialization issue's: RK4 and MLP within 1.15x of the hand-written ratio, lsq at
most autograd's ratio (or 3 without autograd).
"""
from __future__ import annotations

import math
from typing import Callable, Dict, List

import numpy as np

import fwdad
from bench.jvp_overhead import make_mlp_jvp, make_rk4_solve_jvp
from bench.report import Row

RK4_STEPS, MLP_BATCH, MLP_WIDTH, LSQ_ROWS = 1000, 256, 256, 128


def rk4(k, y0, steps, h):
    y, t = y0, 0.0
    for _ in range(steps):
        k1 = -k * y + math.sin(t)
        k2 = -k * (y + 0.5 * h * k1) + math.sin(t + 0.5 * h)
        k3 = -k * (y + 0.5 * h * k2) + math.sin(t + 0.5 * h)
        k4 = -k * (y + h * k3) + math.sin(t + h)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        t = t + h
    return y


def rk4_hand(k, y0, steps, h, dk):
    """rk4 and its tangent along k, written by hand (W1's hand-written code)."""
    return make_rk4_solve_jvp(steps, steps * h)(k, y0, dk, 0.0)


def mlp(w1, x, w2, w3):
    h1 = np.tanh(x @ w1)
    h2 = np.tanh(h1 @ w2)
    return np.tanh(h2 @ w3)


def mlp_hand(w1, x, w2, w3, dw1):
    """mlp and its tangent along w1, written by hand (W3's hand-written code)."""
    return make_mlp_jvp(w2, w3, x)(w1, dw1)


def least_squares(x, m):
    t = np.arange(m) / m
    muls = np.cumprod(np.repeat(t[:, None] + 1.0, x.shape[0], axis=1), axis=1)
    return 0.5 * np.sum((np.sign(np.sin(6.0 * t)) - muls @ x) ** 2)


def least_squares_autograd() -> Callable:
    """The same objective written for autograd, or None when it is absent."""
    try:
        import autograd.numpy as anp
    except ImportError:
        return None

    def objective(x, m):
        t = anp.arange(m) / m
        muls = anp.cumprod(anp.repeat(t[:, None] + 1.0, x.shape[0], axis=1), axis=1)
        return 0.5 * anp.sum((anp.sign(anp.sin(6.0 * t)) - anp.dot(muls, x)) ** 2)
    return objective


def _check(name: str, got, want, rtol: float = 1e-10) -> None:
    if not np.allclose(got, want, rtol=rtol, atol=1e-12):
        raise SystemExit(f"{name}: fwdad's derivative is wrong: {got} != {want}")


def rows(repeats: int, medians: Callable, seconds: Callable, verdict: Callable
         ) -> List[Row]:
    """The table rows (bench/run.py passes its own timer and formatting)."""
    out: List[Row] = []
    rk4_args = (0.7, 1.0, RK4_STEPS, 10.0 / RK4_STEPS)
    rk4_jvp = lambda: fwdad.jvp(rk4, rk4_args, (1.0, None, None, None))  # noqa: E731
    _check("RK4", rk4_jvp()[1], rk4_hand(*rk4_args, 1.0)[1])
    out += _pair(f"RK4 with arguments, {RK4_STEPS} steps, d/dk", medians(
        {"primal": lambda: rk4(*rk4_args), "fwdad": rk4_jvp,
         "hand": lambda: rk4_hand(*rk4_args, 1.0)}, repeats), seconds, verdict)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((MLP_BATCH, MLP_WIDTH))
    w1, w2, w3, dw1 = (rng.standard_normal((MLP_WIDTH, MLP_WIDTH)) / math.sqrt(MLP_WIDTH)
                       for _ in range(4))
    mlp_jvp = lambda: fwdad.jvp(mlp, (w1, x, w2, w3), (dw1, None, None, None))  # noqa
    _check("MLP", mlp_jvp()[1], mlp_hand(w1, x, w2, w3, dw1)[1])
    out += _pair(f"tanh MLP with arguments, {MLP_BATCH}x{MLP_WIDTH}, d/dw1", medians(
        {"primal": lambda: mlp(w1, x, w2, w3), "fwdad": mlp_jvp,
         "hand": lambda: mlp_hand(w1, x, w2, w3, dw1)}, repeats), seconds, verdict)
    out += _least_squares_rows(repeats, medians, seconds, verdict)
    return out


def _pair(name: str, times: Dict[str, float], seconds: Callable, verdict: Callable
          ) -> List[Row]:
    base = times["primal"]
    ours, hand = times["fwdad"] / base, times["hand"] / base
    return [Row(name, "primal", seconds(base)),
            Row(name, "fwdad.jvp", seconds(times["fwdad"]), f"{ours:.2f}x",
                f"{ours / hand:.2f}x hand, " + verdict(ours / hand, 1.15)),
            Row(name, "hand-written tangent code", seconds(times["hand"]), f"{hand:.2f}x")]


def _least_squares_rows(repeats: int, medians: Callable, seconds: Callable,
                        verdict: Callable) -> List[Row]:
    x, m = np.linspace(0.1, 0.5, 8), LSQ_ROWS
    grad = fwdad.grad(least_squares)
    step = 1e-6
    fd = [(least_squares(x + step * e, m) - least_squares(x - step * e, m)) / (2 * step)
          for e in np.eye(len(x))]
    _check("least squares", grad(x, m), fd, rtol=1e-6)
    group = {"primal": lambda: least_squares(x, m), "fwdad": lambda: grad(x, m)}
    peer = least_squares_autograd()
    if peer is not None:
        import autograd
        peer_grad = autograd.grad(peer)
        group.update({"autograd primal": lambda: peer(x, m),
                      "autograd": lambda: peer_grad(x, m)})
    times = medians(group, repeats)
    name = f"least squares with constants built inside, m={m}, grad"
    ours = times["fwdad"] / times["primal"]
    theirs = times["autograd"] / times["autograd primal"] if peer is not None else None
    rows = [Row(name, "primal", seconds(times["primal"])),
            Row(name, "fwdad.grad", seconds(times["fwdad"]), f"{ours:.2f}x",
                verdict(ours, theirs if theirs is not None else 3.0)
                + (" (autograd's ratio)" if theirs is not None else ""))]
    rows.append(Row(name, "autograd gradient", seconds(times["autograd"]) if theirs
                    else "absent", f"{theirs:.2f}x" if theirs else ""))
    return rows
