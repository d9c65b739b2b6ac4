"""`out=` given by position to a reverse rule written on keywords.

    np.clip(x, lo, hi, r)          ->  np.clip(x, lo, hi, out=r)
    np.sum(x, 0, None, r)          ->  np.sum(x, 0, None, out=r)

A pure reverse rule takes `out=` as a keyword (registry.Pure writes the result into it,
as `out[...] = result`); the forward entry says where the function takes `out`
(`out_at`, rules/registry.takes_out). Where a call gives it by position, and as the last
positional argument, it becomes the keyword (the rule raised a bare TypeError before).
Imported after every other reverse rule module, so that it wraps them all.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fwdad.reverse.registry import entries, rrule_entry
from fwdad.rules import registry as forward_registry
from fwdad.rules.all import HAS_SCIPY


def _out_by_keyword(rule: Callable, at: int) -> Callable:
    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) == at + 1 and "out" not in kwargs:
            return rule(*args[:at], out=args[at], **kwargs)
        return rule(*args, **kwargs)
    call.__name__ = getattr(rule, "__name__", "rrule")
    return call


def _out_positions() -> dict:
    """Where each function takes `out`: from the forward entries, and for the forward
    rules that handle `out` themselves (no `out_at` on their entry)."""
    at = {np.clip: 3, np.ndarray.clip: 3}
    if HAS_SCIPY:
        import scipy.special
        at[scipy.special.zeta] = 2
    return at


def _wrap_all() -> None:
    also = _out_positions()
    for entry in entries():
        forward = forward_registry.entry_of(entry.primal)
        at = forward.out_at if forward is not None else None
        at = at if isinstance(at, int) else also.get(entry.primal)
        if at is not None and (entry.kind == "rrule" or entry.primal in also):
            rrule_entry(entry.primal).callable = _out_by_keyword(entry.callable, at)


_wrap_all()
