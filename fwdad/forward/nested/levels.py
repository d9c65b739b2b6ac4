"""Rules of rules: differentiating generated rules and frules again (higher order).

A *level-2* value is a Dual whose primal is a level-1 Dual `Dual(x, dx)` and whose
tangent is `Tangent(primal=ex, tangent=edx)`: the outer perturbation of x and of dx.
The level-2 rule of a generated rule is its derived rule (`build_rule_of_rule`: the
same pipeline, run on the generated source); frules are Python too, so they get derived
rules the same way. The few pieces of fwdad that generated code calls and that are not
plain differentiable code (dynamic dispatch, iteration, closures, rule objects) get
hand-written level-2 rules in fwdad/forward/nested/rules.py.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Any, Callable, Tuple

from fwdad import fence
from fwdad.codegen import LazyText
from fwdad.compile import compile_function, render
from fwdad.core import duals
from fwdad.dual import Dual
from fwdad.errors import location_of
from fwdad.forward import dispatch
from fwdad.forward.defaults import rule_defaults
from fwdad.forward.transform.dual_code import transform
from fwdad.normalize import normalize
from fwdad.normalize.names import Namer
from fwdad.source import get_source
from fwdad.tangents import NoTangent, Tangent, zero_tangent


class _FreshNamer(Namer):
    """A Namer that also avoids the names the generated code already uses."""

    def __init__(self, taken: set) -> None:
        super().__init__()
        self.taken = taken

    def fresh(self, hint: str = "t") -> str:
        name = super().fresh(hint)
        while name in self.taken:
            name = super().fresh(hint)
        return name


# ---- building the rule of a generated rule ---------------------------------------------
def build_rule_of_rule(fn: Callable, dual_free: Tuple[str, ...] = ()) -> Callable:
    """The derived rule of the generated rule `fn`. The free variables named in
    `dual_free` (locals of an enclosing rule, holding Duals) become keyword-only
    parameters, so the caller passes them as level-2 values."""
    fn = plain_function(fn)  # level 2 differentiates the plain, unoptimized rule
    # Note: kept on the rule function itself, not keyed by its code: the rules of two
    # closures made by the same def compile to *equal* code objects, but each rule-of-
    # rule is compiled with its own rule's cells (the closure's captured values), so a
    # code-keyed cache handed the second closure the first one's values
    # (tests/test_higher_order.py::test_closures_see_their_own_captured_values).
    built = fn.__dict__.setdefault("_fw_rules_of_rule", {})
    if dual_free not in built:
        built[dual_free] = _build(fn, dual_free)
    return built[dual_free]


def plain_function(rule: Callable) -> Callable:
    """The compiled function of a rule's unoptimized version."""
    plain = getattr(rule, "unoptimized", rule)
    return plain.function() if hasattr(plain, "function") else plain


def _build(fn: Callable, dual_free: Tuple[str, ...]) -> Callable:
    src = get_source(fn)
    fence.check(src)
    tree = src.tree
    tree.args.kwonlyargs += [_arg(name) for name in dual_free]
    tree.args.kw_defaults += [None] * len(dual_free)
    cells = {k: v for k, v in src.cells.items() if k not in dual_free}
    src = dataclasses.replace(src, tree=tree, cells=cells)
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
        {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    normalized = normalize(src, _FreshNamer(taken))
    out, constants = transform(normalized, src)
    out, defaults, kwdefaults = rule_defaults(fn, out, constants.values)
    rule = compile_function(out, constants.values, cells, src.globals, defaults, kwdefaults,
                            src.filename, f"rule of {fn.__qualname__} ({location_of(fn)})")
    rule.primal, rule.normalized_source = fn, LazyText(render, normalized)
    return rule


def _arg(name: str) -> ast.arg:
    return ast.arg(arg=name, annotation=None)


# ---- level-2 values ------------------------------------------------------------------
def outer_of(value: Dual) -> Tuple[Any, Any]:
    """The outer tangents (of the primal, of the tangent) of a level-2 value."""
    outer = value.tangent
    if outer is NoTangent:
        return NoTangent, NoTangent
    return getattr(outer, "primal", NoTangent), getattr(outer, "tangent", NoTangent)


def lift_outer(value: Any) -> Dual:
    """A Dual of the enclosing (outer) computation, seen from inside a nested one: its
    tangent is the outer perturbation, and its inner tangent is zero."""
    if not isinstance(value, Dual):
        return duals.const(duals.const(value))
    inner = Dual(value.primal, zero_tangent(value.primal))
    # an instance's inner tangent gets fields written into it: its outer tangent must
    # be a structure that can take their outer tangents (nested_attributes.py)
    outer = Tangent() if type(inner.tangent) is Tangent else NoTangent
    return Dual(inner, Tangent(primal=value.tangent, tangent=outer))


def rule_call(rule: Callable, *args: Dual, **kwargs: Dual) -> Dual:
    """Call the level-2 rule of the level-1 rule `rule` (a function or a rule object)."""
    return dispatch.call(Dual(rule, NoTangent), *args, **kwargs)  # (a rule: no tangent)
