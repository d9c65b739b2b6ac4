"""Operators, comparisons, subscripts and attributes become calls.

    a + b            ->  operator.add(a, b)
    a < b < c        ->  operator.lt(a, (_fw_b := b)) and operator.lt(_fw_b, c)
    x[i]             ->  operator.getitem(x, i)
    x[i] = v         ->  operator.setitem(x, i, v)
    x += v           ->  x = operator.iadd(x, v)        (keeps NumPy's in-place meaning)
    x[i] += v        ->  operator.setitem(x, i, operator.iadd(operator.getitem(x, i), v))
    x.a, x.a = v     ->  getattr(x, 'a'), setattr(x, 'a', v)
    del x[i], del x.a -> operator.delitem(x, i), delattr(x, 'a')

After this pass no BinOp, UnaryOp, Compare, Subscript, Attribute (other than static
references) or AugAssign is left; expressions may still nest.
"""
from __future__ import annotations

import ast
import builtins
import operator
from typing import List, Union

from fwdad.astwalk import Transformer, copy_location
from fwdad.normalize.names import Namer
from fwdad.normalize.refs import call, is_atom, is_ref

BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
          ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul",
          ast.LShift: "lshift", ast.RShift: "rshift", ast.BitOr: "or_",
          ast.BitXor: "xor", ast.BitAnd: "and_"}
INPLACE = {op: "i" + name.rstrip("_") for op, name in BINARY.items()}
UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Not: "not_", ast.Invert: "invert"}
COMPARE = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
           ast.GtE: "ge", ast.Is: "is_", ast.IsNot: "is_not", ast.In: "contains",
           ast.NotIn: "contains"}


def op_call(name: str, args: list, like: ast.AST) -> ast.Call:
    found = _OPERATORS.get(name)
    if found is None:
        found = _OPERATORS[name] = (getattr(operator, name), f"operator.{name}")
    return call(found[0], found[1], args, like)


_OPERATORS: dict = {}  # name -> (operator.<name>, its dotted name)
_BINARY_CALLEES = {op: (getattr(operator, name), f"operator.{name}")
                   for op, name in BINARY.items()}


def builtin_call(name: str, args: list, like: ast.AST) -> ast.Call:
    return call(getattr(builtins, name), name, args, like)


def run(tree: ast.FunctionDef, names: Namer) -> ast.FunctionDef:
    return Intrinsics(names).visit(tree)


Stmts = Union[ast.stmt, List[ast.stmt]]


