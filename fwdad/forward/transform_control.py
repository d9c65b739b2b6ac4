"""The forward transform's statements that test primals or hold blocks (a mixin of
forward/transform.py's _Forward, whose operands, constants and blocks these use).

    if t:                       ->  if t.primal:                 Line("use", body=[...])
    for v in xs:                ->  for v in _fw_iterate(xs):    Line("for", ...)
    try: ...                    ->  try: ...                     Line("unknown")
The Lines of a statement the optimizer leaves as it is (try, with, a loop over a tuple)
go nowhere, nor do the names its blocks read.
"""
from __future__ import annotations

import ast
import contextlib
from typing import Any, Iterator, List, Optional

from fwdad.forward import contexts, runtime
from fwdad.forward.astbuild import LOAD, STORE
from fwdad.forward.lines import Atom, Line, LineTable


class ControlStatements:
    """if, while, for, assert, raise, try and with, for forward/transform.py."""

    lines: LineTable  # the Lines of the function being transformed
    tested: List[Atom]  # the locals the statement being made tests (reads_primal)

    def s_If(self, node: ast.If) -> List[ast.stmt]:
        return self.branch(ast.If, node)

    def s_While(self, node: ast.While) -> List[ast.stmt]:
        return self.branch(ast.While, node)

    def branch(self, kind: type, node: Any) -> List[ast.stmt]:
        """`if`/`while` on the primal of the test."""
        test, self.tested = node.test, []
        known = self.reads_primal(test.operand if isinstance(test, ast.UnaryOp) else test,
                                  False)
        tested = self.tested
        with self.unread(not known):
            body, body_lines = self.block_lines(node.body)
            orelse, else_lines = self.block_lines(node.orelse) if node.orelse else ([], [])
        stmt = kind(test=self.test(test), body=body, orelse=orelse)
        self.blocks_line(stmt, known, tested, body_lines, else_lines)
        return [stmt]

    @contextlib.contextmanager
    def unread(self, yes: bool = True) -> Iterator[None]:
        """While the body runs (if `yes`), statements go to Lines the optimizer does not
        read: those inside a statement it leaves as it is."""
        saved = self.lines
        if yes:
            self.lines = LineTable(self.k.values)
        try:
            yield
        finally:
            self.lines = saved

    def blocks_line(self, stmt: ast.stmt, known: bool, tested: List[Atom],
                    body: List[Line], orelse: List[Line]) -> None:
        """The Line of a statement that tests primals: a `use` holding the Lines of its
        blocks and the locals it tests (`tested`), or unknown."""
        if not known:
            self.lines.unknown(stmt)
            return
        line = self.lines.add(Line("use", stmt))
        line.body, line.orelse, line.tested = body, orelse, tested

    def s_For(self, node: ast.For) -> List[ast.stmt]:
        known = type(node.target) is ast.Name
        with self.unread(not known):
            item, atom = self.operand(node.iter)
            items = ast.Call(func=self.helper(runtime.iterate, "iterate"),
                             args=[item], keywords=[])
            body, body_lines = self.block_lines(node.body)
            orelse, else_lines = self.block_lines(node.orelse) if node.orelse else ([], [])
        stmt = ast.For(target=node.target, iter=items, body=body, orelse=orelse)
        if known:
            line = self.lines.add(Line("for", stmt, [node.target.id], [(atom, False)]))
            line.body, line.orelse = body_lines, else_lines
        else:
            self.lines.unknown(stmt)
        return [stmt]

    def s_Assert(self, node: ast.Assert) -> List[ast.stmt]:
        msg = None if node.msg is None else self.primal(node.msg)
        stmt = ast.Assert(test=self.primal(node.test), msg=msg)
        known = self.reads_primals(node.test, node.msg)
        self.blocks_line(stmt, known, self.tested, [], [])
        return [stmt]

    def s_Raise(self, node: ast.Raise) -> List[ast.stmt]:
        exc = None if node.exc is None else self.primal(node.exc)
        cause = None if node.cause is None else self.primal(node.cause)
        stmt = ast.Raise(exc=exc, cause=cause)
        known = self.reads_primals(node.exc, node.cause)
        self.blocks_line(stmt, known, self.tested, [], [])
        return [stmt]

    def reads_primals(self, *atoms: Optional[ast.expr]) -> bool:
        self.tested = []
        return all(self.reads_primal(a, True) for a in atoms if a is not None)

    def reads_primal(self, atom: ast.expr, strip_not: bool) -> bool:
        """Whether `self.primal(atom)` is what the optimizer reads: `t.primal` of a
        local, or a literal (with `strip_not`, also `not` a literal)."""
        if type(atom) is ast.Name and atom.id in self.duals:
            self.tested.append(self.lines.local(atom.id))
            return True
        if strip_not and isinstance(atom, ast.UnaryOp) and isinstance(atom.op, ast.Not):
            atom = atom.operand
        return isinstance(atom, ast.Constant)

    def s_Try(self, node: ast.Try) -> List[ast.stmt]:
        with self.unread():
            stmt = self.try_statement(node)
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
        with self.unread():
            manager = ast.Call(func=self.helper(contexts.entered, "entered"),
                               args=[self.value(item.context_expr)], keywords=[])
            new = ast.withitem(context_expr=manager, optional_vars=item.optional_vars)
            stmt = ast.With(items=[new], body=self.block(node.body))
        self.lines.unknown(stmt)
        return [stmt]

    def rebind_const(self, name: str, like: ast.AST) -> ast.stmt:
        """`name = _fw_const(name)`: a plain value bound by Python becomes a Dual."""
        value = ast.Call(func=self.helper(runtime.const, "const"),
                         args=[ast.Name(name, LOAD)], keywords=[])
        return ast.copy_location(ast.Assign(targets=[ast.Name(name, STORE)],
                                            value=value), like)
