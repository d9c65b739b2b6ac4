"""Derived reverse rules specialized on what their arguments are.

A static or dynamic call of a Python function runs the rule derived for the kinds of
its positional arguments (fwdad/reverse/kinds.py), built on first use and cached per
(function, signature):

    least_squares(VarMat(x), 128)  ->  the rule for (VARIABLE, PLAIN): `m` holds no
                                       variable, so what is built from it alone runs as
                                       plain NumPy (fwdad/reverse/activity.py)

The signature is read from the arguments on each call, so a rule only ever sees
arguments of the kinds it was built for. Parameters passed by keyword, or left to a
default that is not a plain value, may hold anything (OTHER); a call with keyword
arguments runs the general rule, `dispatch.derived_rrule`.
"""
from __future__ import annotations

import ast
import weakref
from typing import Any, Callable, Dict, Tuple

import numpy as np

from fwdad.buildlog import timed_build
from fwdad.core.rule_cache import RuleCache
from fwdad.probe import probe
from fwdad.reverse.kinds import OTHER, PLAIN, kind_of, signature

specialized_rrules = RuleCache(weak=True)  # Python function -> {signature: its rule}


class SpecializedRule:
    """What reverse code calls for a Python function: the rule for each signature."""

    __slots__ = ("fn", "rules", "__weakref__")
    made: "weakref.WeakSet[SpecializedRule]" = weakref.WeakSet()  # (to forget their rules)

    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self.rules: Dict[Tuple[str, ...], Callable] = {}  # (a copy of the shared table)
        SpecializedRule.made.add(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return rule_for(self, args, kwargs)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<reverse rules of {probe(self.fn, '__qualname__', self.fn)!r}>"


def rule_for(site: SpecializedRule, args: tuple, kwargs: dict) -> Callable:
    """The rule for a call with `args` and `kwargs` (decided on their kinds alone)."""
    if kwargs:
        from fwdad.reverse.dispatch import derived_rrule
        return derived_rrule(site.fn)
    key = signature(args)
    rule = site.rules.get(key)
    if rule is None:
        table = specialized_rrules.get(site.fn, _new_table)
        rule = table.get(key)
        if rule is None:
            rule = table[key] = _build(site.fn, key)
        site.rules[key] = rule
    return rule


def _new_table(fn: Callable) -> Dict[Tuple[str, ...], Callable]:
    return {}


def _build(fn: Callable, key: Tuple[str, ...]) -> Callable:
    from fwdad.reverse.derive import build_rrule
    return timed_build(lambda f: build_rrule(f, key), fn)  # (logged as the others)


def parameter_kinds(args: ast.arguments, fn: Callable, key: Tuple[str, ...]
                    ) -> Dict[str, str]:
    """parameter -> kind, for a call of `fn` (whose normalized parameters are `args`)
    with positional arguments of kinds `key`; a parameter left to its default has the
    kind of that value, and *args and **kwargs may hold anything."""
    positional = [a.arg for a in args.posonlyargs + args.args]
    defaults = dict(zip(reversed(positional), reversed(fn.__defaults__ or ())))
    defaults.update(fn.__kwdefaults__ or {})
    kinds = dict(zip(positional, key))
    for name in positional[len(key):] + [a.arg for a in args.kwonlyargs]:
        kinds[name] = PLAIN if name in defaults and kind_of(defaults[name]) == PLAIN \
            else OTHER
    for name, value in defaults.items():  # (a default array that some code writes into
        # by name is a variable within a pass, whoever reads it: reverse/state.py)
        if name in kinds and type(value) is np.ndarray and value.dtype.kind in "fc":
            kinds[name] = OTHER
    return kinds
