"""Normalized code -> reverse code, one line at a time (the same normalized code forward
mode transforms):

    y = operator.mul(x, s)      ->  y = _fw_mul(x, s)          primitive: rrule bound
    z = helper(y)               ->  z = _fw_helper(y)          static call: derived rrule
    w = f(z)      (f local)     ->  w = _fw_call(f, z)         dynamic call: runtime cache
    def inner(v): ...           ->  def inner(v): ...; inner = _fw_closure(inner)
    t = operator.truediv(a, m)  ->  t = _fw_plain_truediv(a, m)  plain values only: the
                                                               primal (reverse/activity.py)

Locals hold reverse values: Vars, VarMats, matvars, and plain values (ints, lists and
objects that may hold variables), so constants, branches and loops stay as written;
`if`/`while` test values (a Var is true when its value is). Each primitive records its
callback on the tape as it runs: the backward pass is the tape, not generated code.
"""
from __future__ import annotations

import ast
import copy
import types
from typing import Any, Dict, List, Optional, Set

import numpy as np

from fwdad import lang
from fwdad.core.constants import Constants, short_name
from fwdad.core.statements import StatementTransform
from fwdad.errors import user_code
from fwdad.normalize.refs import is_ref
from fwdad.probe import probe
from fwdad.reverse import activity, contexts, dispatch, iteration, state
from fwdad.source import FunctionSource


def transform(tree: ast.FunctionDef, src: FunctionSource,
              kinds: Optional[Dict[str, str]] = None) -> tuple:
    """The reverse version of a normalized function, and the constants it uses; with
    `kinds` (parameter -> PLAIN, VARIABLE or OTHER: fwdad/reverse/kinds.py), specialized
    for arguments of those kinds (a missing parameter may hold anything)."""
    constants = Constants({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
    direct = activity.analyse(tree, kinds or {}).direct
    out = _Reverse(src, constants, direct).function(tree, f"{src.name}_rrule", top=True)
    return out, constants


def _read_live(tree: ast.FunctionDef, src: FunctionSource) -> Set[str]:
    """The global and closure names of the code whose values may be, or hold, an array
    that code writes into by name: each load of one goes through state.read."""
    declared = {name for n in ast.walk(tree) if isinstance(n, (ast.Global, ast.Nonlocal))
                for name in n.names}
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
             and not isinstance(n.ctx, ast.Load)} - declared
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            args = node.args
            bound.update(a.arg for a in args.posonlyargs + args.args + args.kwonlyargs)
            bound.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Load) and not is_ref(n)} - bound
    return {name for name in loaded if _may_hold_array(src.live_value(name, _NO_VALUE))}


def _live_defaults(fn: Any) -> List[str]:
    """The parameters whose defaults may be, or hold, an array written by name."""
    if not isinstance(fn, types.FunctionType):
        return []
    code = fn.__code__
    names = code.co_varnames[:code.co_argcount]
    defaults = fn.__defaults__ or ()
    found = [n for n, v in zip(names[len(names) - len(defaults):], defaults)
             if _may_hold_array(v)]
    return found + [n for n, v in (fn.__kwdefaults__ or {}).items() if _may_hold_array(v)]


_NO_VALUE = object()


def _may_hold_array(value: Any) -> bool:
    """Arrays, containers and instances of user classes (not modules, functions,
    classes or plain numbers)."""
    if type(value) is np.ndarray:
        return value.dtype.kind in "fcO"
    if isinstance(value, (list, dict, tuple)):
        return True
    return probe(value, "__dict__") is not None and not isinstance(
        value, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                types.MethodType)) and not callable(value)


