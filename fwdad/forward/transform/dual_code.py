"""Normalized code -> Dual code, one line at a time.

    y = operator.mul(x, s)      ->  y = _fw_mul(x, s)          primitive: frule bound
    z = helper(y)               ->  z = _fw_helper(y)          static call: derived rule
    w = f(z)      (f local)     ->  w = _fw_call(f, z)         dynamic call: runtime cache
    u = operator.add(y, 1.0)    ->  u = _fw_add(y, _fw_1_0)    constants are Duals
    v = g(K)      (K global)    ->  v = _fw_g(_fw_const(K))    globals are read live
    if t:                       ->  if t.primal:
    for v in xs:                ->  for v in _fw_iterate(xs):

Every local holds a Dual. Names the rule binds (bound rules, constant Duals, helpers)
become closure constants, collected in `Constants`. Each statement becomes a Line
(forward/optimizer/lines.py) saying what the transform knew of it: the callee and its
registry entry, the operands, whether the call is pure. The plain rule is printed from
the Lines (forward/transform/plain_code.py), and the optimizer rewrites them; a statement
no Line field describes (a nested def, a with's header) is made here, as Dual code,
and its Line holds it.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Set, Type

from fwdad import lang
from fwdad.callables import is_bound_c_method
from fwdad.core import closures, duals
from fwdad.core.constants import Constants, short_name
from fwdad.errors import InternalError, user_code
from fwdad.forward import dispatch
from fwdad.forward.optimizer.lines import Atom, Line, LineTable, RuleLines
from fwdad.forward.transform.control import ControlStatements
from fwdad.forward.transform.plain_code import PlainCode
from fwdad.forward.transform.scopes import scope_of
from fwdad.normalize.refs import is_ref
from fwdad.rules.registry import entry_of
from fwdad.source import FunctionSource


def transform(tree: ast.FunctionDef, src: FunctionSource,
              code: Type[PlainCode] = PlainCode) -> tuple:
    """The Dual version of a normalized function, and the constants it uses; `code`
    prints it (forward/schedule/recording.py's prints the recording rule)."""
    rule, constants, lines = transform_lines(tree, src, code)
    return plain_rule(rule, constants, lines, code=code), constants


def transform_lines(tree: ast.FunctionDef, src: FunctionSource,
                    code: Type[PlainCode] = PlainCode) -> tuple:
    """The Dual version's def with no body yet, its constants, and the Lines of its
    body (a RuleLines): `plain_rule` prints them, or the optimizer rewrites them."""
    scope = scope_of(tree)
    constants = Constants(scope[2])
    forward = _Forward(src, constants, code(constants))
    rule = forward.function(tree, set(), f"{src.name}_frule", top=True, scope=scope)
    return rule, constants, forward.rule_lines


def plain_rule(rule: ast.FunctionDef, constants: Constants, lines: RuleLines,
               free: bool = False, code: Type[PlainCode] = PlainCode) -> ast.FunctionDef:
    """The plain rule: the def of `transform_lines` with the body its Lines print (before
    the optimizer changes them); `free` deletes temporaries after their last use
    (PlainCode.statements)."""
    body = code(constants).statements(lines.body, free)
    return ast.copy_location(ast.FunctionDef(rule.name, rule.args, body, [], None, None),
                             rule)


class _Forward(ControlStatements):
    def __init__(self, src: FunctionSource, constants: Constants, plain: PlainCode) -> None:
        self.src, self.k = src, constants
        self.duals: Set[str] = set()  # names holding Duals here
        self.globals: Set[str] = set()  # names stored plain: declared global, or
        # nonlocal to a def that is not differentiated
        self.callees: Dict[int, tuple] = {}  # id(static callee) -> (its rule's name,
        # the rule, its registry entry)
        self.lines = LineTable(constants.values)  # the Lines of the function emitted
        self.rule_lines: Optional[RuleLines] = None  # the top function's, once made
        self.plain = plain  # prints the blocks of the statements made here

    def helper(self, fn: Any, hint: str) -> ast.Name:
        return self.k.bind(fn, hint)

    # ---- functions ------------------------------------------------------------------
    def function(self, node: ast.FunctionDef, outer: Set[str], name: str,
                 top: bool = False, scope: Optional[tuple] = None) -> ast.FunctionDef:
        saved = self.duals, self.globals, self.lines
        if not top:  # the optimizer leaves a nested def as it is: its Lines go nowhere
            self.lines = LineTable(self.k.values, analysed=False)
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
        self.pack_star_params(node)  # (their Lines go first)
        lines = self.lines.block + self.block_lines(node.body)
        if not isinstance(node.body[-1], (ast.Return, ast.Raise)):
            # falling off the end returns None: a Dual, as every call's result is
            none = self.helper(duals.NONE, "None")
            end = Line("use", args=[(self.lines.const(none.id), False)], control=ast.Return)
            end.lineno = node.body[-1].__dict__.get("lineno")
            lines.append(end)
        if top:
            self.rule_lines = RuleLines(lines, self.lines)
        self.duals, self.globals, self.lines = saved
        # (a nested def is printed now; the top one's body is printed or optimized later)
        body = [] if top else self.plain.statements(lines)
        out = ast.FunctionDef(name=name, args=new_args, body=body, decorator_list=[],
                              returns=None, type_comment=None)
        return ast.copy_location(out, node)

    def pack_star_params(self, node: ast.FunctionDef) -> None:
        """`*args` arrives as a tuple of Duals and `**kw` as a dict of them: make each
        one Dual, as every other local is."""
        for param, packer in ((node.args.vararg, duals.pack), (node.args.kwarg,
                                                                duals.pack_kw)):
            if param is not None:
                line = self.lines.call(packer, None, [(self.lines.local(param.arg), False)],
                                       [])
                line.targets, line.func = [param.arg], self.helper(packer, packer.__name__).id
                line.lineno = node.__dict__.get("lineno")
                self.lines.add(line)

    def block(self, stmts: List[ast.stmt]) -> List[ast.stmt]:
        """The Dual statements of a block, printed now (the block of a statement no
        Line describes)."""
        return self.plain.statements(self.block_lines(stmts))

    def block_lines(self, stmts: List[ast.stmt]) -> List[Line]:
        """The Lines of a block: each method adds a Line for each statement it makes,
        at the user's line of the statement it transforms."""
        table = self.lines
        saved, table.block = table.block, []
        for stmt in stmts:
            method = getattr(self, "s_" + type(stmt).__name__, None)
            if method is None:
                raise InternalError(f"the forward transform met a {type(stmt).__name__}")
            start = len(table.block)
            method(stmt)
            lineno = stmt.__dict__.get("lineno")
            if lineno is not None:
                for line in table.block[start:]:
                    line.lineno = lineno
        if not table.block:
            table.add(Line("keep", ast.Pass()))
        lines, table.block = table.block, saved
        return lines

    # ---- statements -----------------------------------------------------------------
    def s_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.lines.unknown(self.function(node, self.duals, node.name))
        line = self.lines.call(closures.closure, None,
                               [(self.lines.local(node.name), False)], [])
        line.func = self.helper(closures.closure, "closure").id
        self.add_line(line, [node.name])

    def s_Assign(self, node: ast.Assign) -> None:
        target, value = node.targets[0], node.value
        named = type(target) is ast.Name
        known = target.id not in self.globals if named else \
            isinstance(target, ast.Tuple) and all(type(t) is ast.Name for t in target.elts)
        saved = self.unread(not known)
        if isinstance(target, ast.Tuple):  # a, b = fwdad.unpack(t, n, star)
            x, *counts = value.args
            line = Line("unpack", args=[(self.operand(x), False)])
            line.func, line.counts = self.helper(duals.unpack, "unpack").id, counts
        elif isinstance(value, ast.Call):
            line = self.call(value)
        else:
            line = Line("copy", args=[(self.operand(value), False)])
        self.lines = saved
        if known:
            self.add_line(line, [target.id] if named else [t.id for t in target.elts])
            return
        assigned = self.plain.value(line)
        if named and target.id in self.globals:  # store the value
            assigned = ast.Call(self.helper(duals.store_global, "store_global"),
                                [assigned], [])
        self.lines.unknown(ast.Assign([target], assigned))

    def s_Expr(self, node: ast.Expr) -> None:
        self.add_line(self.call(node.value), [])

    def add_line(self, line: Line, targets: List[str]) -> None:
        """Add `line`, which assigns `targets`."""
        line.targets = targets
        self.lines.add(line)

    def s_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            atom = self.operand(node.value)
        else:
            atom = self.lines.const(self.helper(duals.NONE, "None").id)
        self.lines.add(Line("use", args=[(atom, False)], control=ast.Return))

    def s_keep(self, node: ast.stmt) -> None:
        self.lines.add(Line("keep", node))

    def s_other(self, node: ast.stmt) -> None:
        self.lines.unknown(node)

    s_Break = s_Continue = s_Pass = s_keep
    s_Delete = s_Global = s_Nonlocal = s_other
    s_Import = s_ImportFrom = s_other  # imported names hold plain values, read as constants

    # ---- expressions ----------------------------------------------------------------
    def call(self, node: ast.Call) -> Line:
        """The Line of a call (its targets not yet set)."""
        arg_atoms = [(self.arg(a), type(a) is ast.Starred) for a in node.args]
        keyword_atoms = [(k.arg, self.keyword(k)) for k in node.keywords]
        func = node.func
        if is_ref(func):
            target = func.fw_value
            if target is lang.foreigncall:
                target, arg_atoms = node.args[0].fw_value, arg_atoms[1:]
            known = self.callees.get(id(target))
            if known is None:
                rule = dispatch.static_rule(target, self.where(node))
                # (a C method bound to an instance, `CNT = L.count`: its rule binds the
                # owner, the entry's function (list.count) wants it too, so no entry)
                entry = None if is_bound_c_method(target) else entry_of(target)
                known = self.helper(rule, short_name(target)).id, rule, entry
                if not isinstance(rule, dispatch.MissingRule):  # (it names the line)
                    self.callees[id(target)] = known
            name, rule, entry = known
            line = self.lines.call(rule, entry, arg_atoms, keyword_atoms)
            line.func = name
            return line
        callee = self.operand(func)
        line = self.lines.call(dispatch.call, None, [(callee, False)] + arg_atoms,
                               keyword_atoms)
        line.func = self.helper(dispatch.call, "call").id
        return line

    # (the helpers a starred argument and a global read call are bound here, where the
    # transform meets them, so that each constant keeps the name it has always had)
    def arg(self, node: ast.expr) -> Atom:
        if isinstance(node, ast.Starred):
            atom = self.operand(node.value)
            self.helper(duals.unbox, "unbox")
            return atom
        return self.operand(node)

    def keyword(self, node: ast.keyword) -> Atom:
        atom = self.operand(node.value)
        if node.arg is None:
            self.helper(duals.unbox_kw, "unbox_kw")
        return atom

    def value(self, atom: ast.expr) -> ast.expr:
        """The Dual expression for an atom of normalized code."""
        return self.plain.atom(self.operand(atom))

    def operand(self, atom: ast.expr) -> Atom:
        """The Atom of an atom of normalized code."""
        kind = type(atom)
        if kind is ast.Constant:
            return self.lines.const(self.k.literal(atom.value).id)
        if is_ref(atom):
            value = atom.fw_value  # type: ignore[attr-defined]
            return self.lines.const(self.k.bind(duals.const(value), short_name(value)).id)
        if kind is ast.Name:
            if atom.id in self.duals:
                return self.lines.local(atom.id)
            self.helper(duals.read_global, "global")
            return self.lines.glob(atom.id)
        raise InternalError(f"the forward transform met a {type(atom).__name__} argument")

    def primal(self, atom: ast.expr) -> ast.expr:
        """The plain value of an atom (what branches and asserts test)."""
        if isinstance(atom, ast.Name) and atom.id in self.duals:
            return self.plain.primal(atom.id)
        return atom

    def test(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(op=ast.Not(), operand=self.primal(node.operand))
        return self.primal(node)

    def where(self, node: ast.AST) -> str:
        """` in f at file.py:12`, the user's function and line of `node`, for the
        messages of rules built here that raise later (a callee with no rule)."""
        return user_code(self.src.name, self.src.filename, getattr(node, "lineno", None))
