"""AST -> function. Keeps the readable source and registers it with linecache.

The rule is rendered by fwdad/codegen.py, with a comment `# line N` wherever the
user's line changes, so tracebacks and pdb show generated lines that point back to the
code they came from.
Constants are closure cells; the user's own free variables keep their own cells, and
the user's module globals are the rule's globals, so both are read live.
"""
from __future__ import annotations

import ast
import itertools
import linecache
import types
from typing import Any, Dict, Optional, Sequence

from fwdad import codegen

_serial = itertools.count(1)

# generated file name -> (user's file, {generated line: user's line}, the user's function)
USER_LINES: Dict[str, tuple] = {}


def user_location(code_filename: str, lineno: int) -> Optional[tuple]:
    """The user's (file, line) that a line of generated code comes from."""
    entry = USER_LINES.get(code_filename)
    if entry is None or entry[1].get(lineno) is None:
        return None
    return entry[0], entry[1][lineno]


def user_function(code_filename: str) -> Optional[str]:
    """The qualified name of the user's function that the generated code of
    `code_filename` was derived from, when it is known."""
    entry = USER_LINES.get(code_filename)
    return None if entry is None else entry[2]


def _derived_from(header: str) -> Optional[str]:
    """The function a rule's header names: every header says "... rule of f (...)"."""
    _, found, rest = header.partition("rule of ")
    if not found:
        return None
    return rest.split(" (")[0] or None


def render(tree: ast.AST) -> str:
    """The text of a syntax tree (fwdad/codegen.py)."""
    return codegen.render(tree)


def annotate_lines(tree: ast.FunctionDef, filename: str) -> tuple:
    """The text of `tree` with the user's line above the generated lines that come
    from it:

        # line 4: y = x * math.sin(k * x)
        _fw_mul1 = _fw_mul(k, x)

    Returns the text and, for each of its lines, the user's line it comes from."""
    lines, users = codegen.lines(tree)
    user_code = linecache.getlines(filename)
    out, out_users, last = [], [], None
    for line, user_line in zip(lines, users):
        if user_line != last and user_line is not None:
            indent = line[:len(line) - len(line.lstrip())]
            code = user_code[user_line - 1].strip() if user_line <= len(user_code) else ""
            out.append(f"{indent}# line {user_line}: {code[:72]}")
            out_users.append(user_line)
        out.append(line)
        out_users.append(user_line)
        last = user_line
    return "\n".join(out) + "\n", out_users


def compile_function(tree: ast.FunctionDef, constants: Dict[str, Any],
                     user_cells: Dict[str, Any], globals_: Dict[str, Any],
                     defaults: Sequence[Any], kwdefaults: Dict[str, Any],
                     filename: str, header: str) -> types.FunctionType:
    """Build the function `tree` defines. Returns it with `.source` set."""
    body, line_users = annotate_lines(tree, filename)
    source = f"# {header}\n{body}"
    free = sorted(set(constants) | set(user_cells))
    factory = f"def _fw_factory({', '.join(free)}):\n    " + \
        source[:-1].replace("\n", "\n    ") + "\n"
    name = f"<fwdad {tree.name} #{next(_serial)}>"
    linecache.cache[name] = (len(factory), None, factory.splitlines(True), name)
    USER_LINES[name] = (filename, dict(enumerate(line_users, 3)),  # after def, header
                        _derived_from(header))
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
