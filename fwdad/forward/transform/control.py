"""The forward transform's statements that test primals or hold blocks (a mixin of
forward/transform/dual_code.py's _Forward, whose operands, constants and blocks these use).

    if t:              ->  Line("use", control=ast.If, body=[...])   if t.primal:
    for v in xs:       ->  Line("for", ...)                          for v in _fw_iterate(xs):
    try: ...           ->  Line("try", body=[...], orelse=[part Lines])  try: ...
    with m as v: ...   ->  Line("unknown", the header, body=[...])   with ...
A statement no Line describes (a loop over a tuple) is made here, its blocks
printed from their Lines, which go nowhere else, nor do the names its blocks read.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Tuple

from fwdad.core import duals
from fwdad.forward import contexts
from fwdad.forward.optimizer.lines import Line, LineTable, Test
from fwdad.forward.transform.astbuild import LOAD, STORE
from fwdad.forward.transform.plain_code import PlainCode


class ControlStatements:
    """if, while, for, assert, raise, try and with, for forward/transform/dual_code.py."""

    lines: LineTable  # the Lines of the function being transformed
    plain: PlainCode  # prints the blocks of a statement no Line describes

    def s_If(self, node: ast.If) -> None:
        self.branch(ast.If, node)

    def s_While(self, node: ast.While) -> None:
        self.branch(ast.While, node)

    def branch(self, kind: type, node: Any) -> None:
        """`if`/`while` on the primal of the test (`if not t.primal:` for `if not t:`)."""
        test = node.test
        emitted = self.test(test)
        negated = isinstance(test, ast.UnaryOp)
        known = self.primal_test(test.operand if negated else test, emitted, negated, False)
        saved = self.unread(known is None)
        body = self.block_lines(node.body)
        orelse = self.block_lines(node.orelse) if node.orelse else []
        self.lines = saved
        if known is None:
            self.lines.unknown(kind(test=emitted, body=self.plain.statements(body),
                                    orelse=self.plain.statements(orelse)))
        else:
            self.use_line(kind, [("test", known)], body, orelse)

    def unread(self, yes: bool = True) -> LineTable:
        """If `yes`, send the Lines of the statements made next where the optimizer does
        not read them (those inside a statement it leaves as it is) until the caller
        puts back the table this returns. (Not a context manager: one runs for most
        statements, and an error drops the whole transform anyway.)"""
        saved = self.lines
        if yes:
            self.lines = LineTable(self.k.values, analysed=False)
        return saved

    def use_line(self, kind: type, tests: List[Tuple[str, Test]], body: List[Line],
                 orelse: List[Line]) -> None:
        """The Line of a statement of kind `kind` that tests primals: a `use` holding
        its tests and the Lines of its blocks."""
        line = self.lines.add(Line("use", control=kind))
        line.body, line.orelse, line.tests = body, orelse, tests

    def s_For(self, node: ast.For) -> None:
        known = type(node.target) is ast.Name
        saved = self.unread(not known)
        atom = self.operand(node.iter)
        iterate = self.helper(duals.iterate, "iterate").id
        body = self.block_lines(node.body)
        orelse = self.block_lines(node.orelse) if node.orelse else []
        self.lines = saved
        line = Line("for", None, [node.target.id] if known else [], [(atom, False)])
        line.body, line.orelse, line.func = body, orelse, iterate
        if known:
            self.lines.add(line)
        else:  # (`for a, b in xs:`, kept as it is)
            items = ast.Call(ast.Name(iterate, LOAD), [self.plain.atom(atom)], [])
            self.lines.unknown(ast.For(target=node.target, iter=items,
                                       body=self.plain.statements(body),
                                       orelse=self.plain.statements(orelse)))

    def s_Assert(self, node: ast.Assert) -> None:
        self.asserted(ast.Assert, node, ("test", "msg"))

    def s_Raise(self, node: ast.Raise) -> None:
        self.asserted(ast.Raise, node, ("exc", "cause"))

    def asserted(self, kind: type, node: Any, fields: Tuple[str, ...]) -> None:
        """`assert`/`raise` of primals: each field its atom's primal."""
        emitted: Dict[str, Optional[ast.expr]] = {}
        tests: Optional[List[Tuple[str, Test]]] = []
        for name in fields:
            atom = getattr(node, name)
            emitted[name] = None if atom is None else self.primal(atom)
            if atom is not None and tests is not None:
                test = self.primal_test(atom, emitted[name], False, True)
                tests = None if test is None else tests + [(name, test)]
        if tests is None:  # (the optimizer does not know one of them)
            self.lines.unknown(kind(**emitted))
        else:
            self.use_line(kind, tests, [], [])

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

    def s_Try(self, node: ast.Try) -> None:
        """A `try` Line: its body's Lines, and a `part` Line for each handler, for its
        else and for its finally, holding theirs. The optimizer's analyses are
        flow-insensitive (each local has one kind for the whole rule), so a handler,
        which may start after any line of the body, needs no join of its own."""
        if any(h.type is not None and type(h.type) not in (ast.Name, ast.Constant)
               for h in node.handlers):  # (normalized code tests atoms: not met)
            saved = self.unread()
            stmt = self.try_statement(node)
            self.lines = saved
            self.lines.unknown(stmt)
            return
        line = Line("try", control=ast.Try)
        line.body = self.block_lines(node.body)
        line.orelse = [self.handler_part(h) for h in node.handlers]
        for clause, block in (("else", node.orelse), ("finally", node.finalbody)):
            if block:
                part = Line("part")
                part.clause, part.body = clause, self.block_lines(block)
                line.orelse.append(part)
        self.lines.add(line)

    def handler_part(self, handler: ast.ExceptHandler) -> Line:
        """The `part` Line of `except E as e:`: its test is E's primal (a local's, or a
        global's, read as it is); `e = _fw_const(e)` starts its block (the exception
        caught is a plain value), kept as it is, so that `e` stays a Dual."""
        part = Line("part")
        part.clause, part.caught = "except", handler.name
        part.lineno = handler.__dict__.get("lineno")
        kind = handler.type
        if kind is not None:
            if type(kind) is ast.Name and kind.id in self.duals:
                part.tests = [("type", Test(self.lines.local(kind.id)))]
            else:
                part.tests = [("type", Test(None, literal=kind))]
        part.body = self.block_lines(handler.body)
        if handler.name:
            rebind = self.lines.kept(self.rebind_const(handler.name, handler))
            rebind.lineno = part.lineno
            part.body.insert(0, rebind)
        return part

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

    def s_With(self, node: ast.With) -> None:
        """`with m as v:` enters `_fw_entered(m)`, which runs m's `__enter__` and
        `__exit__` through their rules (forward/contexts.py): v is a Dual. Its Line is
        an unknown one for the header, kept as it is (m and v stay Duals), holding its
        body's Lines, which the optimizer reads as any block's."""
        item = node.items[0]
        manager = ast.Call(func=self.helper(contexts.entered, "entered"),
                           args=[self.value(item.context_expr)], keywords=[])
        new = ast.withitem(context_expr=manager, optional_vars=item.optional_vars)
        line = self.lines.kept(ast.With(items=[new], body=[ast.Pass()]))
        line.body = self.block_lines(node.body)
        self.lines.add(line)

    def rebind_const(self, name: str, like: ast.AST) -> ast.stmt:
        """`name = _fw_const(name)`: a plain value bound by Python becomes a Dual."""
        return ast.copy_location(ast.Assign(targets=[ast.Name(name, STORE)],
                                            value=self.plain.constant(name)), like)
