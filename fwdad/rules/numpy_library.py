"""More of NumPy's library code (Python in NumPy, foreign to fwdad) written in plain
NumPy for both modes to differentiate: np.block, np.asarray_chkfinite, and the
NaN-skipping median and quantiles.

    np.block([[a, b], [c, d]])     ->  concatenations along -1, then -2
    np.nanmedian(x, axis=1)        ->  np.median of each row's numbers

Each function below computes what NumPy's does from primitives with rules; what it
does not model (out=, weights=) is refused by `refuse_library`, naming the argument.
Forward mode runs the derived rules; reverse mode's are composed from them
(reverse/rules_plain_numpy.py). The window functions and isposinf/isneginf have no
derivative (a length in, or a flag out).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.errors import FwdadError, in_user_code
from fwdad.rules.numpy_loops import apply_along_axis, derived_from
from fwdad.rules.registry import def_nondiff, frule, takes_out
from fwdad.rules.statistics import check_quantile_method


def refuse_library(call: str, argument: str) -> None:
    at = in_user_code()
    raise FwdadError(f"np.{call}(..., {argument}=...){at}: fwdad "
                     f"does not differentiate it with {argument}=. Leave {argument} out "
                     f"(assign the result instead of out=).")


# ---- np.block ---------------------------------------------------------------------------
def block(arrays: Any) -> Any:
    """Nested lists of arrays joined: the innermost lists along the last axis, each list
    out along the axis before; every array given leading unit axes up to the result's."""
    depth = _depth(arrays)
    ndim = max(depth, _largest_ndim(arrays))
    return _joined(arrays, depth, ndim, 0)


def _depth(arrays: Any) -> int:
    if isinstance(arrays, tuple):
        raise TypeError("arrays is a tuple. Only lists can be used to arrange blocks, and "
                        "np.block does not allow implicit conversion from tuple to ndarray.")
    if isinstance(arrays, list):
        if not arrays:
            raise ValueError("List at arrays[0] cannot be empty")
        return 1 + _depth(arrays[0])
    return 0


def _largest_ndim(arrays: Any) -> int:
    if isinstance(arrays, list):
        return max(_largest_ndim(item) for item in arrays)
    return np.ndim(arrays)


def _joined(arrays: Any, depth: int, ndim: int, level: int) -> Any:
    if isinstance(arrays, list):
        parts = [_joined(item, depth, ndim, level + 1) for item in arrays]
        return np.concatenate(parts, axis=level - depth)
    array = np.asarray(arrays)
    return np.reshape(array, (1,) * (ndim - array.ndim) + array.shape)


# ---- np.asarray_chkfinite -------------------------------------------------------------------
def asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None) -> Any:
    out = np.asarray(a, dtype=dtype, order=order)
    if out.dtype.kind in "fc" and not np.all(np.isfinite(out)):
        raise ValueError("array must not contain infs or NaNs")
    return out


# ---- the median and quantiles of the numbers, NaN skipped ---------------------------------------
def nanquantile(a: Any, q: Any, axis: Any = None, out: Any = None,
                overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False, *, weights: Any = None,
                called: str = "nanquantile") -> Any:
    """np.quantile of the numbers of each slice along `axis` (NaN where none), its q
    axes first, as np.nanquantile gives them (`called`: the function the user called,
    for messages)."""
    if out is not None:
        refuse_library(called, "out")
    if weights is not None:
        refuse_library(called, "weights")
    check_quantile_method(called, method)
    a = np.asarray(a)
    if not (axis is None or isinstance(axis, (int, np.integer))):
        refuse_axes(called, axis)
    if a.size == 0:  # (NumPy's answer: np.nanmean's, whatever q)
        return np.nanmean(a, axis, keepdims=keepdims)
    if axis is None:
        result = _numbers_quantile(np.reshape(a, (-1,)), q, method)
        return np.reshape(result, np.shape(q) + (1,) * a.ndim) if keepdims else result
    axis = axis % a.ndim
    result = apply_along_axis(_numbers_quantile, axis, a, q, method)
    result = np.moveaxis(result, tuple(range(axis, axis + np.ndim(q))),
                         tuple(range(np.ndim(q))))
    return np.expand_dims(result, np.ndim(q) + axis) if keepdims else result


def refuse_axes(called: str, axis: Any) -> None:
    at = in_user_code()
    raise FwdadError(f"np.{called}(..., axis={tuple(np.atleast_1d(axis).tolist())})"
                     f"{at}: fwdad takes one axis or None. Move "
                     f"those axes to the end and merge them (np.moveaxis, reshape), then "
                     f"take the last axis.")


def _numbers_quantile(row: Any, q: Any, method: str) -> Any:
    numbers = row[~np.isnan(row)]
    if numbers.size == 0:
        return np.full(np.shape(q), np.nan)
    return np.quantile(numbers, q, method=method)


def nanpercentile(a: Any, q: Any, axis: Any = None, out: Any = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False, *, weights: Any = None) -> Any:
    return nanquantile(a, np.asarray(q) / 100.0, axis, out, overwrite_input, method,
                       keepdims, weights=weights, called="nanpercentile")


def nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:
    return nanquantile(a, 0.5, axis, out, overwrite_input, "linear", keepdims,
                       called="nanmedian")


def_nondiff(refuse_library, refuse_axes, check_quantile_method, np.isposinf, np.isneginf,
            np.hanning, np.hamming, np.blackman, np.bartlett)
takes_out(1, np.isposinf, np.isneginf)  # (rules/outputs.py adds out= to their rules)
PLAIN = {np.block: block, np.asarray_chkfinite: asarray_chkfinite,
         np.nanquantile: nanquantile, np.nanpercentile: nanpercentile,
         np.nanmedian: nanmedian}


for _numpy_fn, _plain in PLAIN.items():
    frule(_numpy_fn)(derived_from(_plain))
