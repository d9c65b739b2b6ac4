"""Oracle n: reverse over forward, `jacrev(jacfwd(f))`, as users write a Hessian (or a
second derivative of a vector function) when they compose the two transforms
themselves, against central differences of jacfwd along the first argument's tangent.

For a scalar output it is the Hessian (the hessian oracle checks forward over reverse);
for an array output the derivative of each row of the Jacobian: an (outputs, inputs,
inputs) array, contracted with the tangent on its last axes."""
from __future__ import annotations

import numpy as np

import fwdad
from tests.fuzz.case import JVP_TOLERANCE, Case
from tests.fuzz.compare import differences_along, fresh, mismatch
from tests.fuzz.outcome import PASS, Outcome
from tests.fuzz.subsets import in_subset

REVFWD_SUBSET = 8   # non-tuple outputs whose seed % 8 == 5 (third takes 1, hessian 0 and 4)


def revfwd(case: Case) -> Outcome:
    out = case.ref.out
    if isinstance(out, (tuple, list)) or np.asarray(out).dtype.kind != "f" or \
            not in_subset(case.program.seed, REVFWD_SUBSET, 5):
        return Outcome("skipped", "not in the reverse-over-forward subset")
    t0 = case.tangents[0]
    jac = fwdad.jacfwd(case.f, argnums=0)
    got = fwdad.jacrev(jac, argnums=0)(*fresh(case.args))
    got = np.tensordot(np.asarray(got, float), t0, axes=np.ndim(t0))
    estimate = differences_along(jac, case.args, t0)
    if estimate is None:
        return Outcome("skipped", "finite differences of jacfwd unstable")
    found = mismatch(got, estimate, **JVP_TOLERANCE)
    if found:
        return Outcome("wrong", f"jacrev(jacfwd) {found[0]}",
                       f"jacrev(jacfwd) . t vs differences of jacfwd: {found[1]}")
    return PASS
