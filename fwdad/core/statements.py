"""The walk over a normalized function's statements that the forward and reverse line
transforms share: one method per statement kind (`s_If`, `s_Assign` ...), found by
name, and the control flow both keep exactly as the user wrote it.

    if t: ...                  ->  if <test(t)>: <block>
    while t: ...               ->  while <test(t)>: <block>
    for v in xs: ...           ->  for v in <items(xs)>: <block>
    try: ... except E as e:    ->  try: <block> except <kind(E)> as e: <handler_body>

A subclass says how a test, an iterable and an exception type read in its code, and
transforms the lines that compute (s_Assign, s_Expr ...); a statement kind with no
method is one the fence should have rejected.
"""
from __future__ import annotations

import ast
from typing import Any, List

from fwdad.errors import InternalError


class StatementTransform:
    """Transforms blocks of normalized statements; see the module docstring."""

    mode = "line"  # errors name it: "the reverse transform met a Lambda"

    def block(self, stmts: List[ast.stmt]) -> List[ast.stmt]:
        out: List[ast.stmt] = []
        for stmt in stmts:
            method = getattr(self, "s_" + type(stmt).__name__, None)
            if method is None:
                raise InternalError(f"the {self.mode} transform met a {type(stmt).__name__}")
            out.extend(self.locate(new, stmt) for new in method(stmt))
        return out or [ast.Pass()]

    def locate(self, new: ast.stmt, old: ast.stmt) -> ast.stmt:
        """`new`, placed at the user's line of `old`."""
        return ast.copy_location(new, old)

    def optional_block(self, stmts: List[ast.stmt]) -> List[ast.stmt]:
        """An `else:` or `finally:` block: empty stays empty."""
        return self.block(stmts) if stmts else []

    # ---- what a subclass says -------------------------------------------------------
    def test(self, node: ast.expr) -> ast.expr:
        """What `if` and `while` test."""
        raise NotImplementedError

    def items(self, node: ast.expr) -> ast.expr:
        """What `for` iterates over."""
        raise NotImplementedError

    def kind(self, node: ast.expr) -> ast.expr:
        """The exception type an `except` clause names."""
        raise NotImplementedError

    def handler_body(self, handler: ast.ExceptHandler) -> List[ast.stmt]:
        return self.block(handler.body)

    # ---- control flow -----------------------------------------------------------------
    def s_If(self, node: ast.If) -> List[ast.stmt]:
        return [ast.If(test=self.test(node.test), body=self.block(node.body),
                       orelse=self.optional_block(node.orelse))]

    def s_While(self, node: ast.While) -> List[ast.stmt]:
        return [ast.While(test=self.test(node.test), body=self.block(node.body),
                          orelse=self.optional_block(node.orelse))]

    def s_For(self, node: ast.For) -> List[ast.stmt]:
        return [ast.For(target=node.target, iter=self.items(node.iter),
                        body=self.block(node.body), orelse=self.optional_block(node.orelse))]

    def s_Try(self, node: ast.Try) -> List[ast.stmt]:
        handlers: List[Any] = [ast.copy_location(ast.ExceptHandler(
            type=None if h.type is None else self.kind(h.type), name=h.name,
            body=self.handler_body(h)), h) for h in node.handlers]
        return [ast.Try(body=self.block(node.body), handlers=handlers,
                        orelse=self.optional_block(node.orelse),
                        finalbody=self.optional_block(node.finalbody))]
