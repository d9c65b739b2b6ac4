"""Syntax tree -> text of generated code, with the user's line of every line written.

`lines(tree)` writes statement by statement (expressions through fwdad/unparse.py) and
notes, as it writes each line, the `lineno` of the statement it comes from: the user's
line, since generated statements keep the location of the code they were made from.
Lines that start no statement (`else:`, `finally:`) keep the line before them; so does
a statement without a location. No re-parse, no second walk.
"""
from __future__ import annotations

import ast
from collections import UserString
from typing import Any, Callable, Dict, List, Optional, Tuple

from fwdad.unparse import BINARY, TEST, TUPLE, expression

_Name = ast.Name

INDENT = "    "


def render(tree: ast.AST) -> str:
    """The text of a statement, a module or an expression."""
    if isinstance(tree, ast.expr):
        return expression(tree) + "\n"
    return "\n".join(lines(tree)[0]) + "\n"


def lines(tree: ast.AST) -> Tuple[List[str], List[Optional[int]]]:
    """The lines of `tree` (a statement or a module) and, for each, the user's line it
    comes from (None before the first located statement inside `tree`; the location of
    `tree` itself does not count, the way a rule's `def` is not the user's `def`)."""
    writer = _Writer()
    if isinstance(tree, ast.Module):
        writer.body(tree.body, "")
    else:
        _STATEMENTS.get(type(tree), _Writer.other)(writer, tree, "")
    return writer.lines, writer.users


class LazyText(UserString):
    """A string made on first read by `make(*args)`: `rule.normalized_source` is
    `LazyText(render, normalized)`, so building a rule does not pay for text that only
    `fwdad show --normalized` reads. It has every str method, prints and compares as
    its text; pass `str(text)` where a real str is required (re, json).
    """

    def __init__(self, make: Any, *args: Any) -> None:
        if isinstance(make, str) and not args:  # a str method's result, made into one
            self._make, self._text = None, make
        else:
            self._make, self._args, self._text = make, args, None

    @property
    def data(self) -> str:
        if self._text is None:
            self._text = self._make(*self._args)
            self._make = self._args = None
        return self._text


class _Writer:
    """Appends lines of text, each with the current user line."""

    def __init__(self) -> None:
        self.lines: List[str] = []
        self.users: List[Optional[int]] = []
        self.user: Optional[int] = None

    def line(self, text: str) -> None:
        self.lines.append(text)
        self.users.append(self.user)

    def body(self, statements: list, indent: str) -> None:
        lines, users, simple = self.lines, self.users, _SIMPLE
        for node in statements:
            user = getattr(node, "lineno", None)
            if user is not None:
                self.user = user
            write = simple.get(type(node))
            if write is not None:
                lines.append(indent + write(node))
                users.append(self.user)
            else:
                _STATEMENTS.get(type(node), _Writer.other)(self, node, indent)

    def block(self, header: str, statements: list, indent: str) -> None:
        self.line(f"{indent}{header}:")
        self.body(statements, indent + INDENT)

    def orelse(self, statements: list, indent: str) -> None:
        if statements:
            self.block("else", statements, indent)

    # ---- compound statements ------------------------------------------------------
    def function(self, node: ast.FunctionDef, indent: str) -> None:
        for decorator in node.decorator_list:
            self.line(f"{indent}@{expression(decorator, TEST)}")
        prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        returns = "" if node.returns is None else f" -> {expression(node.returns, TEST)}"
        self.block(f"{prefix} {node.name}({_arguments(node.args)}){returns}", node.body,
                   indent)

    def class_(self, node: ast.ClassDef, indent: str) -> None:
        for decorator in node.decorator_list:
            self.line(f"{indent}@{expression(decorator, TEST)}")
        bases = [expression(b, TEST) for b in node.bases] + \
            [f"**{expression(k.value, TEST)}" if k.arg is None else
             f"{k.arg}={expression(k.value, TEST)}" for k in node.keywords]
        header = f"class {node.name}({', '.join(bases)})" if bases else f"class {node.name}"
        self.block(header, node.body, indent)

    def if_(self, node: ast.If, indent: str, keyword: str = "if") -> None:
        self.block(f"{keyword} {expression(node.test, TEST)}", node.body, indent)
        orelse = node.orelse
        if len(orelse) == 1 and type(orelse[0]) is ast.If:
            elif_ = orelse[0]
            if getattr(elif_, "lineno", None) is not None:
                self.user = elif_.lineno
            self.if_(elif_, indent, "elif")
        else:
            self.orelse(orelse, indent)

    def for_(self, node: ast.For, indent: str) -> None:
        prefix = "async for" if isinstance(node, ast.AsyncFor) else "for"
        header = f"{prefix} {expression(node.target, TUPLE)} in {expression(node.iter)}"
        self.block(header, node.body, indent)
        self.orelse(node.orelse, indent)

    def while_(self, node: ast.While, indent: str) -> None:
        self.block(f"while {expression(node.test, TEST)}", node.body, indent)
        self.orelse(node.orelse, indent)

    def with_(self, node: ast.With, indent: str) -> None:
        items = [expression(i.context_expr, TEST) if i.optional_vars is None else
                 f"{expression(i.context_expr, TEST)} as {expression(i.optional_vars, TEST)}"
                 for i in node.items]
        prefix = "async with" if isinstance(node, ast.AsyncWith) else "with"
        self.block(f"{prefix} {', '.join(items)}", node.body, indent)

    def try_(self, node: ast.Try, indent: str) -> None:
        self.block("try", node.body, indent)
        for handler in node.handlers:
            if getattr(handler, "lineno", None) is not None:
                self.user = handler.lineno
            header = "except"
            if handler.type is not None:
                header += " " + expression(handler.type, TEST)
            if handler.name is not None:
                header += " as " + handler.name
            self.block(header, handler.body, indent)
        self.orelse(node.orelse, indent)
        if node.finalbody:
            self.block("finally", node.finalbody, indent)

    def other(self, node: ast.AST, indent: str) -> None:
        """Any other statement, through ast.unparse."""
        for text in ast.unparse(node).splitlines():
            self.line(indent + text)


