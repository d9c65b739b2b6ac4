"""A physics simulation that updates its state arrays in place, differentiated as is.

A chain of unit masses joined by nonlinear springs (a Fermi-Pasta-Ulam chain) is
integrated with velocity Verlet. The code is written the way simulation code usually
is: `pos += dt * vel`, forces accumulated with `force[i] += ...` into a preallocated
array. fwdad differentiates it without changes: here, how the final position of the
last mass and the final energy depend on the initial velocity of the first mass.
Central finite differences check both.

Run: python examples/physics_inplace.py [--quick]
"""
import sys

import numpy as np

import fwdad

BETA = 0.5  # strength of the cubic term of the springs


def forces(pos, force):
    """Write the spring forces on each mass into `force` (ends fixed at 0 and n + 1)."""
    n = len(pos)
    force[:] = 0.0
    for i in range(n + 1):
        left = pos[i - 1] if i > 0 else 0.0
        right = pos[i] if i < n else 0.0
        stretch = right - left
        tension = stretch + BETA * stretch ** 3
        if i > 0:
            force[i - 1] += tension
        if i < n:
            force[i] -= tension


def energy(pos, vel):
    """Kinetic plus spring energy."""
    total = 0.5 * np.sum(vel * vel)
    for stretch in (pos[0], pos[1:] - pos[:-1], -pos[-1]):   # end springs, inner springs
        total += np.sum(0.5 * stretch ** 2 + 0.25 * BETA * stretch ** 4)
    return total


def simulate(v_first, n=8, steps=200, dt=0.05):
    """Start at rest except the first mass, moving at `v_first`; run velocity Verlet.
    Returns the last mass's final position and the final energy."""
    pos = np.zeros(n)
    vel = np.zeros(n)
    vel[0] = v_first
    force = np.zeros(n)
    forces(pos, force)
    for step in range(steps):
        vel += 0.5 * dt * force          # in-place half kick
        pos += dt * vel                  # in-place drift
        forces(pos, force)               # the force array is overwritten in place
        vel += 0.5 * dt * force
    return pos[-1], energy(pos, vel)


def main(quick=False):
    n, steps = (4, 30) if quick else (8, 200)
    v_first = 0.8
    out, dout = fwdad.jvp(lambda v: simulate(v, n, steps), (v_first,), (1.0,))
    eps = 1e-6
    up, down = simulate(v_first + eps, n, steps), simulate(v_first - eps, n, steps)
    for i, name in enumerate(("final position of the last mass", "final energy")):
        reference = (up[i] - down[i]) / (2 * eps)
        print(f"d({name})/d(v_first) = {dout[i]: .8f}   finite differences "
              f"{reference: .8f}")
        assert np.isclose(dout[i], reference, rtol=1e-5, atol=1e-8)
    # Verlet nearly conserves energy, so d(final energy) is close to d(initial
    # energy) = v_first: a check that needs no finite differences at all.
    print(f"(the initial energy's derivative is v_first = {v_first})")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
