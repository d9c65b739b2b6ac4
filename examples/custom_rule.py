"""A hand-written forward rule for a function fwdad cannot read: np.roots.

fwdad derives rules from Python source; np.roots (the roots of a polynomial, as the
eigenvalues of its companion matrix, computed by LAPACK) has no Python source fwdad
differentiates, and this version of fwdad ships no rule for it. A call of it is a
*foreign call*: differentiating it raises MissingRuleError, naming the function and
saying how to register a rule. This script registers one with @fwdad.frule and checks it
with fwdad.testing.test_rule (primal, finite differences, a batch of tangents).

Run: python examples/custom_rule.py
"""
import numpy as np

import fwdad
from fwdad.testing import test_rule


def largest_root(coefficients):
    """The largest real root of the polynomial c0 x^n + c1 x^(n-1) + ... + cn."""
    return np.max(np.roots(coefficients).real)


# (x - 1)(x - 2)(x + 3) = x^3 - 7x + 6: three distinct real roots
COEFFICIENTS = np.array([1.0, 0.0, -7.0, 6.0])
DIRECTION = np.array([0.1, -0.3, 0.5, 1.0])

# ---- 1. without a rule, the call is foreign ---------------------------------------
assert not fwdad.is_primitive(np.roots), "fwdad now ships a rule for np.roots"
try:
    fwdad.jvp(largest_root, (COEFFICIENTS,), (DIRECTION,))
except fwdad.MissingRuleError as err:
    print("Before registering a rule, jvp raises MissingRuleError:\n" + str(err) + "\n")


# ---- 2. the rule --------------------------------------------------------------------
# A simple root r of p(x) = sum_k c_k x^(n-k) stays a root as the coefficients move:
# p(r) = 0, so dp(r) + p'(r) dr = 0 and dr = -sum_k dc_k r^(n-k) / p'(r) (the implicit
# function theorem). A tangent is an array like the coefficients, or a batch of them
# with the batch axis in front (jacfwd); a constant's tangent is fwdad.NoTangent.
@fwdad.frule(np.roots)
def _roots(p: fwdad.Dual) -> fwdad.Dual:
    c = np.asarray(p.primal, dtype=float)
    if c[0] == 0.0:
        raise fwdad.FwdadError("np.roots' rule here takes a nonzero leading coefficient")
    r = np.roots(c)
    if p.tangent is fwdad.NoTangent:
        return fwdad.Dual(r, fwdad.NoTangent)
    powers = r[:, None] ** np.arange(len(c) - 1, -1, -1)  # r_i^(n-k)
    slope = np.polyval(np.polyder(c), r)                   # p'(r_i): nonzero at simple roots
    dr = -(np.asarray(p.tangent) @ powers.T) / slope
    return fwdad.Dual(r, dr.astype(r.dtype))


# ---- 3. check it, then use it --------------------------------------------------------
test_rule(np.roots, COEFFICIENTS)
print("test_rule(np.roots): ok (primal, finite differences, batch of tangents)")

root, droot = fwdad.jvp(largest_root, (COEFFICIENTS,), (DIRECTION,))
h = 1e-6
fd = (largest_root(COEFFICIENTS + h * DIRECTION)
      - largest_root(COEFFICIENTS - h * DIRECTION)) / (2 * h)
print(f"largest root {root:.6f}; its derivative along the direction: "
      f"fwdad {droot:.10f}, finite differences {fd:.10f}")
assert abs(droot - fd) < 1e-6
print("jacfwd:", fwdad.jacfwd(largest_root)(COEFFICIENTS))
