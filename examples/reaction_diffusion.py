"""Implicit time stepping of a 2-D reaction-diffusion problem, with the sparse Jacobian
of each Newton step from fwdad.sparse_jacfwd and scipy.sparse.linalg.spsolve.

The Allen-Cahn equation  u_t = eps^2 (u_xx + u_yy) + u - u^3  on the unit square, u = 0
outside, on an m x m grid: backward Euler needs, at every step, the root of
G(v) = v - u - dt F(v), whose Jacobian I - dt dF/dv has the five-point pattern (at most
5 nonzeros per row of m^2). sparse_jacfwd colours its columns (about 5-7 colours
whatever m is) and gets the Jacobian from one batched forward pass of that many
tangents; it is checked once against central differences along random directions.

Run: python examples/reaction_diffusion.py [--quick]
(saves reaction_diffusion.png, the pattern, its colouring and the solution, when
matplotlib is installed)
"""
import sys

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve

import fwdad
from fwdad.coloring import column_coloring

EPS2 = 0.01 ** 2 * 64  # eps^2: the width of the interfaces, in grid units squared


def allen_cahn(u):
    """F(u): eps^2 times the five-point Laplacian of u, plus u - u^3 (u flat, m*m)."""
    m = int(round(np.sqrt(u.size)))
    grid = u.reshape(m, m)
    lap = -4.0 * grid
    lap[1:, :] += grid[:-1, :]
    lap[:-1, :] += grid[1:, :]
    lap[:, 1:] += grid[:, :-1]
    lap[:, :-1] += grid[:, 1:]
    return (EPS2 * (m + 1) ** 2 * lap + grid - grid ** 3).reshape(-1)


def step_residual(v, u, dt):
    """G(v) = v - u - dt F(v): zero at the backward Euler step from u."""
    return v - u - dt * allen_cahn(v)


def five_point_pattern(m):
    line = sp.diags_array([np.ones(m - 1), np.ones(m), np.ones(m - 1)], offsets=[-1, 0, 1])
    eye = sp.eye_array(m)
    return (sp.kron(line, eye) + sp.kron(eye, line)).astype(bool).tocsr()


def check_against_differences(jacobian, v, u, dt, h=1e-6):
    """The sparse Jacobian times random directions, against central differences."""
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(3):
        d = rng.standard_normal(v.size)
        fd = (step_residual(v + h * d, u, dt) - step_residual(v - h * d, u, dt)) / (2 * h)
        worst = max(worst, np.max(np.abs(jacobian(v, u, dt) @ d - fd)) / np.max(np.abs(fd)))
    return worst


def backward_euler(u, dt, steps, jacobian, tol=1e-10):
    """`steps` implicit steps, each solved by Newton's method; the Newton counts."""
    counts = []
    for _ in range(steps):
        v = u.copy()
        for count in range(1, 20):
            v = v - spsolve(jacobian(v, u, dt).tocsc(), step_residual(v, u, dt))
            if np.linalg.norm(step_residual(v, u, dt)) <= tol:
                break
        else:
            raise RuntimeError("Newton did not converge")
        counts.append(count)
        u = v
    return u, counts


def main(quick=False):
    m, steps, dt = (12, 3, 0.5) if quick else (64, 10, 0.5)
    pattern = five_point_pattern(m)
    jacobian = fwdad.sparse_jacfwd(step_residual, sparsity=pattern)  # colours once, here
    u0 = 0.5 * np.random.default_rng(1).standard_normal(m * m)
    error = check_against_differences(jacobian, u0, u0, dt)
    print(f"sparse_jacfwd vs central differences along random directions: relative "
          f"error {error:.1e}")
    assert error <= 1e-6
    colors = column_coloring(pattern)
    print(f"{m}x{m} grid: {m * m} unknowns, {pattern.nnz} nonzeros, "
          f"{colors.max() + 1} colours (tangent directions per Jacobian)")
    u, counts = backward_euler(u0, dt, steps, jacobian)
    print(f"Newton converged in {max(counts)} steps or fewer at each of {steps} time "
          f"steps; u now in [{u.min():.3f}, {u.max():.3f}]")
    plot(pattern, colors, u, m)


def plot(pattern, colors, u, m):
    """Save the pattern, its colouring and the solution as a PNG, if matplotlib is
    there."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    corner = pattern[:3 * m, :3 * m].tocoo()
    axes[0].scatter(corner.col, corner.row, s=4, c=colors[corner.col], cmap="tab10")
    axes[0].set(title="pattern (first rows), by column colour",
                xlim=(-1, 3 * m), ylim=(3 * m, -1))
    axes[1].imshow(colors.reshape(m, m), cmap="tab10")
    axes[1].set_title(f"column colours on the grid ({colors.max() + 1})")
    axes[2].imshow(u.reshape(m, m), cmap="RdBu")
    axes[2].set_title("u after the last step")
    fig.tight_layout()
    fig.savefig("reaction_diffusion.png", dpi=100)
    print("saved reaction_diffusion.png")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
