"""Normalized code -> Dual code, one line at a time.

    y = operator.mul(x, s)      ->  y = _fw_mul(x, s)          primitive: frule bound
    z = helper(y)               ->  z = _fw_helper(y)          static call: derived rule
    w = f(z)      (f local)     ->  w = _fw_call(f, z)         dynamic call: runtime cache
    u = operator.add(y, 1.0)    ->  u = _fw_add(y, _fw_1_0)    constants are Duals
    v = g(K)      (K global)    ->  v = _fw_g(_fw_const(K))    globals are read live
    if t:                       ->  if t.primal:
    for v in xs:                ->  for v in _fw_iterate(xs):

Every local holds a Dual. Names the rule binds (bound rules, constant Duals, helpers)
become closure constants, collected in `Constants`. Each statement it emits for the rule's
own body gets a Line (forward/optimizer/lines.py) saying what the transform knew of it: the callee
and its registry entry, the operands, whether the call is pure; the optimizer reads those.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Set, Tuple

from fwdad import lang
from fwdad.core import closures, duals
from fwdad.core.constants import Constants, short_name
from fwdad.errors import InternalError, where
from fwdad.forward import dispatch
from fwdad.forward.optimizer.lines import Atom, Line, LineTable, RuleLines
from fwdad.forward.transform.astbuild import LOAD, STORE, locate
from fwdad.forward.transform.control import ControlStatements
from fwdad.forward.transform.scopes import scope_of
from fwdad.normalize.refs import is_ref
from fwdad.rules.registry import entry_of
from fwdad.source import FunctionSource


def transform(tree: ast.FunctionDef, src: FunctionSource) -> tuple:
    """The Dual version of a normalized function, and the constants it uses."""
    rule, constants, _ = transform_lines(tree, src)
    return rule, constants


def transform_lines(tree: ast.FunctionDef, src: FunctionSource) -> tuple:
    """`transform`, and the Lines of the rule's body (a RuleLines) for the optimizer."""
    scope = scope_of(tree)
    constants = Constants(scope[2])
    forward = _Forward(src, constants)
    rule = forward.function(tree, set(), f"{src.name}_frule", top=True, scope=scope)
    return rule, constants, forward.rule_lines


