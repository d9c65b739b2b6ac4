"""Function -> its AST, globals and closure cells; or the verdict that it is foreign.

The AST is taken from the parsed file that defines the function, so every node keeps
the line number it has in the user's file (error messages and tracebacks point there).
A lambda becomes an equivalent `def` whose body returns the lambda's expression.
"""
from __future__ import annotations

import ast
import functools
import inspect
import linecache
import os
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from fwdad.astwalk import child_nodes, clone, copy_location, fix_missing_locations
from fwdad.errors import SourceUnavailableError, a_type, describe
from fwdad.probe import probe


@dataclass
class FunctionSource:
    """What the pipeline needs to know about one Python function."""

    fn: types.FunctionType
    tree: ast.FunctionDef
    filename: str
    globals: Dict[str, Any]
    cells: Dict[str, Any] = field(default_factory=dict)  # free variable -> cell
    # The def's lines and the number of its first line, which `tree` was parsed from
    # (None for a lambda, whose tree is a copy): see `again`.
    text: Optional[tuple] = None

    @property
    def name(self) -> str:
        return self.fn.__name__ if self.fn.__name__ != "<lambda>" else "lambda"

    def live_value(self, name: str, missing: Any = None) -> Any:
        """What the free name `name` holds now (a closure cell's contents, else the
        global), or `missing` when it holds nothing (an empty cell, an unbound global)."""
        cell = self.cells.get(name)
        if cell is not None:
            try:
                return cell.cell_contents
            except ValueError:  # (an empty cell)
                return missing
        return self.globals.get(name, missing)


def python_function(fn: Any) -> Optional[types.FunctionType]:
    """The plain Python function behind `fn` (unwrapping methods, and the `__wrapped__`
    of a wrapper that has no Python code of its own, such as `functools.lru_cache`'s),
    or None when `fn` has no Python code.

    A Python function made by a decorator with `functools.wraps` is itself: its own
    code (which may scale, shift or reorder the arguments) is what runs, so it is what
    is differentiated, not the function it wraps (fwdad's own wrappers, which only
    call through, excepted)."""
    fn = probe(fn, "__func__", fn)
    for _ in range(_MOST_WRAPPERS):
        if isinstance(fn, types.FunctionType) and not _calls_through(fn):
            return fn
        inner = probe(fn, "__wrapped__", None)
        if inner is None:
            break
        fn = inner
    return fn if isinstance(fn, types.FunctionType) else None


_MOST_WRAPPERS = 100  # (a longer chain of __wrapped__ is a cycle: inspect.unwrap's limit)
_FWDAD_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _calls_through(fn: types.FunctionType) -> bool:
    """fwdad's own wrappers (derive_frule's, static_graph's): `fn(*args, **kwargs)`."""
    return hasattr(fn, "__wrapped__") and fn.__code__.co_filename.startswith(_FWDAD_DIR)


def required_python_function(fn: Any) -> types.FunctionType:
    """`python_function(fn)`, or an error saying why `fn` has no rule to derive.

    Raises:
        SourceUnavailableError: `fn` is a class, or has no Python code (written in C).
    """
    py = python_function(fn)
    if py is not None:
        return py
    if isinstance(fn, type):
        raise SourceUnavailableError(
            f"{describe(fn)} is a class, not a function: fwdad derives the rules of its "
            f"methods. Name one (e.g. {fn.__name__}.__init__ or {fn.__name__}.method), "
            f"or a function that uses the class.")
    kind = "written in C" if isinstance(fn, (types.BuiltinFunctionType, np.ufunc)) \
        else f"it is {a_type(fn)}"
    raise SourceUnavailableError(
        f"{describe(fn)} has no Python source ({kind}), so fwdad cannot derive a rule "
        f"for it. Register one with `@fwdad.frule({describe(fn)})` (see docs/writing-rules.md).")


def has_source(fn: Any) -> bool:
    """True when `fn` is a Python function whose source can be parsed: code that is not
    *foreign*."""
    fn = python_function(fn)
    if fn is None:
        return False
    code = fn.__code__
    module = _parsed_file(code.co_filename)
    if module is None:
        return False
    # (code made by exec, as dataclasses' methods are, is "in" a file such as
    # '<string>', whose lines linecache may hold for other code: its def must be there)
    return not code.co_filename.startswith("<") or _find_node(module, code) is not None


# Library code fwdad does not trace into: without a rule, a call is foreign.
LIBRARY_PACKAGES = ("numpy", "scipy", "fwdad", "builtins")
# ...except fwdad's own modules written as user code is, to be differentiated.
TRACED_MODULES = ("fwdad.structured",)


