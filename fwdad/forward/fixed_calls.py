"""The rule for many calls of one function whose arguments keep their kinds (an ODE
right-hand side over one solve), chosen once.

    fixed_rule(lazy, (t, y, p), {0})  ->  the optimized variant for t with no tangent,
                                          called with no guard on every step

What `Specialized(lazy, constants)(*args)` decides on each call (the guard's question:
batched tangents? which parameters have none?) depends only on the types and shapes of
the arguments and on which of them have no tangent. A caller that makes every call's
arguments of the kinds of the first (the same objects for the parameters, arrays of the
same shape and dtype, a float for the time) asks once: unbatched tangents get the
variant Routes would pick for them, whose guard is that one check; batched ones the
variant for their kinds, as Routes picks it (with its own guard).
"""
from __future__ import annotations

from typing import Any, Callable, FrozenSet, Tuple

from fwdad.core.lazy_rule import LazyRule
from fwdad.forward.optimizer import unboxed
from fwdad.forward.routes import routes_of


def fixed_rule(rule: Any, args: Tuple[Any, ...], constants: FrozenSet[int]
               ) -> Callable[..., Any]:
    """What to call, on every call whose arguments have the kinds of `args`, for `rule`
    (a static call's rule) with the arguments at the positions in `constants` taken as
    having no tangent: the variant of its optimized rule for them (no guard, no tangent
    work for the constants); for batched tangents, the variant for them and for the
    kinds of `args` (its own guard kept); the rule itself for a rule with no variants."""
    if isinstance(rule, LazyRule):
        if rule.rule is None:
            rule.rule = rule.derive(rule.fn)
        rule = rule.rule
    routes = routes_of(rule)
    if routes is False or routes.specialize is None:
        return rule
    if unboxed.batched(*args):  # (as Routes: the variant for batched tangents of these
        # kinds, whose own guard sends other calls on; instances are checked per call)
        return rule if routes.instances else routes.variant(routes.batched_key(args))
    key = routes.key(args, {}, constants)  # (as Routes.without, for unbatched tangents)
    return routes.variant(key) if key else rule
