"""Oracles d to g: the other modes against jvp (or finite differences)."""
from __future__ import annotations

import numpy as np

import fwdad
from fwdad.tangents import zero_tangent
from tests.fuzz.case import EXACT, JVP_TOLERANCE, Case
from tests.fuzz.compare import differences_along, fresh, inner, leaves, mismatch, tree_map
from tests.fuzz.outcome import PASS, Outcome
from tests.fuzz.subsets import in_subset

HESSIAN_SUBSET = 4   # hessian runs on scalar-output programs whose seed % 4 == 0


def _wrong(found: tuple, what: str) -> Outcome:
    return Outcome("wrong", f"{what} {found[0]}", f"{what}: {found[1]}")


def _dot(left: float, right: float, scale: float, tolerance: dict, what: str) -> Outcome:
    """left == right up to the tolerance, relative to the size of the summed terms."""
    bound = tolerance["atol"] * (1.0 + scale) + tolerance["rtol"] * abs(right)
    if np.isnan(left) or abs(left - right) > bound:
        return Outcome("wrong", f"{what} dot product",
                       f"{what}: <ct-side> = {left!r}, <t-side> = {right!r}")
    return PASS


def _abs_inner(a, b) -> float:
    return inner(tree_map(lambda x: np.abs(np.asarray(x, float)), a),
                 tree_map(lambda x: np.abs(np.asarray(x, float)), b))


def vjp_dot(case: Case) -> Outcome:
    copies = fresh(case.args)
    out, pullback = fwdad.vjp(case.f, *copies)
    for what, got, want in (("vjp primal", out, case.ref.out),
                            ("vjp argument state", copies, case.ref.args_after)):
        found = mismatch(got, want, **EXACT)
        if found:
            return _wrong(found, what)
    ct = case.cotangent()
    cts = pullback(ct)
    tangent, tolerance, source = case.reference_tangent()
    return _dot(inner(cts, case.tangents), inner(ct, tangent),
                _abs_inner(ct, tangent), tolerance, f"vjp vs {source}")


def batched(case: Case) -> Outcome:
    directions = [case.tangents] + case.more_tangents(2)
    singles = [fwdad.jvp(case.f, fresh(case.args), fresh(t))[1] for t in directions]
    want = tree_map(lambda *xs: np.stack([np.asarray(x, float) for x in xs]),
                    *[_zeros_as_output(case, s) for s in singles])
    stacked = tuple(np.stack([np.asarray(t[i], float) for t in directions])
                    for i in range(len(case.args)))
    got = fwdad.batched_jvp(case.f, fresh(case.args), stacked)[1]
    found = mismatch(got, want, **EXACT)
    if found:
        return _wrong(found, "batched_jvp")
    return _jacfwd(case, singles[0])


def _zeros_as_output(case: Case, tangent):
    """A tangent with each missing (NoTangent/None) leaf as zeros of the output's."""
    return tree_map(lambda t, o: np.zeros(np.shape(o)) if t is None or
                    t is fwdad.NoTangent else t, tangent, case.ref.out)


def _jacfwd(case: Case, tangent) -> Outcome:
    argnums = tuple(range(len(case.args)))
    jac = fwdad.jacfwd(case.f, argnums=argnums)(*fresh(case.args))
    outs = case.output_leaves()
    blocks = list(jac) if isinstance(case.ref.out, (tuple, list)) else [jac]
    if len(blocks) != len(outs):
        return Outcome("wrong", "jacfwd structure", f"{len(blocks)} blocks, {len(outs)} outputs")
    contracted = []
    for out, block in zip(outs, blocks):
        total = np.zeros(np.shape(out))
        for arg, t, part in zip(case.args, case.tangents, block):
            want_shape = np.shape(out) + np.shape(arg)
            if np.shape(part) != want_shape:
                return Outcome("wrong", "jacfwd shape",
                               f"got {np.shape(part)}, want {want_shape}")
            total = total + np.tensordot(part, t, axes=np.ndim(t))
        contracted.append(total)
    want = [np.asarray(x, float) for x in leaves(_zeros_as_output(case, tangent))]
    found = mismatch(contracted, want, rtol=1e-10, atol=1e-11)
    return _wrong(found, "jacfwd . t vs jvp") if found else PASS


def linearize(case: Case) -> Outcome:
    out, lin = fwdad.linearize(case.f, *fresh(case.args))
    found = mismatch(out, case.ref.out, **EXACT)
    if found:
        return _wrong(found, "linearize primal")
    applied = lin(*fresh(case.tangents))
    tangent, tolerance, source = case.reference_tangent()
    found = mismatch(applied, tangent, shapes=False, **tolerance)
    if found:
        return _wrong(found, f"lin(t) vs {source}")
    ct = case.cotangent(1)
    cts = lin.T(ct)
    dot = _dot(inner(cts, case.tangents), inner(ct, applied), _abs_inner(ct, applied),
               EXACT, "lin.T")
    return dot if dot.status != "pass" else _against_vjp(case, ct, cts)


def _against_vjp(case: Case, ct, cts) -> Outcome:
    """lin.T (the transposed tangent program) against fwdad.vjp (the reverse rules): two
    reverse modes from different rules. Programs vjp refuses are left at the dot test."""
    try:
        _, pullback = fwdad.vjp(case.f, *fresh(case.args))
        want = pullback(ct)
    except fwdad.FwdadError:
        return PASS
    found = mismatch(cts, want, **EXACT)
    return _wrong(found, "lin.T vs vjp") if found else PASS


def hessian(case: Case) -> Outcome:
    """fwdad.hessian (batched forward over reverse) and fwdad.hvp (unbatched) along the
    first argument, against central differences of jacfwd."""
    if not case.scalar_output() or not in_subset(case.program.seed, HESSIAN_SUBSET):
        return Outcome("skipped", "not in the hessian subset")
    t0 = case.tangents[0]
    got = np.tensordot(fwdad.hessian(case.f, 0)(*fresh(case.args)), t0, axes=np.ndim(t0))
    jac = fwdad.jacfwd(case.f, argnums=0)
    estimate = differences_along(jac, case.args, t0)
    if estimate is None:
        return Outcome("skipped", "finite differences of jacfwd unstable")
    found = mismatch(got, estimate, **JVP_TOLERANCE)
    if found:
        return _wrong(found, "hessian . t vs differences of jacfwd")
    others = tuple(zero_tangent(a) for a in case.args[1:])  # (hvp: unbatched tangents)
    hv = fwdad.hvp(case.f, fresh(case.args), (t0, *others))[0]
    found = mismatch(hv, estimate, **JVP_TOLERANCE)
    return _wrong(found, "hvp vs differences of jacfwd") if found else PASS
