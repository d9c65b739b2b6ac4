"""Oracle i: jvp with some arguments given no tangent (None) or a zero one.

Those calls run the rules' variants specialized on constant arguments
(forward/routes.Specialized); they must give what the unoptimized rules give with zero
tangents for the same arguments, primal, tangent and argument state alike.
"""
from __future__ import annotations

import random

import numpy as np

import fwdad
from fwdad.forward import derive
from tests.fuzz.case import EXACT, Case
from tests.fuzz.compare import fresh, mismatch
from tests.fuzz.generate import load
from tests.fuzz.outcome import PASS, Outcome


def constants(case: Case) -> Outcome:
    chosen = _constant_arguments(case)
    if not chosen:
        return Outcome("skipped", "no argument left without tangent")
    given = tuple(_without(t, how) if i in chosen else t
                  for i, (t, how) in enumerate(zip(case.tangents, chosen_how(case))))
    zeros = tuple(_zero(t) if i in chosen else t for i, t in enumerate(case.tangents))
    plain_module = load(case.program.source)
    copies, saved = fresh(case.args), derive.OPTIMIZE
    derive.OPTIMIZE = False
    try:
        want = fwdad.jvp(plain_module.f, copies, fresh(zeros))
    except Exception as exc:  # noqa: BLE001
        return Outcome("skipped", "unoptimized rule raises", repr(exc)[:300])
    finally:
        derive.OPTIMIZE = saved
    got_args = fresh(case.args)
    got = fwdad.jvp(case.f, got_args, fresh(given))
    for what, g, w in (("primal", got[0], want[0]), ("tangent", got[1], want[1]),
                       ("argument state", got_args, copies)):
        found = mismatch(g, w, shapes=False, **EXACT)
        if found:
            return Outcome("wrong", f"{what} {found[0]} with constant arguments "
                           f"{sorted(chosen)}", f"{what}: {found[1]}")
    return PASS


def _constant_arguments(case: Case) -> set:
    """Each argument with probability one half (seeded by the program)."""
    rng = random.Random(case.program.seed * 31 + 5)
    return {i for i in range(len(case.args)) if rng.random() < 0.5}


def chosen_how(case: Case) -> list:
    """For each argument: given as None, or as a zero tangent."""
    rng = random.Random(case.program.seed * 17 + 3)
    return [rng.choice(("none", "zero")) for _ in case.args]


def _without(tangent, how: str):
    return None if how == "none" else _zero(tangent)


def _zero(tangent):
    if isinstance(tangent, (tuple, list)):
        return type(tangent)(_zero(t) for t in tangent)
    return 0.0 if np.ndim(tangent) == 0 else np.zeros(np.shape(tangent))
