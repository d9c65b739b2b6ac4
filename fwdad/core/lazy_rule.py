"""A static call's rule, derived on its first call: forward and reverse mode both bind
these into generated code, for callees known when the rule is built.

    LazyRule(helper)                 ->  the derived forward rule of helper, on first use
    LazyRule(helper, derived_rrule)  ->  its derived reverse rule
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Optional

from fwdad.core import entry_points
from fwdad.errors import describe


class LazyRule:
    """A static call's rule: derived on the first call (by `derive`: the derived
    forward rule unless told otherwise, or the reverse one), then reused."""

    __slots__ = ("fn", "rule", "derive", "__weakref__")
    made: "weakref.WeakSet[LazyRule]" = weakref.WeakSet()

    def __init__(self, fn: Callable, derive: Optional[Callable] = None) -> None:
        self.fn, self.rule = fn, None
        self.derive = derive or entry_points.derived_rule
        LazyRule.made.add(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.rule is None:
            self.rule = self.derive(self.fn)
        return self.rule(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        """`.source` and the other attributes of the rule, building it if need be. Not
        the dunders: `hasattr(lazy, "__dict__")` must not build the rule and answer with
        its __dict__ (zero_tangent walked it, and all it reaches, as a field table)."""
        if name.startswith("__"):
            raise AttributeError(name)
        if self.rule is None:
            self.rule = self.derive(self.fn)
        return getattr(self.rule, name)

    def __repr__(self) -> str:
        return f"<derived rule of {describe(self.fn)}>"
