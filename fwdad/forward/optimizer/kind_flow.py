"""Propagate kinds (forward/optimizer/kinds.py) through the Lines of a rule.

    def f(x, w):                 # signature (("array", 2, float64), ("float",))
        y = np.sin(x) * w        ->  y: ("array", 2, float64)
        s = np.sum(y)            ->  s: ("npfloat", float64)
        z = x @ x.T              ->  z: OTHER  (an attribute read: not followed)

Each local gets one kind for the whole rule: the join of the kinds of everything
assigned to it (flow-insensitive, so branch merges and loop heads need no care of their
own; a local that holds a float on one path and an array on another is OTHER). A line
gives its targets a kind other than OTHER only when it is a copy, or a call of a
function whose result's kind follows from its operands' kinds alone: a ufunc, an
arithmetic operator, a matrix product, a `math` function, a whole-array sum or mean.
That kind is NumPy's own answer, asked of small values of the operands' kinds
(kinds.sample), so it follows NumPy's promotion rules exactly. Operands that are
globals read live, parameters passed by keyword or left to defaults, and names that
statements the optimizer does not know may assign, are OTHER.
"""
from __future__ import annotations

import ast
import math
import operator
import warnings
from typing import Any, Dict, Iterable, List, Optional

import numpy as np

from fwdad import astwalk
from fwdad.forward.optimizer import activity
from fwdad.forward.optimizer.kinds import (
    BOOL,
    FLOAT,
    INT,
    OTHER,
    Kind,
    Signature,
    join,
    kind_of,
    sample,
    shape_kind,
)
from fwdad.forward.optimizer.lines import Atom, Line

# Functions whose result's kind (type, dtype, number of axes) follows from the kinds of
# their operands, whatever the values: ufuncs and these (not `**` on Python numbers,
# whose result is a float or a complex by the values, nor integer operands: 2 ** -1).
_BY_KIND = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
    operator.pos, operator.matmul, np.matmul, np.sum, np.mean, np.ndarray.sum,
    np.ndarray.mean})
# Arithmetic whose result's kind follows from its operands' kinds when all are Python
# numbers too (int + int is an int, int / int a float; not `**`: 2 ** -1 is a float).
_ON_PYTHON_NUMBERS = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
    operator.pos})
_PYTHON_NUMBERS = (INT, BOOL, FLOAT)
# Functions whose result has the kind of their first operand, a float array, whatever
# the ints after it (a shift, an axis).
_SAME_KIND = frozenset({np.roll})
_MATH_RESULTS_NOT_FLOAT = frozenset({
    math.floor, math.ceil, math.trunc, math.prod, math.frexp, math.modf, math.isnan,
    math.isinf, math.isfinite, math.isclose})


def parameter_kinds(fn: ast.FunctionDef, key: Signature) -> Dict[str, Kind]:
    """parameter -> kind, for calls of the rule `fn` whose positional arguments have
    the kinds `key`: the others (passed by keyword, left to their defaults, *args,
    **kwargs) may be anything, whatever the body assigns to them later."""
    kinds = dict.fromkeys(activity.params(fn), OTHER)
    kinds.update(zip([a.arg for a in fn.args.posonlyargs + fn.args.args], key))
    return kinds


def propagate(lines: Iterable[Line], params: Dict[str, Kind]) -> Dict[str, Kind]:
    """local -> its kind, for the Lines `lines` (every Line, blocks' included) of a
    rule whose parameters have the kinds `params` (see the module docstring)."""
    lines = list(lines)
    rows = [line for line in lines if line.targets]
    kinds: Dict[str, Optional[Kind]] = dict(params)
    for line in lines:  # (names a statement the optimizer does not know may assign)
        if line.kind == "unknown":
            kinds.update((n.id, OTHER) for n in astwalk.names(line.node))
    changed = True
    while changed:  # (kinds only go up a lattice of height 2: a few rounds)
        changed = False
        for line in rows:
            for target, kind in zip(line.targets, _results(line, kinds)):
                new = join(kinds.get(target), kind)
                if new != kinds.get(target):
                    kinds[target] = new
                    changed = True
    return {name: kind if kind is not None else OTHER for name, kind in kinds.items()}


