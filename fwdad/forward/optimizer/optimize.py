"""Optimize a derived rule: inline templates, unbox Duals, skip inactive tangent work.

    _fw_mul1 = _fw_mul(k, x)           ->  _fw_mul1 = k * x
                                            _fw_dmul1 = dk * x + k * dx
    _fw_gt1 = _fw_gt(y, _fw_0)         ->  _fw_gt1 = y > 0
    if _fw_gt1.primal:                 ->  if _fw_gt1:
    t = _fw_add(t, _fw_const(h))       ->  t = t + h          (t cannot depend on inputs)

Input: the def, Constants and Lines of forward/transform/dual_code.py (the Lines are
the rule's body: no Dual code is read). The rewrite emits typed records
(forward/optimizer/records.py), which cleanup changes and forward/optimizer/printer.py
prints at the end. Output: a rule
with the same signature and results. Locals are boxed,
split or plain (forward/optimizer/activity.py); Duals are built only where a split local meets a
call that is not inlined, a return, or a container. Statements the optimizer does not
know stay as they are, on boxed locals. Batched tangents go to the plain rule, bound as
`_fw_unoptimized` (a Routes), which sends them on to the variant for them
(forward/optimizer/batched_variant.py): templates leave out the alignment of batch axes that rules
do, and that variant inlines only those right without it. So do arguments with no
tangent (an int) where that matters, to a variant specialized on it (forward/optimizer/guard.py,
routes.py).
"""
from __future__ import annotations

import ast
import functools
from typing import Any, Callable, Dict, Optional, Set

from fwdad.core.constants import Constants
from fwdad.forward import constructors
from fwdad.forward.optimizer import (
    activity,
    array_lines,
    batched_variant,
    dead_operands,
    inplace,
    kind_flow,
    kind_tests,
    linear_tangents,
    methods,
    sequences,
)
from fwdad.forward.optimizer.batch_axes import BatchAxes
from fwdad.forward.optimizer.cleanup import cleanup
from fwdad.forward.optimizer.guard import guard, passed_on
from fwdad.forward.optimizer.kinds import Signature, is_value
from fwdad.forward.optimizer.lines import RuleLines
from fwdad.forward.optimizer.printer import statements
from fwdad.forward.optimizer.rewrite import Rewrite
from fwdad.normalize import plain_classes


