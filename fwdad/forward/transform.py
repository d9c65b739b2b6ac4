"""Normalized code -> Dual code, one line at a time.

    y = operator.mul(x, s)      ->  y = _fw_mul(x, s)          primitive: frule bound
    z = helper(y)               ->  z = _fw_helper(y)          static call: derived rule
    w = f(z)      (f local)     ->  w = _fw_call(f, z)         dynamic call: runtime cache
    u = operator.add(y, 1.0)    ->  u = _fw_add(y, _fw_1_0)    constants are Duals
    v = g(K)      (K global)    ->  v = _fw_g(_fw_const(K))    globals are read live
    if t:                       ->  if t.primal:
    for v in xs:                ->  for v in _fw_iterate(xs):

Every local holds a Dual. Names the rule binds (bound rules, constant Duals, helpers)
become closure constants, collected in `Constants`.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Set

from fwdad import lang
from fwdad.core.constants import Constants  # (re-exported for the optimizer's modules)
from fwdad.core.constants import short_name as _short_name
from fwdad.errors import InternalError, where
from fwdad.forward import contexts, dispatch, runtime
from fwdad.forward.astbuild import LOAD, STORE, locate
from fwdad.forward.scopes import scope_of
from fwdad.normalize.refs import is_ref
from fwdad.source import FunctionSource


def transform(tree: ast.FunctionDef, src: FunctionSource) -> tuple:
    """The Dual version of a normalized function, and the constants it uses."""
    scope = scope_of(tree)
    constants = Constants(scope[2])
    forward = _Forward(src, constants)
    rule = forward.function(tree, set(), f"{src.name}_frule", top=True, scope=scope)
    return rule, constants


class _Forward:
    def __init__(self, src: FunctionSource, constants: Constants) -> None:
        self.src, self.k = src, constants
        self.duals: Set[str] = set()  # names holding Duals here
        self.globals: Set[str] = set()  # names this function declares global
        self.callees: Dict[int, str] = {}  # id(static callee) -> the name of its rule

    def helper(self, fn: Any, hint: str) -> ast.Name:
        return self.k.bind(fn, hint)

    # ---- functions ------------------------------------------------------------------
    def function(self, node: ast.FunctionDef, outer: Set[str], name: str,
                 top: bool = False, scope: Optional[tuple] = None) -> ast.FunctionDef:
        saved = self.duals, self.globals
        bound, self.globals, _ = scope or scope_of(node)
        self.duals = (outer - self.globals) | bound
        args = node.args
        new_args = ast.arguments(
            posonlyargs=args.posonlyargs, args=args.args, vararg=args.vararg,
            kwonlyargs=args.kwonlyargs, kw_defaults=[] if top else
            [None if d is None else self.value(d) for d in args.kw_defaults],
            kwarg=args.kwarg, defaults=[] if top else [self.value(d) for d in args.defaults])
        if top:
            new_args.kw_defaults = [None] * len(args.kwonlyargs)
        body = self.pack_star_params(node) + self.block(node.body)
        if not isinstance(node.body[-1], (ast.Return, ast.Raise)):
            # falling off the end returns None: a Dual, as every call's result is
            end = ast.Return(value=self.helper(runtime.NONE, "None"))
            body.append(ast.copy_location(end, node.body[-1]))
        self.duals, self.globals = saved
        out = ast.FunctionDef(name=name, args=new_args, body=body, decorator_list=[],
                              returns=None, type_comment=None)
        return ast.copy_location(out, node)

    def pack_star_params(self, node: ast.FunctionDef) -> List[ast.stmt]:
        """`*args` arrives as a tuple of Duals and `**kw` as a dict of them: make each
        one Dual, as every other local is."""
        out = []
        for param, packer in ((node.args.vararg, runtime.pack), (node.args.kwarg,
                                                                runtime.pack_kw)):
            if param is not None:
                call = ast.Call(func=self.helper(packer, packer.__name__),
                                args=[ast.Name(param.arg, LOAD)], keywords=[])
                out.append(ast.copy_location(ast.Assign(
                    targets=[ast.Name(param.arg, STORE)], value=call), node))
        return out

    def block(self, stmts: List[ast.stmt]) -> List[ast.stmt]:
        out: List[ast.stmt] = []
        for stmt in stmts:
            method = getattr(self, "s_" + type(stmt).__name__, None)
            if method is None:
                raise InternalError(f"the forward transform met a {type(stmt).__name__}")
            for new in method(stmt):
                out.append(locate(new, stmt))
        return out or [ast.Pass()]

    # ---- statements -----------------------------------------------------------------
    def s_FunctionDef(self, node: ast.FunctionDef) -> List[ast.stmt]:
        inner = self.function(node, self.duals, node.name)
        wrap = ast.Call(func=self.helper(dispatch.closure, "closure"),
                        args=[ast.Name(node.name, LOAD)], keywords=[])
        return [inner, ast.Assign(targets=[ast.Name(node.name, STORE)],
                                  value=wrap)]

    def s_Assign(self, node: ast.Assign) -> List[ast.stmt]:
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Tuple):  # a, b = fwdad.unpack(t, n, star)
            x, *counts = value.args
            value = ast.Call(func=self.helper(runtime.unpack, "unpack"),
                             args=[self.value(x)] + counts, keywords=[])
        elif isinstance(value, ast.Call):
            value = self.call(value)
        else:
            value = self.value(value)
        if isinstance(target, ast.Name) and target.id in self.globals:  # store the value
            value = ast.Attribute(value=value, attr="primal", ctx=ast.Load())
        return [ast.Assign([target], value)]

    def s_Expr(self, node: ast.Expr) -> List[ast.stmt]:
        return [ast.Expr(value=self.call(node.value))]

    def s_If(self, node: ast.If) -> List[ast.stmt]:
        return [ast.If(test=self.test(node.test), body=self.block(node.body),
                       orelse=self.block(node.orelse) if node.orelse else [])]

    def s_While(self, node: ast.While) -> List[ast.stmt]:
        return [ast.While(test=self.test(node.test), body=self.block(node.body),
                          orelse=self.block(node.orelse) if node.orelse else [])]

    def s_For(self, node: ast.For) -> List[ast.stmt]:
        items = ast.Call(func=self.helper(runtime.iterate, "iterate"),
                         args=[self.value(node.iter)], keywords=[])
        return [ast.For(target=node.target, iter=items, body=self.block(node.body),
                        orelse=self.block(node.orelse) if node.orelse else [])]

    def s_Return(self, node: ast.Return) -> List[ast.stmt]:
        value = self.value(node.value) if node.value is not None else \
            self.helper(runtime.NONE, "None")
        return [ast.Return(value=value)]

    def s_Assert(self, node: ast.Assert) -> List[ast.stmt]:
        msg = None if node.msg is None else self.primal(node.msg)
        return [ast.Assert(test=self.primal(node.test), msg=msg)]

    def s_Raise(self, node: ast.Raise) -> List[ast.stmt]:
        exc = None if node.exc is None else self.primal(node.exc)
        cause = None if node.cause is None else self.primal(node.cause)
        return [ast.Raise(exc=exc, cause=cause)]

    def s_Try(self, node: ast.Try) -> List[ast.stmt]:
        handlers = []
        for handler in node.handlers:
            body = self.block(handler.body)
            if handler.name:  # the exception itself is a plain value: make it a Dual
                body.insert(0, self.rebind_const(handler.name, handler))
            kind = None if handler.type is None else self.primal(handler.type)
            handlers.append(ast.copy_location(
                ast.ExceptHandler(type=kind, name=handler.name, body=body), handler))
        return [ast.Try(body=self.block(node.body), handlers=handlers,
                        orelse=self.block(node.orelse) if node.orelse else [],
                        finalbody=self.block(node.finalbody) if node.finalbody else [])]

    def s_With(self, node: ast.With) -> List[ast.stmt]:
        """`with m as v:` enters `_fw_entered(m)`, which runs m's `__enter__` and
        `__exit__` through their rules (forward/contexts.py): v is a Dual."""
        item = node.items[0]
        manager = ast.Call(func=self.helper(contexts.entered, "entered"),
                           args=[self.value(item.context_expr)], keywords=[])
        new = ast.withitem(context_expr=manager, optional_vars=item.optional_vars)
        return [ast.With(items=[new], body=self.block(node.body))]

    def rebind_const(self, name: str, like: ast.AST) -> ast.stmt:
        """`name = _fw_const(name)`: a plain value bound by Python becomes a Dual."""
        value = ast.Call(func=self.helper(runtime.const, "const"),
                         args=[ast.Name(name, LOAD)], keywords=[])
        return ast.copy_location(ast.Assign(targets=[ast.Name(name, STORE)],
                                            value=value), like)

    def s_keep(self, node: ast.stmt) -> List[ast.stmt]:
        return [node]

    s_Break = s_Continue = s_Pass = s_Delete = s_Global = s_Nonlocal = s_keep
    s_Import = s_ImportFrom = s_keep  # imported names hold plain values, read as constants

    # ---- expressions ----------------------------------------------------------------
    def call(self, node: ast.Call) -> ast.Call:
        args = [self.arg(a) for a in node.args]
        keywords = [self.keyword(k) for k in node.keywords]
        func = node.func
        if is_ref(func):
            target = func.fw_value
            if target is lang.foreigncall:
                target, args = node.args[0].fw_value, args[1:]
            name = self.callees.get(id(target))
            if name is None:
                rule = dispatch.static_rule(target, self.where(node))
                name = self.helper(rule, _short_name(target)).id
                if not isinstance(rule, dispatch.MissingRule):  # (it names the line)
                    self.callees[id(target)] = name
            return ast.Call(ast.Name(name, LOAD), args, keywords)
        callee = self.value(func)
        return ast.Call(self.helper(dispatch.call, "call"), [callee] + args, keywords)

    def arg(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Starred):
            items = ast.Call(func=self.helper(runtime.unbox, "unbox"),
                             args=[self.value(node.value)], keywords=[])
            return ast.Starred(value=items, ctx=ast.Load())
        return self.value(node)

    def keyword(self, node: ast.keyword) -> ast.keyword:
        if node.arg is None:
            items = ast.Call(func=self.helper(runtime.unbox_kw, "unbox_kw"),
                             args=[self.value(node.value)], keywords=[])
            return ast.keyword(arg=None, value=items)
        return ast.keyword(arg=node.arg, value=self.value(node.value))

    def value(self, atom: ast.expr) -> ast.expr:
        """The Dual expression for an atom of normalized code."""
        kind = type(atom)
        if kind is ast.Constant:
            return self.k.literal(atom.value)
        if is_ref(atom):
            return self.k.bind(runtime.const(atom.fw_value), _short_name(atom.fw_value))
        if kind is ast.Name:
            if atom.id in self.duals:
                return ast.Name(atom.id, LOAD)
            return ast.Call(self.helper(runtime.const, "const"), [ast.Name(atom.id, LOAD)], [])
        raise InternalError(f"the forward transform met a {type(atom).__name__} argument")

    def primal(self, atom: ast.expr) -> ast.expr:
        """The plain value of an atom (what branches and asserts test)."""
        if isinstance(atom, ast.Name) and atom.id in self.duals:
            return ast.Attribute(value=ast.Name(atom.id, LOAD), attr="primal",
                                 ctx=ast.Load())
        return atom

    def test(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(op=ast.Not(), operand=self.primal(node.operand))
        return self.primal(node)

    def where(self, node: ast.AST) -> str:
        return where(self.src.filename, getattr(node, "lineno", None))
