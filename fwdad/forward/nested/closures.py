"""Functions defined inside differentiated code, called at level 2 and deeper.

A closure keeps its captured Duals at the level of the code that made it: a def in
level-1 code is a `DerivedClosure` whose rule reads level-1 values; a def in code
running at level k >= 2 is a `NestedClosure` made by the rule of `closures.closure`
(nested_rules._closure), and knows k. Called from code at a deeper level m, its rule is
differentiated again m - k times (`build_rule_of_rule`, the captured Duals becoming
keyword parameters) and the captured values are lifted as many times, each time by the
lift of their level (`lift_outer`, then its rule, its rule's rule, ...): a new, inner
perturbation with zero tangent, the ones they carry kept outside it.

Which level is running is counted by rules of rules: `closure_level(2)` is 2 in a
level-2 rule, and its rule gives one more for each time that rule is differentiated
again; `call_closure` likewise gets the call site's level from its own rules.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

from fwdad.core.closures import DerivedClosure
from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.forward import dispatch
from fwdad.forward.nested.levels import build_rule_of_rule, lift_outer, outer_of
from fwdad.normalize.names import RESERVED_PREFIX
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


class NestedClosure(DerivedClosure):
    """A function defined inside code that runs at `level` (2 or more): its rule reads
    and takes values of that level."""

    __slots__ = ("level",)

    def __init__(self, rule: Callable, level: int) -> None:
        super().__init__(rule)
        self.level = level

    def call_rule(self, args: tuple, kwargs: dict) -> Dual:
        """A dynamic call of this function. From code of its level (the rule of
        dispatch.call: call_closure), the arguments are values of that level; from a rule
        that calls it on plain values (`key(x.primal)` in sorted's rule), differentiated
        once more, they are level-2 values of plain ones: each becomes the level-2 value
        of `fresh(v)`, as DerivedClosure.__call__ makes, and the result's primal is
        returned, with its outer tangent.
        (tests/test_higher_order_closures.py::test_a_closure_as_the_key_of_sorted)"""
        given = [*args, *kwargs.values()]
        lifted = [not isinstance(a.primal, Dual) for a in given]
        if not any(lifted):
            return self.rule(*args, **kwargs)
        if self.level != 2 or not all(lifted):
            raise FwdadError(
                f"{self.__name__}{in_user_code()} is called by a rule on plain values, at "
                f"derivative order {self.level}: fwdad does this for second derivatives "
                f"only. Define "
                f"{self.__name__} outside the differentiated function (a module-level def), "
                f"or take the higher derivative by finite differences of fwdad.jacfwd.")
        out = self.rule(*map(lift_outer, args), **{k: lift_outer(v) for k, v in
                                                   kwargs.items()})
        return Dual(out.primal.primal, outer_of(out)[0])


def _called_by_a_rule(fn: Any, level: int) -> FwdadError:
    name = getattr(fn, "__name__", "a function")
    if name.startswith(RESERVED_PREFIX):  # (normalize/ names lambdas)
        name = "the lambda"
    return FwdadError(
        f"{name}{in_user_code()} is called by a rule on plain values (the key of sorted, "
        f"min or max), at derivative order {level}: fwdad does this for second "
        f"derivatives only. "
        f"Define {name} outside the differentiated function (a module-level def), or "
        f"take the higher derivative by finite differences of fwdad.jacfwd.")


@frule(NestedClosure)
def _new_nested_closure(rule: Dual, level: Dual) -> Dual:
    """Closures hold their captured values themselves: no tangent."""
    return Dual(NestedClosure(rule.primal, level.primal), NoTangent)


def closure_level(level: int) -> int:
    """`level`, where the code that calls it runs at that level (its rules add one for
    each time they are differentiated again)."""
    return level


@frule(closure_level)
def _closure_level_deeper(level: Dual) -> Dual:
    depth, value = unwrapped(level)
    return wrapped(value + depth, depth)


frule(_closure_level_deeper)(_closure_level_deeper)


def call_closure(level: int, fn: DerivedClosure, *args: Dual,
                 **kwargs: Dual) -> Dual:
    """Call `fn` from code running at `level` (its arguments are values of that level)."""
    made = fn.level if isinstance(fn, NestedClosure) else 1
    if made > level:  # (rule code, such as sorted's, calls it on plain values)
        raise _called_by_a_rule(fn, made)
    rule, captured = fn.rule, {}
    if made < level:
        captured = _captured_duals(rule)
        names = tuple(captured)
        for at in range(made, level):
            rule = build_rule_of_rule(rule, names if at == made else ())
            lift = _lift_from(at)
            captured = {n: lift(v) for n, v in captured.items()}
    return rule(*args, **kwargs, **captured)


@frule(call_closure)
def _call_closure_deeper(level: Dual, fn: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    depth, value = unwrapped(level)
    for _ in range(depth):
        fn = fn.primal
    return call_closure(value + depth, fn, *args, **kwargs)


frule(_call_closure_deeper)(_call_closure_deeper)


def _captured_duals(rule: Callable) -> Dict[str, Dual]:
    """The Duals a rule reads from enclosing code (not fwdad's own names)."""
    cells = zip(rule.__code__.co_freevars, rule.__closure__ or ())
    return {n: c.cell_contents for n, c in cells
            if not n.startswith(RESERVED_PREFIX) and _holds_dual(c)}


def _holds_dual(cell: Any) -> bool:
    try:
        return isinstance(cell.cell_contents, Dual)
    except ValueError:  # an empty cell
        return False


_LIFTS: Dict[int, Callable] = {1: lift_outer}


def _lift_from(level: int) -> Callable:
    """The lift of a value of `level` to level + 1: the rule (of the rule ...) of
    lift_outer, level - 1 times."""
    if level not in _LIFTS:
        _LIFTS[level] = dispatch.derived_rule(_lift_from(level - 1))
    return _LIFTS[level]


def unwrapped(value: Any) -> Tuple[int, Any]:
    """How many Duals wrap a plain value (its level), and the value."""
    depth = 0
    while isinstance(value, Dual):
        value, depth = value.primal, depth + 1
    return depth, value


def wrapped(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = Dual(value, NoTangent)
    return value