def optimize(tree: ast.FunctionDef, constants: Constants, lines: RuleLines,
             unoptimized: Callable, without_tangent: Optional[Dict[str, str]] = None,
             batched: bool = False, kinds: Optional[Signature] = None,
             checked: bool = False, keyed: Any = None
             ) -> Optional[ast.FunctionDef]:
    """The optimized version of the rule `tree`, or None when it has nothing to gain
    (it uses `global` or `nonlocal`) or may not be right: templates are the math of
    numbers and arrays, so a rule that builds instances of user classes (whose operators
    are their own dunder methods) stays as it is.

    The rule assumes that every named argument has a tangent; its guard sends other
    calls (and batched tangents) to `unoptimized` (a forward/routes.Routes). Given
    `without_tangent` (parameter -> FLOAT, NUMBER or "", see routes.Key), it is the variant for
    calls where those have none, with no guard: Routes calls it after checking. With
    `batched`, it is the variant for batched tangents (forward/optimizer/batched_variant.py):
    only the template lines that are right for them are inlined, and its guard sends
    other calls to `unoptimized`; None when it would inline nothing. Given `kinds`
    too (of the positional arguments, which Routes checked), it is the variant for
    arguments of those kinds: the kinds of its locals (kind_flow.py) tell it more
    lines are right. With `checked`, Routes checked the call (instance arguments of
    plain classes): no guard. Given `keyed` (a forward/keyed.KeyedCall), the general rule
    tries the variant it holds after its guard, where a rule call is left; with `kinds`
    too, this is that variant, which tests its kinds first (optimizer/kind_tests.py).
    Either way, `keyed` learns how many rule calls are left."""
    without_tangent = without_tangent or {}
    params = kind_flow.parameter_kinds(tree, kinds) if kinds is not None else None
    if params is not None:
        methods.resolve(lines.body, params, constants)
    inplace.join_updates(lines.body, activity.params(tree), outs=not batched)
    analysis = activity.analyse(
        tree, lines, constants.values, set(without_tangent),
        guarded=not (without_tangent or checked),
        kinds_of=None if params is None else functools.partial(kind_flow.propagate,
                                                               params=params))
    if analysis.scoped or _builds_instances(constants) or (
            batched and batched_variant.may_widen(analysis.lines)):
        return None
    value_kinds = analysis.value_kinds
    rewrite = Rewrite(analysis, constants, tree, without_tangent, value_kinds)
    rewrite.batched = batched
    if batched and value_kinds:  # (where updates may be written inline)
        rewrite.axes = BatchAxes(analysis.lines, analysis.kinds, activity.params(tree),
                                 functools.partial(array_lines.passes_tangent,
                                                   kinds=value_kinds))
    guarded = batched or not (without_tangent or checked)  # (see below)
    unchecked = set() if guarded else {  # (a float array or a number is no list)
        p for p in activity.params(tree) if not is_value(value_kinds.get(p))}
    rewrite.unfree = sequences.unfree_locals(analysis.lines, _starred(tree) | unchecked) - {
        name for name, kind in value_kinds.items() if is_value(kind)}  # (never a list)
    rewrite.built = sequences.built(analysis.lines)
    body = rewrite.entry(tree) + rewrite.block(lines.body)
    if batched:
        if not rewrite.inlined:
            return None
        body = batched_variant.guard(rewrite, tree, unoptimized) + body
    elif (rewrite.inlined or analysis.quiet or _unboxes_instances(unoptimized)) and \
            not without_tangent and not checked:
        tried = []
        if keyed is not None and rewrite.calls:
            tried = kind_tests.entry(constants, tree, keyed, passed_on(tree))
        body = guard(rewrite, tree, unoptimized) + tried + body  # (metadata.py: always)
    elif keyed is not None and kinds is not None:
        body = kind_tests.miss_guard(constants, tree, kinds, list(without_tangent)) + body
    if keyed is not None:
        if kinds is None:
            keyed.general_calls = rewrite.calls
        else:
            keyed.variant_calls = rewrite.calls
    body = cleanup(body, tree.args, rewrite.small)
    if batched and value_kinds:  # (one pass over the batch where a tangent repeats)
        body = linear_tangents.collected(body, set(rewrite.dnames.values()), value_kinds)
    body = statements(body)
    if batched and value_kinds:  # (results into operands the rule reads no more)
        body = dead_operands.reused(
            body, dead_operands.owned_candidates(value_kinds, rewrite.dnames,
                                                 activity.params(tree)), rewrite.k.bind)
    out = ast.FunctionDef(name=tree.name, args=tree.args, body=body,
                          decorator_list=[], returns=None, type_comment=None)
    return ast.copy_location(out, tree)


def _unboxes_instances(routes: Callable) -> bool:
    """Whether the Routes `routes` has a variant that keeps instance arguments' fields in
    locals (normalize/instance_params.py: Fields): the guard sends them there, even
    where the rule itself inlines nothing (its writes of fields keep it boxed). Read from
    its __dict__: a variant's `unoptimized` is a PlainRule, which builds the plain rule
    to answer any other attribute."""
    instances = getattr(routes, "__dict__", {}).get("instances") or {}
    return any(getattr(fields, "unboxed", False) for fields in instances.values())


def _starred(tree: ast.FunctionDef) -> Set[str]:
    """The names of `*args` and `**kwargs`."""
    return {a.arg for a in (tree.args.vararg, tree.args.kwarg) if a is not None}


def _builds_instances(constants: Constants) -> bool:
    """Whether the rule calls a class constructor of a user class (forward/constructors)
    other than a plain class's (normalize/plain_classes.py): making one runs nothing but
    its field stores, and the unbox pass makes them again where they escape (into a
    call, a container, a return); the instance is the result of a call, so no template
    applies to it or to its fields (activity.py: opaque)."""
    return any(getattr(v, "__module__", None) == constructors.__name__
               and getattr(v, "__name__", "").startswith("new_")
               and plain_classes.layout(getattr(v, "_fw_creates", None)) is None
               for v in constants.values.values())
