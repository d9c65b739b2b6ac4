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
arithmetic operator, a matrix product, a `math` function, a whole-array sum or mean;
or that reads the shape of an array, or calls one of its methods that keep its dtype
(`x.reshape(m, n)`, forward/optimizer/methods.py), or np.linspace of numbers or arrays
and an int; or reads an item of a tuple of known
kinds at a literal index (`pair[0]`), or of a dict at a literal string key
(`params["w"]`) where no line can write into a dict, or a field of an instance parameter
whose fields' kinds the variant was built for (kinds.fields_kind: its only reads, on
entry). A loop over `range` of ints binds an int. Python ints take part only where
their values cannot change the kind: among Python numbers (`n + 1`, `np.sqrt(n)`), with
float64 values (`x * n`, `x ** 2`), or converted (`int(x)`); a Python float to an int
power is a float.
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

from fwdad import lang
from fwdad.forward.optimizer import activity
from fwdad.forward.optimizer.kinds import (
    BOOL,
    FLOAT,
    INT,
    OTHER,
    SLICE,
    Kind,
    Signature,
    join,
    kind_of,
    sample,
    shape_kind,
    slices_kind,
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
_SAME_KIND_METHODS = frozenset({
    np.ndarray.copy, np.ndarray.transpose, np.ndarray.conj, np.ndarray.conjugate})
_CONVERSIONS = {int: INT, float: FLOAT}
# (neither arrays nor numbers)
_NOT_VALUES = ("shape", "slice", "slices", "list", "tuple", "range", "dict", "fields")
RANGE: Kind = ("range",)  # range(n) of ints: a loop over it binds ints
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
    # (a dict's items keep their kinds only where nothing can write into it)
    frozen = not any(line.kind == "unknown" or (
        line.kind in ("call", "template") and not line.pure) for line in lines)
    for line in lines:  # (names a statement the optimizer does not know may assign)
        if line.kind == "unknown":
            kinds.update((name, OTHER) for name in line.opaque.mentioned)
    changed = True
    while changed:  # (kinds only go up a lattice of height 2: a few rounds)
        changed = False
        for line in rows:
            for target, kind in zip(line.targets, _results(line, kinds, frozen)):
                new = join(kinds.get(target), kind)
                if new != kinds.get(target):
                    kinds[target] = new
                    changed = True
    return {name: kind if kind is not None else OTHER for name, kind in kinds.items()}


def _results(line: Line, kinds: Dict[str, Optional[Kind]], frozen: bool = False
             ) -> List[Kind]:
    """The kinds `line` gives its targets, in order (OTHER for what is not known);
    `frozen`: no line of the rule can write into a dict."""
    if line.kind == "copies":
        return [operand_kind(atom, kinds) for atom, _ in line.args]
    if line.kind == "copy" and len(line.targets) == 1 and len(line.args) == 1:
        return [operand_kind(line.args[0][0], kinds)]
    if line.kind == "for" and len(line.targets) == 1 and \
            operand_kind(line.args[0][0], kinds) == RANGE:
        return [INT]  # (for i in range(n): i is an int)
    if line.kind == "update":  # (r[k] op= v, r op= v: an array is updated in place)
        kind = operand_kind(line.args[0][0], kinds)
        return [kind if kind[0] == "array" else OTHER]
    if line.kind in ("template", "call") and len(line.targets) == 1 and \
            line.entry is not None and not line.keywords and \
            not any(starred for _, starred in line.args):
        operands = [operand_kind(a, kinds) for a, _ in line.args]
        fn = line.entry.primal
        known = _metadata(fn, operands, [a for a, _ in line.args])
        if known is None and frozen and fn is operator.getitem and len(operands) == 2 \
                and operands[0][0] == "dict":
            known = _dict_item(operands[0], line.args[1][0])
        if known is None:
            known = _method_result(fn, operands) or _field(fn, operands, line.args)
        return [known if known is not None else _result(fn, operands)]
    return [OTHER] * len(line.targets)


def reads_metadata(line: Line, kinds: Dict[str, Kind]) -> bool:
    """Whether `line` reads the shape, size or number of axes of a float array, or an
    item of its shape: a call of no tangent that the primal function computes alone."""
    if line.kind != "call" or len(line.targets) != 1 or line.entry is None or \
            line.keywords or any(starred for _, starred in line.args):
        return False
    kind = _metadata(line.entry.primal, [operand_kind(a, kinds) for a, _ in line.args],
                     [a for a, _ in line.args])
    return kind is not None and kind[0] in ("int", "shape")  # (not x.T: a tangent)


def _metadata(fn: Any, operands: List[Kind], atoms: List[Atom]) -> Optional[Kind]:
    """The kind of `x.shape`, `x.size`, `x.ndim` of a float array x (a tuple of ints,
    an int), of `shape[i]` (an int), and of `x.T`, `x.real` (x's kind); None for other
    calls."""
    if fn is getattr and len(operands) == 2 and operands[0][0] == "array" and \
            atoms[1].kind == "const":
        name = getattr(atoms[1].value, "primal", atoms[1].value)
        if name == "shape":
            return shape_kind(int(operands[0][1]))
        if name in ("T", "real"):  # (a view with the axes reversed; a float's own part)
            return operands[0]
        return INT if name in ("size", "ndim") else None
    if fn is operator.getitem and len(operands) == 2 and operands[0][0] == "shape" \
            and operands[1] == INT:
        return INT
    if fn is lang.build_slice and all(_int_or_none(a, k) for a, k in zip(atoms, operands)):
        return SLICE
    if fn is lang.build_tuple and operands and all(k == SLICE for k in operands):
        return slices_kind(len(operands))
    if fn is operator.getitem and len(operands) == 2 and operands[0][0] == "array":
        return _item_kind(operands[0], operands[1])
    if fn is operator.getitem and len(operands) == 2 and operands[0][0] == "tuple":
        return _tuple_item(operands[0], atoms[1])
    if fn is operator.pow and operands == [INT, INT] and atoms[1].kind == "const" and \
            type(atoms[1].value.primal) is int and atoms[1].value.primal >= 0:
        return INT  # ((m + 1) ** 2: an int to a power that is not negative)
    return None


def _field(fn: Any, operands: List[Kind], args: List[Any]) -> Optional[Kind]:
    """The kind of `getattr(s, "pos")` for an instance s of kinds.fields_kind (not
    in _metadata: a field is no metadata, its tangent is the field's own)."""
    if fn is getattr and len(operands) == 2 and operands[0][0] == "fields" and \
            args[1][0].kind == "const":
        names, kinds = operands[0][1], operands[0][2]
        name = getattr(args[1][0].value, "primal", args[1][0].value)
        return kinds[names.index(name)] if name in names else None
    return None


def _int_or_none(atom: Atom, kind: Kind) -> bool:
    return kind == INT or (atom.kind == "const" and getattr(atom.value, "primal", 0) is None)


def _item_kind(array: Kind, key: Kind) -> Optional[Kind]:
    """The kind of `x[key]` for a float array x: slices keep its axes (a view), an int
    drops the first (a number from a vector)."""
    rank = int(array[1])
    if key == SLICE or (key[0] == "slices" and int(key[1]) <= rank):
        return array
    if key == INT and rank >= 1:
        return ("array", rank - 1, array[2]) if rank > 1 else ("npfloat", array[2])
    return None


def _tuple_item(kind: Kind, key: Atom) -> Optional[Kind]:
    """The kind of `t[i]` for a tuple t of known items and a literal int i (not of a
    list: a list's items may change under any call that can reach it)."""
    index = getattr(key.value, "primal", key.value) if key.kind == "const" else None
    items = kind[1]
    return items[index] if type(index) is int and -len(items) <= index < len(items) \
        else None


def _dict_item(kind: Kind, key: Atom) -> Optional[Kind]:
    """The kind of `d["w"]` for a dict d of known items and a literal string key, in a
    rule where nothing can write into d (a call that may mutate, a statement the
    optimizer does not know): None otherwise."""
    name = getattr(key.value, "primal", key.value) if key.kind == "const" else None
    return dict(kind[1]).get(name) if type(name) is str else None


def _method_result(fn: Any, operands: List[Kind]) -> Optional[Kind]:
    """The kind of a float array's method that keeps its dtype, by what it is given:
    `x.reshape(m, n)` (ints: one axis each), `x.ravel()`, `x.copy()`, `x.T`-like
    `x.transpose()`; None for other calls."""
    if not operands or operands[0][0] != "array":
        return None
    x, rest = operands[0], operands[1:]
    if fn is np.ndarray.reshape and rest and all(k == INT for k in rest):
        return ("array", len(rest), x[2])
    if rest:
        return None
    if fn in (np.ndarray.ravel, np.ndarray.flatten):
        return ("array", 1, x[2])
    return x if fn in _SAME_KIND_METHODS else None


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
    if fn is range and 1 <= len(operands) <= 3 and all(k == INT for k in operands):
        return RANGE
    if fn is np.linspace and 2 <= len(operands) <= 3 and operands[2:] in ([], [INT]) and \
            all(k in _PYTHON_NUMBERS or k[0] in ("npfloat", "array") for k in operands[:2]):
        return _sampled(fn, operands)  # (num, an int, sets a length, not the kind)
    if fn in _CONVERSIONS and len(operands) == 1:
        return _CONVERSIONS[fn]  # (int(x) is an int whatever x is, or it raises)
    if operands and all(k in _PYTHON_NUMBERS for k in operands) and (
            fn in _ON_PYTHON_NUMBERS or isinstance(fn, np.ufunc)):
        return _sampled(fn, operands)  # (a ufunc takes Python numbers as int64, float64)
    if fn is operator.pow and operands == [FLOAT, INT]:
        return FLOAT  # (h ** 2: a float to an int power is a float, or it raises)
    if fn is operator.pow and len(operands) == 2 and operands[0][0] in ("array", "npfloat") \
            and operands[0][-1] == np.float64 and operands[1] in _PYTHON_NUMBERS:
        return _sampled(fn, operands)  # (x ** 3: a float64 base keeps its kind)
    if not operands or any(k == OTHER or k[0] in _NOT_VALUES for k in operands):
        return OTHER
    if any(k in (INT, BOOL) for k in operands) and not all(
            k in _PYTHON_NUMBERS or k[-1] == np.float64 for k in operands):
        return OTHER  # (NumPy 1 casts a float32 by the int's value: value-based casting)
    if getattr(fn, "__module__", None) == "math":  # (math.factorial(n) is an int)
        return OTHER if fn in _MATH_RESULTS_NOT_FLOAT or INT in operands or \
            BOOL in operands else FLOAT
    ufunc = isinstance(fn, np.ufunc) and fn.nout == 1 and fn.nin == len(operands)
    if not ufunc and fn not in _BY_KIND:
        return OTHER
    return _sampled(fn, operands)


def _sampled(fn: Any, operands: List[Kind]) -> Kind:
    """The kind of `fn` of small values of the kinds `operands`, as NumPy gives it."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return kind_of(fn(*[sample(k) for k in operands]))
    except Exception:  # (shapes that do not fit: the call itself will say so)
        return OTHER