class _Forward(ControlStatements):
    def __init__(self, src: FunctionSource, constants: Constants) -> None:
        self.src, self.k = src, constants
        self.duals: Set[str] = set()  # names holding Duals here
        self.globals: Set[str] = set()  # names stored plain: declared global, or
        # nonlocal to a def that is not differentiated
        self.callees: Dict[int, tuple] = {}  # id(static callee) -> (its rule's name,
        # the rule, its registry entry)
        self.lines = LineTable(constants.values)  # the Lines of the function emitted
        self.rule_lines: Optional[RuleLines] = None  # the top function's, once made

    def helper(self, fn: Any, hint: str) -> ast.Name:
        return self.k.bind(fn, hint)

    # ---- functions ------------------------------------------------------------------
    def function(self, node: ast.FunctionDef, outer: Set[str], name: str,
                 top: bool = False, scope: Optional[tuple] = None) -> ast.FunctionDef:
        saved = self.duals, self.globals, self.lines
        if not top:  # the optimizer leaves a nested def as it is: its Lines go nowhere
            self.lines = LineTable(self.k.values)
        bound, declared, _, nonlocals = scope or scope_of(node)
        # a nonlocal of a def outside the differentiated code holds a plain value: as
        # a global's, it is read live and stored without its tangent
        self.globals = declared | (nonlocals - outer)
        self.duals = (outer - self.globals) | (bound - self.globals)
        args = node.args
        new_args = ast.arguments(
            posonlyargs=args.posonlyargs, args=args.args, vararg=args.vararg,
            kwonlyargs=args.kwonlyargs, kw_defaults=[] if top else
            [None if d is None else self.value(d) for d in args.kw_defaults],
            kwarg=args.kwarg, defaults=[] if top else [self.value(d) for d in args.defaults])
        if top:
            new_args.kw_defaults = [None] * len(args.kwonlyargs)
        packs = self.pack_star_params(node)  # (their Lines go first)
        body, lines = self.block_lines(node.body)
        body, lines = packs + body, self.lines.block + lines
        if not isinstance(node.body[-1], (ast.Return, ast.Raise)):
            # falling off the end returns None: a Dual, as every call's result is
            none = self.helper(duals.NONE, "None")
            end = ast.copy_location(ast.Return(value=none), node.body[-1])
            body.append(end)
            lines.append(Line("use", end, args=[(self.lines.const(none.id), False)]))
        if top:
            self.rule_lines = RuleLines(lines, self.lines)
        self.duals, self.globals, self.lines = saved
        out = ast.FunctionDef(name=name, args=new_args, body=body, decorator_list=[],
                              returns=None, type_comment=None)
        return ast.copy_location(out, node)

    def pack_star_params(self, node: ast.FunctionDef) -> List[ast.stmt]:
        """`*args` arrives as a tuple of Duals and `**kw` as a dict of them: make each
        one Dual, as every other local is."""
        out = []
        for param, packer in ((node.args.vararg, duals.pack), (node.args.kwarg,
                                                                duals.pack_kw)):
            if param is not None:
                call = ast.Call(func=self.helper(packer, packer.__name__),
                                args=[ast.Name(param.arg, LOAD)], keywords=[])
                out.append(ast.copy_location(ast.Assign(
                    targets=[ast.Name(param.arg, STORE)], value=call), node))
                line = self.lines.call(packer, None, [(self.lines.local(param.arg), False)],
                                       [])
                line.node, line.targets, line.func = out[-1], [param.arg], call.func.id
                self.lines.add(line)
        return out

    def block(self, stmts: List[ast.stmt]) -> List[ast.stmt]:
        return self.block_lines(stmts)[0]

    def block_lines(self, stmts: List[ast.stmt]) -> Tuple[List[ast.stmt], List[Line]]:
        """The statements of a block, and their Lines (each method adds a Line for each
        statement it emits)."""
        table = self.lines
        saved, table.block = table.block, []
        out: List[ast.stmt] = []
        for stmt in stmts:
            method = getattr(self, "s_" + type(stmt).__name__, None)
            if method is None:
                raise InternalError(f"the forward transform met a {type(stmt).__name__}")
            for new in method(stmt):
                out.append(locate(new, stmt))
        if not out:
            out.append(ast.Pass())
            table.add(Line("keep", out[0]))
        lines, table.block = table.block, saved
        return out, lines

    # ---- statements -----------------------------------------------------------------
    def s_FunctionDef(self, node: ast.FunctionDef) -> List[ast.stmt]:
        inner = self.function(node, self.duals, node.name)
        wrap = ast.Call(func=self.helper(closures.closure, "closure"),
                        args=[ast.Name(node.name, LOAD)], keywords=[])
        closure = ast.Assign(targets=[ast.Name(node.name, STORE)], value=wrap)
        self.lines.unknown(inner)
        line = self.lines.call(closures.closure, None,
                               [(self.lines.local(node.name), False)], [])
        line.func = wrap.func.id
        self.add_line(closure, [node.name], line)
        return [inner, closure]

    def s_Assign(self, node: ast.Assign) -> List[ast.stmt]:
        target, value = node.targets[0], node.value
        named = type(target) is ast.Name
        known = target.id not in self.globals if named else \
            isinstance(target, ast.Tuple) and all(type(t) is ast.Name for t in target.elts)
        saved = self.unread(not known)
        if isinstance(target, ast.Tuple):  # a, b = fwdad.unpack(t, n, star)
            x, *counts = value.args
            item, atom = self.operand(x)
            unpack = self.helper(duals.unpack, "unpack")
            value = ast.Call(func=unpack, args=[item] + counts, keywords=[])
            line = Line("unpack", args=[(atom, False)])
            line.func, line.counts = unpack.id, counts
        elif isinstance(value, ast.Call):
            value, line = self.call(value)
        else:
            value, atom = self.operand(value)
            line = Line("copy", args=[(atom, False)])
        self.lines = saved
        if named and target.id in self.globals:  # store the value
            value = ast.Call(self.helper(duals.store_global, "store_global"), [value], [])
        stmt = ast.Assign([target], value)
        if known:
            self.add_line(stmt, [target.id] if named else [t.id for t in target.elts], line)
        else:
            self.lines.unknown(stmt)
        return [stmt]

    def s_Expr(self, node: ast.Expr) -> List[ast.stmt]:
        value, line = self.call(node.value)
        stmt = ast.Expr(value=value)
        self.add_line(stmt, [], line)
        return [stmt]

    def add_line(self, stmt: ast.stmt, targets: List[str], line: Line) -> None:
        """Add the Line of `stmt`, which assigns `targets`."""
        line.node, line.targets = stmt, targets
        self.lines.add(line)

    def s_Return(self, node: ast.Return) -> List[ast.stmt]:
        if node.value is not None:
            value, atom = self.operand(node.value)
        else:
            value = self.helper(duals.NONE, "None")
            atom = self.lines.const(value.id)
        stmt = ast.Return(value=value)
        self.lines.add(Line("use", stmt, args=[(atom, False)]))
        return [stmt]

    def s_keep(self, node: ast.stmt) -> List[ast.stmt]:
        self.lines.add(Line("keep", node))
        return [node]

    def s_other(self, node: ast.stmt) -> List[ast.stmt]:
        self.lines.unknown(node)
        return [node]

    s_Break = s_Continue = s_Pass = s_keep
    s_Delete = s_Global = s_Nonlocal = s_other
    s_Import = s_ImportFrom = s_other  # imported names hold plain values, read as constants

    # ---- expressions ----------------------------------------------------------------
    def call(self, node: ast.Call) -> Tuple[ast.Call, Line]:
        """The Dual call, and its Line (its statement and targets not yet set)."""
        args, arg_atoms = [], []
        for a in node.args:
            arg, atom = self.arg(a)
            args.append(arg)
            arg_atoms.append((atom, type(a) is ast.Starred))
        keywords, keyword_atoms = [], []
        for k in node.keywords:
            keyword, atom = self.keyword(k)
            keywords.append(keyword)
            keyword_atoms.append((k.arg, atom))
        func = node.func
        if is_ref(func):
            target = func.fw_value
            if target is lang.foreigncall:
                target, args, arg_atoms = node.args[0].fw_value, args[1:], arg_atoms[1:]
            known = self.callees.get(id(target))
            if known is None:
                rule = dispatch.static_rule(target, self.where(node))
                known = self.helper(rule, short_name(target)).id, rule, entry_of(target)
                if not isinstance(rule, dispatch.MissingRule):  # (it names the line)
                    self.callees[id(target)] = known
            name, rule, entry = known
            line = self.lines.call(rule, entry, arg_atoms, keyword_atoms)
            line.func = name
            return ast.Call(ast.Name(name, LOAD), args, keywords), line
        callee, atom = self.operand(func)
        call = ast.Call(self.helper(dispatch.call, "call"), [callee] + args, keywords)
        line = self.lines.call(dispatch.call, None, [(atom, False)] + arg_atoms,
                               keyword_atoms)
        line.func = call.func.id
        return call, line

    def arg(self, node: ast.expr) -> Tuple[ast.expr, Atom]:
        if isinstance(node, ast.Starred):
            value, atom = self.operand(node.value)
            items = ast.Call(func=self.helper(duals.unbox, "unbox"),
                             args=[value], keywords=[])
            return ast.Starred(value=items, ctx=ast.Load()), atom
        return self.operand(node)

    def keyword(self, node: ast.keyword) -> Tuple[ast.keyword, Atom]:
        value, atom = self.operand(node.value)
        if node.arg is None:
            items = ast.Call(func=self.helper(duals.unbox_kw, "unbox_kw"),
                             args=[value], keywords=[])
            return ast.keyword(arg=None, value=items), atom
        return ast.keyword(arg=node.arg, value=value), atom

    def value(self, atom: ast.expr) -> ast.expr:
        """The Dual expression for an atom of normalized code."""
        return self.operand(atom)[0]

    def operand(self, atom: ast.expr) -> Tuple[ast.expr, Atom]:
        """The Dual expression for an atom of normalized code, and its Atom."""
        kind = type(atom)
        if kind is ast.Constant:
            name = self.k.literal(atom.value)
            return name, self.lines.const(name.id)
        if is_ref(atom):
            name = self.k.bind(duals.const(atom.fw_value), short_name(atom.fw_value))
            return name, self.lines.const(name.id)
        if kind is ast.Name:
            if atom.id in self.duals:
                return ast.Name(atom.id, LOAD), self.lines.local(atom.id)
            return ast.Call(self.helper(duals.read_global, "global"),
                            [ast.Name(atom.id, LOAD)], []), self.lines.glob(atom.id)
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
