"""AST -> function. Keeps the readable source and registers it with linecache.

The rendered rule gets a comment `# line N` wherever the user's line changes, so
tracebacks and pdb show generated lines that point back to the code they came from.
Constants are closure cells; the user's own free variables keep their own cells, and
the user's module globals are the rule's globals, so both are read live.
"""
from __future__ import annotations

import ast
import itertools
import linecache
import textwrap
import types
from typing import Any, Dict, Sequence

import astor

_serial = itertools.count(1)


def render(tree: ast.AST) -> str:
    return astor.to_source(tree)


def annotate_lines(text: str, tree: ast.FunctionDef, filename: str) -> str:
    """Append `# line N` (N in the user's file) to each line that starts a statement
    from a new user line. The rendered text is parsed again and its statements matched
    with `tree`'s in order."""
    rendered = ast.parse(text).body[0]
    lines = text.splitlines()
    last = None
    pairs = zip(_statements(rendered), _statements(tree))
    for new, old in pairs:
        user_line = getattr(old, "lineno", None)
        if user_line is None or user_line == last:
            continue
        last = user_line
        index = new.lineno - 1
        lines[index] = f"{lines[index]}  # line {user_line}"
    return "\n".join(lines) + "\n"


def _statements(tree: ast.AST):
    """The statements below `tree`, in source order (depth first)."""
    out = []
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.stmt):
            out.append(child)
        out.extend(_statements(child))
    return out


def compile_function(tree: ast.FunctionDef, constants: Dict[str, Any],
                     user_cells: Dict[str, Any], globals_: Dict[str, Any],
                     defaults: Sequence[Any], kwdefaults: Dict[str, Any],
                     filename: str, header: str) -> types.FunctionType:
    """Build the function `tree` defines. Returns it with `.source` set."""
    body = annotate_lines(render(tree), tree, filename)
    source = f"# {header}\n{body}"
    free = sorted(set(constants) | set(user_cells))
    factory = f"def _fw_factory({', '.join(free)}):\n" + textwrap.indent(source, "    ")
    name = f"<fwdad {tree.name} #{next(_serial)}>"
    linecache.cache[name] = (len(factory), None, factory.splitlines(True), name)
    module = compile(factory, name, "exec")
    code = _code_named(_code_named(module, "_fw_factory"), tree.name)
    cells = {k: types.CellType(v) for k, v in constants.items()}
    cells.update(user_cells)
    fn = types.FunctionType(code, globals_, tree.name, tuple(defaults) or None,
                            tuple(cells[v] for v in code.co_freevars))
    fn.__kwdefaults__ = kwdefaults or None
    fn.source = source
    return fn


def _code_named(code: types.CodeType, name: str) -> types.CodeType:
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    raise LookupError(name)
