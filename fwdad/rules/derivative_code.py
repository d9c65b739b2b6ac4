"""Rules made from the derivative table (rules/derivatives.py): one row's text becomes
the forward rule, the optimizer's template and the reverse rule.

    Unary(np.sin, math.sin, "cos(x)")  ->  def _sin(x: Dual) -> Dual:      (math's frule)
                                               x, dx = x.primal, x.tangent
                                               y = math.sin(x)
                                               return Dual(y, math.cos(x) * dx)

The derivative is parsed once; each family qualifies its function names (`cos` ->
`np.cos` or `math.cos`) and places the IEEE divisions (`divide`) where its operands
need them. The rules are compiled from syntax trees built from the skeletons below,
and their source is registered with linecache, so tracebacks show the generated lines.
Note: generating code rather than closing over a derivative function saves a call per
rule (the generated rules are as fast as the hand-written ones they replaced).
"""
from __future__ import annotations

import ast
import copy
import itertools
import linecache
import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import InternalError
from fwdad.rules.digamma import digamma
from fwdad.rules.ieee import divide, over_norm, unread_zero
from fwdad.rules.template import Template, reads_out

LN2, LN10 = math.log(2.0), math.log(10.0)


def _float_sign(x: float) -> float:
    """np.sign for a Python float, as a float (0.0 at 0, so |x| has derivative 0 there)."""
    return math.copysign(1.0, x) if x else 0.0


@dataclass(frozen=True)
class Family:
    """How a row's text reads in one kind of rule: which module its function names come
    from, which helpers it may name, and where a division needs `divide`:
    "numpy" (every operand is a NumPy value: plain `/`), "floats" (operands may be
    Python floats: `divide` wherever the denominator may be one) or "as written"."""

    module: str
    helpers: Dict[str, Any]
    division: str


_SHARED = {"divide": divide, "over_norm": over_norm, "unread_zero": unread_zero,
           "LN2": LN2, "LN10": LN10}
UFUNC_RULE = Family("np", _SHARED, "numpy")          # ufuncs.apply_ufunc's tangents
NUMPY_ON_FLOATS = Family("np", _SHARED, "floats")    # ufunc templates and rrules
MATH = Family("math", {**_SHARED, "digamma": digamma, "sign": _float_sign}, "as written")
_MODULES = {"np": np, "math": math}


# ---- the text of a row, in a family -------------------------------------------------------
def expression(text: str, family: Family, params: tuple, result: str = "y") -> ast.expr:
    """The parsed `text` with its names qualified for `family` and `y` named `result`."""
    tree = ast.parse(text, mode="eval").body
    tree = _Qualify(family, params, result).visit(tree)
    if family.division != "as written":
        tree = _Divisions(family.division == "numpy").visit(tree)
    return ast.fix_missing_locations(tree)


class _Qualify(ast.NodeTransformer):
    def __init__(self, family: Family, params: tuple, result: str) -> None:
        self.family, self.params, self.result = family, params, result

    def visit_Name(self, node: ast.Name) -> ast.expr:
        name = node.id
        if name == "y":
            return ast.Name(self.result, ast.Load())
        if name in self.params or name in self.family.helpers:
            return node
        if hasattr(_MODULES[self.family.module], name):
            return ast.Attribute(ast.Name(self.family.module, ast.Load()), name, ast.Load())
        raise InternalError(f"the derivative table names {name!r}, which neither "
                            f"{self.family.module} nor its helpers have")


class _Divisions(ast.NodeTransformer):
    """`divide(a, b)` -> `a / b` where b is a NumPy value; with `numpy` every operand is
    one, else `a / b` -> `divide(a, b)` where b may be a Python float."""

    def __init__(self, numpy: bool) -> None:
        self.numpy = numpy

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "divide" and (
                self.numpy or _numpy_valued(node.args[1])):
            return ast.BinOp(node.args[0], ast.Div(), node.args[1])
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Div) and not self.numpy and not _numpy_valued(node.right):
            return ast.Call(ast.Name("divide", ast.Load()), [node.left, node.right], [])
        return node


