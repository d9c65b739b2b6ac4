"""Oracle j, repeat: the same derivatives called again give the same numbers.

The program is loaded afresh (new functions: every rule is built at its first call),
then jvp, vjp, jacfwd (and, for scalar outputs, grad, and hessian in a subset) run in
three rounds, each call on fresh copies of the arguments. The second and third rounds
run with the caches warm and after whatever the earlier calls left behind (a mutable
default, a global, a cached plan); each must give the first round's primal, derivative
and argument state, or raise what the first round raised.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

import fwdad
from tests.fuzz.case import EXACT, Case
from tests.fuzz.compare import fresh, mismatch
from tests.fuzz.generate import load
from tests.fuzz.outcome import PASS, Outcome
from tests.fuzz.subsets import in_subset

ROUNDS = 3
REPEAT_HESSIAN_SUBSET = 4   # scalar outputs whose seed % 4 == 2 (hessian takes 0)


def repeat(case: Case) -> Outcome:
    calls = _calls(case, load(case.program.source).f)
    first = {name: _run(call) for name, call in calls.items()}
    crashed = [r for r in first.values() if isinstance(r, Exception)
               and not _refusal(r)]
    if crashed:  # (a crash of the first call is the other oracles' to classify)
        raise crashed[0]
    for n in range(2, ROUNDS + 1):
        for name, call in calls.items():
            found = _differs(first[name], _run(call))
            if found:
                return Outcome("wrong", f"{name} call {n} {found[0]}",
                               f"{name}, call {n} against call 1: {found[1]}")
    refused = [r for r in first.values() if isinstance(r, Exception)]
    if len(refused) == len(first):
        raise refused[0]
    return PASS


def _calls(case: Case, f: Callable) -> Dict[str, Callable[[], Tuple[Any, ...]]]:
    """name -> a call of one derivative on fresh copies: (its results, the copies)."""
    args, tangents, ct = case.args, case.tangents, case.cotangent(2)
    argnums = tuple(range(len(args)))

    def jvp():
        copies = fresh(args)
        return fwdad.jvp(f, copies, fresh(tangents)), copies

    def vjp():
        copies = fresh(args)
        out, pullback = fwdad.vjp(f, *copies)
        return (out, pullback(fresh(ct))), copies

    def jacfwd():
        copies = fresh(args)
        return fwdad.jacfwd(f, argnums=argnums)(*copies), copies
    calls = {"jvp": jvp, "vjp": vjp, "jacfwd": jacfwd}
    if case.scalar_output():
        def grad():
            copies = fresh(args)
            return fwdad.grad(f, argnums)(*copies), copies
        calls["grad"] = grad
        if in_subset(case.program.seed, REPEAT_HESSIAN_SUBSET, 2):
            def hessian():
                copies = fresh(args)
                return fwdad.hessian(f, 0)(*copies), copies
            calls["hessian"] = hessian
    return calls


def _run(call: Callable) -> Any:
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 (a raise is a result to repeat)
        return exc


def _refusal(exc: Exception) -> bool:
    return isinstance(exc, fwdad.FwdadError) and not isinstance(exc, fwdad.InternalError)


def _differs(first: Any, again: Any):
    """None when `again` repeats `first` (the same results, or the same exception type),
    else (kind, detail) as compare.mismatch gives them."""
    if isinstance(first, Exception) or isinstance(again, Exception):
        if type(first) is type(again):
            return None
        return "raises differently", f"call 1 gave {_describe(first)}, " \
            f"this call {_describe(again)}"
    (results, after), (want, want_after) = again, first
    for what, got, expected in (("result", results, want),
                                ("argument state", after, want_after)):
        found = mismatch(got, expected, **EXACT)
        if found:
            return f"{what} {found[0]}", f"{what}: {found[1]}"
    return None


def _describe(result: Any) -> str:
    if isinstance(result, Exception):
        return f"{type(result).__name__}: {str(result)[:200]}"
    return "a result"
