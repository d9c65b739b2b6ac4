"""What an inlinable template is: a primitive's math as a primal and a tangent expression.

A template's parameters come in pairs (`x, dx`); its tangent may name the primal
result `out`. The optimizer (forward/optimizer/inline.py) substitutes a call's operands into
the two expressions and binds the names they read from `globals` as constants:

    Template("_sin", ["x"], ["dx"], <math.sin(x)>, <math.cos(x) * dx>, {"math": math})

Templates are written as functions in forward/optimizer/templates.py (the operators) and made
from the derivative table for elementwise functions (rules/derivative_code.py); the
registry keeps each on its primitive's entry.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Dict, List


@dataclass
class Template:
    """A parsed template: its operand names and the two expressions."""

    name: str
    params: List[str]      # primal names, in call order
    tangents: List[str]    # their tangent names
    primal: ast.expr
    tangent: ast.expr
    globals: Dict[str, Any]
    uses_out: bool = False  # the tangent reads the primal result `out`
    # The tangent may run before the primal (it frees memory sooner): it cannot raise
    # where the primal would raise another error. True for NumPy and operators.
    tangent_first: bool = False


def reads_out(tangent: ast.expr) -> bool:
    """Whether a tangent expression reads the primal result `out`."""
    return any(isinstance(n, ast.Name) and n.id == "out" for n in ast.walk(tangent))