def _numpy_valued(node: ast.expr) -> bool:
    """Whether an expression is a NumPy value whatever the operands: it reads the
    ufunc's output or calls a NumPy function."""
    return any((isinstance(n, ast.Name) and n.id in ("y", "out")) or
               (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute))
               for n in ast.walk(node))


def chain_rule(partials: tuple, row_params: tuple, tangents: tuple, family: Family,
               result: str = "y") -> Optional[ast.expr]:
    """sum(partial * tangent), leaving out zero partials and multiplications by one;
    None when every partial is zero."""
    terms: List[ast.expr] = []
    for text, tangent in zip(partials, tangents):
        if text.strip() == "0":
            continue
        dt = ast.Name(tangent, ast.Load())
        terms.append(dt if text.strip() == "1" else ast.BinOp(
            expression(text, family, row_params, result), ast.Mult(), dt))
    if not terms:
        return None
    total = terms[0]
    for term in terms[1:]:
        total = ast.BinOp(total, ast.Add(), term)
    return ast.fix_missing_locations(total)


# ---- compiling skeletons -------------------------------------------------------------------
_serial = itertools.count(1)


def compile_skeleton(skeleton: str, name: str, slots: Dict[str, ast.expr],
                     family: Family) -> Callable[..., Any]:
    """The function `skeleton` with each slot name (PRIMAL, TANGENT, ...) replaced by its
    expression, named `name`, its source registered with linecache."""
    tree = _SKELETONS.get(skeleton)
    if tree is None:
        tree = _SKELETONS[skeleton] = ast.parse(skeleton)
    tree = _Fill(slots).visit(copy.deepcopy(tree))
    tree.body[0].name = name
    ast.fix_missing_locations(tree)
    source = ast.unparse(tree) + "\n"
    filename = f"<fwdad derivative table {next(_serial)}: {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": __name__, "Dual": Dual, "np": np, "math": math,
                 **family.helpers}
    exec(compile(source, filename, "exec"), namespace)
    fn: Callable[..., Any] = namespace[name]
    return fn


_SKELETONS: Dict[str, ast.Module] = {}


class _Fill(ast.NodeTransformer):
    def __init__(self, slots: Dict[str, ast.expr]) -> None:
        self.slots = slots

    def visit_Name(self, node: ast.Name) -> ast.expr:
        slot = self.slots.get(node.id)
        return copy.deepcopy(slot) if slot is not None else node


def qualified(fn: Any, family: Family) -> ast.expr:
    """`np.sin` or `math.sin`: the name generated code calls `fn` by."""
    return ast.Attribute(ast.Name(family.module, ast.Load()), fn.__name__, ast.Load())


def inline_template(row: Any, fn: Any) -> Optional[Template]:
    """The template the optimizer inlines for `fn`, the row's ufunc or math function,
    when the row is marked `inline`."""
    if not getattr(row, "inline", False):
        return None
    return template_of(row, fn, MATH if fn is row.math else NUMPY_ON_FLOATS)


def math_twin_template(row: Any) -> Optional[Template]:
    """The template of the row's `inline_math` (math.log for np.log's row): its
    one-argument calls, whose rule is written by hand, inline the row's derivative."""
    fn = getattr(row, "inline_math", None)
    return None if fn is None else template_of(row, fn, MATH)


def template_of(row: Any, fn: Any, family: Family) -> Template:
    """The optimizer's template of a unary row for `fn` (its numpy or math function)."""
    primal = ast.Call(qualified(fn, family), [ast.Name("x", ast.Load())], [])
    tangent = chain_rule(row.partials, ("x",), ("dx",), family, result="out")
    assert tangent is not None
    globals_ = {"np": np, "math": math, **family.helpers}
    return Template(f"_{fn.__name__}", ["x"], ["dx"], ast.fix_missing_locations(primal),
                    tangent, globals_, uses_out=reads_out(tangent),
                    tangent_first=family.module == "np")


