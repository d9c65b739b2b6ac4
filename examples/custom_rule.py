"""A hand-written forward rule for a function fwdad cannot read: math.dist.

fwdad derives rules from Python source; math.dist (the distance between two points) is
written in C and this version of fwdad ships no rule for it. A call of it is a *foreign
call*: differentiating it raises MissingRuleError, naming the function and saying how to
register a rule. This script registers one with @fwdad.frule and checks it with
fwdad.testing.test_rule (primal, finite differences, a batch of tangents).

Run: python examples/custom_rule.py
"""
import math

import numpy as np

import fwdad
from fwdad.testing import test_rule


def spring_energy(p, q, k):
    """The energy of a spring of rest length 1 between the points p and q."""
    stretch = math.dist(p, q) - 1.0
    return 0.5 * k * stretch * stretch


P, Q = [0.0, 0.0, 0.0], [1.2, 0.4, -0.3]

# ---- 1. without a rule, the call is foreign ---------------------------------------
assert not fwdad.is_primitive(math.dist), "fwdad now ships a rule for math.dist"
try:
    fwdad.jvp(spring_energy, (P, Q, 2.0), ([1.0, 0.0, 0.0], [0.0] * 3, 0.0))
except fwdad.MissingRuleError as err:
    print("Before registering a rule, jvp raises MissingRuleError:\n" + str(err) + "\n")


# ---- 2. the rule --------------------------------------------------------------------
# dist(p, q) = |p - q|, so d dist = <p - q, dp - dq> / dist. The points arrive as Duals
# of lists (a list of floats has a list of tangents); np.stack(..., axis=-1) makes each
# an array, with the batch axis in front when the tangents come in a batch.
@fwdad.frule(math.dist)
def _dist(p: fwdad.Dual, q: fwdad.Dual) -> fwdad.Dual:
    out = math.dist(p.primal, q.primal)
    diff = np.subtract(p.primal, q.primal)
    dp, dq = np.stack(p.tangent, axis=-1), np.stack(q.tangent, axis=-1)
    return fwdad.Dual(out, (dp - dq) @ diff / out)


# ---- 3. check it, then use it --------------------------------------------------------
test_rule(math.dist, P, Q)
print("test_rule(math.dist): ok (primal, finite differences, batch of tangents)")

energy, denergy = fwdad.jvp(spring_energy, (P, Q, 2.0), ([1.0, 0.0, 0.0], [0.0] * 3, 0.0))
h = 1e-6
fd = (spring_energy([h, 0, 0], Q, 2.0) - spring_energy([-h, 0, 0], Q, 2.0)) / (2 * h)
print(f"d energy / d p_x: fwdad {denergy:.10f}, finite differences {fd:.10f}")
assert abs(denergy - fd) < 1e-6
