"""`with` statements: the manager's `__enter__` and `__exit__` run through dispatch.

    with m as v:            ->  with _fw_entered(m) as v:
        body                        body

`entered(m)` is a plain context manager that Python's own `with` statement runs, so a
return, a break or an exception reaches `__exit__` exactly as in Python. Its
`__enter__` returns the Dual that the rule of `type(m).__enter__` returns, so `v`
carries its tangent; its `__exit__` calls the rule of `type(m).__exit__` with the
exception (exceptions carry no tangent).

The methods of a manager are found as Python finds them (on its type) and called by
their rule: registered, derived for Python code, or, for a manager from C or the
standard library that holds no float values (np.errstate, warnings.catch_warnings,
a lock), the method itself on plain values: with nothing to differentiate in it, what
it returns is a constant.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

from fwdad.dual import Dual
from fwdad.errors import FwdadError
from fwdad.forward.runtime import NONE, const
from fwdad.rules.registry import get_frule
from fwdad.source import is_foreign
from fwdad.tangents import NoTangent, Tangent


class Entered:
    """What generated code's `with` statement enters in place of the user's manager."""

    __slots__ = ("manager", "enter", "exit")

    def __init__(self, manager: Dual) -> None:
        cls = type(manager.primal)
        enter, exit_ = getattr(cls, "__enter__", None), getattr(cls, "__exit__", None)
        if enter is None or exit_ is None:
            raise TypeError(f"'{cls.__name__}' object does not support the context "
                            f"manager protocol")
        self.manager = manager
        self.enter, self.exit = method_rule(enter, manager), method_rule(exit_, manager)

    def __enter__(self) -> Dual:
        return self.enter(self.manager)

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        args = (NONE, NONE, NONE) if kind is None else (const(kind), const(exc), const(tb))
        suppress = bool(self.exit(self.manager, *args).primal)
        # An fwdad error is not the user's exception: the manager may clean up, but it
        # must not swallow it (the derivative would silently miss what failed).
        return suppress and not isinstance(exc, FwdadError)


def entered(manager: Dual) -> Entered:
    return Entered(manager)


def method_rule(method: Any, manager: Dual) -> Callable:
    """The rule of a method of the manager's type (the manager comes first)."""
    rule = get_frule(method)
    if rule is not None:
        return rule
    if (is_foreign(method) or _in_standard_library(method)) and \
            not holds_values(manager.primal, manager.tangent):
        return _on_plain_values(method)
    from fwdad.forward.dispatch import static_rule  # dispatch imports rules
    return static_rule(method, "")


def _on_plain_values(method: Any) -> Callable:
    def plain(*args: Dual) -> Dual:
        return const(method(*(a.primal for a in args)))
    return plain


def holds_values(primal: Any, tangent: Any) -> bool:
    """Whether a value holds something a derivative flows through: a float leaf in its
    tangent, or a callable that may close over one (a function made in a rule)."""
    if tangent is NoTangent or tangent is None:
        return any(map(_may_close_over_values, _fields(primal)))
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
    return dict(getattr(primal, "__dict__", None) or {})


def _may_close_over_values(value: Any) -> bool:
    from fwdad.forward.dispatch import DerivedClosure
    return isinstance(value, DerivedClosure)


def _in_standard_library(fn: Any) -> bool:
    module = (getattr(fn, "__module__", None) or "").split(".")[0]
    return module in sys.stdlib_module_names
