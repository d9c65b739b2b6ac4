"""The forward transform's statements that test primals or hold blocks (a mixin of
forward/transform/dual_code.py's _Forward, whose operands, constants and blocks these use).

    if t:                       ->  if t.primal:                 Line("use", body=[...])
    for v in xs:                ->  for v in _fw_iterate(xs):    Line("for", ...)
    try: ...                    ->  try: ...                     Line("unknown")
The Lines of a statement the optimizer leaves as it is (try, with, a loop over a tuple)
go nowhere, nor do the names its blocks read.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Tuple

from fwdad.core import duals
from fwdad.forward import contexts
from fwdad.forward.optimizer.lines import Line, LineTable, Test
from fwdad.forward.transform.astbuild import LOAD, STORE


class ControlStatements:
    """if, while, for, assert, raise, try and with, for forward/transform/dual_code.py."""

    lines: LineTable  # the Lines of the function being transformed

    def s_If(self, node: ast.If) -> List[ast.stmt]:
        return self.branch(ast.If, node)

    def s_While(self, node: ast.While) -> List[ast.stmt]:
        return self.branch(ast.While, node)

    def branch(self, kind: type, node: Any) -> List[ast.stmt]:
        """`if`/`while` on the primal of the test (`if not t.primal:` for `if not t:`)."""
        test = node.test
        emitted = self.test(test)
        negated = isinstance(test, ast.UnaryOp)
        known = self.primal_test(test.operand if negated else test, emitted, negated, False)
        saved = self.unread(known is None)
        body, body_lines = self.block_lines(node.body)
        orelse, else_lines = self.block_lines(node.orelse) if node.orelse else ([], [])
        self.lines = saved
        stmt = kind(test=emitted, body=body, orelse=orelse)
        self.use_line(stmt, None if known is None else [("test", known)], body_lines,
                      else_lines)
        return [stmt]

    def unread(self, yes: bool = True) -> LineTable:
        """If `yes`, send the Lines of the statements made next where the optimizer does
        not read them (those inside a statement it leaves as it is) until the caller
        puts back the table this returns. (Not a context manager: one runs for most
        statements, and an error drops the whole transform anyway.)"""
        saved = self.lines
        if yes:
            self.lines = LineTable(self.k.values)
        return saved

    def use_line(self, stmt: ast.stmt, tests: Optional[List[Tuple[str, Test]]],
                 body: List[Line], orelse: List[Line]) -> None:
        """The Line of a statement that tests primals: a `use` holding its tests and
        the Lines of its blocks, or unknown (`tests` None: the optimizer does not know
        one of them)."""
        if tests is None:
            self.lines.unknown(stmt)
            return
        line = self.lines.add(Line("use", stmt))
        line.body, line.orelse, line.tests = body, orelse, tests

    def s_For(self, node: ast.For) -> List[ast.stmt]:
        known = type(node.target) is ast.Name
        saved = self.unread(not known)
        item, atom = self.operand(node.iter)
        iterate = self.helper(duals.iterate, "iterate")
        items = ast.Call(func=iterate, args=[item], keywords=[])
        body, body_lines = self.block_lines(node.body)
        orelse, else_lines = self.block_lines(node.orelse) if node.orelse else ([], [])
        self.lines = saved
        stmt = ast.For(target=node.target, iter=items, body=body, orelse=orelse)
        if known:
            line = self.lines.add(Line("for", stmt, [node.target.id], [(atom, False)]))
            line.body, line.orelse, line.func = body_lines, else_lines, iterate.id
        else:
            self.lines.unknown(stmt)
        return [stmt]

    def s_Assert(self, node: ast.Assert) -> List[ast.stmt]:
        return self.asserted(ast.Assert, node, ("test", "msg"))

    def s_Raise(self, node: ast.Raise) -> List[ast.stmt]:
        return self.asserted(ast.Raise, node, ("exc", "cause"))

    def asserted(self, kind: type, node: Any, fields: Tuple[str, ...]) -> List[ast.stmt]:
        """`assert`/`raise` of primals: each field its atom's primal."""
        emitted: Dict[str, Optional[ast.expr]] = {}
        tests: Optional[List[Tuple[str, Test]]] = []
        for name in fields:
            atom = getattr(node, name)
            emitted[name] = None if atom is None else self.primal(atom)
            if atom is not None and tests is not None:
                test = self.primal_test(atom, emitted[name], False, True)
                tests = None if test is None else tests + [(name, test)]
        stmt = kind(**emitted)
        self.use_line(stmt, tests, [], [])
        return [stmt]

    def primal_test(self, atom: ast.expr, emitted: ast.expr, negated: bool,
                    strip_not: bool) -> Optional[Test]:
        """The Test of `emitted`, the primal of `atom` (`not` it when `negated`), if the
        optimizer knows it: `t.primal` of a local, or a literal (with `strip_not`, also
        `not` a literal), which it keeps as it is."""
        if type(atom) is ast.Name and atom.id in self.duals:
            return Test(self.lines.local(atom.id), negated)
        if strip_not and isinstance(atom, ast.UnaryOp) and isinstance(atom.op, ast.Not):
            atom = atom.operand
        return Test(None, False, emitted) if isinstance(atom, ast.Constant) else None

    def s_Try(self, node: ast.Try) -> List[ast.stmt]:
        saved = self.unread()
        stmt = self.try_statement(node)
        self.lines = saved
        self.lines.unknown(stmt)
        return [stmt]

    def try_statement(self, node: ast.Try) -> ast.Try:
        handlers = []
        for handler in node.handlers:
            body = self.block(handler.body)
            if handler.name:  # the exception itself is a plain value: make it a Dual
                body.insert(0, self.rebind_const(handler.name, handler))
            kind = None if handler.type is None else self.primal(handler.type)
            handlers.append(ast.copy_location(
                ast.ExceptHandler(type=kind, name=handler.name, body=body), handler))
        return ast.Try(body=self.block(node.body), handlers=handlers,
                       orelse=self.block(node.orelse) if node.orelse else [],
                       finalbody=self.block(node.finalbody) if node.finalbody else [])

    def s_With(self, node: ast.With) -> List[ast.stmt]:
        """`with m as v:` enters `_fw_entered(m)`, which runs m's `__enter__` and
        `__exit__` through their rules (forward/contexts.py): v is a Dual."""
        item = node.items[0]
        saved = self.unread()
        manager = ast.Call(func=self.helper(contexts.entered, "entered"),
                           args=[self.value(item.context_expr)], keywords=[])
        new = ast.withitem(context_expr=manager, optional_vars=item.optional_vars)
        stmt = ast.With(items=[new], body=self.block(node.body))
        self.lines = saved
        self.lines.unknown(stmt)
        return [stmt]

    def rebind_const(self, name: str, like: ast.AST) -> ast.stmt:
        """`name = _fw_const(name)`: a plain value bound by Python becomes a Dual."""
        value = ast.Call(func=self.helper(duals.const, "const"),
                         args=[ast.Name(name, LOAD)], keywords=[])
        return ast.copy_location(ast.Assign(targets=[ast.Name(name, STORE)],
                                            value=value), like)
