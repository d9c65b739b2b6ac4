"""Which sparsity rule each primitive gets (fwdad/sparsity/rules.py has the kinds).

    rule_for(entry of np.sin, "local")     ->  elementwise
    rule_for(entry of np.max, "global")    ->  reduce_union (which item wins is a value)
    rule_for(entry of np.linalg.solve, _)  ->  None: the dense fallback

SciPy's rows are added with SciPy's rules (fwdad/sparsity/scipy_rules.py).
"""
from __future__ import annotations

import math
import operator
from typing import Any, Dict, Optional

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.registry import RuleEntry
from fwdad.sparsity import mixing
from fwdad.sparsity.rules import (
    SparsityRule,
    elementwise,
    full_rule,
    in_place,
    reduce_union,
    through_frule,
    ufunc_at,
)
from fwdad.static_graph import StaticGraph


def _numpy(*names: str) -> list:
    """NumPy functions and ndarray methods by name (those this NumPy has)."""
    found = []
    for name in names:
        owner, _, attr = name.rpartition(".")
        base = {"": np, "ndarray": np.ndarray, "linalg": np.linalg,
                "generic": np.generic}[owner]
        if hasattr(base, attr):
            found.append(getattr(base, attr))
    return found


# Moves, linear maps and products: no value decides where a tangent goes.
_VALUE_FREE = _numpy(
    "reshape", "ndarray.reshape", "transpose", "ndarray.transpose", "swapaxes",
    "ndarray.swapaxes", "moveaxis", "squeeze", "ndarray.squeeze", "expand_dims", "ravel",
    "ndarray.ravel", "ndarray.flatten", "broadcast_to", "diagonal", "ndarray.diagonal",
    "flip", "flipud", "fliplr", "rot90", "roll", "tile", "repeat", "ndarray.repeat",
    "triu", "tril", "diagflat", "atleast_1d", "atleast_2d", "atleast_3d", "concatenate",
    "stack", "hstack", "vstack", "dstack", "column_stack", "split", "array_split",
    "hsplit", "vsplit", "dsplit", "unstack", "broadcast_arrays", "meshgrid", "pad",
    "append", "array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray",
    "copy", "ndarray.copy", "full", "full_like", "real", "imag", "ndarray.conj",
    "ndarray.conjugate", "sum", "ndarray.sum", "mean", "ndarray.mean", "cumsum",
    "ndarray.cumsum", "cumulative_sum", "dot", "ndarray.dot", "outer", "vdot", "inner",
    "tensordot", "einsum", "trace", "ndarray.trace", "diag", "kron", "linalg.multi_dot",
    "linalg.matmul", "linalg.outer", "linalg.tensordot", "linalg.vecdot", "linalg.trace",
    "linalg.diagonal", "linalg.matrix_transpose", "matrix_transpose", "linalg.cross",
    "cross", "diff", "ediff1d", "gradient", "trapezoid", "convolve", "correlate",
    "average", "cov", "prod", "ndarray.prod", "generic.prod", "generic.sum", "generic.mean",
    "generic.copy", "generic.conj", "generic.conjugate", "generic.reshape",
    "generic.transpose", "generic.squeeze", "generic.ravel", "generic.flatten",
    "generic.cumsum", "generic.repeat", "copyto", "ndarray.fill", "fill_diagonal")

# Moves whose destination is an index: value-free unless the index comes from values.
_INDEXING = [operator.getitem, operator.setitem, operator.delitem]

# Choices on values: the frule is right at this input; globally, the union.
_EXTREMES = _numpy("max", "amax", "ndarray.max", "min", "amin", "ndarray.min", "nanmax",
                   "nanmin", "generic.max", "generic.min", "ptp")
_SPREADS = _numpy("var", "ndarray.var", "std", "ndarray.std")
_SELECTIONS = _numpy("where", "clip", "ndarray.clip", "generic.clip", "maximum", "minimum",
                     "fmax", "fmin")
_ORDERINGS = _numpy("sort", "ndarray.sort", "median", "quantile", "percentile")

_IN_PLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ipow,
             operator.imod]
_ARITHMETIC = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
               operator.neg, operator.pos, operator.abs, operator.mod]
_MATH = [getattr(math, name) for name in (
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "degrees", "radians", "exp", "expm1", "log1p", "log2", "log10", "sqrt",
    "fabs", "exp2", "cbrt", "erf", "erfc", "lgamma", "gamma", "log", "pow", "atan2",
    "hypot", "copysign", "fmod") if hasattr(math, name)]


