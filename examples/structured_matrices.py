"""Structured matrices: rules written once on natural (dense) tangents, checked against
AD through each class's own code.

fwdad.structured has three array-likes in plain Python: Diagonal (stored as its
diagonal), Symmetric (reads the upper triangle only) and ScaledMatrix (scale * matrix,
one parameter more than it has entries). Their own tangents are structural, one per
field; the generic rules for matmul, sum, trace and solve are written once on dense
arrays and converted at the boundary (destructure / Restructure). For every class and
every rule this script compares, in both modes:

    the generic rule            generic_frule / generic_rrule
    AD through the class code   fwdad.jvp / fwdad.vjp of the class's own method

and checks the forward-mode number once more against central finite differences.

Run: python examples/structured_matrices.py [--quick]
"""
import sys

import numpy as np

import fwdad
from fwdad.structured import (
    GENERIC,
    Diagonal,
    ScaledMatrix,
    Symmetric,
    destructure,
    generic_frule,
    generic_rrule,
)
from fwdad.tangents import Tangent, inner, random_tangent


def instances(n, rng):
    """One well-conditioned instance of each array-like."""
    return [Diagonal(rng.uniform(1.0, 2.0, n)),
            Symmetric(rng.standard_normal((n, n)) + 2.0 * n * np.eye(n)),
            ScaledMatrix(1.7, rng.standard_normal((n, n)) * 0.3 + 3.0 * np.eye(n))]


def observe_with(weights):
    """A fixed linear function of an output (a number, a vector or an array-like)."""
    def observe(out):
        if isinstance(out, float):
            return out * 1.0
        dense = destructure(out)
        return np.sum(dense * (weights if dense.ndim == 2 else weights[0]))
    return observe


def perturbed(x, t, eps):
    """x moved by eps along its structural tangent t (for finite differences)."""
    if isinstance(t, Tangent):
        return type(x)(*[getattr(x, f) + eps * getattr(t, f) for f in vars(x)])
    return x + eps * t


def check(name, args, observe, rng):
    """Largest relative disagreement between the generic rule and AD, both modes."""
    rule = GENERIC[name]

    def through_own_code(*args):
        return observe(rule.primal(*args))

    tangents = [random_tangent(a, rng) for a in args]
    _, own = fwdad.jvp(through_own_code, args, tangents)
    out, out_tangent = generic_frule(rule, args, tangents)
    _, generic = fwdad.jvp(observe, (out,), (out_tangent,))
    eps = 1e-6
    up = through_own_code(*[perturbed(a, t, eps) for a, t in zip(args, tangents)])
    down = through_own_code(*[perturbed(a, t, -eps) for a, t in zip(args, tangents)])
    fd = (up - down) / (2 * eps)
    _, pullback_own = fwdad.vjp(through_own_code, *args)
    _, pullback = generic_rrule(rule, *args)
    _, observe_pullback = fwdad.vjp(observe, out)
    cts_own, cts = pullback_own(1.0), pullback(observe_pullback(1.0)[0])
    # compare cotangents through the number they give along the same tangents
    reverse_own, reverse = inner(list(cts_own), tangents), inner(list(cts), tangents)
    assert np.isclose(generic, own, rtol=1e-9), (name, generic, own)
    assert np.isclose(reverse, reverse_own, rtol=1e-9), (name, reverse, reverse_own)
    assert np.isclose(own, fd, rtol=1e-5, atol=1e-8), (name, own, fd)
    return max(abs(generic - own), abs(reverse - reverse_own)) / max(abs(own), 1e-300)


def main(quick=False):
    n = 3 if quick else 8
    rng = np.random.default_rng(0)
    first, second = instances(n, rng), instances(n, rng)
    b, weights = rng.standard_normal(n), rng.standard_normal((n, n))
    observe = observe_with(weights)
    for x, y in zip(first, second):
        rows = [("matmul", (x, y)), ("sum", (x,)), ("trace", (x,)), ("solve", (x, b))]
        worst = max(check(name, args, observe, rng) for name, args in rows)
        print(f"{type(x).__name__:>12}: matmul, sum, trace, solve; largest relative "
              f"difference {worst:.1e}")
    print("generic rules agree with AD through each class's own code")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
