"""The grammar fwdad accepts: tables of allowed and rejected AST nodes.

`check` runs before any pass, so a construct fwdad cannot differentiate is reported at
the user's line, with what to do, instead of failing somewhere inside a transform.
"""
from __future__ import annotations

import ast
import linecache
from typing import Dict, List, Optional

from fwdad.astwalk import walk
from fwdad.errors import UnsupportedSyntaxError, user_code
from fwdad.normalize.names import RESERVED_PREFIX
from fwdad.source import FunctionSource

# node type -> (what it is, what to do instead)
REJECTED: Dict[type, tuple] = {
    ast.Yield: ("a generator (yield)", "return a list instead of yielding items"),
    ast.YieldFrom: ("a generator (yield from)", "return a list instead of yielding"),
    ast.AsyncFunctionDef: ("an async function", "differentiate a plain function"),
    ast.Await: ("await", "differentiate a plain function"),
    ast.AsyncFor: ("async for", "use a plain for loop"),
    ast.AsyncWith: ("async with", "use a plain with statement"),
    ast.ClassDef: ("a class defined inside the function",
                   "define the class at module level"),
    ast.Match: ("a match statement", "use if/elif"),
}
if hasattr(ast, "TryStar"):
    REJECTED[ast.TryStar] = ("try/except*", "use a plain try/except outside")

ALLOWED = (
    ast.FunctionDef, ast.Lambda, ast.arguments, ast.arg, ast.keyword, ast.Return,
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Pass, ast.Break,
    ast.Continue, ast.If, ast.While, ast.For, ast.Assert, ast.Delete, ast.Raise,
    ast.Try, ast.ExceptHandler, ast.With, ast.withitem, ast.Global, ast.Nonlocal,
    ast.Import, ast.ImportFrom, ast.alias,
    ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.IfExp,
    ast.Attribute, ast.Subscript, ast.Slice, ast.Starred, ast.Name, ast.Constant,
    ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.comprehension, ast.NamedExpr, ast.JoinedStr,
    ast.FormattedValue, ast.expr_context, ast.boolop, ast.operator, ast.unaryop,
    ast.cmpop,
)

_STRING_EVAL = {"eval", "exec"}
# Allowed node types that `_problem` has nothing more to ask of.
_PLAIN = {cls for cls in (getattr(ast, name) for name in dir(ast))
          if isinstance(cls, type) and issubclass(cls, ALLOWED) and cls not in REJECTED
          and cls not in (ast.Name, ast.arg, ast.Call, ast.Dict, ast.ExceptHandler)}


def check(src: FunctionSource,
          groups: Optional[Dict[type, List[ast.AST]]] = None) -> None:
    """Raise UnsupportedSyntaxError at the first construct fwdad does not support.
    `groups`, when given, is `walk_by_class(src.tree)`.

    Raises:
        UnsupportedSyntaxError: names the construct, the function, and file:line.
    """
    # Higher order: generated rules use the reserved names themselves.
    generated = src.filename.startswith("<fwdad ")
    if groups is not None and not _may_reject(groups, generated):
        return  # (the usual case: only the groups of a few classes are read)
    # (walk skips Load/Store/Del, which are allowed anyway)
    for node in walk(src.tree):
        kind = type(node)
        if kind in _PLAIN or kind is ast.Name and (
                generated or not node.id.startswith(RESERVED_PREFIX)):
            continue
        problem = _problem(node, generated)
        if problem is not None:
            what, todo = problem
            if kind in (ast.Yield, ast.YieldFrom) and _is_context_manager(src):
                todo = _MANAGER_TODO
            _reject(src, node, what, todo)


# A generator made a context manager by @contextlib.contextmanager: a list of items is
# no way to write it; a class with __enter__ and __exit__ is (fwdad differentiates both).
_MANAGER_TODO = ("write the context manager as a class whose __enter__ returns what "
                 "`yield` gives and whose __exit__ does what follows it")


def _is_context_manager(src: FunctionSource) -> bool:
    """Whether a decorator line right above the def names contextmanager (the tree has
    lost its decorators)."""
    if src.text is None:
        return False
    lines, k = linecache.getlines(src.filename), src.text[1] - 2
    while 0 <= k < len(lines) and lines[k].lstrip().startswith("@"):
        if "contextmanager" in lines[k]:
            return True
        k -= 1
    return False


def _may_reject(groups: Dict[type, List[ast.AST]], generated: bool) -> bool:
    """Whether some node of the groups may be rejected (then the ordered walk finds
    the first)."""
    for kind, group in groups.items():
        if kind in _PLAIN or kind is ast.Name and generated:
            continue
        if kind is ast.Name:  # (the commonest nodes: each distinct name looked at once)
            if any(name.startswith(RESERVED_PREFIX) for name in {n.id for n in group}):
                return True
        elif kind is ast.Call:
            if any(type(n.func) is ast.Name and n.func.id in _STRING_EVAL for n in group):
                return True
        elif any(_problem(node, generated) is not None for node in group):
            return True
    return False


def _problem(node: ast.AST, generated: bool = False) -> Optional[tuple]:
    if type(node) in REJECTED:
        return REJECTED[type(node)]
    if isinstance(node, (ast.Name, ast.arg)) and not generated:
        name = node.id if isinstance(node, ast.Name) else node.arg
        if name.startswith(RESERVED_PREFIX):
            return (f"the name {name!r}", f"rename it: names starting with "
                    f"{RESERVED_PREFIX!r} are reserved for fwdad's generated code")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in _STRING_EVAL:
        return (f"{node.func.id}() of a string", "write the code out in the function")
    if isinstance(node, ast.Dict) and None in node.keys:
        return ("a dict display with ** unpacking", "build the dict with dict.update")
    if isinstance(node, ast.ExceptHandler) and node.name \
            and node.name.startswith(RESERVED_PREFIX):
        return (f"the name {node.name!r}", "rename it: the prefix is reserved")
    if not isinstance(node, ALLOWED):
        return (f"the construct {type(node).__name__}", "rewrite it with plain statements")
    return None


def _reject(src: FunctionSource, node: ast.AST, what: str, todo: str) -> None:
    lineno = getattr(node, "lineno", src.tree.lineno)
    err = UnsupportedSyntaxError(
        f"fwdad cannot differentiate {what}{user_code(src.name, src.filename, lineno)}: "
        f"{todo}.")
    err.filename, err.lineno = src.filename, lineno
    raise err
