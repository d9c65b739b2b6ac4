"""Flatten nested expressions (A-normal form).

After this pass each statement does at most one operation, and every argument is a
name, a constant or a static reference:

    y = f(g(x), 2.0)        ->  _fw_g1 = g(x); y = f(_fw_g1, 2.0)
    z = a and b(x)          ->  z = a; if z: z = b(x)             (still short-circuits)
    w = a if c else b       ->  if c: w = a  else: w = b
    a, *b = v               ->  a, b = fwdad.unpack(v, 2, 1)
    while x < 3: ...        ->  _fw_lt1 = operator.lt(x, 3); while _fw_lt1: ...; <again>
    [h(v) for v in xs]      ->  a loop appending to a fresh list (generators are eager)
    lambda v: v * k         ->  def _fw_lambda1(v): return v * k

Statements left: def, Assign (to a name, or to a tuple of names from unpack), Expr of a
call, Return, If and While on a name or `not name`, For over a name, Break, Continue,
Pass, Assert, Raise, Delete. Every node is located: each pass locates the nodes it
makes when it makes them, so no walk fills in locations afterwards.
"""
from __future__ import annotations

import ast
import functools
from typing import Callable, Dict, List, Optional

from fwdad import lang
from fwdad.astwalk import LOCATED, clone, copy_location, location
from fwdad.errors import InternalError
from fwdad.normalize import comprehensions
from fwdad.normalize.intrinsics import builtin_call, op_call
from fwdad.normalize.names import RESERVED_PREFIX, Namer, is_generated
from fwdad.normalize.refs import call, is_atom


def run(tree: ast.FunctionDef, names: Namer) -> ast.FunctionDef:
    flat = _Flatten(names)
    tree.body = flat.block(tree.body)
    for param in _parameters(tree.args):  # a caller may have added some (nested.py)
        if "end_col_offset" not in param.__dict__:
            copy_location(param, tree)
    return tree