class _Reverse(StatementTransform):
    mode = "reverse"

    def __init__(self, src: FunctionSource, constants: Constants,
                 direct: Dict[int, Any]) -> None:
        self.src, self.k = src, constants
        self.direct = direct  # id(call) -> the primal it runs: no variable reaches it
        self.live = _read_live(src.tree, src)

    def function(self, node: ast.FunctionDef, name: str, top: bool = False) -> ast.stmt:
        args = copy.copy(node.args)
        if top:
            args.defaults, args.kw_defaults = [], [None] * len(args.kwonlyargs)
        else:
            args.defaults = [self.atoms(d) for d in args.defaults]
            args.kw_defaults = [d if d is None else self.atoms(d) for d in args.kw_defaults]
        body = self.block(node.body)
        if top:  # (a default array written by name: the pass's variable of it; a
            # default that holds one is refused)
            body = [ast.Assign(targets=[ast.Name(id=p, ctx=ast.Store())],
                               value=self._read(ast.Name(id=p, ctx=ast.Load())))
                    for p in _live_defaults(self.src.fn)] + body
        out = ast.FunctionDef(name=name, args=args, body=body,
                              decorator_list=[], returns=None, type_comment=None)
        return ast.copy_location(out, node)

    # ---- statements -----------------------------------------------------------------
    def s_FunctionDef(self, node: ast.FunctionDef) -> List[ast.stmt]:
        wrap = ast.Call(func=self.k.bind(dispatch.closure, "closure"),
                        args=[ast.Name(id=node.name, ctx=ast.Load())], keywords=[])
        return [self.function(node, node.name),
                ast.Assign(targets=[ast.Name(id=node.name, ctx=ast.Store())], value=wrap)]

    def s_Assign(self, node: ast.Assign) -> List[ast.stmt]:
        value = node.value
        value = self.call(value) if isinstance(value, ast.Call) else self.atoms(value)
        if any(type(t) is ast.Name and t.id in self.live for t in node.targets):
            # (`global G; G += v` stores the array back, not the pass's variable of it)
            value = ast.Call(func=self.k.bind(state.stored, "stored"), args=[value],
                             keywords=[])
        return [ast.Assign(targets=node.targets, value=value)]

    def s_Expr(self, node: ast.Expr) -> List[ast.stmt]:
        return [ast.Expr(value=self.call(node.value))]

    def s_With(self, node: ast.With) -> List[ast.stmt]:
        """`with m as v:` enters `entered(m)`, which runs `type(m).__enter__` and
        `__exit__` through their reverse rules (reverse/contexts.py)."""
        enter = self.k.bind(contexts.entered, "entered")
        items = [ast.withitem(context_expr=ast.Call(func=enter,
                                                    args=[self.atoms(i.context_expr)],
                                                    keywords=[]),
                              optional_vars=i.optional_vars) for i in node.items]
        return [ast.With(items=items, body=self.block(node.body))]

    def test(self, node: ast.expr) -> ast.expr:  # (a Var is true when its value is)
        return self.atoms(node)

    kind = test

    def items(self, node: ast.expr) -> ast.expr:
        """A for loop iterates over reverse values, as Python does; over an instance of
        a user class, by the reverse rules of its __iter__ and __next__ (iteration.py)."""
        return ast.Call(func=self.k.bind(iteration.items, "items"), args=[self.atoms(node)],
                        keywords=[])

    def s_keep(self, node: ast.stmt) -> List[ast.stmt]:
        return [self.atoms(node)]

    s_Return = s_Assert = s_Raise = s_Break = s_Continue = s_Pass = s_Delete = s_keep
    s_Global = s_Nonlocal = s_Import = s_ImportFrom = s_keep

    # ---- expressions ----------------------------------------------------------------
    def call(self, node: ast.Call) -> ast.Call:
        args = [self.atoms(a) for a in node.args]
        keywords = [self.atoms(k) for k in node.keywords]
        primal = self.direct.get(id(node))
        if primal is not None:  # plain values only: the primal itself, as NumPy runs it
            if node.func.fw_value is lang.foreigncall:
                args = args[1:]
            return ast.Call(func=self.k.bind(primal, "plain_" + short_name(primal)),
                            args=args, keywords=keywords)
        if is_ref(node.func):
            target = node.func.fw_value
            if target is lang.foreigncall:
                target, args = node.args[0].fw_value, args[1:]
            rule = dispatch.static_rrule(target, self.where(node))
            return ast.Call(func=self.k.bind(rule, short_name(target)), args=args,
                            keywords=keywords)
        return ast.Call(func=self.k.bind(dispatch.call, "call"),
                        args=[self.atoms(node.func)] + args, keywords=keywords)

    def atoms(self, node: ast.AST) -> Any:
        """A copy of `node` in which every static reference is a bound constant (the
        value known when the rule was built); names and literals stay as they are."""
        if is_ref(node):
            return self.k.bind(node.fw_value, short_name(node.fw_value))
        if type(node) is ast.Name and node.id in self.live and type(node.ctx) is ast.Load:
            return self._read(node)
        node = copy.copy(node)
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                setattr(node, field, self.atoms(value))
            elif isinstance(value, list):
                setattr(node, field, [self.atoms(v) if isinstance(v, ast.AST) else v
                                      for v in value])
        return node

    def _read(self, name: ast.Name) -> ast.Call:
        """`_fw_state(name)`: a read of what may be a stateful array (reverse/state.py)."""
        return ast.copy_location(ast.Call(func=self.k.bind(state.read, "state"),
                                          args=[name], keywords=[]), name)

    def where(self, node: ast.AST) -> str:
        """` in f at file.py:12`, the user's function and line of `node`, for the
        messages of rules built here that raise later (a callee with no rule)."""
        return user_code(self.src.name, self.src.filename, getattr(node, "lineno", None))