def _results(line: Line, kinds: Dict[str, Optional[Kind]]) -> List[Kind]:
    """The kinds `line` gives its targets, in order (OTHER for what is not known)."""
    if line.kind == "copies":
        return [operand_kind(atom, kinds) for atom, _ in line.args]
    if line.kind == "copy" and len(line.targets) == 1 and len(line.args) == 1:
        return [operand_kind(line.args[0][0], kinds)]
    if line.kind in ("template", "call") and len(line.targets) == 1 and \
            line.entry is not None and not line.keywords and \
            not any(starred for _, starred in line.args):
        operands = [operand_kind(a, kinds) for a, _ in line.args]
        read = _metadata(line.entry.primal, operands, [a for a, _ in line.args])
        return [read if read is not None else _result(line.entry.primal, operands)]
    return [OTHER] * len(line.targets)


def reads_metadata(line: Line, kinds: Dict[str, Kind]) -> bool:
    """Whether `line` reads the shape, size or number of axes of a float array, or an
    item of its shape: a call of no tangent that the primal function computes alone."""
    return line.kind == "call" and len(line.targets) == 1 and line.entry is not None \
        and not line.keywords and not any(starred for _, starred in line.args) and \
        _metadata(line.entry.primal, [operand_kind(a, kinds) for a, _ in line.args],
                  [a for a, _ in line.args]) is not None


def _metadata(fn: Any, operands: List[Kind], atoms: List[Atom]) -> Optional[Kind]:
    """The kind of `x.shape`, `x.size`, `x.ndim` of a float array x (a tuple of ints,
    an int), and of `shape[i]` (an int); None for other calls."""
    if fn is getattr and len(operands) == 2 and operands[0][0] == "array" and \
            atoms[1].kind == "const":
        name = getattr(atoms[1].value, "primal", atoms[1].value)
        if name == "shape":
            return shape_kind(int(operands[0][1]))
        return INT if name in ("size", "ndim") else None
    if fn is operator.getitem and len(operands) == 2 and operands[0][0] == "shape" \
            and operands[1] == INT:
        return INT
    return None


def operand_kind(atom: Atom, kinds: Dict[str, Optional[Kind]]) -> Kind:
    """The kind of an operand, the locals' kinds being `kinds`."""
    if atom.kind == "local":
        kind = kinds.get(atom.name)
        return OTHER if kind is None else kind  # (read before any assignment seen)
    if atom.kind == "const":
        return kind_of(getattr(atom.value, "primal", atom.value))
    return OTHER  # a global read live: it may change between calls


def _result(fn: Any, operands: List[Kind]) -> Kind:
    """The kind of `fn(*operands)`, or OTHER when that depends on more than kinds."""
    if fn in _SAME_KIND and operands and operands[0][0] == "array" and \
            all(k == INT for k in operands[1:]):
        return operands[0]
    if fn in _ON_PYTHON_NUMBERS and operands and all(k in _PYTHON_NUMBERS for k in operands):
        return kind_of(fn(*[sample(k) for k in operands]))
    if not operands or any(k in (OTHER, INT, BOOL) or k[0] == "shape" for k in operands):
        return OTHER
    if getattr(fn, "__module__", None) == "math":
        return OTHER if fn in _MATH_RESULTS_NOT_FLOAT else ("float",)
    ufunc = isinstance(fn, np.ufunc) and fn.nout == 1 and fn.nin == len(operands)
    if not ufunc and fn not in _BY_KIND:
        return OTHER
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return kind_of(fn(*[sample(k) for k in operands]))
    except Exception:  # (shapes that do not fit: the call itself will say so)
        return OTHER
