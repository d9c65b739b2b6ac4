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
from typing import Any, Dict, Optional, Sequence

import astor

_serial = itertools.count(1)

# generated file name -> (user's file, {generated line: user's line})
USER_LINES: Dict[str, tuple] = {}


def user_location(code_filename: str, lineno: int) -> Optional[tuple]:
    """The user's (file, line) that a line of generated code comes from."""
    entry = USER_LINES.get(code_filename)
    if entry is None or entry[1].get(lineno) is None:
        return None
    return entry[0], entry[1][lineno]


def render(tree: ast.AST) -> str:
    return astor.to_source(tree)


def annotate_lines(text: str, tree: ast.FunctionDef, filename: str) -> tuple:
    """Put the user's line above the generated lines that come from it:

        # line 4: y = x * math.sin(k * x)
        _fw_mul1 = _fw_mul(k, x)

    The rendered text is parsed again and its statements matched with `tree`'s in
    order. Returns the new text and a map from its line numbers to the user's."""
    rendered = ast.parse(text).body[0]
    starts = {}
    for new, old in zip(_statements(rendered), _statements(tree)):
        if getattr(old, "lineno", None) is not None:
            starts.setdefault(new.lineno, old.lineno)
    out, line_map, last = [], {}, None
    for number, line in enumerate(text.splitlines(), 1):
        user_line = starts.get(number, last)
        if number in starts and user_line != last:
            indent = line[:len(line) - len(line.lstrip())]
            code = linecache.getline(filename, user_line).strip()
            out.append(f"{indent}# line {user_line}: {code[:72]}")
        out.append(line)
        line_map[len(out)] = user_line
        last = user_line
    return "\n".join(out) + "\n", line_map


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
    body, line_map = annotate_lines(render(tree), tree, filename)
    source = f"# {header}\n{body}"
    free = sorted(set(constants) | set(user_cells))
    factory = f"def _fw_factory({', '.join(free)}):\n" + textwrap.indent(source, "    ")
    name = f"<fwdad {tree.name} #{next(_serial)}>"
    linecache.cache[name] = (len(factory), None, factory.splitlines(True), name)
    USER_LINES[name] = (filename, {k + 2: v for k, v in line_map.items()})
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
