"""Reverse schedules (issue 21): where tape overhead, not arithmetic, costs.

  chain     200 small NumPy operations (small_ops.chain): grad replayed from a reverse
            schedule against the full reverse rule; target: replay >= 3x faster.
  cofactor  the determinant of a 5x5 matrix by cofactor expansion (recursive scalar
            code on lists): gradient time / primal time; target: <= 30.
  lstm      an LSTM cell in NumPy unrolled over 100 steps (hidden 8, input 4):
            gradient time / primal time; target: <= 10.

torch's eager gradient of the same code (the same operations on tensors) is timed beside
them when torch is installed. Run from the repository root:
`python bench/reverse_schedule.py [--quick]` (bench/run.py puts the rows in its table).
"""
from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

try:
    import fwdad
except ImportError:  # not installed: run from a checkout
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import fwdad
from bench import report  # noqa: E402
from bench.report import Row  # noqa: E402
from bench.small_ops import chain  # noqa: E402


# ---- the workloads ------------------------------------------------------------------------
def cofactor_det(m):
    """The determinant by expansion along the first row (m: a list of lists)."""
    n = len(m)
    if n == 1:
        return m[0][0]
    total = 0.0
    for j in range(n):
        minor = [row[:j] + row[j + 1:] for row in m[1:]]
        term = m[0][j] * cofactor_det(minor)
        total = total + term if j % 2 == 0 else total - term
    return total


def cofactor_sum(m):
    return cofactor_det(m)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm(params, xs):
    """The sum of the hidden states of an LSTM cell run over the rows of xs."""
    w, u, b = params
    size = b.shape[0] // 4
    h, c = np.zeros(size), np.zeros(size)
    total = 0.0
    for x in xs:
        z = w @ x + u @ h + b
        i, f = sigmoid(z[:size]), sigmoid(z[size:2 * size])
        o, g = sigmoid(z[2 * size:3 * size]), np.tanh(z[3 * size:])
        c = f * c + i * g
        h = o * np.tanh(c)
        total = total + h.sum()
    return total


def lstm_inputs(steps: int = 100, hidden: int = 8, inputs: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal((4 * hidden, inputs)) * 0.3,
              rng.standard_normal((4 * hidden, hidden)) * 0.3, np.zeros(4 * hidden)]
    return params, rng.standard_normal((steps, inputs))


def matrix_inputs(n: int = 5, seed: int = 0) -> List[List[float]]:
    return np.random.default_rng(seed).standard_normal((n, n)).tolist()


# ---- torch's eager gradient of the same code -------------------------------------------
def torch_callables() -> Dict[str, Optional[Callable[[], Any]]]:
    try:
        import torch
    except ImportError:
        return {"chain": None, "cofactor": None, "lstm": None}
    rng = np.random.default_rng(0)
    x0, w0 = torch.tensor(rng.standard_normal(8)), torch.tensor(rng.standard_normal((8, 8)))

    def chain_grad():
        x, w = x0.clone().requires_grad_(), w0.clone().requires_grad_()
        y = x
        for _ in range(20):
            h = torch.tanh(w @ y)
            y = y + 0.1 * h
            s = h.sum()
            y = y * torch.exp(-s * s * 0.01)
            y = y - y.mean() * 0.5
        y.sum().backward()
        return x.grad, w.grad

    m0 = torch.tensor(matrix_inputs())

    def cofactor_grad():
        m = m0.clone().requires_grad_()
        rows = [[m[i, j] for j in range(5)] for i in range(5)]
        cofactor_det(rows).backward()
        return m.grad

    params0, xs = lstm_inputs()
    p0 = [torch.tensor(p) for p in params0]
    txs = torch.tensor(xs)

    def lstm_grad():
        p = [v.clone().requires_grad_() for v in p0]
        w, u, b = p
        size = b.shape[0] // 4
        h, c = torch.zeros(size, dtype=torch.float64), torch.zeros(size, dtype=torch.float64)
        total = 0.0
        for x in txs:
            z = w @ x + u @ h + b
            i, f = torch.sigmoid(z[:size]), torch.sigmoid(z[size:2 * size])
            o, g = torch.sigmoid(z[2 * size:3 * size]), torch.tanh(z[3 * size:])
            c = f * c + i * g
            h = o * torch.tanh(c)
            total = total + h.sum()
        total.backward()
        return [v.grad for v in p]
    return {"chain": chain_grad, "cofactor": cofactor_grad, "lstm": lstm_grad}


