"""The level-2 rule (fwdad/forward/nested/levels.py) of `with` statements (forward/contexts.py).

Level-1 code enters `contexts.entered(m)`, a `managers.Entered` that calls the level-1
rules of `type(m).__enter__` and `__exit__`. At level 2 the same statement enters a
`_NestedEntered`, whose methods have rules that call the level-2 rules of those same
level-1 rules, on the level-2 manager:

    with entered(m) as v:   ->  with entered(entered_of_rule(m)) as v:
"""
from __future__ import annotations

from typing import Any, Callable

from fwdad.core import duals
from fwdad.dual import Dual
from fwdad.forward import contexts
from fwdad.forward.nested.levels import rule_call
from fwdad.managers import Entered
from fwdad.rules.registry import def_nondiff, frule
from fwdad.tangents import NoTangent


class _NestedEntered:
    """A level-1 `Entered` of a level-2 manager (its methods run by the rules below)."""

    __slots__ = ("manager", "entered")

    def __init__(self, manager: Dual) -> None:
        self.manager = manager
        self.entered = Entered(manager.primal, contexts.FORWARD)  # the level-1 rules

    def __enter__(self) -> Any:
        raise AssertionError("entered through its rule only")

    def __exit__(self, *exc: Any) -> Any:
        raise AssertionError("exited through its rule only")


@frule(contexts.entered)
def _entered_of_rule(manager: Dual) -> Dual:
    return Dual(_NestedEntered(manager), NoTangent)


@frule(_NestedEntered.__enter__)
def _enter(entered: Dual) -> Dual:
    nested = entered.primal
    return _level2(nested.entered.enter, nested.manager)


@frule(_NestedEntered.__exit__)
def _exit(entered: Dual, kind: Dual, exc: Dual, tb: Dual) -> Dual:
    """Whether the manager suppresses the exception, as its level-1 rule says (the
    level-1 Entered that runs this checks that it is not an fwdad error)."""
    nested = entered.primal
    args = [_constant(a.primal) for a in (kind, exc, tb)]
    out = _level2(nested.entered.exit, nested.manager, *args)
    return Dual(bool(out.primal.primal), NoTangent)


def _level2(rule: Callable, *args: Dual) -> Dual:
    """The level-2 rule of a manager's method rule, called; a method that level 1 runs
    on plain values (a lock, np.errstate) runs on them again."""
    method = getattr(rule, "runs_on_plain_values", None)
    if method is None:
        return rule_call(rule, *args)
    return _constant(on_plain_values(method, *(a.primal.primal for a in args)))


def on_plain_values(method: Callable, *values: Any) -> Any:
    """`method(*values)`: a constant at every level, so that a third derivative, which
    differentiates `_level2`, calls it as it is (np.errstate's `__enter__` had no rule
    there: tests/rules/test_contexts_at_third_order.py)."""
    return method(*values)


def_nondiff(on_plain_values)


def _constant(value: Any) -> Dual:
    return duals.const(duals.const(value))
