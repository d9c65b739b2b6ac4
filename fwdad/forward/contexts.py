"""`with` statements in forward mode: the shared protocol (fwdad/managers.py) on Duals.

    with m as v:            ->  with _fw_entered(m) as v:
        body                        body

The methods of a manager are found as Python finds them (on its type) and called by
their rule: registered, derived for Python code, or, for a manager from C or the
standard library that holds no float values (np.errstate, warnings.catch_warnings,
a lock), the method itself on plain values: with nothing to differentiate in it, what
it returns is a constant.
"""
from __future__ import annotations

from typing import Any, Callable

from fwdad.core.closures import DerivedClosure
from fwdad.core.duals import NONE, const
from fwdad.dual import Dual
from fwdad.managers import Entered, Mode, runs_on_plain_values
from fwdad.probe import probe
from fwdad.rules.registry import get_frule
from fwdad.tangents import NoTangent, Tangent


def entered(manager: Dual) -> Entered:
    return Entered(manager, FORWARD)


def method_rule(method: Any, manager: Dual) -> Callable:
    """The rule of a method of the manager's type (the manager comes first)."""
    rule = get_frule(method)
    if rule is not None:
        return rule
    if runs_on_plain_values(method) and not holds_values(manager.primal, manager.tangent):
        return _on_plain_values(method)
    from fwdad.forward.dispatch import static_rule  # dispatch imports rules
    return static_rule(method, "")


def _on_plain_values(method: Any) -> Callable:
    def plain(*args: Dual) -> Dual:
        return const(method(*(a.primal for a in args)))
    plain.runs_on_plain_values = method  # (second order runs it alike: nested_contexts)
    return plain


def _constant(value: Any) -> Dual:
    return NONE if value is None else const(value)


def primal_of(value: Dual) -> Any:
    return value.primal


FORWARD = Mode(method_rule, primal_of, _constant)


def holds_values(primal: Any, tangent: Any) -> bool:
    """Whether a value holds something a derivative flows through: a float leaf in its
    tangent, or a callable that may close over one (a function made in a rule)."""
    if tangent is NoTangent or tangent is None:
        return any(map(_may_close_over_values, _fields(primal).values()))
    if isinstance(tangent, Tangent):
        fields = _fields(primal)
        return any(holds_values(fields.get(k), t) for k, t in vars(tangent).items()) \
            or any(map(_may_close_over_values, fields.values()))
    if isinstance(tangent, (tuple, list)):
        return any(holds_values(None, t) for t in tangent)
    if isinstance(tangent, dict):
        return any(holds_values(None, t) for t in tangent.values())
    return True  # a float or an array


def _fields(primal: Any) -> dict:
    return dict(probe(primal, "__dict__") or {})


def _may_close_over_values(value: Any) -> bool:
    return isinstance(value, DerivedClosure)
