"""Where each pure reverse rule's function takes `out` by position.

    np.clip(x, lo, hi, r)          ->  np.clip(x, lo, hi, out=r)
    np.sum(x, 0, None, r)          ->  np.sum(x, 0, None, out=r)

A pure reverse rule takes `out=` as a keyword (rule_calls.Pure writes the result into
it, as `out[...] = result`); the forward entry says where the function takes `out`
(`out_at`, rules/registry.takes_out). The position goes on the rule's Pure, which moves
an `out` given there to the keyword (the rule raised a bare TypeError before): no
wrapper, so that the rule stays a Pure for the static reverse schedule. Imported after
every other reverse rule module, so that it reaches them all; SciPy's rules, loaded
later (rules/scipy_support.py), place theirs again.
"""
from __future__ import annotations

import sys

import numpy as np

from fwdad.reverse.registry import entries
from fwdad.reverse.rule_calls import Pure
from fwdad.rules import registry as forward_registry


def _out_positions() -> dict:
    """Functions whose forward rules handle `out` themselves (no `out_at` on their
    entry)."""
    at = {np.clip: 3, np.ndarray.clip: 3}
    special = sys.modules.get("scipy.special")
    if special is not None:  # (imported where SciPy's rules are)
        at[special.zeta] = 2
    return at


def place_out_positions() -> None:
    """Put on each pure reverse rule where its function takes `out` (again for the
    rules placed before: the same places)."""
    also = _out_positions()
    for entry in entries():
        pure = entry.callable
        while type(pure) is not Pure and hasattr(pure, "wraps"):
            pure = pure.wraps  # (a wrapper that checks the arguments, then calls it)
        if type(pure) is not Pure:
            continue  # (ufuncs take out= in their own wrapper: rules_ufuncs.with_out)
        forward = forward_registry.entry_of(entry.primal)
        at = forward.out_at if forward is not None else None
        pure.out_at = at if isinstance(at, int) else also.get(entry.primal)


place_out_positions()
