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
from tests.fuzz.compare import fresh, mismatch, perturb
from tests.fuzz.outcome import PASS, Outcome

REVFWD_SUBSET = 8   # non-tuple outputs whose seed % 8 == 5 (third takes 1, hessian 0 and 4)


def revfwd(case: Case) -> Outcome:
    out = case.ref.out
    if isinstance(out, (tuple, list)) or np.asarray(out).dtype.kind != "f" or \
            case.program.seed % REVFWD_SUBSET != 5:
        return Outcome("skipped", "not in the reverse-over-forward subset")
    t0 = case.tangents[0]
    jac = fwdad.jacfwd(case.f, argnums=0)
    got = fwdad.jacrev(jac, argnums=0)(*fresh(case.args))
    got = np.tensordot(np.asarray(got, float), t0, axes=np.ndim(t0))
    estimates = []
    for h in (1e-5, 1e-4):
        moved = [perturb(case.args[:1], (t0,), s)[0] for s in (h, -h)]
        plus, minus = (jac(m, *fresh(case.args[1:])) for m in moved)
        estimates.append((np.asarray(plus, float) - np.asarray(minus, float)) / (2 * h))
    if mismatch(estimates[1], estimates[0], rtol=2e-6, atol=2e-7):
        return Outcome("skipped", "finite differences of jacfwd unstable")
    found = mismatch(got, estimates[0], **JVP_TOLERANCE)
    if found:
        return Outcome("wrong", f"jacrev(jacfwd) {found[0]}",
                       f"jacrev(jacfwd) . t vs differences of jacfwd: {found[1]}")
    return PASS
