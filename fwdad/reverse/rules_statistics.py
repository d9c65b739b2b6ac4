"""Reverse rules for statistics: average, quantile and percentile, the NaN-skipping
reductions (nanprod, nanvar, nanstd, nancumsum, nancumprod), cumulative_sum/prod, cov
and corrcoef.

Most are written as plain NumPy over primitives that have reverse rules
(`composed_rrule`): the NaN-skipping ones are the plain reductions with NaNs replaced
by the neutral value (a constant there), cov and corrcoef their formulas. Quantiles
are a gather of sorted values with interpolation weights.
"""
from __future__ import annotations

import numpy as np

from fwdad.reverse.registry import composed_rrule, get_rrule, raw_rrule, rrule
from fwdad.reverse.rules_reductions import merged_axes
from fwdad.reverse.tracked import holds_variable
from fwdad.rules.ieee import selected
from fwdad.rules.statistics import check_quantile_method


@composed_rrule(np.average)
def _average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """sum(w a) / sum(w); 1-d weights lie along `axis`."""
    if weights is None:
        weights = np.ones(np.shape(a))
    if np.ndim(weights) != np.ndim(a):
        shape = [1] * np.ndim(a)
        shape[axis] = -1
        weights = np.reshape(weights, tuple(shape))
    total = np.sum(weights * np.ones(np.shape(a)), axis=axis, keepdims=keepdims)
    mean = np.sum(weights * a, axis=axis, keepdims=keepdims) / total
    if returned:
        return mean, total
    return mean


# ---- quantiles: (1 - g) x_(low) + g x_(low + 1) over the sorted values ----------------------
@rrule(np.quantile)
def _quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
              keepdims=False, **kwargs):
    """Method 'linear': with v = q (n - 1), low = floor v and g = v - low, the sorted
    values low and low + 1 take weights 1 - g and g (equal values: stable order); q
    takes the slope (n - 1) (x_(low + 1) - x_(low))."""
    check_quantile_method("quantile", method)
    result = np.quantile(a, q, axis=axis, method=method, keepdims=keepdims, **kwargs)
    xf, back = merged_axes(np.asarray(a, dtype=float), axis)
    order = np.argsort(xf, axis=-1, kind="stable")
    xs, n = np.take_along_axis(xf, order, axis=-1), xf.shape[-1]
    v = np.ravel(q) * (n - 1)
    low = np.minimum(np.floor(v).astype(int), n - 1)
    high, g = np.minimum(low + 1, n - 1), v - low
    weights = np.zeros((len(v), n))
    np.add.at(weights, (np.arange(len(v)), low), 1.0 - g)
    np.add.at(weights, (np.arange(len(v)), high), g)
    slope = (n - 1) * (xs[..., high] - xs[..., low])  # (..., len(q))

    def pullback(ct):
        ctq = np.moveaxis(np.reshape(ct, (len(v),) + xf.shape[:-1]), 0, -1)
        ct_x = np.zeros(xf.shape)
        taken = selected(weights != 0, ctq[..., :, None] * weights)  # (not ctq @ weights:
        np.put_along_axis(ct_x, order, np.sum(taken, axis=-2), axis=-1)  # inf * 0 = NaN)
        ct_q = np.sum(ctq * slope, axis=tuple(range(ctq.ndim - 1)))
        return back(ct_x), np.reshape(ct_q, np.shape(q))
    return result, pullback


@raw_rrule(np.percentile)
def _percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, **kwargs):
    """The quantile at q / 100 (as NumPy computes it)."""
    check_quantile_method("percentile", method)
    q = get_rrule(np.true_divide)(q, 100.0) if holds_variable(q) else np.true_divide(q, 100)
    return get_rrule(np.quantile)(a, q, axis=axis, method=method, keepdims=keepdims,
                                  **kwargs)


# ---- NaN-skipping: NaNs become the neutral value, a constant -------------------------------
@composed_rrule(np.nanprod)
def _nanprod(a, axis=None, dtype=None, keepdims=False):
    return np.prod(np.where(np.isnan(a), 1.0, a), axis=axis, dtype=dtype,
                   keepdims=keepdims)


@composed_rrule(np.nancumsum)
def _nancumsum(a, axis=None, dtype=None):
    return np.cumsum(np.where(np.isnan(a), 0.0, a), axis=axis, dtype=dtype)


@composed_rrule(np.nancumprod)
def _nancumprod(a, axis=None, dtype=None):
    return np.cumprod(np.where(np.isnan(a), 1.0, a), axis=axis, dtype=dtype)


@composed_rrule(np.nanvar)
def _nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The variance of the entries that are not NaN."""
    nan = np.isnan(a)
    count = np.sum(np.logical_not(nan), axis=axis, keepdims=True)
    x = np.where(nan, 0.0, a)
    centered = np.where(nan, 0.0, x - np.sum(x, axis=axis, keepdims=True) / count)
    squares = np.sum(centered * centered, axis=axis, keepdims=keepdims)
    return squares / (np.sum(np.logical_not(nan), axis=axis, keepdims=keepdims) - ddof)


@composed_rrule(np.nanstd)
def _nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """sqrt(nanvar), with the subgradient 0 where it is 0 (as np.std's rule): the
    square root, whose derivative at 0 is infinite, is taken of a constant there."""
    var = np.nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    at_zero = var == 0
    return np.where(at_zero, 0.0, np.sqrt(np.where(at_zero, 1.0, var)))


# ---- cumulative_sum and cumulative_prod (the array-API names) ------------------------------
def _cumulative(fn, plain, initial):
    def rule(x, axis=None, dtype=None, out=None, include_initial=False):
        along = 0 if axis is None else axis
        result = plain(x, axis=along, dtype=dtype)
        if not include_initial:
            return result
        shape = list(np.shape(result))
        shape[along] = 1
        return np.concatenate([np.full(tuple(shape), initial), result], axis=along)
    rule.__name__ = f"_{fn.__name__}"
    return rule


composed_rrule(np.cumulative_sum)(_cumulative(np.cumulative_sum, np.cumsum, 0.0))
composed_rrule(np.cumulative_prod)(_cumulative(np.cumulative_prod, np.cumprod, 1.0))


# ---- covariance and correlation -------------------------------------------------------------
@composed_rrule(np.cov)
def _cov(m, y=None, rowvar=True, bias=False, ddof=None):
    """Unweighted: Xc Xc^T / (N - ddof), Xc the centred observations (in rows)."""
    rows = []
    for v in ([m] if y is None else [m, y]):  # variables in rows
        x = np.atleast_2d(v)
        rows.append(np.transpose(x) if not rowvar and np.shape(x)[0] != 1 else x)
    x = np.concatenate(rows, axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    centered = x - np.mean(x, axis=1, keepdims=True)
    return np.squeeze(np.dot(centered, np.transpose(centered)) / (np.shape(x)[1] - ddof))


@composed_rrule(np.corrcoef)
def _corrcoef(x, y=None, rowvar=True):
    """C_ij / (s_i s_j), s = sqrt(diag C)."""
    c = np.cov(x, y, rowvar)
    if np.ndim(c) == 0:
        return c / c
    s = np.sqrt(np.diagonal(c))
    return c / np.outer(s, s)
