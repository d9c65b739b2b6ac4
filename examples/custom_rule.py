"""A hand-written forward rule for a function fwdad cannot read: np.interp.

fwdad derives rules from Python source, but it does not read NumPy's (np.interp does
its work in compiled code), and this version of fwdad ships no rule for np.interp. A
call of it is a *foreign call*: differentiating it raises MissingRuleError, naming the
function and saying how to register a rule. This script registers one with
@fwdad.frule and checks it with fwdad.testing.test_rule.

Run: python examples/custom_rule.py
"""
import numpy as np

import fwdad
from fwdad.rules.batching import is_batched
from fwdad.testing import test_rule

GRID = np.array([0.0, 0.5, 1.5, 2.0, 3.0])       # the table's abscissae: constants


def table_cost(x, values):
    """Read a table at the points x, by linear interpolation; a smooth cost of that."""
    y = np.interp(x, GRID, values)
    return np.sum(y * y)


# ---- 1. without a rule, the call is foreign ---------------------------------------
assert not fwdad.is_primitive(np.interp), "fwdad now ships a rule for np.interp"
X, VALUES = np.array([0.3, 1.1, 2.6]), np.array([1.0, 2.0, 0.5, -1.0, 0.0])
try:
    fwdad.jvp(table_cost, (X, VALUES), (np.ones(3), np.zeros(5)))
except fwdad.MissingRuleError as err:
    print("Before registering a rule, jvp raises MissingRuleError:\n" + str(err) + "\n")


# ---- 2. the rule ------------------------------------------------------------------
# interp(x, xp, fp) is piecewise linear in x and linear in fp, so its tangent is
#   slope of the segment at x * dx  +  interp(x, xp, dfp).
# xp is not annotated Dual: the rule receives the plain array (its tangent is ignored,
# so xp must be a constant of the computation, like GRID here).
def segment_slope(x, xp, fp):
    """The slope of the interpolant at x: 0 outside [xp[0], xp[-1]] (where interp is
    constant). At a knot it is the slope on the right (the function has a kink)."""
    i = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    slope = (fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i])
    return np.where((x >= xp[0]) & (x < xp[-1]), slope, 0.0)


def interp_of_tangent(x, xp, fp, dfp):
    """interp(x, xp, dfp); with a batch of tangents (a leading axis), one per row."""
    if is_batched(fp, dfp):
        return np.stack([np.interp(x, xp, row) for row in dfp])
    return np.interp(x, xp, dfp)


@fwdad.frule(np.interp)
def _interp(x: fwdad.Dual, xp, fp: fwdad.Dual) -> fwdad.Dual:
    out = np.interp(x.primal, xp, fp.primal)
    dx_term = segment_slope(x.primal, xp, fp.primal) * x.tangent
    return fwdad.Dual(out, dx_term + interp_of_tangent(x.primal, xp, fp.primal, fp.tangent))


# ---- 3. check it ------------------------------------------------------------------
def main():
    assert fwdad.is_primitive(np.interp)
    # The rule itself, at a scalar and at an array x (the table is held constant) ...
    test_rule(np.interp, 1.1, xp=GRID, fp=VALUES)
    test_rule(np.interp, X, xp=GRID, fp=VALUES)
    # ... and through a derived rule that calls it, with tangents for x and the table.
    test_rule(table_cost, X, VALUES)
    print("test_rule passed: np.interp, and table_cost whose derived rule calls it")

    cost, dcost = fwdad.jvp(table_cost, (X, VALUES), (np.zeros(3), np.eye(5)[3]))
    eps = 1e-6
    bump = eps * np.eye(5)[3]
    reference = (table_cost(X, VALUES + bump) - table_cost(X, VALUES - bump)) / (2 * eps)
    print(f"d table_cost / d values[3] = {dcost:.8f} (finite differences {reference:.8f})")
    assert np.isclose(dcost, reference, rtol=1e-6)


if __name__ == "__main__":
    main()
