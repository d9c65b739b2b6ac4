"""Rules for statistics: quantile and percentile, the NaN-skipping reductions (nanprod,
nanvar, nanstd, nancumsum, nancumprod), cumulative_sum/prod, cov and corrcoef."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.rules import reductions as red
from fwdad.rules.batching import batch_size, dense, fit, is_batched, tangent_axis
from fwdad.rules.empty_inputs import zero_at_empty
from fwdad.rules.registry import frule, takes_out
from fwdad.tangents import NoTangent


# ---- quantiles: a weighted pair of order statistics --------------------------------------
@frule(np.quantile)
def _quantile(a: Dual, q: Dual, axis=None, out=None, overwrite_input=False, method="linear",
              keepdims=False, **kwargs) -> Dual:
    """Method 'linear' (the default): with v = q (n - 1), the tangent is
    (1 - g) dx_(floor v) + g dx_(floor v + 1) over the sorted tangents, g = v - floor v;
    equal values keep their order (stable sort). In q, the slope (n - 1) (x_(floor v + 1)
    - x_(floor v)), taken from the right where v is a whole number."""
    a = red.as_array(a)
    check_quantile_method("quantile", method)
    q = red.as_array(q)
    result = np.quantile(a.primal, q.primal, axis=axis, method=method, keepdims=keepdims,
                         **kwargs)
    return Dual(result, fit(_quantile_tangent(a, q, axis, result), result))


def _quantile_tangent(a: Dual, q: Dual, axis, result):
    size = batch_size(a.primal, a.tangent) or batch_size(q.primal, q.tangent)
    xf = red.to_last(a.primal, axis, a.primal.ndim, False)
    dxf = red.to_last(dense(a.primal, a.tangent, size), axis, a.primal.ndim, bool(size))
    order = np.argsort(xf, axis=-1, kind="stable")
    xs = np.take_along_axis(xf, order, axis=-1)
    dxs = np.take_along_axis(dxf, np.broadcast_to(order, dxf.shape), axis=-1)
    n = xf.shape[-1]
    v = q.primal.ravel() * (n - 1)
    low = np.minimum(np.floor(v).astype(int), n - 1)
    high, g = np.minimum(low + 1, n - 1), v - low
    dq = dense(q.primal, q.tangent, size)
    dq = dq.reshape(dq.shape[:1] + (1,) * (xs.ndim - 1) + (-1,) if size else (-1,))
    tangent = (1 - g) * dxs[..., low] + g * dxs[..., high] + \
        (n - 1) * (xs[..., high] - xs[..., low]) * dq  # (..., len(q))
    tangent = np.moveaxis(tangent, -1, int(bool(size)))  # q's axes come first
    return tangent.reshape((() if size is None else (size,)) + np.shape(result))


def check_quantile_method(called: str, method: str) -> None:
    """Refuse a method other than 'linear', naming the function the user called (the
    NaN-skipping ones and percentile reach np.quantile's rule through their own)."""
    if method != "linear":
        raise FwdadError(
            f"np.{called}(..., method={method!r}){in_user_code()}: fwdad "
            f"differentiates quantiles with method='linear' (the default) only. Use it, "
            f"or pick the order statistic yourself (np.sort(a, axis)[..., k]), which "
            f"fwdad differentiates.")


@frule(np.percentile)
def _percentile(a: Dual, q: Dual, axis=None, out=None, overwrite_input=False,
                method="linear", keepdims=False, **kwargs) -> Dual:
    """The quantile at q / 100."""
    check_quantile_method("percentile", method)
    q = red.as_array(q)
    scaled = Dual(q.primal / 100.0, NoTangent if q.tangent is NoTangent else q.tangent / 100)
    out_ = _quantile(a, scaled, axis, None, False, method, keepdims, **kwargs)
    return Dual(np.percentile(red.as_array(a).primal, q.primal, axis=axis, method=method,
                              keepdims=keepdims, **kwargs), out_.tangent)


# ---- NaN-skipping: NaNs become the neutral value, and their tangents 0 -------------------
def _skipping_nans(x: Dual, neutral: float) -> Dual:
    x = red.as_array(x)
    nan = np.isnan(x.primal)
    return Dual(np.where(nan, neutral, x.primal), dense(x.primal, x.tangent) * ~nan)


@frule(np.nanprod)
def _nanprod(a: Dual, axis=None, dtype=None, keepdims=False) -> Dual:
    return red.prod_rule(_skipping_nans(a, 1.0), axis, dtype, keepdims)


@frule(np.nancumsum)
def _nancumsum(a: Dual, axis=None, dtype=None) -> Dual:
    return red.cumsum_rule(_skipping_nans(a, 0.0), axis, dtype)


@frule(np.nancumprod)
def _nancumprod(a: Dual, axis=None, dtype=None) -> Dual:
    return red.cumprod_rule(_skipping_nans(a, 1.0), axis, dtype)


@frule(np.nanvar)
@zero_at_empty(np.nanvar)
def _nanvar(a: Dual, axis=None, dtype=None, ddof: Dual = 0, keepdims=False) -> Dual:
    """d var = 2 / (n - ddof) * sum(Re(conj(x - mean) dx)) over the entries that are not
    NaN; plus red.ddof_term for a float ddof with a derivative."""
    a, ddof_dual, ddof = red.as_array(a), ddof, red.plain_ddof(ddof)
    out = np.nanvar(a.primal, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    valid = ~np.isnan(a.primal)
    centered = np.where(valid, a.primal - np.nanmean(a.primal, axis, keepdims=True), 0.0)
    n = np.sum(valid, axis=axis, keepdims=keepdims)
    dx = dense(a.primal, a.tangent)
    total = np.sum(red.re_conj_times(centered, dx), axis=tangent_axis(a.primal, dx, axis),
                   keepdims=keepdims)
    with np.errstate(divide="ignore", invalid="ignore"):  # n <= ddof: NaN, as the value
        tangent = 2.0 / (n - ddof) * total
    return Dual(out, fit(tangent + red.ddof_term(ddof_dual, out, n), out))


@frule(np.nanstd)
@zero_at_empty(np.nanstd)
def _nanstd(a: Dual, axis=None, dtype=None, ddof: Dual = 0, keepdims=False) -> Dual:
    """As np.std over the values that are not NaN (a group of one value: tangent 0)."""
    return red.std_of(_nanvar(a, axis, dtype, ddof, keepdims))


# ---- cumulative_sum and cumulative_prod (the array-API names) ------------------------------
def _cumulative(fn, rule, initial):
    def cumulative(x: Dual, axis=None, dtype=None, out=None, include_initial=False) -> Dual:
        x = red.as_array(x)
        result = fn(x.primal, axis=axis, dtype=dtype, include_initial=include_initial)
        along = 0 if axis is None else axis
        inner = rule(x, along, dtype)
        tangent = dense(inner.primal, inner.tangent)
        if include_initial:  # the initial value is a constant
            t_axis = tangent_axis(inner.primal, tangent, along)
            shape = list(np.shape(tangent))
            shape[t_axis] = 1
            tangent = np.concatenate([np.zeros(shape), tangent], axis=t_axis)
        return Dual(result, fit(tangent, result))
    cumulative.__name__ = f"_{fn.__name__}"
    frule(fn)(cumulative)


_cumulative(np.cumulative_sum, red.cumsum_rule, 0.0)
_cumulative(np.cumulative_prod, red.cumprod_rule, 1.0)


# ---- covariance and correlation --------------------------------------------------------------
@frule(np.cov)
def _cov(m: Dual, y: Dual = None, rowvar=True, bias=False, ddof=None) -> Dual:
    """Unweighted: with Xc the centred observations, d cov = (dXc Xc^H + Xc dXc^H) / N'."""
    out = np.cov(m.primal, None if y is None else y.primal, rowvar, bias, ddof)
    x = _observations(m, rowvar)
    if y is not None:
        other = _observations(y, rowvar)
        x = Dual(np.concatenate([x.primal, other.primal], axis=0), _stack_rows(x, other))
    n = x.primal.shape[1]
    divisor = n - (ddof if ddof is not None else (0 if bias else 1))
    xc = x.primal - x.primal.mean(axis=1, keepdims=True)
    dx = dense(x.primal, x.tangent)
    dxc = dx - dx.mean(axis=-1, keepdims=True)
    dcov = (dxc @ xc.T.conj() + xc @ np.swapaxes(dxc, -1, -2).conj()) / divisor
    return Dual(out, fit(dcov.reshape(dcov.shape[:dcov.ndim - 2] + np.shape(out))
                         if np.ndim(out) < 2 else dcov, out))


def _observations(m: Dual, rowvar: bool) -> Dual:
    """Variables in rows, observations in columns (2-d)."""
    m = red.as_array(m)
    batched = is_batched(m.primal, m.tangent)
    p, t = np.atleast_2d(m.primal), dense(m.primal, m.tangent)
    t = t.reshape(t.shape[:1] * batched + p.shape) if m.primal.ndim < 2 else t
    if not rowvar and m.primal.ndim == 2:
        return Dual(p.T, np.swapaxes(t, -1, -2))
    return Dual(p, t)


def _stack_rows(x: Dual, y: Dual):
    size = batch_size(x.primal, x.tangent) or batch_size(y.primal, y.tangent)
    tangents = [dense(d.primal, d.tangent, size) for d in (x, y)]
    return np.concatenate(tangents, axis=-2)


@frule(np.corrcoef)
def _corrcoef(x: Dual, y: Dual = None, rowvar=True) -> Dual:
    """c_ij = C_ij / (s_i s_j), s = sqrt(diag C): dc_ij = dC_ij / (s_i s_j)
    - c_ij (dC_ii / (2 C_ii) + dC_jj / (2 C_jj))."""
    if np.size(x.primal) == 0 and (y is None or np.size(y.primal) == 0):
        return Dual(np.corrcoef(x.primal, None if y is None else y.primal, rowvar),
                    NoTangent)  # (of no entry: constant)
    cov = _cov(x, y, rowvar)
    out = np.corrcoef(x.primal, None if y is None else y.primal, rowvar)
    c, dc = np.atleast_2d(cov.primal), cov.tangent
    dc = dc.reshape(dc.shape[:np.ndim(dc) - np.ndim(cov.primal)] + c.shape)
    s = np.sqrt(np.diagonal(c))
    rel = np.diagonal(dc, axis1=-2, axis2=-1) / (2.0 * s * s)
    dout = dc / np.outer(s, s) - np.atleast_2d(out) * (rel[..., :, None] + rel[..., None, :])
    return Dual(out, fit(dout.reshape(dout.shape[:dout.ndim - 2] + np.shape(out)), out))


takes_out(3, np.nanprod, np.nancumsum, np.nancumprod, np.nanvar, np.nanstd, np.quantile,
          np.percentile)  # (rules/outputs.py adds out= to their rules)
