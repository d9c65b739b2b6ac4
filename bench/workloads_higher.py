"""The workloads of bench/higher_order.py: the chained Rosenbrock function of n variables
and the closed forms of its gradient, Hessian-vector product and Hessian, which check
every derivative the benchmark times.

    f(x) = sum_i 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2
"""
from __future__ import annotations

import numpy as np


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_point(n: int, seed: int = 0) -> np.ndarray:
    """A generic point (not the minimum, where many terms vanish)."""
    return np.random.default_rng(seed).uniform(-1.5, 1.5, n)


def rosenbrock_gradient(x: np.ndarray) -> np.ndarray:
    a = x[1:] - x[:-1] ** 2
    out = np.zeros_like(x)
    out[:-1] = -400.0 * x[:-1] * a - 2.0 * (1.0 - x[:-1])
    out[1:] += 200.0 * a
    return out


def rosenbrock_hvp(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """H v, with H tridiagonal."""
    out = np.zeros_like(x)
    out[:-1] = (1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0) * v[:-1] - 400.0 * x[:-1] * v[1:]
    out[1:] += 200.0 * v[1:] - 400.0 * x[:-1] * v[:-1]
    return out


def rosenbrock_hessian(x: np.ndarray) -> np.ndarray:
    """The dense Hessian, column by column from the closed-form product."""
    return np.stack([rosenbrock_hvp(x, e) for e in np.eye(x.size)], axis=1)
