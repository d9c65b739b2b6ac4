"""A hot loop under @fwdad.static_graph: record the step's schedule once, replay it.

`simulate` runs a small recurrent cell for many steps. The cell is plain Python with
a loop over its layers, a helper call, a method call and a branch; under
@fwdad.static_graph, the first differentiated call records the primitive calls it
makes, and every later call (same shapes, same branch outcomes, same loop lengths)
replays that flat schedule with no dispatch. The same cell without the decorator runs
the full derived rule each step. Both must give the same derivative, which central
finite differences check too.

Run: python examples/static_schedule.py [--quick]
"""
import sys
import time

import numpy as np

import fwdad

LAYERS = 3


def layer(h, w, b):
    return np.tanh(w @ h + b)


def cell(h, w, b):
    """One step: LAYERS layers (a helper call and a method call each, which the full
    rule dispatches every time) with a residual connection, rescaled when large."""
    for _ in range(LAYERS):
        z = layer(h, w, b)
        h = h + 0.5 * (z - z.mean())
    norm = np.sqrt(h @ h)
    if norm > 1e3:
        h = h / norm
    return h


scheduled_cell = fwdad.static_graph(cell)     # the same code, with a schedule


def simulate(h, w, b, steps, step):
    """Run `step` for `steps` steps; the loss is the final state's squared norm."""
    for _ in range(steps):
        h = step(h, w, b)
    return np.sum(h * h)


def timed(f, args, tangents, repeats):
    """Best time of `repeats` calls of jvp(f), and its result."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = fwdad.jvp(f, args, tangents)
        best = min(best, time.perf_counter() - start)
    return best, result


def main(quick=False):
    n, steps, repeats = (4, 20, 2) if quick else (8, 200, 5)
    rng = np.random.default_rng(0)
    h, w, b = rng.standard_normal(n), rng.standard_normal((n, n)) / np.sqrt(n), \
        rng.standard_normal(n) * 0.1
    tangents = (np.zeros(n), rng.standard_normal((n, n)), rng.standard_normal(n))

    def full(h, w, b):
        return simulate(h, w, b, steps, cell)

    def replayed(h, w, b):
        return simulate(h, w, b, steps, scheduled_cell)

    full_time, (value, derivative) = timed(full, (h, w, b), tangents, repeats)
    replay_time, (value_s, derivative_s) = timed(replayed, (h, w, b), tangents, repeats)
    counts = scheduled_cell.static_graph.counts
    print(f"{steps} steps, n={n}: full rule {full_time * 1e3:.1f} ms, replayed schedule "
          f"{replay_time * 1e3:.1f} ms ({full_time / replay_time:.1f}x); schedule "
          f"recorded {counts['records']}, replayed {counts['replays']}, fell back "
          f"{counts['fallbacks']}")
    eps = 1e-6
    moved = [full(*[a + sign * eps * t for a, t in zip((h, w, b), tangents)])
             for sign in (1, -1)]
    fd = (moved[0] - moved[1]) / (2 * eps)
    print(f"directional derivative: full {derivative:.12f}, replayed "
          f"{derivative_s:.12f}, finite differences {fd:.12f}")
    assert np.isclose(value, value_s, rtol=1e-12)
    assert np.isclose(derivative, derivative_s, rtol=1e-12)
    assert np.isclose(derivative, fd, rtol=1e-6)
    assert counts["records"] == 1 and counts["replays"] >= steps
    print("replayed schedule matches the full rule")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
