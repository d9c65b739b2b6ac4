"""`with` statements in reverse mode: the shared protocol (fwdad/managers.py) on
reverse values.

    with m as v:            ->  with _fw_entered(m) as v:
        body                        body

`__enter__` and `__exit__` run by their reverse rules (registered, or derived for
Python code), so a value computed by `__enter__` is a variable; a manager from C or the
standard library that holds no variable (np.errstate, a lock) runs its own methods.
"""
from __future__ import annotations

from typing import Any, Callable

from fwdad.managers import Entered, Mode, runs_on_plain_values
from fwdad.probe import probe
from fwdad.reverse.registry import get_rrule
from fwdad.reverse.tracked import is_tracked
from fwdad.reverse.var import value_of


def entered(manager: Any) -> Entered:
    return Entered(manager, _REVERSE)


def method_rule(method: Any, manager: Any) -> Callable:
    """The rule of a method of the manager's type (the manager comes first)."""
    rule = get_rrule(method)
    if rule is not None:
        return rule
    if runs_on_plain_values(method) and not holds_variables(manager):
        return method
    from fwdad.reverse.dispatch import static_rrule  # dispatch imports the rules
    return static_rrule(method, "")


def holds_variables(value: Any, depth: int = 3) -> bool:
    """Whether a value holds a variable (in its fields, or in containers of them), or a
    function made in a reverse rule (which may close over one)."""
    from fwdad.reverse.dispatch import ReverseClosure
    if is_tracked(value) or isinstance(value, ReverseClosure):
        return True
    if depth == 0:
        return False
    if isinstance(value, (list, tuple)):
        return any(holds_variables(v, depth - 1) for v in value)
    if isinstance(value, dict):
        return any(holds_variables(v, depth - 1) for v in value.values())
    fields = probe(value, "__dict__")
    return bool(fields) and any(holds_variables(v, depth - 1) for v in fields.values())


_REVERSE = Mode(method_rule, value_of, lambda value: value)
