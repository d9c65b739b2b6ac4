"""A hand-written forward rule for a function fwdad cannot read: math.remainder.

fwdad derives rules from Python source; math.remainder (the IEEE remainder, which wraps
an angle into [-pi, pi]) is written in C and this version of fwdad ships no rule for
it. A call of it is a *foreign call*: differentiating it raises MissingRuleError, naming
the function and saying how to register a rule. This script registers one with
@fwdad.frule and checks it with fwdad.testing.test_rule (primal, finite differences, a
batch of tangents).

Run: python examples/custom_rule.py
"""
import math

import fwdad
from fwdad.testing import test_rule


def pendulum_energy(theta, k, period):
    """A spring energy on the angle from the bottom, wrapped into [-period/2, period/2]."""
    wrapped = math.remainder(theta, period)
    return 0.5 * k * wrapped * wrapped


THETA, K, PERIOD = 7.0, 2.0, 2.0 * math.pi

# ---- 1. without a rule, the call is foreign ---------------------------------------
assert not fwdad.is_primitive(math.remainder), "fwdad now ships a rule for math.remainder"
try:
    fwdad.jvp(pendulum_energy, (THETA, K, PERIOD), (1.0, 0.0, 0.0))
except fwdad.MissingRuleError as err:
    print("Before registering a rule, jvp raises MissingRuleError:\n" + str(err) + "\n")


# ---- 2. the rule --------------------------------------------------------------------
# remainder(x, y) = x - n y with n = round(x / y), an integer that is constant between
# the jumps: d remainder = dx - n dy. A tangent is a number, or an array holding a batch
# of them (jacfwd); a constant's tangent is fwdad.NoTangent.
@fwdad.frule(math.remainder)
def _remainder(x: fwdad.Dual, y: fwdad.Dual) -> fwdad.Dual:
    out = math.remainder(x.primal, y.primal)
    n = round((x.primal - out) / y.primal)
    dx = 0.0 if x.tangent is fwdad.NoTangent else x.tangent
    dy = 0.0 if y.tangent is fwdad.NoTangent else y.tangent
    return fwdad.Dual(out, dx - n * dy)


# ---- 3. check it, then use it --------------------------------------------------------
test_rule(math.remainder, THETA, PERIOD)
print("test_rule(math.remainder): ok (primal, finite differences, batch of tangents)")

energy, denergy = fwdad.jvp(pendulum_energy, (THETA, K, PERIOD), (1.0, 0.0, 0.0))
h = 1e-6
fd = (pendulum_energy(THETA + h, K, PERIOD) - pendulum_energy(THETA - h, K, PERIOD)) / (2 * h)
print(f"d energy / d theta: fwdad {denergy:.10f}, finite differences {fd:.10f}")
assert abs(denergy - fd) < 1e-6
