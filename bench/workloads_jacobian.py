"""The functions bench/jacobian.py times (tests import them too): a discretized
nonlinear PDE residual R^n -> R^n, and a function whose primal dominates its cost."""
from __future__ import annotations

import numpy as np


def pde_residual(u):
    """Residual of u'' + 3 exp(u) + (u^2 / 2)' = 0 on a periodic grid (slicing, np.roll,
    in-place updates), with a boundary row and an integral constraint."""
    n = u.shape[0]
    h = 1.0 / (n + 1)
    lap = (np.roll(u, 1) - 2.0 * u + np.roll(u, -1)) / (h * h)
    flux = 0.5 * u ** 2
    r = lap + 3.0 * np.exp(u)
    r[1:-1] += (flux[2:] - flux[:-2]) / (2.0 * h)
    r[0] = u[0] - 0.5
    r[-1] -= np.sum(u) * h
    return r


def pde_point(n: int = 100) -> np.ndarray:
    return np.sin(np.linspace(0.0, 3.0, n))


def pde_residual_hand_jacobian(u):
    """The residual and its Jacobian by hand: batched NumPy over the identity."""
    n = u.shape[0]
    h = 1.0 / (n + 1)
    du = np.eye(n)
    lap = (np.roll(u, 1) - 2.0 * u + np.roll(u, -1)) / (h * h)
    dlap = (np.roll(du, 1, axis=1) - 2.0 * du + np.roll(du, -1, axis=1)) / (h * h)
    flux, dflux = 0.5 * u ** 2, u * du
    r, dr = lap + 3.0 * np.exp(u), dlap + 3.0 * np.exp(u) * du
    r[1:-1] += (flux[2:] - flux[:-2]) / (2.0 * h)
    dr[:, 1:-1] += (dflux[:, 2:] - dflux[:, :-2]) / (2.0 * h)
    r[0], dr[:, 0] = u[0] - 0.5, du[:, 0]
    r[-1] -= np.sum(u) * h
    dr[:, -1] -= np.sum(du, axis=1) * h
    return r, dr.T


def pde_residual_central_differences(u, h=1e-6):
    """The Jacobian by central differences: 2n evaluations of the residual."""
    columns = [(pde_residual(u + h * e) - pde_residual(u - h * e)) / (2.0 * h)
               for e in np.eye(u.shape[0])]
    return np.stack(columns, axis=1)


def transcendental_chain(x):
    """A function whose primal dominates: a chain of transcendental functions on a large
    array, summed. Its tangent is a few products with coefficients lin keeps."""
    y = np.tanh(x)
    z = np.exp(y) * np.sin(3.0 * x)
    return np.sum(np.log1p(z * z) + np.sqrt(1.0 + y * y))
