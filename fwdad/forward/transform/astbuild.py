"""Small builders of AST nodes for generated code, and tangents' names."""
from __future__ import annotations

import ast
import math
from typing import Any, Optional

from fwdad.normalize.names import RESERVED_PREFIX, unused


def tangent_name(name: str, taken: set) -> str:
    """`x` -> `dx` (or `_fw_dx` if the user has a `dx`); `_fw_mul1` -> `_fw_dmul1`."""
    if name.startswith(RESERVED_PREFIX):
        return unused(RESERVED_PREFIX + "d" + name[len(RESERVED_PREFIX):], taken)
    return unused("d" + name if "d" + name not in taken else RESERVED_PREFIX + "d" + name,
                  taken)


# One instance of each context serves every node (as in trees ast.parse makes); nodes
# are built with positional fields, which is about three times faster than keywords.
LOAD, STORE, DEL = ast.Load(), ast.Store(), ast.Del()


def load(name: str) -> ast.Name:
    return ast.Name(name, LOAD)


def store(name: str) -> ast.Name:
    return ast.Name(name, STORE)


def attr(name: str, field: str) -> ast.Attribute:
    return ast.Attribute(ast.Name(name, LOAD), field, LOAD)


def assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Name(name, STORE)], value)


def call(func: ast.expr, *args: ast.expr, keywords=()) -> ast.Call:
    return ast.Call(func, list(args), list(keywords))


def literal(value: Any) -> Optional[ast.expr]:
    """A literal as code: a negative number as `-(2.0)`, so that `(-2.0) ** 2` renders
    with its parentheses; None for a float that is not finite (no literal spells it)."""
    if type(value) not in (int, float):
        return ast.Constant(value=value)
    if type(value) is float and not math.isfinite(value):
        return None
    if value < 0 or (value == 0 and math.copysign(1.0, value) < 0):
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-value))
    return ast.Constant(value=value)


def locate(new: ast.AST, old: ast.AST) -> ast.AST:
    """Give a generated statement the user's line of `old`: all that fwdad/codegen.py
    reads of a location (generated code is compiled from its text)."""
    lineno = old.__dict__.get("lineno")
    if lineno is not None:
        new.lineno = lineno
    return new
