"""Sensitivity of an ODE solution to its parameters, through an RK4 solver with loops.

A damped oscillator  x'' = -k x - c x'  is integrated with classic Runge-Kutta written
as plain Python: a loop over steps, a helper for the right-hand side, and a trajectory
array filled in place row by row. fwdad.jvp gives dx(t)/dk and dx(t)/dc for every t
in one pass each; central finite differences check them.

Run: python examples/ode_sensitivity.py [--quick]
(saves ode_sensitivity.png when matplotlib is installed)
"""
import sys

import numpy as np

import fwdad


def rhs(state, k, c):
    """The oscillator as a first-order system: (x, v)' = (v, -k x - c v)."""
    x, v = state[0], state[1]
    return np.array([v, -k * x - c * v])


def solve(k, c, t_end=10.0, steps=400):
    """Positions x(t) at steps + 1 equally spaced times, from x = 1, v = 0."""
    h = t_end / steps
    state = np.array([1.0, 0.0])
    positions = np.zeros(steps + 1)
    positions[0] = state[0]
    for i in range(steps):
        s1 = rhs(state, k, c)
        s2 = rhs(state + 0.5 * h * s1, k, c)
        s3 = rhs(state + 0.5 * h * s2, k, c)
        s4 = rhs(state + h * s3, k, c)
        state = state + h / 6.0 * (s1 + 2.0 * s2 + 2.0 * s3 + s4)
        positions[i + 1] = state[0]      # the trajectory is written in place
    return positions


def finite_difference(k, c, dk, dc, steps, eps=1e-6):
    """The same directional derivative, by central finite differences."""
    up = solve(k + eps * dk, c + eps * dc, steps=steps)
    down = solve(k - eps * dk, c - eps * dc, steps=steps)
    return (up - down) / (2 * eps)


def main(quick=False):
    steps = 40 if quick else 400
    k, c = 4.0, 0.3
    sensitivities = {}
    for name, direction in (("k", (1.0, 0.0)), ("c", (0.0, 1.0))):
        positions, dpositions = fwdad.jvp(lambda k, c: solve(k, c, steps=steps),
                                          (k, c), direction)
        reference = finite_difference(k, c, *direction, steps=steps)
        error = np.max(np.abs(dpositions - reference))
        print(f"dx(t)/d{name}: at t_end {dpositions[-1]: .6f} (finite differences "
              f"{reference[-1]: .6f}); largest difference over the trajectory {error:.1e}")
        assert np.allclose(dpositions, reference, rtol=1e-5, atol=1e-7)
        sensitivities[name] = dpositions
    plot(np.linspace(0.0, 10.0, steps + 1), positions, sensitivities)


def plot(times, positions, sensitivities):
    """Save the trajectory and its sensitivities as a PNG, if matplotlib is there."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(times, positions, label="x(t)")
    for name, dpositions in sensitivities.items():
        ax.plot(times, dpositions, label=f"dx(t)/d{name}")
    ax.set_xlabel("t")
    ax.legend()
    fig.savefig("ode_sensitivity.png", dpi=120)
    print("saved ode_sensitivity.png")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