# ---- the rules ------------------------------------------------------------------------------
_PARAMS = {1: ("x",), 2: ("a", "b")}
_TANGENTS = {1: ("dx",), 2: ("da", "db")}

_UFUNC_TANGENT = {1: """
def RULE(x, y, dx):
    return TANGENT
""", 2: """
def RULE(a, b, y, da, db):
    return TANGENT
"""}

_MATH_FRULE = {1: """
def RULE(x: Dual) -> Dual:
    x, dx = x.primal, x.tangent
    y = PRIMAL(x)
    return Dual(y, TANGENT)
""", 2: """
def RULE(a: Dual, b: Dual) -> Dual:
    a, da, b, db = a.primal, a.tangent, b.primal, b.tangent
    y = PRIMAL(a, b)
    return Dual(y, TANGENT)
"""}

_RRULE = {(1, "np"): """
def RULE(x, **kwargs):
    y = PRIMAL(x, **kwargs)
    return y, lambda ct: (COTANGENT0,)
""", (1, "math"): """
def RULE(x):
    y = PRIMAL(x)
    return y, lambda ct: (COTANGENT0,)
""", (2, "np"): """
def RULE(a, b, **kwargs):
    y = PRIMAL(a, b, **kwargs)
    return y, lambda ct: (COTANGENT0, COTANGENT1)
""", (2, "math"): """
def RULE(a, b):
    y = PRIMAL(a, b)
    return y, lambda ct: (COTANGENT0, COTANGENT1)
"""}


def ufunc_tangent(row: Any) -> Callable[..., Any]:
    """The tangent of a ufunc row as rules/ufuncs.apply_ufunc takes it: a function of
    the inputs, the output y and the inputs' tangents."""
    n = len(row.partials)
    tangent = chain_rule(row.partials, _PARAMS[n], _TANGENTS[n], UFUNC_RULE)
    return compile_skeleton(_UFUNC_TANGENT[n], f"_{row.numpy.__name__}_tangent",
                            {"TANGENT": tangent}, UFUNC_RULE)


def math_frule(row: Any) -> Callable[..., Any]:
    """The forward rule of a row's math function."""
    n = len(row.partials)
    tangent = chain_rule(row.partials, _PARAMS[n], _TANGENTS[n], MATH)
    return compile_skeleton(_MATH_FRULE[n], f"_{row.math.__name__}",
                            {"PRIMAL": qualified(row.math, MATH), "TANGENT": tangent}, MATH)


def rrule_of(row: Any, fn: Any) -> Callable[..., Any]:
    """The reverse rule of `fn`, the row's ufunc or its math function: the output and
    its pullback (a partial of 1 passes ct on, a partial of 0 passes nothing; the others
    give ct * partial, 0 where ct is 0 even if the partial is infinite, unread_zero; the
    cotangents of binary rows are thunks, computed only for variables)."""
    family = MATH if fn is row.math else NUMPY_ON_FLOATS
    n = len(row.partials)
    params = _PARAMS[n]
    slots: Dict[str, ast.expr] = {"PRIMAL": qualified(fn, family)}
    for i, text in enumerate(row.partials):
        slots[f"COTANGENT{i}"] = _cotangent(text, params, family, thunk=n > 1)
    return compile_skeleton(_RRULE[n, family.module], f"_{fn.__name__}", slots, family)


def _cotangent(text: str, params: tuple, family: Family, thunk: bool) -> ast.expr:
    if text.strip() == "0":
        return ast.Constant(None)
    ct = ast.Name("ct", ast.Load())
    if text.strip() == "1":
        return ct
    product = ast.Call(ast.Name("unread_zero", ast.Load()), [  # (0 * inf: 0, rules/ieee.py)
        ct, ast.BinOp(ct, ast.Mult(), expression(text, family, params))], [])
    if not thunk:
        return product
    return ast.Lambda(ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
                                    defaults=[]), product)