def _arguments(args: ast.arguments) -> str:
    return ast.unparse(args) if (args.defaults or args.kw_defaults or args.vararg or
                                 args.kwarg or args.posonlyargs or args.kwonlyargs or
                                 any(a.annotation for a in args.args)) \
        else ", ".join(a.arg for a in args.args)


# ---- simple statements: one line each -----------------------------------------------
def _assign(node: ast.Assign) -> str:
    targets = node.targets
    value = expression(node.value)
    if len(targets) == 1 and type(targets[0]) is ast.Name:
        return f"{targets[0].id} = {value}"
    return " = ".join(expression(t) for t in targets) + " = " + value


def _augassign(node: ast.AugAssign) -> str:
    symbol = BINARY[type(node.op)][0]
    return f"{expression(node.target)} {symbol}= {expression(node.value)}"


def _expr(node: ast.Expr) -> str:
    return expression(node.value)


def _return(node: ast.Return) -> str:
    return "return" if node.value is None else f"return {expression(node.value)}"


def _delete(node: ast.Delete) -> str:
    return "del " + ", ".join([t.id if type(t) is _Name else expression(t, TEST)
                               for t in node.targets])


def _raise(node: ast.Raise) -> str:
    text = "raise" if node.exc is None else f"raise {expression(node.exc, TEST)}"
    return text if node.cause is None else f"{text} from {expression(node.cause, TEST)}"


def _assert(node: ast.Assert) -> str:
    text = f"assert {expression(node.test, TEST)}"
    return text if node.msg is None else f"{text}, {expression(node.msg, TEST)}"


_SIMPLE: Dict[type, Callable[[ast.stmt], str]] = {
    ast.Assign: _assign, ast.AugAssign: _augassign, ast.Expr: _expr,
    ast.Return: _return, ast.Delete: _delete, ast.Raise: _raise, ast.Assert: _assert,
    ast.Pass: lambda node: "pass", ast.Break: lambda node: "break",
    ast.Continue: lambda node: "continue",
    ast.Global: lambda node: "global " + ", ".join(node.names),
    ast.Nonlocal: lambda node: "nonlocal " + ", ".join(node.names),
}
_STATEMENTS: Dict[type, Callable[[_Writer, ast.AST, str], None]] = {
    ast.FunctionDef: _Writer.function, ast.AsyncFunctionDef: _Writer.function,
    ast.ClassDef: _Writer.class_, ast.If: _Writer.if_, ast.For: _Writer.for_,
    ast.AsyncFor: _Writer.for_, ast.While: _Writer.while_, ast.With: _Writer.with_,
    ast.AsyncWith: _Writer.with_, ast.Try: _Writer.try_,
}
