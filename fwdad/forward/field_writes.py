"""Store the fields a rule kept in locals back into the caller's instances, once.

    out = rule(s, k, h)            # the variant of normalize/param_locals.py returns
    y, pos, vel = out              # (value, written field, written field, ...)
    s.pos, s.vel = pos, vel        # primal and tangent alike; y is the call's value

The variant for instance arguments whose fields stay in locals (Routes key FIELDS) gives
back the fields it wrote with its value, and `WritesBack` stores them at the exit, as the
plain rule's `setattr`s would have left them. An exception on the way leaves the
instances untouched: the function was sealed, made no other change
(normalize/sealed.py), and draws no random numbers, so the general rule runs the call
again from the start and leaves everything as the plain rule does, the same exception
included. A field that a path of the function did not write is left as it is (its
value and tangent are the ones the entry read).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

from fwdad.dual import Dual
from fwdad.tangents import NoTangent

_MISSING = object()


class WritesBack:
    """The rule of a variant that writes fields: `fast`, then the writes; `general`
    (the plain rule) where `fast` raises. `written` are (parameter, its position, field)
    in the order `fast` returns them."""

    def __init__(self, fast: Callable[..., Any], general: Callable[..., Any],
                 written: List[Tuple[str, int, str]]) -> None:
        self.fast, self.general, self.written = fast, general, written
        self.source = getattr(fast, "source", None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            out = self.fast(*args, **kwargs)
        except Exception:  # (nothing was written yet: see the module docstring)
            return self.general(*args, **kwargs)
        values = out.primal
        tangents = out.tangent if type(out.tangent) is tuple else (NoTangent,) * len(values)
        owners: Dict[str, Dual] = {}
        for i, (param, position, field) in enumerate(self.written, 1):
            d = owners.get(param)
            if d is None:
                d = owners[param] = args[position] if position < len(args) else kwargs[param]
            _store(d, field, values[i], tangents[i])
        return Dual(values[0], tangents[0])

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fast, name)


def _store(d: Dual, field: str, value: Any, tangent: Any) -> None:
    """`setattr(d, field, Dual(value, tangent))` as the plain rule's write does it,
    where the function changed the field."""
    had = getattr(d.tangent, field, _MISSING)
    if value is getattr(d.primal, field) and (tangent is had or had is _MISSING):
        return
    setattr(d.primal, field, value)
    setattr(d.tangent, field, tangent)
