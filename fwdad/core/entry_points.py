"""Late-bound entry points into forward mode, for rules that call back into it.

Rules sit below forward/, which builds derived rules and binds registered ones, yet a
few rules differentiate code they are given: `map` and `functools.reduce` call their
function argument (`call`: a dynamic call), a class's dunder method runs its derived
rule (`derived_rule`), and the ODE solvers resolve the rule of a right-hand side once
per solve (`static_rule`), and the variant of it that every step calls (`fixed_rule`).
forward/dispatch.py installs them when it is imported; rules read them here at run time,
as `entry_points.call(...)`.

Note: installed as the very functions of forward/dispatch.py, not wrappers around them,
so that a rule differentiated again (second order) meets the callee that nested_rules
registered rules for. A rule that bound the name at import (`from ... import call`)
would keep the placeholder.
"""
from __future__ import annotations

from typing import Any, Callable

from fwdad.errors import InternalError


def _not_installed(*args: Any, **kwargs: Any) -> Any:
    raise InternalError("forward mode's entry points are not installed: "
                        "fwdad.forward.dispatch installs them when it is imported.")


call: Callable[..., Any] = _not_installed  # dispatch.call(f, *args, **kwargs): a Dual
derived_rule: Callable[[Callable[..., Any]], Callable[..., Any]] = _not_installed
static_rule: Callable[[Any, str], Callable[..., Any]] = _not_installed  # (fn, location)
fixed_rule: Callable[..., Callable[..., Any]] = _not_installed  # (rule, args, constants)


def install(*, dynamic_call: Callable[..., Any],
            derived: Callable[[Callable[..., Any]], Callable[..., Any]],
            static: Callable[[Any, str], Callable[..., Any]],
            fixed: Callable[..., Callable[..., Any]]) -> None:
    """Make `call`, `derived_rule`, `static_rule` and `fixed_rule` the given functions of
    forward mode."""
    global call, derived_rule, static_rule, fixed_rule
    call, derived_rule, static_rule, fixed_rule = dynamic_call, derived, static, fixed