def updates_a_scalar(entry: RuleEntry, args: tuple) -> bool:
    """`a += b` of a 0-d array standing for a scalar (global mode): its frule would
    write into a tangent that is one set, not an array of them."""
    return entry.primal in _IN_PLACE and bool(args) and isinstance(args[0], Dual) and \
        isinstance(args[0].primal, np.ndarray) and args[0].primal.ndim == 0 and \
        not isinstance(args[0].tangent, np.ndarray)


def updates_in_place(entry: RuleEntry) -> bool:
    """Whether the primitive writes into its arguments (and so cannot run twice)."""
    return entry.primal in _WRITERS


_WRITERS = set(_IN_PLACE) | {operator.setitem, operator.delitem} | set(_numpy(
    "copyto", "ndarray.fill", "fill_diagonal", "put", "ndarray.put", "place", "putmask",
    "ndarray.sort"))


# Python's own data structures and fwdad's machinery move values, never mix them.
_MOVER_MODULES = ("builtins", "_operator", "operator", "itertools", "functools",
                  "_functools")
_CHOOSERS = {max, min, sorted, abs, pow}  # builtins that compare or compute


def functions_of(module: str, *names: str) -> list:
    """The functions of a module by name (those this version has)."""
    found = __import__(module, fromlist=["_"])
    return [getattr(found, name) for name in names if hasattr(found, name)]


# Mixers: each output item depends on whole matrices, or on the items along some axes
# (fwdad/sparsity/mixing.py); elementwise functions that are not ufuncs; reductions.
_MIXERS: Dict[Any, SparsityRule] = {
    **dict.fromkeys(_numpy("linalg.inv", "linalg.det", "linalg.slogdet", "linalg.cholesky",
                           "linalg.qr", "linalg.eigh", "linalg.eigvalsh", "linalg.svd",
                           "linalg.svdvals"), mixing.of_each_matrix),
    **dict.fromkeys(_numpy("linalg.solve"), mixing.solve),
    **dict.fromkeys(functions_of("numpy.fft", "fft", "ifft", "rfft", "irfft", "hfft", "ihfft",
                              "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn",
                              "irfftn"), mixing.fft),
    **dict.fromkeys(_numpy("sinc", "angle"), elementwise),
    **dict.fromkeys(functions_of("numpy.fft", "fftshift", "ifftshift"), through_frule),
    # objects that hold a function and its closure's values, and iterators of items,
    # made by rules derived from plain code (fwdad/rules/numpy_loops.py): no value decides
    **dict.fromkeys([np.vectorize, np.vectorize.__call__, np.ndenumerate], through_frule)}


def _build_tables() -> tuple:
    local: Dict[Any, SparsityRule] = dict(_MIXERS)
    for fn in _VALUE_FREE + _INDEXING + _EXTREMES + _SELECTIONS + _ORDERINGS:
        local[fn] = through_frule
    for fn in _SPREADS:
        local[fn] = reduce_union  # (the frule divides by 0 where std = 0: NaN sets)
    for fn in _ARITHMETIC + _MATH + [abs, pow, float, complex]:
        local[fn] = elementwise
    for fn in (max, min):  # (of two numbers: the larger one here, either one globally)
        local[fn] = through_frule
    for fn in _IN_PLACE:
        local[fn] = in_place
    local[np.ufunc.at] = ufunc_at
    globally = dict(local)
    for fn in _EXTREMES:
        globally[fn] = reduce_union
    for fn in _SELECTIONS + [max, min]:
        globally[fn] = elementwise
    for fn in _ORDERINGS:
        del globally[fn]  # (the dense fallback)
    return local, globally


LOCAL_RULES, GLOBAL_RULES = _build_tables()


def rule_for(entry: RuleEntry, mode: str) -> Optional[SparsityRule]:
    """The sparsity rule of a registered primitive, or None (the dense fallback)."""
    if isinstance(entry.rule, StaticGraph):
        return full_rule
    table = GLOBAL_RULES if mode == "global" else LOCAL_RULES
    fn = entry.primal
    try:
        rule = table.get(fn)
    except TypeError:  # unhashable
        rule = None
    if rule is not None:
        return rule
    if isinstance(fn, np.ufunc):
        return elementwise if fn.nout == 1 else None
    if entry.kind in ("nondiff", "linear") or _is_mover(fn):
        return through_frule
    return None


def _is_mover(fn: Any) -> bool:
    if fn in _CHOOSERS:
        return False
    module = getattr(fn, "__module__", None) or ""
    qualname = getattr(fn, "__qualname__", "")
    return module in _MOVER_MODULES or module.startswith("fwdad") or \
        qualname.split(".")[0] in ("list", "dict", "set", "object", "tuple")