class Intrinsics(Transformer):
    def __init__(self, names: Namer) -> None:
        self.names = names

    # ---- expressions ----------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> ast.Call:
        left, right, leaves = node.left, node.right, self._leaves
        # (visit_part, inline: the hot path, and arithmetic nests BinOps)
        if type(left) is ast.BinOp:
            left = self.visit_BinOp(left)
        elif type(left) not in leaves:
            left = self.visit(left)
        if type(right) is ast.BinOp:
            right = self.visit_BinOp(right)
        elif type(right) not in leaves:
            right = self.visit(right)
        fn, dotted = _BINARY_CALLEES[type(node.op)]  # (op_call, inline)
        return call(fn, dotted, [left, right], node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
                and isinstance(node.operand.value, (int, float, complex)):
            return copy_location(ast.Constant(-node.operand.value), node)
        return op_call(UNARY[type(node.op)], [node.operand], node)

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        tests, left = [], node.left
        for i, (cmp, right) in enumerate(zip(node.ops, node.comparators)):
            last = i == len(node.ops) - 1
            if not last and not is_atom(right):  # evaluate a middle operand once
                target = copy_location(self.names.name("cmp", ast.Store()), node)
                right = copy_location(ast.NamedExpr(target=target, value=right), node)
            tests.append(self._compare(cmp, left, right, node))
            left = copy_location(ast.Name(id=right.target.id, ctx=ast.Load()), node) \
                if isinstance(right, ast.NamedExpr) else right
        if len(tests) == 1:
            return tests[0]
        return copy_location(ast.BoolOp(op=ast.And(), values=tests), node)

    def _compare(self, cmp: ast.cmpop, left, right, like) -> ast.Call:
        if isinstance(cmp, (ast.In, ast.NotIn)):  # `a in b` is contains(b, a)
            test = op_call("contains", [right, left], like)
            return op_call("not_", [test], like) if isinstance(cmp, ast.NotIn) else test
        return op_call(COMPARE[type(cmp)], [left, right], like)

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):  # a part of an unpacking target
            return node
        return op_call("getitem", [node.value, node.slice], node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if is_ref(node):
            return node
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        attr = copy_location(ast.Constant(node.attr), node)
        return builtin_call("getattr", [node.value, attr], node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        """Remembers the first parameter, which a zero-argument super() passes."""
        params = node.args.posonlyargs + node.args.args
        saved, self.first_param = getattr(self, "first_param", None), \
            params[0].arg if params else None
        self.generic_visit(node)
        self.first_param = saved
        return node

    def visit_Call(self, node: ast.Call) -> ast.Call:
        """`super()` -> `super(__class__, self)`: the implicit arguments made explicit."""
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args \
                and getattr(self, "first_param", None):
            node.args = [copy_location(ast.Name(id=name, ctx=ast.Load()), node)
                         for name in ("__class__", self.first_param)]
        return node

    # ---- statements -----------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> Stmts:
        targets = node.targets
        if len(targets) == 1 and type(targets[0]) is ast.Name:  # (the usual case)
            node.value = self.visit_part(node.value)
            return node
        self.generic_visit_targets(node)
        if not any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in node.targets):
            return node
        out: List[ast.stmt] = []
        value = node.value
        if len(node.targets) > 1 or not is_atom(value):
            temp = copy_location(self.names.name("value"), node)
            stored = copy_location(ast.Name(id=temp.id, ctx=ast.Store()), node)
            out.append(copy_location(ast.Assign(targets=[stored], value=value), node))
            value = temp
        rest = [t for t in node.targets if not isinstance(t, (ast.Subscript, ast.Attribute))]
        if rest:
            out.append(copy_location(ast.Assign(targets=rest, value=value), node))
        for target in node.targets:
            if isinstance(target, (ast.Subscript, ast.Attribute)):
                out.append(self._store(target, value, node))
        return out

    def generic_visit_targets(self, node: ast.Assign) -> None:
        node.value = self.visit(node.value)
        node.targets = [self._visit_target(t) for t in node.targets]

    def _visit_target(self, target: ast.expr) -> ast.expr:
        if isinstance(target, ast.Subscript):
            target.value, target.slice = self.visit(target.value), self.visit(target.slice)
            return target
        if isinstance(target, ast.Attribute):
            target.value = self.visit(target.value)
            return target
        return self.visit(target)

    def _store(self, target: ast.expr, value: ast.expr, like: ast.AST) -> ast.Expr:
        if isinstance(target, ast.Subscript):
            store = op_call("setitem", [target.value, target.slice, value], like)
        else:
            attr = copy_location(ast.Constant(target.attr), like)
            store = builtin_call("setattr", [target.value, attr, value], like)
        return copy_location(ast.Expr(value=store), like)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Stmts:
        if node.value is None:
            return []
        assign = copy_location(ast.Assign(targets=[node.target], value=node.value), node)
        return self.visit_Assign(assign)

    def visit_AugAssign(self, node: ast.AugAssign) -> Stmts:
        node.value = self.visit(node.value)
        name = INPLACE[type(node.op)]
        target = node.target
        if isinstance(target, ast.Name):
            load = copy_location(ast.Name(id=target.id, ctx=ast.Load()), node)
            update = op_call(name, [load, node.value], node)
            return copy_location(ast.Assign(targets=[target], value=update), node)
        return self._augment_part(target, name, node)

    def _augment_part(self, target: ast.expr, name: str, node: ast.AugAssign) -> ast.Expr:
        """`x[i] += v` and `x.a += v`, evaluating x and i once, in Python's order."""
        obj = self._once(self.visit(target.value), "obj")
        if isinstance(target, ast.Subscript):
            key = self._once(self.visit(target.slice), "key")
            read = op_call("getitem", [_load_of(obj, node), _load_of(key, node)], node)
            update = op_call(name, [read, node.value], node)
            store = op_call("setitem", [obj, key, update], node)
        else:
            attr = copy_location(ast.Constant(target.attr), node)
            read = builtin_call("getattr", [_load_of(obj, node), attr], node)
            update = op_call(name, [read, node.value], node)
            store = builtin_call("setattr", [obj, attr, update], node)
        return copy_location(ast.Expr(value=store), node)

    def _once(self, expr: ast.expr, hint: str) -> ast.expr:
        if is_atom(expr):
            return expr
        target = copy_location(self.names.name(hint, ast.Store()), expr)
        return copy_location(ast.NamedExpr(target=target, value=expr), expr)

    def visit_Delete(self, node: ast.Delete) -> Stmts:
        out: List[ast.stmt] = []
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                args = [self.visit(target.value), self.visit(target.slice)]
                out.append(ast.Expr(value=op_call("delitem", args, node)))
            elif isinstance(target, ast.Attribute):
                args = [self.visit(target.value),
                        copy_location(ast.Constant(target.attr), target)]
                out.append(ast.Expr(value=builtin_call("delattr", args, node)))
            else:
                out.append(ast.Delete(targets=[target]))
        return [copy_location(s, node) for s in out]


def _load_of(expr: ast.expr, like: ast.AST) -> ast.expr:
    """The expression to reuse after `expr` was evaluated once (a walrus' name)."""
    if isinstance(expr, ast.NamedExpr):
        return copy_location(ast.Name(id=expr.target.id, ctx=ast.Load()), like)
    return expr
