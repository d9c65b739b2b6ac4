"""The recording rule of one function: its derived reverse rule, instrumented.

    if t:            ->  if _fw_rec_test(t):              a branch outcome, guarded
    for v in it:     ->  for v in _fw_rec_iter(it):       a loop, unrolled
    SCALE            ->  _fw_rec_read(lambda: SCALE)      a global, read live
    _fw_mul(a, b)    ->  (the same name, bound to a wrapper that records the call)

The constants the reverse transform binds are wrapped: each rule calls back into the
recorder (record.py), which runs it and notes the step.
"""
from __future__ import annotations

import ast
import copy
import types
from typing import Any, Callable, Dict, Optional

from fwdad import frontend
from fwdad.compile import compile_function
from fwdad.core import rebinding
from fwdad.core.rebinding import bound_names
from fwdad.reverse import dispatch
from fwdad.reverse.registry import entries
from fwdad.reverse.rule_calls import Pure, pure_inside
from fwdad.reverse.transform import transform


class _Wrapped:
    """A callee of reverse code inside a recording rule."""

    __slots__ = ("rule", "rec", "__name__")

    def __init__(self, rule: Any, rec: Any) -> None:
        self.rule, self.rec = rule, rec
        self.__name__ = getattr(rule, "__name__", None) or type(rule).__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.rec.call(self.rule, args, kwargs)


def recording_rule(fn: Callable, rec: Any) -> Callable:
    """The derived reverse rule of `fn`, recording into `rec` as it runs."""
    src, normalized = frontend.normalized(fn)
    tree, constants = transform(normalized, src)
    if any(isinstance(n, _REFUSED) for n in ast.walk(tree) if n is not tree) or \
            tree.args.vararg or tree.args.kwarg:
        rec.invalid(f"{fn.__qualname__} has try, with, global, nonlocal or *args")
    tree = _Instrument(tree, set(constants.values)).visit(copy.deepcopy(tree))
    rebinding.read_live(tree, bound_names(normalized), "_fw_rec_read")
    rec.bound.add(src.globals, bound_names(normalized))
    values = {name: _wrap(value, rec) for name, value in constants.values.items()}
    values.update(_fw_rec_test=rec.test, _fw_rec_iter=rec.iterate, _fw_rec_read=rec.read)
    return compile_function(tree, values, src.cells, src.globals, fn.__defaults__ or (),
                            dict(fn.__kwdefaults__ or {}), src.filename,
                            f"recording reverse rule of {fn.__qualname__}")


_REFUSED = (ast.Lambda, ast.Try, ast.With, ast.Global, ast.Nonlocal)
_VALUES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)


def _wrap(value: Any, rec: Any) -> Any:
    """Rules (what reverse code calls) are wrapped; functions and classes bound as
    values (`_apply(square, x)`) stay as they are, so a dynamic call sees them."""
    if value is dispatch.call:
        return rec.dynamic
    if value is dispatch.closure:
        return rec.closure
    if rec.primal_of(value) is not None or rec.wrapped_pure(value) is not None or (
            callable(value) and not isinstance(value, _VALUES)):
        return _Wrapped(value, rec)
    return value


class _Instrument(ast.NodeTransformer):
    """`if t:` -> `if _fw_rec_test(t):` (and while, assert); `for v in it` -> `for v in
    _fw_rec_iter(it)`; a global or closure name read -> `_fw_rec_read(lambda: name)`."""

    def __init__(self, tree: ast.FunctionDef, bound: set) -> None:
        self.local = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)} | {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and
            not isinstance(n.ctx, ast.Load)} | {
            (a.asname or a.name).split(".")[0] for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names} | bound

    def _test(self, node: Any) -> Any:
        node = self.generic_visit(node)
        node.test = ast.Call(func=ast.Name(id="_fw_rec_test", ctx=ast.Load()),
                             args=[node.test], keywords=[])
        return node

    visit_If = visit_While = visit_Assert = _test  # (an assert that would fail falls
    # back, and the full rule raises it)

    def visit_For(self, node: ast.For) -> Any:
        node = self.generic_visit(node)
        node.iter = ast.Call(func=ast.Name(id="_fw_rec_iter", ctx=ast.Load()),
                             args=[node.iter], keywords=[])
        return node

    def visit_Name(self, node: ast.Name) -> Any:
        if not isinstance(node.ctx, ast.Load) or node.id in self.local or \
                node.id.startswith("_fw_") or node.id in _BUILTIN_NAMES:
            return node
        read = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                                             kwonlyargs=[], kw_defaults=[], kwarg=None,
                                             defaults=[]), body=node)
        return ast.copy_location(ast.Call(func=ast.Name(id="_fw_rec_read", ctx=ast.Load()),
                                          args=[read], keywords=[]), node)


_BUILTIN_NAMES = {"True", "False", "None"}


def rule_tables() -> tuple:
    """id -> (rule, primal) for the raw rrules (and their wrappers), and id -> (rule,
    (Pure, arity)) for rules wrapping a Pure; read anew for each recording, holding the
    rules so that their ids stay theirs."""
    raw: Dict[int, Any] = {}
    wrapping: Dict[int, Any] = {}
    for entry in entries():
        if entry.kind == "raw":
            raw[id(entry.callable)] = entry.callable, entry.primal
            raw[id(entry.rule)] = entry.rule, entry.primal
        inner = _out_wrapped(entry.callable)
        if inner is not None:  # (a copy takes one argument, as a unary ufunc)
            wrapping[id(entry.callable)] = entry.callable, (
                inner, getattr(entry.primal, "nin", 1))
    return raw, wrapping


def _out_wrapped(rule: Any) -> Optional[Pure]:
    """The Pure inside rules_ufuncs.with_out's wrapper, or inside rules_creation.copying's,
    if `rule` is one of them."""
    inner = pure_inside(rule)
    return inner if inner is not rule else None
