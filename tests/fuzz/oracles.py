"""The oracles, one function each: Case -> Outcome (run through outcome.attempt).

a jvp_fd       fwdad.jvp against central finite differences (float64, two steps)
b optimized    the optimized derived rules against the unoptimized ones
c primal_state the primal output and every argument's state after the call
d vjp_dot      <vjp(ct), t> == <ct, jvp(t)>
e batched      batched_jvp and jacfwd against single jvps, shapes included
f linearize    lin(t) against jvp, <lin.T(ct), t> == <ct, lin(t)>, lin.T(ct) against vjp
g hessian      hessian (scalar outputs, a subset) against differences of jacfwd
h third        jvp of jvp of jvp (scalar outputs, a subset) against differences of
               jvp of jvp
i constants    jvp with some tangents None or zero against the unoptimized rules
j repeat       jvp, vjp, jacfwd, grad, hessian called again (caches warm) against their
               first call (repeat_oracle.py)
k hvp          hvp and jvp(grad) against hessian @ t (scalar outputs, a subset)
l sparse       sparse_jacfwd and jacobian_sparsity against dense jacfwd (a subset)
m jacrev       jacrev against jacfwd (k to m: jacobian_oracles.py)
n revfwd       jacrev(jacfwd(f)) against differences of jacfwd (an eighth of the
               programs: reverse_over_forward.py)
o revjvp       grad of jvp(f, x, t) against hvp (scalar outputs, a subset)
p lingrad      linearize(grad(f)) and batched_jvp(grad(f)) against hvp, lin.T against lin
q jacswap      jacfwd(jacrev), jacrev(jacfwd), jacrev(jacrev) against jacfwd(jacfwd)
               (o to q: nested_oracles.py, a sixteenth of the programs each; all with
               --higher, as the subsets of g, h, j, k and n: subsets.py)
r held         jacfwd, jacrev, linearize and vjp of the program with its arguments and
               output held by instances of user classes, against the same of f (a
               third of the programs: instance_oracle.py)
"""
from __future__ import annotations

import fwdad
from fwdad.forward import derive
from tests.fuzz.case import EXACT, JVP_TOLERANCE, Case
from tests.fuzz.compare import fresh, mismatch
from tests.fuzz.constants_oracle import constants
from tests.fuzz.generate import load
from tests.fuzz.instance_oracle import held
from tests.fuzz.jacobian_oracles import hvp, jacrev, sparse
from tests.fuzz.more_oracles import batched, hessian, linearize, vjp_dot
from tests.fuzz.nested_oracles import jacswap, lingrad, revjvp
from tests.fuzz.outcome import PASS, Outcome
from tests.fuzz.repeat_oracle import repeat
from tests.fuzz.reverse_over_forward import revfwd
from tests.fuzz.third_order import third


def wrong(found: tuple, what: str) -> Outcome:
    return Outcome("wrong", f"{what} {found[0]}", f"{what}: {found[1]}")


def jvp_fd(case: Case) -> Outcome:
    found = mismatch(case.jvp()[1], case.ref.fd, shapes=False, **JVP_TOLERANCE)
    return wrong(found, "tangent") if found else PASS


def primal_state(case: Case) -> Outcome:
    out, _, after = case.jvp()
    found = mismatch(out, case.ref.out, **EXACT)
    if found:
        return wrong(found, "primal")
    found = mismatch(after, case.ref.args_after, **EXACT)
    return wrong(found, "argument state") if found else PASS


def optimized(case: Case) -> Outcome:
    plain_module = load(case.program.source)  # new functions: rules built afresh
    copies, saved = fresh(case.args), derive.OPTIMIZE
    derive.OPTIMIZE = False
    try:
        out, tangent = fwdad.jvp(plain_module.f, copies, fresh(case.tangents))
    except Exception as exc:  # noqa: BLE001
        return Outcome("skipped", "unoptimized rule raises", repr(exc)[:300])
    finally:
        derive.OPTIMIZE = saved
    got_out, got_tangent, got_after = case.jvp()
    for what, got, want in (("primal", got_out, out), ("tangent", got_tangent, tangent),
                            ("argument state", got_after, copies)):
        found = mismatch(got, want, shapes=False, **EXACT)
        if found:
            return wrong(found, what)
    return PASS


ORACLES = {"jvp_fd": jvp_fd, "optimized": optimized, "primal_state": primal_state,
           "vjp_dot": vjp_dot, "batched": batched, "linearize": linearize,
           "hessian": hessian, "third": third, "constants": constants,
           "repeat": repeat, "hvp": hvp, "sparse": sparse, "jacrev": jacrev,
           "revfwd": revfwd, "revjvp": revjvp, "lingrad": lingrad, "jacswap": jacswap,
           "held": held}
