"""Sensitivity of a spectral heat-equation solver to its diffusion coefficient.

The 1-D heat equation  u_t = D u_xx  on a periodic interval is stepped with implicit
Euler in Fourier space, as plain NumPy: each step transforms u with np.fft.rfft, divides
each mode by 1 + h D k^2, and transforms back with np.fft.irfft. fwdad.jvp gives
du(x, T)/dD in one pass through the loop and the FFTs; central finite differences
check it, and so does the closed form of the scheme,
    d/dD [(1 + h D k^2)^-N u0_k] = -N h k^2 (1 + h D k^2)^(-N-1) u0_k.

Run: python examples/spectral_heat.py [--quick]
(saves spectral_heat.png when matplotlib is installed)
"""
import sys

import numpy as np

import fwdad

LENGTH = 2.0 * np.pi


def initial_profile(points):
    """A smooth, lopsided bump: many Fourier modes, each decaying at its own rate."""
    x = np.linspace(0.0, LENGTH, points, endpoint=False)
    return x, np.exp(-4.0 * (x - 2.0) ** 2) + 0.5 * np.exp(-8.0 * (x - 4.5) ** 2)


def solve(diffusion, u0, t_end=0.5, steps=100):
    """u(x, t_end) from u0, by `steps` implicit Euler steps taken mode by mode."""
    points = u0.shape[0]
    k = 2.0 * np.pi * np.fft.rfftfreq(points, LENGTH / points)  # wavenumbers
    h = t_end / steps
    u = u0.copy()
    for _ in range(steps):
        u = np.fft.irfft(np.fft.rfft(u) / (1.0 + h * diffusion * k ** 2), points)
    return u


def closed_form(diffusion, u0, t_end=0.5, steps=100):
    """du/dD of the same scheme, mode by mode."""
    points = u0.shape[0]
    k = 2.0 * np.pi * np.fft.rfftfreq(points, LENGTH / points)
    h = t_end / steps
    factor = 1.0 + h * diffusion * k ** 2
    return np.fft.irfft(-steps * h * k ** 2 * factor ** (-steps - 1) * np.fft.rfft(u0),
                        points)


def main(quick=False):
    points, steps = (32, 20) if quick else (128, 200)
    x, u0 = initial_profile(points)
    diffusion = 0.3
    u, du = fwdad.jvp(lambda d: solve(d, u0, steps=steps), (diffusion,), (1.0,))
    eps = 1e-6
    reference = (solve(diffusion + eps, u0, steps=steps)
                 - solve(diffusion - eps, u0, steps=steps)) / (2 * eps)
    exact = closed_form(diffusion, u0, steps=steps)
    print(f"du(x, T)/dD: largest {np.max(np.abs(du)):.6f}; differs from finite "
          f"differences by {np.max(np.abs(du - reference)):.1e}, from the closed form "
          f"by {np.max(np.abs(du - exact)):.1e}")
    assert np.allclose(du, reference, rtol=1e-6, atol=1e-8)
    assert np.allclose(du, exact, rtol=1e-10, atol=1e-12)
    plot(x, u0, u, du)


def plot(x, u0, u, du):
    """Save the profiles and the sensitivity as a PNG, if matplotlib is there."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(x, u0, label="u(x, 0)")
    ax.plot(x, u, label="u(x, T)")
    ax.plot(x, du, label="du(x, T)/dD")
    ax.set_xlabel("x")
    ax.legend()
    fig.savefig("spectral_heat.png", dpi=120)
    print("saved spectral_heat.png")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