# ---- the groups bench/run.py times -----------------------------------------------------------
def groups() -> Dict[str, Tuple[Dict[str, Optional[Callable[[], Any]]], str]]:
    """name -> (callables timed in turn, the one the target divides by)."""
    torch = torch_callables()
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(8), rng.standard_normal((8, 8))
    scheduled_chain = fwdad.static_graph(chain)
    m = matrix_inputs()
    scheduled_det = fwdad.static_graph(cofactor_sum)
    params, xs = lstm_inputs()
    scheduled_lstm = fwdad.static_graph(lstm)
    _check(fwdad.grad(scheduled_chain, (0, 1)), fwdad.grad(chain, (0, 1)), (x, w))
    _check(fwdad.grad(scheduled_det), fwdad.grad(cofactor_sum), (m,))
    _check(fwdad.grad(scheduled_lstm), fwdad.grad(lstm), (params, xs))
    return {
        "chain": ({"full reverse rule": lambda: fwdad.grad(chain, (0, 1))(x, w),
                   "replay": lambda: fwdad.grad(scheduled_chain, (0, 1))(x, w),
                   "torch (eager)": torch["chain"]}, "full reverse rule"),
        "cofactor": ({"primal": lambda: cofactor_sum(m),
                      "full reverse rule": lambda: fwdad.grad(cofactor_sum)(m),
                      "replay": lambda: fwdad.grad(scheduled_det)(m),
                      "torch (eager)": torch["cofactor"]}, "primal"),
        "lstm": ({"primal": lambda: lstm(params, xs),
                  "full reverse rule": lambda: fwdad.grad(lstm)(params, xs),
                  "replay": lambda: fwdad.grad(scheduled_lstm)(params, xs),
                  "torch (eager)": torch["lstm"]}, "primal"),
    }


def _check(scheduled: Callable, full: Callable, args: tuple) -> None:
    """Record, replay, and compare with the full rule before anything is timed."""
    want = full(*args)
    for _ in range(2):
        got = scheduled(*args)
    flat_got, flat_want = _flatten(got), _flatten(want)
    if not all(np.array_equal(a, b) for a, b in zip(flat_got, flat_want)):
        sys.exit("a replayed gradient differs from the full reverse rule's")


def _flatten(x: Any) -> List[Any]:
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _flatten(item)]
    return [x]


TARGETS = {"chain": 3.0, "cofactor": 30.0, "lstm": 10.0}
NAMES = {"chain": "reverse schedule, 200 small NumPy ops, grad",
         "cofactor": "reverse schedule, cofactor determinant 5x5, grad",
         "lstm": "reverse schedule, LSTM cell unrolled 100 steps, grad"}


def rows(repeats: int, medians: Callable, seconds: Callable, verdict: Callable) -> List[Row]:
    """The table rows of bench/run.py: medians and the ratios the targets are about."""
    out: List[Row] = []
    for key, (group, base) in groups().items():
        times = medians(group, repeats)
        for entry in group:
            if entry not in times:
                out.append(Row(NAMES[key], entry, "absent"))
                continue
            if key == "chain":  # (the full rule and torch against the replay)
                ratio = times[entry] / times["replay"]
                text = "" if entry == "replay" else f"{ratio:.2f}x replay"
                target = verdict(ratio, 3.0, at_most=False) if entry == base else ""
            else:
                ratio = times[entry] / times[base]
                text = f"{ratio:.2f}x" if entry != base else ""
                target = verdict(ratio, TARGETS[key]) if entry == "replay" else ""
            out.append(Row(NAMES[key], entry, seconds(times[entry]), text, target))
    return out


def main() -> None:
    from bench import run
    repeats = 3 if "--quick" in sys.argv else 21
    print(report.table(rows(repeats, run.medians, run.seconds, run.verdict)))


if __name__ == "__main__":
    main()
