"""A hand-written forward rule for a function fwdad cannot read: scipy.special.erfi.

fwdad derives rules from Python source; the imaginary error function
erfi(x) = 2 / sqrt(pi) * integral of exp(t^2) from 0 to x (a SciPy ufunc, compiled code)
has no Python source, and this version of fwdad ships no rule for it. A call of it is a
*foreign call*: differentiating it raises MissingRuleError, naming the function and
saying how to register a rule. This script registers one with @fwdad.frule and checks it
with fwdad.testing.test_rule (primal, finite differences, a batch of tangents).

Run: python examples/custom_rule.py
"""
import numpy as np
import scipy.special

import fwdad
from fwdad.testing import test_rule


def peak_response(x, width):
    """A signal made of the imaginary error function, summed: smooth in x and in width."""
    return np.sum(scipy.special.erfi(x / width) * np.exp(-0.5 * x * x))


POINTS = np.array([0.3, -1.2, 2.5, 0.9])
WIDTH = 1.6
DIRECTION = (np.array([0.1, -0.3, 0.5, 1.0]), 0.2)

# ---- 1. without a rule, the call is foreign ---------------------------------------
assert not fwdad.is_primitive(scipy.special.erfi), "fwdad now ships a rule for erfi"
try:
    fwdad.jvp(peak_response, (POINTS, WIDTH), DIRECTION)
except fwdad.MissingRuleError as err:
    print("Before registering a rule, jvp raises MissingRuleError:\n" + str(err) + "\n")


# ---- 2. the rule --------------------------------------------------------------------
# erfi'(x) = 2 / sqrt(pi) * exp(x^2) (differentiate its definition). The rule is
# elementwise, so a batch of tangents (a leading axis, under jacfwd) broadcasts through
# it as one tangent does.
@fwdad.frule(scipy.special.erfi)
def _erfi(x: fwdad.Dual) -> fwdad.Dual:
    y = scipy.special.erfi(x.primal)
    return fwdad.Dual(y, 2.0 / np.sqrt(np.pi) * np.exp(x.primal ** 2) * x.tangent)


# ---- 3. check it, then use it --------------------------------------------------------
test_rule(scipy.special.erfi, POINTS)
test_rule(scipy.special.erfi, 0.7)
print("test_rule(scipy.special.erfi): ok (primal, finite differences, batch of tangents)")

value, dvalue = fwdad.jvp(peak_response, (POINTS, WIDTH), DIRECTION)
h = 1e-6
fd = (peak_response(POINTS + h * DIRECTION[0], WIDTH + h * DIRECTION[1])
      - peak_response(POINTS - h * DIRECTION[0], WIDTH - h * DIRECTION[1])) / (2 * h)
print(f"response {value:.6f}; its derivative along the direction: "
      f"fwdad {dvalue:.10f}, finite differences {fd:.10f}")
assert abs(dvalue - fd) < 1e-6
print("jacfwd in the points:", fwdad.jacfwd(peak_response)(POINTS, WIDTH))
