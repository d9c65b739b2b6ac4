"""Oracles k to m: second derivatives and Jacobians by other routes, against jacfwd's.

k hvp     fwdad.hvp, jvp(grad(f)) (forward over reverse) and hessian(f) @ t along one
          argument's tangent t (scalar outputs, a subset) against forward over
          forward: jacfwd of the directional derivative jvp(f, x, t)
l sparse  sparse_jacfwd(sparsity="detect") of the first array argument (non-tuple
          outputs, a subset) against dense jacfwd, called twice (the first result
          unchanged by the second call), and the local and global patterns of
          jacobian_sparsity: no nonzero of the dense Jacobian missing. A global-mode
          refusal is a pass, noted in its kind
m jacrev  jacrev (a pullback per output entry) against jacfwd, every argument
"""
from __future__ import annotations

import warnings

import numpy as np

import fwdad
from fwdad.higher import Directional
from fwdad.tangents import zero_tangent
from tests.fuzz.case import Case
from tests.fuzz.compare import fresh, mismatch
from tests.fuzz.outcome import PASS, Outcome, message_class
from tests.fuzz.subsets import in_subset

# the same numbers summed in another order: a little looser than case.EXACT
ANOTHER_ORDER = dict(rtol=1e-9, atol=1e-10)
HVP_SUBSET = 4      # scalar outputs whose seed % 4 == 3 (hessian takes 0, repeat's 2)
SPARSE_SUBSET = 2   # non-tuple outputs of an array argument whose seed % 2 == 0


def _wrong(found: tuple, what: str) -> Outcome:
    return Outcome("wrong", f"{what} {found[0]}", f"{what}: {found[1]}")


def hvp(case: Case) -> Outcome:
    if not case.scalar_output() or not in_subset(case.program.seed, HVP_SUBSET, 3):
        return Outcome("skipped", "not in the hvp subset")
    k = case.program.seed // HVP_SUBSET % len(case.args)
    along = tuple(t if i == k else zero_tangent(a)
                  for i, (a, t) in enumerate(zip(case.args, case.tangents)))
    argnums = tuple(range(len(case.args)))
    # forward over forward, the reference: the gradient of the directional derivative
    want = tuple(fwdad.jacfwd(Directional(case.f, along), argnums=argnums)(
        *fresh(case.args)))
    t = case.tangents[k]
    block = np.asarray(fwdad.hessian(case.f, k)(*fresh(case.args)), float)
    for what, got, expected in (
            ("hvp", fwdad.hvp(case.f, fresh(case.args), fresh(along)), want),
            ("hessian @ t", np.tensordot(block, t, axes=np.ndim(t)), want[k])):
        found = mismatch(got, expected, **ANOTHER_ORDER)
        if found:
            return _wrong(found, f"{what} along argument {k} vs jacfwd of jvp")
    try:
        got = fwdad.jvp(fwdad.grad(case.f, argnums), fresh(case.args), fresh(along))[1]
    except fwdad.InternalError:
        raise
    except fwdad.FwdadError:  # (reverse mode refuses f: hvp went forward over forward)
        return Outcome("pass", "jvp(grad) refused")
    found = mismatch(got, want, **ANOTHER_ORDER)
    return _wrong(found, f"jvp(grad) along argument {k} vs jacfwd of jvp") if found \
        else PASS


def sparse(case: Case) -> Outcome:
    at = next((i for i, a in enumerate(case.args) if np.ndim(a)), None)
    if at is None or isinstance(case.ref.out, (tuple, list)) or \
            case.program.seed % SPARSE_SUBSET:
        return Outcome("skipped", "not in the sparse subset")
    dense = np.asarray(fwdad.jacfwd(case.f, argnums=at)(*fresh(case.args)), float).reshape(
        np.size(case.ref.out), np.size(case.args[at]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fwdad.DenseFallbackWarning)
        jac = fwdad.sparse_jacfwd(case.f, argnums=at, sparsity="detect")
        try:
            got = jac(*fresh(case.args))
            first = got.toarray()
            # a second call: the plan's kept arrays again, and the first result the
            # caller's, unchanged (fwdad/scratch.py)
            again = jac(*fresh(case.args)).toarray()
        except fwdad.SparsityPatternError as exc:  # (the probe found a missed nonzero)
            return Outcome("wrong", "sparse_jacfwd probe: pattern misses a nonzero",
                           str(exc)[:400])
        found = mismatch(first, dense, **ANOTHER_ORDER)
        if found:
            return _wrong(found, "sparse_jacfwd vs jacfwd")
        found = mismatch(again, dense, **ANOTHER_ORDER) or mismatch(
            got.toarray(), first, rtol=0, atol=0)
        if found:
            return _wrong(found, "sparse_jacfwd's second call vs jacfwd and its first")
        outcome = _pattern(case, at, dense, "local")
        if outcome.status != "pass":
            return outcome
        try:
            return _pattern(case, at, dense, "global")
        except fwdad.ValueDependentPatternError as exc:
            reason = str(exc).split("): ", 1)[-1]  # (after the call it names)
            return Outcome("pass", f"global mode refused: {message_class(reason)}")


def _pattern(case: Case, at: int, dense: np.ndarray, mode: str) -> Outcome:
    pattern = fwdad.jacobian_sparsity(case.f, *fresh(case.args), mode=mode, argnums=at)
    missed = np.argwhere((dense != 0) & ~pattern.toarray())
    if len(missed):
        return Outcome("wrong", f"{mode} pattern misses a nonzero",
                       f"{mode} pattern misses (output, input) entries "
                       f"{missed[:6].tolist()} of jacfwd's")
    return PASS


def jacrev(case: Case) -> Outcome:
    argnums = tuple(range(len(case.args)))
    want = fwdad.jacfwd(case.f, argnums=argnums)(*fresh(case.args))
    got = fwdad.jacrev(case.f, argnums=argnums)(*fresh(case.args))
    found = mismatch(got, want, **ANOTHER_ORDER)
    return _wrong(found, "jacrev vs jacfwd") if found else PASS
