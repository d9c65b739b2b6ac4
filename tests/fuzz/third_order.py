"""Oracle h: a third derivative by repeated jvp (three levels of nesting), against
central differences of the second (jvp of jvp), along the first argument's tangent."""
from __future__ import annotations

import numpy as np

from fwdad.higher import Directional
from fwdad.tangents import zero_tangent
from tests.fuzz.case import JVP_TOLERANCE, Case
from tests.fuzz.compare import fresh, mismatch, perturb
from tests.fuzz.outcome import PASS, Outcome
from tests.fuzz.subsets import in_subset

THIRD_SUBSET = 8   # scalar-output programs whose seed % 8 == 1 (hessian takes % 4 == 0): each
                   # builds three levels of rules, some 0.3 s a program


def third(case: Case) -> Outcome:
    if not case.scalar_output() or not in_subset(case.program.seed, THIRD_SUBSET, 1):
        return Outcome("skipped", "not in the third-order subset")
    t0 = case.tangents[0]
    others = tuple(zero_tangent(a) for a in case.args[1:])
    along = (t0,) + others  # (Directional(f, along)(*x): jvp(f, x, along)[1])
    second = Directional(Directional(case.f, along), along)
    got = Directional(second, along)(*fresh(case.args))
    estimates = []
    for h in (1e-4, 1e-3):
        moved = [perturb(case.args[:1], (t0,), s)[0] for s in (h, -h)]
        plus, minus = (second(m, *fresh(case.args[1:])) for m in moved)
        estimates.append((np.asarray(plus, float) - np.asarray(minus, float)) / (2 * h))
    if mismatch(estimates[1], estimates[0], rtol=1e-5, atol=1e-6):
        return Outcome("skipped", "finite differences of the second derivative unstable")
    found = mismatch(got, estimates[0], **JVP_TOLERANCE)
    if found:
        return Outcome("wrong", f"third derivative {found[0]}",
                       f"jvp(jvp(jvp)) vs differences of jvp(jvp): {found[1]}")
    return PASS