def is_library(fn: Any) -> bool:
    module = getattr(fn, "__module__", None) or ""
    return module.split(".")[0] in LIBRARY_PACKAGES and module not in TRACED_MODULES


# Higher order (fwdad/forward/nested/): frules and their helpers are differentiated
# again like user code, so fwdad's own rule modules are not library internals; so are
# the level-2 rules and jvp's rule, for a third level of jvp and deeper.
RULE_MODULES = ("fwdad.rules.", "fwdad.dual", "fwdad.reverse.",  # (over_reverse.py)
                "fwdad.attributes", "fwdad.managers", "fwdad.forward.nested.", "fwdad.higher")


def is_foreign(fn: Any) -> bool:
    """Code fwdad cannot derive a rule for: no Python source, or library internals.
    User classes are not foreign: they are built by new plus the rule of __init__."""
    if is_library(fn) and not (getattr(fn, "__module__", None) or "").startswith(
            RULE_MODULES):
        return True
    return not isinstance(fn, type) and python_function(fn) is None


def is_generated(fn: Any) -> bool:
    """A rule fwdad generated (fwdad/compile.py names its code `<fwdad ...>`)."""
    fn = python_function(fn)
    return fn is not None and fn.__code__.co_filename.startswith("<fwdad ")


def get_source(fn: Callable) -> FunctionSource:
    """The AST of `fn`, with its globals and closure cells.

    Raises:
        SourceUnavailableError: `fn` is not a Python function, or its source file is
            gone (defined with exec, or in an interactive session without a history).
    """
    py = required_python_function(fn)
    code = py.__code__
    cells = dict(zip(code.co_freevars, py.__closure__ or ()))
    alone = _def_alone(code)  # a def without decorators: no need to parse the file
    if alone is not None:
        return FunctionSource(py, alone[0], code.co_filename, py.__globals__, cells,
                              alone[1])
    module = _parsed_file(code.co_filename)
    node = _find_node(module, code) if module is not None else None
    if node is None and module is not None and code.co_name == "<lambda>":
        raise SourceUnavailableError(
            f"{describe(py)} at {code.co_filename}:{code.co_firstlineno} is one of several "
            f"lambdas with the same arguments on that line, which fwdad cannot tell apart: "
            f"give it a name with def.")
    if node is None:
        raise SourceUnavailableError(
            f"the source of {describe(py)} cannot be found (its code says it is in "
            f"{code.co_filename!r}). Functions made with exec or eval, or typed at an "
            f"interactive prompt, have no source to read: define it in a file, or "
            f"register a rule for it with `@fwdad.frule`.")
    tree, text = _as_function_def(node, code.co_filename)
    return FunctionSource(py, tree, code.co_filename, py.__globals__, cells, text)


def again(src: FunctionSource) -> Optional[FunctionSource]:
    """`src` with a fresh tree, parsed from the same text as its own (not from the
    file, which may have changed since); None for a lambda."""
    if src.text is None:
        return None
    lines, first = src.text
    tree = _parse_lines(list(lines), first)
    tree.decorator_list = []
    return FunctionSource(src.fn, tree, src.filename, src.globals, src.cells, src.text)


@functools.lru_cache(maxsize=256)
def _parse_cached(filename: str, text: str) -> Optional[ast.Module]:
    try:
        return ast.parse(text, filename)
    except SyntaxError:
        return None


def _parsed_file(filename: str) -> Optional[ast.Module]:
    lines = linecache.getlines(filename)
    if not lines:
        return None
    return _parse_cached(filename, "".join(lines))


def _find_node(module: ast.Module, code: types.CodeType) -> Optional[ast.AST]:
    """The def or lambda that compiled to `code`: same first line, same name and same
    arguments. Two lambdas with the same arguments on one line cannot be told apart."""
    found: List[ast.AST] = []
    line = code.co_firstlineno
    stack = [module]
    while stack:  # only into nodes whose lines include the code's first line
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if first == line and node.name == code.co_name:
                found.append(node)
        elif isinstance(node, ast.Lambda) and code.co_name == "<lambda>" \
                and node.lineno == line and _same_args(node, code):
            found.append(node)
        stack.extend(child for child in reversed(child_nodes(node))
                     if _may_hold_line(child, line))
    if len(found) > 1:
        found = [n for n in found if _contains_code(n, code)]
    return found[0] if len(found) == 1 else None


