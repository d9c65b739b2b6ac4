"""The protocol of a `with` statement, shared by forward and reverse mode.

    with m as v:            ->  with entered(m) as v:
        body                        body

`Entered` is a plain context manager that Python's own `with` statement runs, so a
return, a break or an exception reaches `__exit__` exactly as in Python. Its
`__enter__` returns what the rule of `type(m).__enter__` returns, so `v` carries its
derivative; its `__exit__` calls the rule of `type(m).__exit__` with the exception
(exceptions carry no derivative). A `Mode` says how a mode finds a method's rule, reads
a plain value and makes a constant.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, NamedTuple

from fwdad.errors import FwdadError


class Mode(NamedTuple):
    method_rule: Callable[[Any, Any], Callable]  # (method, manager) -> its rule
    plain: Callable[[Any], Any]                  # a mode's value -> the plain value
    constant: Callable[[Any], Any]               # a plain value -> a mode's constant


class Entered:
    """What generated code's `with` statement enters in place of the user's manager."""

    __slots__ = ("manager", "enter", "exit", "mode")

    def __init__(self, manager: Any, mode: Mode) -> None:
        cls = type(mode.plain(manager))
        enter, exit_ = getattr(cls, "__enter__", None), getattr(cls, "__exit__", None)
        if enter is None or exit_ is None:
            raise TypeError(f"'{cls.__name__}' object does not support the context "
                            f"manager protocol")
        self.manager, self.mode = manager, mode
        self.enter = mode.method_rule(enter, manager)
        self.exit = mode.method_rule(exit_, manager)

    def __enter__(self) -> Any:
        return self.enter(self.manager)

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        args = map(self.mode.constant, (kind, exc, tb))
        suppress = bool(self.mode.plain(self.exit(self.manager, *args)))
        # An fwdad error is not the user's exception: the manager may clean up, but it
        # must not swallow it (the derivative would silently miss what failed).
        return suppress and not isinstance(exc, FwdadError)


def runs_on_plain_values(method: Any) -> bool:
    """A method of a manager from C or the standard library: it runs on plain values
    when its manager holds nothing a derivative flows through (np.errstate, a lock)."""
    from fwdad.source import is_foreign
    module = (getattr(method, "__module__", None) or "").split(".")[0]
    return is_foreign(method) or module in sys.stdlib_module_names
