"""Newton's method for a nonlinear system, with its Jacobian from fwdad.jacfwd.

The Bratu problem  -u'' = lam * exp(u)  on (0, 1) with u(0) = u(1) = 0, discretized
by finite differences on n interior points, is a system F(u) = 0 of n equations. The
residual is written as plain Python with a loop filling an array in place; jacfwd
gives its n x n Jacobian in one batched forward pass, checked once against central
finite differences. Newton's method then converges quadratically.

Run: python examples/newton_jacfwd.py [--quick]
(saves newton_jacfwd.png when matplotlib is installed)
"""
import sys

import numpy as np

import fwdad


def residual(u, lam):
    """F(u): the discretized equation at each interior point."""
    n = u.shape[0]
    h = 1.0 / (n + 1)
    out = np.zeros(n)
    for i in range(n):
        left = u[i - 1] if i > 0 else 0.0          # boundary values are zero
        right = u[i + 1] if i < n - 1 else 0.0
        out[i] = (2.0 * u[i] - left - right) / (h * h) - lam * np.exp(u[i])
    return out


def finite_difference_jacobian(u, lam, eps=1e-6):
    """The Jacobian column by column, by central differences (the independent check)."""
    columns = []
    for j in range(u.shape[0]):
        e = np.zeros_like(u)
        e[j] = eps
        columns.append((residual(u + e, lam) - residual(u - e, lam)) / (2 * eps))
    return np.stack(columns, axis=1)


def newton(u, lam, tol=1e-10, max_steps=20):
    """Newton iterations u <- u - J(u)^-1 F(u); returns u and the residual norms."""
    jacobian = fwdad.jacfwd(residual)                # d residual / d u, shape (n, n)
    norms = [np.linalg.norm(residual(u, lam))]
    while norms[-1] > tol and len(norms) <= max_steps:
        u = u - np.linalg.solve(jacobian(u, lam), residual(u, lam))
        norms.append(np.linalg.norm(residual(u, lam)))
    return u, norms


def main(quick=False):
    n, lam = (8, 1.0) if quick else (100, 3.0)
    u0 = np.zeros(n)
    # check the AD Jacobian at a generic point before trusting it
    probe = 0.1 * np.sin(np.arange(1.0, n + 1.0))
    error = np.max(np.abs(fwdad.jacfwd(residual)(probe, lam)
                          - finite_difference_jacobian(probe, lam)))
    scale = np.max(np.abs(finite_difference_jacobian(probe, lam)))
    print(f"jacfwd vs finite differences: largest difference {error:.1e} "
          f"(entries up to {scale:.1e})")
    assert error <= 1e-6 * scale
    u, norms = newton(u0, lam)
    for step, norm in enumerate(norms):
        print(f"  step {step}: |F(u)| = {norm:.3e}")
    assert norms[-1] <= 1e-10, "Newton did not converge"
    print(f"Newton converged in {len(norms) - 1} steps; max u = {np.max(u):.6f}")
    plot(norms)


def plot(norms):
    """Save the convergence history as a PNG, if matplotlib is there."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.semilogy(range(len(norms)), norms, "o-")
    ax.set_xlabel("Newton step")
    ax.set_ylabel("|F(u)|")
    fig.savefig("newton_jacfwd.png", dpi=120)
    print("saved newton_jacfwd.png")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
