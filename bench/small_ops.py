"""Workloads of many small operations: where per-call overhead, not arithmetic, costs.

  chain      200 NumPy operations on small arrays (static_graph replay vs derived rule);
  tiny       a 3-operation scalar function (the cost of one `jvp` call);
  long_body  a 100-line function (the time to build its derived rule).
"""
from __future__ import annotations

import math

import numpy as np


def chain(x, w):
    """200 NumPy operations on a vector of 8 and an 8x8 matrix, 10 per round."""
    for _ in range(20):
        h = np.tanh(w @ x)
        x = x + 0.1 * h
        s = h.sum()
        x = x * np.exp(-s * s * 0.01)
        x = x - x.mean() * 0.5
    return x.sum()


def tiny(x, y):
    return math.sin(x) * y + x


def long_body_source(lines: int = 100) -> str:
    """The source of a function of `lines` lines of scalar arithmetic and branches."""
    body = ["def long_body(x, y):", "    a = x * y + 1.0"]
    for i in range(lines - 3):
        if i % 10 == 9:
            body.append(f"    if a > {i}.0: a = a - y * {i % 7}.5")
        else:
            body.append(f"    a = a * 0.5 + math.sin(x * {i % 5 + 1}.0) - y / {i + 2}.0")
    body.append("    return a + x")
    return "\n".join(body) + "\n"