class _Flatten:
    def __init__(self, names: Namer) -> None:
        self.names = names
        self.out: List[ast.stmt] = []
        self.node: ast.AST = None  # the statement being flattened, for locations
        self.where: Optional[dict] = None  # its location (see here)

    # ---- plumbing -------------------------------------------------------------------
    def block(self, stmts: List[ast.stmt]) -> List[ast.stmt]:
        saved, saved_node, saved_where, self.out = self.out, self.node, self.where, []
        for stmt in stmts:
            self.node, self.where = stmt, location(stmt)
            getattr(self, "stmt_" + type(stmt).__name__, self.stmt_unknown)(stmt)
        result, self.out, self.node, self.where = self.out, saved, saved_node, saved_where
        return result or [copy_location(ast.Pass(), stmts[-1] if stmts else ast.Pass())]

    def collect(self, emit: Callable[[], object]) -> List[ast.stmt]:
        """The statements `emit` produces, as a separate block."""
        return self.collect_with(emit)[0]

    def collect_with(self, emit: Callable[[], object]) -> tuple:
        """The statements `emit` produces, and what it returns."""
        saved, self.out = self.out, []
        value = emit()
        stmts, self.out = self.out, saved
        return stmts, value

    def emit(self, stmt: ast.stmt) -> None:
        self.out.append(self.here(stmt))

    def here(self, node: ast.AST) -> ast.AST:
        """`node`, located where the statement being flattened is: every node this pass
        makes is located when made, so no walk has to fill in locations afterwards."""
        if self.where is None or type(node) not in LOCATED:
            return copy_location(node, self.node)
        node.__dict__.update(self.where)
        return node

    def stored(self, name: str) -> ast.Name:
        return self.here(ast.Name(name, _STORE))

    def loaded(self, name: str) -> ast.Name:
        return self.here(ast.Name(name, _LOAD))

    def negated(self, test: ast.expr) -> ast.UnaryOp:
        return self.here(ast.UnaryOp(op=ast.Not(), operand=test))

    def assign(self, name: str, value: ast.expr) -> None:
        value = self.expr_Call(value) if type(value) is _Call else self.op(value)
        self.emit(ast.Assign([self.stored(name)], value))

    # ---- statements -----------------------------------------------------------------
    def stmt_FunctionDef(self, node: ast.FunctionDef) -> None:
        node.args.defaults = [self.atom(d) for d in node.args.defaults]
        node.args.kw_defaults = [None if d is None else self.atom(d)
                                 for d in node.args.kw_defaults]
        node.body = self.block(node.body)
        self.emit(node)

    def stmt_Return(self, node: ast.Return) -> None:
        value = None if node.value is None else self.atom(node.value)
        self.emit(ast.Return(value=value))

    def stmt_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.assign(node.targets[0].id, node.value)
            return
        value = self.atom(node.value)
        for target in node.targets:
            self.store(target, value)

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant):  # a docstring or a bare constant
            return
        value = self.op(node.value)
        if not is_atom(value):
            self.emit(ast.Expr(value=value))

    def stmt_If(self, node: ast.If) -> None:
        test = self.atom(node.test)
        body, orelse = self.block(node.body), _maybe(self.block, node.orelse)
        self.emit(ast.If(test=test, body=body, orelse=orelse))

    def stmt_While(self, node: ast.While) -> None:
        before, test = self.collect_with(lambda: self.atom(node.test))
        self.out.extend(before)
        body = self.block(node.body)
        body = _before_continue(body, before) + [clone(s) for s in before]
        self.emit(ast.While(test=test, body=body, orelse=_maybe(self.block, node.orelse)))

    def stmt_For(self, node: ast.For) -> None:
        self.loop(node.target, node.iter, lambda: self.out.extend(self.block(node.body)),
                  node.orelse)

    def loop(self, target: ast.expr, iterable: ast.expr, emit_body: Callable[[], None],
             orelse: List[ast.stmt] = ()) -> None:
        """`for target in iterable:` with the body that `emit_body` emits."""
        iterable = self.atom(iterable)
        if not isinstance(target, ast.Name):  # unpack a fresh loop variable
            item, parts, inner = self.names.fresh("item"), target, emit_body

            def emit_body() -> None:
                self.store(parts, self.loaded(item))
                inner()
            target = self.stored(item)
        body = self.collect(emit_body) or [copy_location(ast.Pass(), self.node)]
        self.emit(ast.For(target=target, iter=iterable, body=body,
                          orelse=_maybe(self.block, list(orelse))))

    def stmt_Assert(self, node: ast.Assert) -> None:
        test = self.atom(node.test)
        if node.msg is None:
            self.emit(ast.Assert(test=test, msg=None))
            return
        failing, msg = self.collect_with(lambda: self.atom(node.msg))
        failing.append(copy_location(ast.Assert(test=test, msg=msg), node))
        self.emit(ast.If(test=self.negated(test), body=failing, orelse=[]))

    def stmt_Raise(self, node: ast.Raise) -> None:
        exc = None if node.exc is None else self.atom(node.exc)
        cause = None if node.cause is None else self.atom(node.cause)
        self.emit(ast.Raise(exc=exc, cause=cause))

    def stmt_Try(self, node: ast.Try) -> None:
        """Exception types are evaluated before the try (they are names, or tuples of
        names, with no side effects)."""
        handlers = []
        for handler in node.handlers:
            kind = None if handler.type is None else self.atom(handler.type)
            new = ast.ExceptHandler(type=kind, name=handler.name,
                                    body=self.block(handler.body))
            handlers.append(copy_location(new, handler))
        self.emit(ast.Try(body=self.block(node.body), handlers=handlers,
                          orelse=_maybe(self.block, node.orelse),
                          finalbody=_maybe(self.block, node.finalbody)))

    def stmt_With(self, node: ast.With) -> None:
        """`with a as x, b as y:` is `with a as x:` around `with b as y:`, so that b is
        evaluated after a is entered, as in Python."""
        item, rest = node.items[0], node.items[1:]
        manager = self.atom(item.context_expr)
        target = item.optional_vars
        inner = [copy_location(ast.With(items=rest, body=node.body), node)] \
            if rest else node.body
        if target is None or isinstance(target, ast.Name):
            body = self.block(inner)
        else:  # `as (a, b)`: bind a fresh name, then unpack it
            entered = self.names.fresh("entered")
            body = self.collect(lambda: self.store(target, self.loaded(entered)))
            body += self.block(inner)
            target = self.stored(entered)
        self.emit(ast.With(items=[ast.withitem(context_expr=manager, optional_vars=target)],
                           body=body))

    def stmt_keep(self, node: ast.stmt) -> None:
        self.emit(node)

    stmt_Break = stmt_Continue = stmt_Pass = stmt_Delete = stmt_keep
    stmt_Global = stmt_Nonlocal = stmt_Import = stmt_ImportFrom = stmt_keep

    def stmt_unknown(self, node: ast.stmt) -> None:
        raise InternalError(f"flatten met a {type(node).__name__}, which the fence "
                            f"should have rejected")

    # ---- stores ---------------------------------------------------------------------
    def store(self, target: ast.expr, value: ast.expr) -> None:
        """`target = value` for a name, a (nested, starred) tuple, x[i] or x.a."""
        if isinstance(target, ast.Name):
            self.emit(ast.Assign([self.stored(target.id)], value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target.elts, value)
        elif isinstance(target, ast.Subscript):
            args = [self.atom(target.value), self.atom(target.slice), value]
            self.emit(ast.Expr(value=op_call("setitem", args, self.node)))
        elif isinstance(target, ast.Attribute):
            args = [self.atom(target.value), self.here(ast.Constant(target.attr)), value]
            self.emit(ast.Expr(value=builtin_call("setattr", args, self.node)))
        else:
            raise InternalError(f"cannot assign to a {type(target).__name__}")

    def unpack(self, targets: List[ast.expr], value: ast.expr) -> None:
        star = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
        names, later = [], []
        for target in targets:
            target = target.value if isinstance(target, ast.Starred) else target
            if isinstance(target, ast.Name):
                names.append(self.stored(target.id))
            else:
                temp = self.names.fresh("part")
                names.append(self.stored(temp))
                later.append((target, self.loaded(temp)))
        args = [value, self.here(ast.Constant(len(targets)))] + \
            ([self.here(ast.Constant(star[0]))] if star else [])
        unpacked = call(lang.unpack, "fwdad.unpack", args, self.node)
        self.emit(ast.Assign(targets=[self.here(ast.Tuple(elts=names, ctx=_STORE))],
                             value=unpacked))
        for target, temp in later:
            self.store(target, temp)

    # ---- expressions ----------------------------------------------------------------
    def atom(self, expr: ast.expr) -> ast.expr:
        """A name, constant or static reference holding the value of `expr`."""
        kind = type(expr)  # (is_atom, inline: this is the hot path)
        if kind is _Name or kind is _Constant or "fw_value" in expr.__dict__:
            return expr
        if kind is _Call:  # (the commonest operation, and never an atom)
            value = self.expr_Call(expr)
        else:
            value = self.op(expr)
            if is_atom(value):
                return value
        name = self.names.fresh(_hint(value))
        where = self.where
        if where is None:
            self.emit(ast.Assign([self.stored(name)], value))
            return self.loaded(name)
        # (here, inline: a Name and an Assign take the statement's whole location)
        stored = ast.Name(name, _STORE)
        stored.__dict__.update(where)
        assign = ast.Assign([stored], value)
        assign.__dict__.update(where)
        self.out.append(assign)
        loaded = ast.Name(name, _LOAD)
        loaded.__dict__.update(where)
        return loaded

    def op(self, expr: ast.expr) -> ast.expr:
        """One operation whose operands are atoms (or an atom)."""
        if is_atom(expr):
            return expr
        method = _EXPRESSIONS.get(type(expr))
        if method is None:
            method = getattr(_Flatten, "expr_" + type(expr).__name__, None)
            if method is None:
                raise InternalError(f"flatten met a {type(expr).__name__} expression")
            _EXPRESSIONS[type(expr)] = method
        return method(self, expr)

    def expr_Call(self, node: ast.Call) -> ast.Call:
        """The call itself, its operands made atoms (no pass shares a Call node)."""
        func = node.func
        if type(func) is not _Name and "fw_value" not in func.__dict__:
            node.func = self.atom(func)
        atom, args = self.atom, []
        for arg in node.args:  # (a loop: quicker than a comprehension for a few items)
            if type(arg) is ast.Starred:
                arg = self.here(ast.Starred(value=atom(arg.value), ctx=_LOAD))
            else:
                arg = atom(arg)
            args.append(arg)
        node.args = args
        if node.keywords:
            node.keywords = [self.here(ast.keyword(arg=k.arg, value=atom(k.value)))
                             for k in node.keywords]
        return node

    def expr_BoolOp(self, node: ast.BoolOp) -> ast.Name:
        result = self.names.fresh("and" if isinstance(node.op, ast.And) else "or")
        self.assign(result, node.values[0])
        self._short_circuit(node.op, result, node.values[1:])
        return self.loaded(result)

    def _short_circuit(self, op: ast.boolop, result: str, rest: List[ast.expr]) -> None:
        if not rest:
            return
        def then() -> None:
            self.assign(result, rest[0])
            self._short_circuit(op, result, rest[1:])
        test = self.loaded(result)
        test = test if isinstance(op, ast.And) else self.negated(test)
        self.emit(ast.If(test=test, body=self.collect(then), orelse=[]))

    def expr_IfExp(self, node: ast.IfExp) -> ast.Name:
        result = self.names.fresh("choice")
        test = self.atom(node.test)
        body = self.collect(lambda: self.assign(result, node.body))
        orelse = self.collect(lambda: self.assign(result, node.orelse))
        self.emit(ast.If(test=test, body=body, orelse=orelse))
        return self.loaded(result)

    def expr_NamedExpr(self, node: ast.NamedExpr) -> ast.Name:
        self.assign(node.target.id, node.value)
        return self.loaded(node.target.id)

    def expr_Lambda(self, node: ast.Lambda) -> ast.Name:
        name = self.names.fresh("lambda")
        body = [copy_location(ast.Return(value=node.body), node)]
        fn = ast.FunctionDef(name=name, args=node.args, body=body, decorator_list=[],
                             returns=None, type_comment=None)
        saved = self.node
        self.stmt_FunctionDef(copy_location(fn, node))
        self.node = saved
        return self.loaded(name)

    def expr_comprehension(self, node: ast.expr) -> ast.Name:
        return comprehensions.expand(self, node)

    expr_ListComp = expr_SetComp = expr_DictComp = expr_GeneratorExp = expr_comprehension


_LOAD, _STORE = ast.Load(), ast.Store()  # shared, as ast.parse shares them
_Name, _Constant, _Call = ast.Name, ast.Constant, ast.Call
_EXPRESSIONS: Dict[type, Callable] = {}  # expression class -> its _Flatten.expr_ method


def _parameters(args: ast.arguments) -> List[ast.arg]:
    return args.posonlyargs + args.args + args.kwonlyargs + \
        [a for a in (args.vararg, args.kwarg) if a is not None]


def _maybe(fn: Callable, stmts: List[ast.stmt]) -> List[ast.stmt]:
    return fn(stmts) if stmts else []


def _hint(value: ast.expr) -> str:
    """What to call the temporary that holds `value`: the operation's name."""
    if isinstance(value, ast.Call):
        func = value.func
        if func.__dict__.get("fw_value") is getattr and \
                len(value.args) == 2 and isinstance(value.args[1], ast.Constant):
            return str(value.args[1].value)
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "t")
        return _hint_of(name)
    return "t"


@functools.lru_cache(maxsize=1024)  # (a few names make most temporaries)
def _hint_of(name: str) -> str:
    """The hint for a call of `name`."""
    if is_generated(name):  # calling a temporary: name the result after it
        name = name[len(RESERVED_PREFIX):].rstrip("0123456789")
    return name.replace("build_", "").replace("get", "").strip("_") or "t"


def _before_continue(body: List[ast.stmt], again: List[ast.stmt]) -> List[ast.stmt]:
    """Insert a copy of `again` before each `continue` of this loop (not inner loops)."""
    if not again:
        return body
    out: List[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.Continue):
            out.extend(clone(s) for s in again)
        elif isinstance(stmt, ast.If):
            stmt.body = _before_continue(stmt.body, again)
            stmt.orelse = _before_continue(stmt.orelse, again)
        out.append(stmt)
    return out
