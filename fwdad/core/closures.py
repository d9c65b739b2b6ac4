"""The primal value of a function defined inside a differentiated function.

    def inner(v): ...   (in the user's code)  ->  inner = closure(inner_frule)

Rules meet these values as arguments (the right-hand side of an ODE defined inside the
differentiated function), so they live below forward/ and the rules.
"""
from __future__ import annotations

from typing import Any, Callable

from fwdad.core.duals import fresh
from fwdad.dual import Dual
from fwdad.tangents import Tangent


class DerivedClosure:
    """A function defined inside a differentiated function: its primal value.

    Called on plain values it behaves like the user's function; dynamic calls use
    `rule` (the transformed function) directly.
    """

    # (a __dict__: the user's code may set attributes on its function, as SciPy's event
    # functions take `terminal` and `direction`)
    __slots__ = ("rule", "__name__", "__qualname__", "user_module", "__dict__")

    def __init__(self, rule: Callable) -> None:
        self.rule = rule
        self.__name__ = self.__qualname__ = rule.__name__
        self.user_module = rule.__module__  # for errors: the user's module, not this one

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        out = self.rule(*map(fresh, args), **{k: fresh(v) for k, v in kwargs.items()})
        return out.primal

    def call_rule(self, args: tuple, kwargs: dict) -> Dual:
        """A dynamic call of this function on Duals: its rule."""
        return self.rule(*args, **kwargs)


def closure(rule: Callable) -> Dual:
    """The Dual a nested def binds its name to: the zero tangent of a new closure is
    an empty Tangent (no attributes set on it yet), made here without zero_tangent's
    walk of the instance."""
    return Dual(DerivedClosure(rule), Tangent())
