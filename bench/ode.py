"""How much does differentiating through scipy.integrate.solve_ivp cost, against the
plain solve? Lotka-Volterra (2 states, 4 parameters) by DOP853 at rtol 1e-8 to t = 10:

- jvp (one tangent direction): the plain solve (for SciPy's own primal) plus the
  augmented solve of [y, dy];
- jacfwd in the 6 directions of y0 and the parameters: one augmented solve of 2 + 12
  states;
- grad (reverse mode: the Jacobian by forward sensitivities, transposed) of a scalar of
  the solution with respect to y0 and the 4 parameters, and of a linear system y' = A y
  with respect to A's n^2 entries, for n = 2, 3, 4: how its cost grows with the number of
  parameters P (the adjoint method's would not grow with P).

The jvp and jacfwd rows also give the sensitivity solve alone, (jvp - plain) / plain
(the rule runs one plain solve for SciPy's own primal, then the augmented one), and how
many right-hand side calls each solve makes: the sensitivities share the error control
(the issue asks for the same tolerances on the augmented state), so the augmented solve
may take more steps than the plain one, which no cost per call can make up for. So the
target is per call: the sensitivity solve's time per right-hand side call over the plain
solve's should be about 1 + directions (one f and one tangent of about f's cost per
direction, and the solver's own work on a state 1 + directions times as long); the step
count ratio, the error control's, is shown beside it.

    python bench/ode.py           # a few seconds
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Callable, Dict, List, Tuple

import numpy as np
import scipy.integrate as si

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fwdad  # noqa: E402

TOLERANCES = dict(rtol=1e-8, atol=1e-10)
T_EVAL = np.linspace(0.0, 10.0, 21)
Y0, PARAMETERS = np.array([1.0, 0.5]), np.array([1.1, 0.4, 0.1, 0.4])


def lotka_volterra(t, y, alpha, beta, delta, gamma):
    prey, predator = y
    return [alpha * prey - beta * prey * predator, delta * prey * predator - gamma * predator]


def solve(y0, p):
    return si.solve_ivp(lotka_volterra, (0.0, 10.0), y0, method="DOP853", t_eval=T_EVAL,
                        args=(p[0], p[1], p[2], p[3]), **TOLERANCES).y


def solve_all(x):
    return solve(x[:2], x[2:])


def loss(y0, p):
    return np.sum(solve(y0, p) ** 2)


def reaction_diffusion(t, y, k, r):
    """A periodic 1-d reaction-diffusion line of N cells (vectorized NumPy)."""
    return k * (np.roll(y, 1) - 2.0 * y + np.roll(y, -1)) + r * y * (1.0 - y)


N_CELLS = 200
LINE_Y0 = 0.5 + 0.4 * np.sin(np.linspace(0.0, 2.0 * np.pi, N_CELLS, endpoint=False))


def solve_line(x):
    """The line's state at t = 1, 2, 3 (x: k, r and two amplitudes of y0)."""
    y0 = LINE_Y0 * x[2] + x[3]
    return si.solve_ivp(reaction_diffusion, (0.0, 3.0), y0, method="RK45",
                        t_eval=[1.0, 2.0, 3.0], args=(x[0], x[1]), **TOLERANCES).y


def line_times(repeats: int) -> Dict[str, float]:
    x = np.array([0.3, 1.0, 1.0, 0.0])
    return {"primal": median_time(lambda: solve_line(x), repeats),
            "jvp, 1 direction": median_time(
                lambda: fwdad.jvp(solve_line, (x,), (np.array([1.0, 0.5, 0.0, 0.1]),)),
                repeats),
            "jacfwd, 4 directions": median_time(lambda: fwdad.jacfwd(solve_line)(x), repeats)}


def linear(t, y, a):
    return a @ y


def linear_loss(a):
    y0 = np.ones(a.shape[0])
    y = si.solve_ivp(linear, (0.0, 2.0), y0, method="DOP853", t_eval=[1.0, 2.0], args=(a,),
                     **TOLERANCES).y
    return np.sum(y ** 2)


def median_time(f: Callable, repeats: int) -> float:
    f()  # (builds the derived rules)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def lotka_volterra_times(repeats: int) -> Dict[str, float]:
    x = np.concatenate([Y0, PARAMETERS])
    direction = np.array([0.3, -0.2, 0.1, 0.0, 0.0, 0.05])
    return {"primal": median_time(lambda: solve_all(x), repeats),
            "jvp, 1 direction": median_time(
                lambda: fwdad.jvp(solve_all, (x,), (direction,)), repeats),
            "jacfwd, 6 directions": median_time(lambda: fwdad.jacfwd(solve_all)(x), repeats),
            "grad, 6 parameters": median_time(
                lambda: fwdad.grad(loss, argnums=(0, 1))(Y0, PARAMETERS), repeats)}


