"""NumPy's functions that call a Python function once per item or row: apply_along_axis,
apply_over_axes, fromfunction, the call of a np.vectorize object, and fromiter; and
ndenumerate, written in plain NumPy for both modes to differentiate (as
fwdad/rules/piecewise.py does piecewise).

    np.apply_along_axis(f, 1, x)   ->   np.stack([f(row) for row in rows]), reshaped
    np.vectorize(f)(x, y)          ->   np.array([f(a, b) for a, b in items]), reshaped

NumPy's own are library code (foreign calls); each function below computes the same
from primitives with rules, and calls the user's function with a dynamic call, so that
its derived rule runs on each item. Forward mode runs their derived rules; reverse
mode's rules are composed from them (reverse/rules_plain_numpy.py).
"""
from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from fwdad.core import entry_points
from fwdad.core.duals import const
from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.probe import probe
from fwdad.rules.registry import def_nondiff, frule


def apply_along_axis(func1d: Any, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """What np.apply_along_axis computes: func1d of each 1-D slice along `axis`, its
    result's axes put where `axis` was, in the dtype of the first result."""
    arr = np.asarray(arr)
    axis = _axis_index(axis, arr.ndim)
    moved = np.moveaxis(arr, axis, -1)
    outer = moved.shape[:-1]
    if math.prod(outer) == 0:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    rows = np.reshape(moved, (math.prod(outer), moved.shape[-1]))  # (-1: ambiguous at 0)
    results = [np.asarray(func1d(row, *args, **kwargs)) for row in rows]
    stacked = np.stack(results).astype(results[0].dtype, copy=False)
    out = np.reshape(stacked, outer + stacked.shape[1:])
    added = stacked.ndim - 1
    return np.moveaxis(out, tuple(range(len(outer), len(outer) + added)),
                       tuple(range(axis, axis + added)))


def apply_over_axes(func: Any, a: Any, axes: Any) -> Any:
    """What np.apply_over_axes computes: func(a, axis) for each axis in turn, its result
    given back the reduced axis."""
    value = np.asarray(a)
    for axis in ([axes] if np.ndim(axes) == 0 else axes):
        axis = _axis_index(axis, value.ndim)
        result = func(value, axis)
        if np.ndim(result) != value.ndim:
            result = np.expand_dims(result, axis)
        if np.ndim(result) != value.ndim:
            raise ValueError("function is not returning an array of the correct shape")
        value = result
    return value


def _axis_index(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def fromiter(iterable: Any, dtype: Any, count: int = -1) -> Any:
    """What np.fromiter computes: an array of the first `count` items (all for -1)."""
    items = list(iterable) if count < 0 else list(itertools.islice(iterable, count))
    if 0 <= count and len(items) < count:
        raise ValueError(f"iterator too short: Expected {count} but iterator had only "
                         f"{len(items)} items.")
    return np.array(items, dtype=dtype)


def fromfunction(function: Any, shape: Any, *, dtype: Any = float, like: Any = None,
                 **kwargs: Any) -> Any:
    """What np.fromfunction computes: `function` called once, on the index arrays of
    `shape` in `dtype` (the keyword arguments passed on)."""
    return function(*np.indices(shape, dtype=dtype), **kwargs)


def ndenumerate(arr: Any) -> Any:
    """What np.ndenumerate(arr) iterates over: (index, item) in C order."""
    arr = np.asarray(arr)
    return iter([(index, arr[index]) for index in np.ndindex(arr.shape)])


# ---- np.vectorize: the object, and its call -----------------------------------------------
def vectorized(pyfunc: Any, otypes: Any, excluded: Any, *args: Any) -> Any:
    """What calling np.vectorize(pyfunc, otypes, excluded=excluded) on `args` computes:
    pyfunc of each item of the broadcast arguments (those at positions in `excluded`
    passed whole), in `otypes` or the dtype of the first result; a tuple of arrays when
    pyfunc returns a tuple."""
    looped = [i for i in range(len(args)) if i not in excluded]
    arrays = np.broadcast_arrays(*[np.asarray(args[i]) for i in looped])
    shape = arrays[0].shape if arrays else ()
    columns = [np.reshape(a, (-1,)) for a in arrays]
    size = len(columns[0]) if columns else 1  # (not math.prod: no sparsity rule)
    if size == 0 and not otypes:
        raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
    values = []
    for k in range(size):
        given = list(args)
        for i, column in zip(looped, columns):
            given[i] = column[k]
        values.append(pyfunc(*given))
    if size and isinstance(values[0], tuple):
        return tuple(_stacked([v[j] for v in values], otypes, j, shape)
                     for j in range(len(values[0])))
    return _stacked(values, otypes, 0, shape)


def _stacked(values: list, otypes: Any, j: int, shape: tuple) -> Any:
    dtype = otypes[j] if otypes else np.asarray(values[0]).dtype
    return np.reshape(np.array(values, dtype=dtype), shape)


def refuse_vectorize(vectorize: np.vectorize, kwargs: dict) -> None:
    """np.vectorize's signature= (core dimensions) and vectorized keyword arguments are
    not modelled: refused, with what to write instead."""
    shown, at = _shown(vectorize.pyfunc), in_user_code()
    if vectorize.signature is not None:
        raise FwdadError(
            f"np.vectorize({shown}, signature={vectorize.signature!r}) called"
            f"{at}: fwdad does not differentiate np.vectorize "
            f"with a signature (core dimensions). Call the function on each row in a "
            f"loop, or with np.apply_along_axis(function, axis, x), which fwdad "
            f"differentiates; or write it on whole arrays.")
    if kwargs:
        raise FwdadError(
            f"np.vectorize({shown}) called with keyword arguments ({', '.join(kwargs)})"
            f"{at}: fwdad differentiates its positional arguments "
            f"only. Pass them by position, or bind them with functools.partial or a "
            f"lambda before np.vectorize.")


def _shown(fn: Any) -> str:
    """The function as the user wrote it: fwdad names a lambda `_fw_lambda1`."""
    name = probe(fn, "__name__") or type(fn).__name__
    return "lambda ..." if name == "<lambda>" or name.startswith("_fw_lambda") else name


def vectorized_call(self: np.vectorize, *args: Any, **kwargs: Any) -> Any:
    """A call of a np.vectorize object (reverse mode composes its rule from this)."""
    refuse_vectorize(self, kwargs)
    excluded = tuple(i for i in self.excluded if isinstance(i, int))
    return vectorized(self.pyfunc, self.otypes or "", excluded, *args)


def_nondiff(refuse_vectorize)


@frule(np.vectorize)
def _vectorize(pyfunc: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """The object holds pyfunc; its tangent is pyfunc's (a closure's captured values)."""
    made = np.vectorize(pyfunc.primal, *(a.primal for a in args),
                        **{k: v.primal for k, v in kwargs.items()})
    return Dual(made, pyfunc.tangent)


@frule(np.vectorize.__call__)
def _vectorize_call(self: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    vectorize = self.primal
    refuse_vectorize(vectorize, kwargs)
    excluded = tuple(i for i in vectorize.excluded if isinstance(i, int))
    constants = (const(vectorize.otypes or ""), const(excluded))
    return entry_points.derived_rule(vectorized)(
        Dual(vectorize.pyfunc, self.tangent), *constants, *args)


def derived_from(plain: Any) -> Any:
    """The frule of a NumPy function: the derived rule of its plain rewrite."""
    def rule(*args: Dual, **kwargs: Dual) -> Dual:
        return entry_points.derived_rule(plain)(*args, **kwargs)
    rule.__name__ = f"_{plain.__name__}"
    return rule


frule(np.apply_along_axis)(derived_from(apply_along_axis))
frule(np.apply_over_axes)(derived_from(apply_over_axes))
frule(np.fromfunction)(derived_from(fromfunction))
frule(np.ndenumerate)(derived_from(ndenumerate))


@frule(np.fromiter)
def _fromiter(iterable: Dual, dtype: Dual, count: Dual = None) -> Dual:
    count = const(-1) if count is None else count
    return entry_points.derived_rule(fromiter)(iterable, dtype, count)