def _may_hold_line(node: ast.AST, line: int) -> bool:
    """False when `node` surely lies wholly before or after `line` (a def starts at its
    first decorator)."""
    start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
    if start is None or end is None:
        return True
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        start = min([start] + [d.lineno for d in decorators])
    return start <= line <= end


def _contains_code(node: ast.AST, code: types.CodeType) -> bool:
    """Whether the code's instructions lie within the node's columns: tells apart lambdas
    with the same arguments on one line (Python 3.11 records instruction columns)."""
    positions = getattr(code, "co_positions", None)
    spots = [(line, col) for line, _, col, end in (positions() if positions else ())
             if line is not None and col is not None and (col, end) != (0, 0)]
    if not spots:
        return False
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    return all(start <= spot <= end for spot in spots)


def _same_args(node: ast.Lambda, code: types.CodeType) -> bool:
    """The lambda's parameters are the code's, all of them: `lambda: f(lambda y: y)`
    has an outer lambda without any (a prefix match took it for the inner one)."""
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    count = code.co_argcount + code.co_kwonlyargcount + \
        bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return tuple(names) == code.co_varnames[:count]


def _as_function_def(node: ast.AST, filename: str) -> tuple:
    """A fresh tree of the def (without its decorators), or of a def equivalent to the
    lambda, and the text it was parsed from (see FunctionSource.text). The passes
    rewrite it in place, so it shares no node with the cached parse: a def is parsed
    again from its own lines (cheaper than copying the tree)."""
    if isinstance(node, ast.Lambda):
        node = clone(node)
        body = [copy_location(ast.Return(value=node.body), node.body)]
        out = ast.FunctionDef(name="lambda", args=node.args, body=body, decorator_list=[],
                              returns=None, type_comment=None)
        return fix_missing_locations(copy_location(out, node)), None
    again_ = _parse_again(node, filename)
    out, text = again_ if again_ is not None else (clone(node), None)
    out.decorator_list = []
    return out, text


def _def_alone(code: types.CodeType) -> Optional[tuple]:
    """The def of `code` parsed from its own lines alone, and those lines and the
    number of the first, when it has no decorators (else None, and the whole file is
    searched).

    Its lines run from its first line up to the first line after it that is no further
    indented (blank lines and comments aside), trailing comments dropped. A line that
    continues the def (inside brackets, a string or after a backslash) leaves the lines
    before it unfinished, so they fail to parse; when they parse, they are exactly the
    lines _parse_again reads, from the def's line to its `end_lineno`."""
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    if code.co_name == "<lambda>" or not 0 < first <= len(lines):
        return None
    header = lines[first - 1]
    text = header.lstrip()
    if not text.startswith(("def ", "async def ")):
        return None
    indent = len(header) - len(text)
    last = first
    for number in range(first + 1, len(lines) + 1):
        line = lines[number - 1]
        text = line.lstrip()
        if not text or text[0] == "#":
            continue
        if len(line) - len(text) <= indent:
            break
        last = number
    text = tuple(lines[first - 1:last])
    tree = _parse_lines(list(text), first)
    if not isinstance(tree, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or tree.name != code.co_name or tree.lineno != first:
        return None
    return tree, (text, first)


def _parse_lines(lines: List[str], first: int) -> Optional[ast.AST]:
    """The first statement of `lines` (dedented), numbered from line `first`."""
    blank = "\n" * (first - 1)  # so that the parse numbers lines as the file does
    try:
        return ast.parse(blank + _dedent(lines)).body[0]
    except (SyntaxError, IndexError):  # e.g. a string less indented than the def
        return None


def _dedent(lines: List[str]) -> str:
    """`textwrap.dedent("".join(lines))`, where the first line is the least indented.
    (Its regular expressions cost more than the rest of reading a def: the usual case,
    where every other line starts with the first line's indentation and none is made of
    spaces and tabs alone, is a slice.)"""
    indent = len(lines[0]) - len(lines[0].lstrip(" \t"))
    margin = lines[0][:indent]
    for line in lines:
        if line != "\n" and (not line.startswith(margin) or not line.strip(" \t\n")):
            return textwrap.dedent("".join(lines))
    if not indent:
        return "".join(lines)
    return "".join([line if line == "\n" else line[indent:] for line in lines])


def _parse_again(node: ast.AST, filename: str) -> Optional[tuple]:
    """The def parsed from its own lines, with the line numbers it has in the file, and
    those lines and the number of the first."""
    text = tuple(linecache.getlines(filename)[node.lineno - 1:node.end_lineno])
    tree = _parse_lines(list(text), node.lineno)
    if not isinstance(tree, type(node)) or tree.name != node.name:
        return None
    return tree, (text, node.lineno)