DIRECTIONS = {"jvp, 1 direction": 1, "jacfwd, 6 directions": 6, "jacfwd, 4 directions": 4}
"""The tangent directions of each sensitivity row: the per-call target is 1 + these."""


def right_hand_side_calls() -> Dict[str, Dict[str, Tuple[int, int]]]:
    """{workload: {row: (plain solve's right-hand side calls, augmented solve's)}}, for
    "Lotka-Volterra" and "reaction-diffusion" and their jvp and jacfwd rows."""
    from fwdad.rules.ode_sensitivity import SensitivitySystem
    x, line_x = np.concatenate([Y0, PARAMETERS]), np.array([0.3, 1.0, 1.0, 0.0])
    plain = {"Lotka-Volterra": si.solve_ivp(
        lotka_volterra, (0.0, 10.0), Y0, method="DOP853", t_eval=T_EVAL,
        args=tuple(PARAMETERS), **TOLERANCES).nfev, "reaction-diffusion": si.solve_ivp(
        reaction_diffusion, (0.0, 3.0), LINE_Y0, method="RK45", t_eval=[1.0, 2.0, 3.0],
        args=(0.3, 1.0), **TOLERANCES).nfev}
    runs = {("Lotka-Volterra", "jvp, 1 direction"): lambda: fwdad.jvp(
                solve_all, (x,), (np.array([0.3, -0.2, 0.1, 0.0, 0.0, 0.05]),)),
            ("Lotka-Volterra", "jacfwd, 6 directions"): lambda: fwdad.jacfwd(solve_all)(x),
            ("reaction-diffusion", "jvp, 1 direction"): lambda: fwdad.jvp(
                solve_line, (line_x,), (np.array([1.0, 0.5, 0.0, 0.1]),)),
            ("reaction-diffusion", "jacfwd, 4 directions"): lambda: fwdad.jacfwd(
                solve_line)(line_x)}
    calls, rhs = [0], SensitivitySystem.rhs

    def counted(self, t, z):
        calls[0] += 1
        return rhs(self, t, z)
    out: Dict[str, Dict[str, Tuple[int, int]]] = {name: {} for name in plain}
    SensitivitySystem.rhs = counted  # (for the count only: put back below)
    try:
        for (workload, row), run in runs.items():
            run()  # (as median_time: jacfwd measures memory in smaller passes at first)
            calls[0] = 0
            run()
            out[workload][row] = (plain[workload], calls[0])
    finally:
        SensitivitySystem.rhs = rhs
    return out


def per_call(times: Dict[str, float], row: str, calls: Tuple[int, int]) -> float:
    """The sensitivity solve's time per right-hand side call over the plain solve's:
    ((row - plain) / augmented calls) / (plain / plain calls)."""
    plain_calls, augmented_calls = calls
    return (times[row] - times["primal"]) / augmented_calls / (times["primal"] / plain_calls)


def linear_times(repeats: int, sizes=(2, 3, 4)) -> Dict[int, Dict[str, float]]:
    rng = np.random.default_rng(0)
    out = {}
    for n in sizes:
        a = rng.standard_normal((n, n)) / n - np.eye(n)
        out[n] = {"primal": median_time(lambda: linear_loss(a), repeats),
                  "grad": median_time(lambda: fwdad.grad(linear_loss)(a), repeats)}
    return out


def main(repeats: int = 5) -> List[str]:
    lines, calls = [], right_hand_side_calls()
    for workload, label, times in (
            ("Lotka-Volterra", "Lotka-Volterra", lotka_volterra_times(repeats)),
            ("reaction-diffusion", f"reaction-diffusion N={N_CELLS}", line_times(repeats))):
        for name, t in times.items():
            alone = f"  sensitivity solve {(t - times['primal']) / times['primal']:5.1f}x" \
                if name in DIRECTIONS else ""
            lines.append(f"{label} {name:22s} {t * 1e3:8.2f} ms  "
                         f"{t / times['primal']:5.1f}x{alone}")
        for name, (plain, augmented) in calls[workload].items():
            lines.append(f"{label} {name}: per right-hand side call "
                         f"{per_call(times, name, (plain, augmented)):.2f}x (target about "
                         f"{1 + DIRECTIONS[name]}); calls {plain} plain, {augmented} "
                         f"augmented ({augmented / plain:.2f}x, the error control's)")
    for n, entry in linear_times(repeats).items():
        lines.append(f"y' = A y, n={n}, grad by A (P={n * n:2d}) {entry['grad'] * 1e3:8.2f} ms  "
                     f"{entry['grad'] / entry['primal']:5.1f}x")
    return lines


if __name__ == "__main__":
    print("\n".join(main()))
