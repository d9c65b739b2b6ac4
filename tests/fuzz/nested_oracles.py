"""Oracles o to q: nestings of the modes the other oracles do not compose, each against
another nesting that must give the same second derivative (to rounding).

o revjvp   reverse over forward as users write it, `grad` of `x -> jvp(f, x, t)[1]`,
           against `fwdad.hvp` (scalar outputs, a subset)
p lingrad  `linearize(grad(f))`: its primal against `grad`, lin(t) against `hvp`, lin.T
           against lin (a Hessian is symmetric) and the dot test, and `batched_jvp` of
           `grad(f)` against single hvps (scalar outputs, a subset)
q jacswap  `jacfwd(jacrev(f))`, `jacrev(jacfwd(f))` and `jacrev(jacrev(f))` of the first
           argument against `jacfwd(jacfwd(f))` (non-tuple float outputs, a subset). A
           composition that fwdad refuses is left out, and noted in the pass's kind
"""
from __future__ import annotations

import numpy as np

import fwdad
from fwdad.tangents import zero_tangent
from tests.fuzz.case import EXACT, Case
from tests.fuzz.compare import fresh, inner, mismatch
from tests.fuzz.jacobian_oracles import ANOTHER_ORDER
from tests.fuzz.outcome import PASS, Outcome, message_class
from tests.fuzz.subsets import in_subset

NESTED_SUBSET = 16   # revjvp takes seed % 16 == 6, lingrad 10, jacswap 14 (even residues:
                     # third takes odd seeds % 8 == 1, revfwd % 8 == 5)


def _wrong(found: tuple, what: str) -> Outcome:
    return Outcome("wrong", f"{what} {found[0]}", f"{what}: {found[1]}")


def _along(case: Case) -> tuple:
    """The program's tangent along one argument (chosen by the seed), zeros elsewhere."""
    k = case.program.seed // NESTED_SUBSET % len(case.args)
    return tuple(t if i == k else zero_tangent(a)
                 for i, (a, t) in enumerate(zip(case.args, case.tangents)))


def _argnums(case: Case) -> tuple:
    return tuple(range(len(case.args)))


def revjvp(case: Case) -> Outcome:
    if not case.scalar_output() or not in_subset(case.program.seed, NESTED_SUBSET, 6):
        return Outcome("skipped", "not in the revjvp subset")
    along, f = _along(case), case.f
    want = fwdad.hvp(f, fresh(case.args), fresh(along))
    got = fwdad.grad(lambda *xs: fwdad.jvp(f, xs, along)[1], _argnums(case))(
        *fresh(case.args))
    found = mismatch(got, want, **ANOTHER_ORDER)
    return _wrong(found, "grad of jvp vs hvp") if found else PASS


def lingrad(case: Case) -> Outcome:
    if not case.scalar_output() or not in_subset(case.program.seed, NESTED_SUBSET, 10):
        return Outcome("skipped", "not in the lingrad subset")
    along, argnums = _along(case), _argnums(case)
    gradient = fwdad.grad(case.f, argnums)
    want = fwdad.hvp(case.f, fresh(case.args), fresh(along))
    out, lin = fwdad.linearize(gradient, *fresh(case.args))
    checks = [("linearize(grad) primal vs grad", out, gradient(*fresh(case.args)), EXACT)]
    applied = lin(*fresh(along))
    checks.append(("linearize(grad)(t) vs hvp", applied, want, ANOTHER_ORDER))
    ct = case.more_tangents(1)[0]
    transposed = lin.T(fresh(ct))
    checks.append(("linearize(grad).T(ct) vs linearize(grad)(ct)", transposed,
                   lin(*fresh(ct)), ANOTHER_ORDER))
    for what, got, expected, tolerance in checks:
        found = mismatch(got, expected, **tolerance)
        if found:
            return _wrong(found, what)
    left, right = inner(transposed, along), inner(ct, applied)
    if abs(left - right) > 1e-9 * (1.0 + abs(left) + abs(right)):
        return Outcome("wrong", "linearize(grad).T dot product",
                       f"<lin.T(ct), t> = {left!r}, <ct, lin(t)> = {right!r}")
    return _batched(case, gradient, along, ct)


def _batched(case: Case, gradient, along: tuple, other: tuple) -> Outcome:
    """batched_jvp of the gradient along two directions against one hvp each."""
    directions = (along, other)
    stacked = tuple(np.stack([np.asarray(d[i], float) for d in directions])
                    for i in range(len(case.args)))
    got = fwdad.batched_jvp(gradient, fresh(case.args), stacked)[1]
    singles = [fwdad.hvp(case.f, fresh(case.args), fresh(d)) for d in directions]
    want = tuple(np.stack([np.asarray(s[i], float) for s in singles])
                 for i in range(len(case.args)))
    found = mismatch(got, want, **ANOTHER_ORDER)
    return _wrong(found, "batched_jvp(grad) vs hvps") if found else PASS


def jacswap(case: Case) -> Outcome:
    out = case.ref.out
    if isinstance(out, (tuple, list)) or np.asarray(out).dtype.kind != "f" or \
            not in_subset(case.program.seed, NESTED_SUBSET, 14):
        return Outcome("skipped", "not in the jacswap subset")
    f = case.f
    want = fwdad.jacfwd(fwdad.jacfwd(f, 0), 0)(*fresh(case.args))
    refused = []
    for name, outer, inner_ in (("jacfwd(jacrev)", fwdad.jacfwd, fwdad.jacrev),
                                ("jacrev(jacfwd)", fwdad.jacrev, fwdad.jacfwd),
                                ("jacrev(jacrev)", fwdad.jacrev, fwdad.jacrev)):
        try:
            got = outer(inner_(f, 0), 0)(*fresh(case.args))
        except fwdad.InternalError:
            raise
        except fwdad.FwdadError as exc:
            refused.append(f"{name} refused: {message_class(exc)}")
            continue
        found = mismatch(got, want, **ANOTHER_ORDER)
        if found:
            return _wrong(found, f"{name} vs jacfwd(jacfwd)")
    return Outcome("pass", "; ".join(refused)) if refused else PASS
