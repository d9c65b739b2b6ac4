"""Rules for NumPy's calculus-like helpers: diff, ediff1d, gradient, trapezoid, cross,
convolve, correlate, interp, average, polyval, sinc and nan_to_num."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.rules.batching import (
    common_batch,
    dense,
    fit,
    is_batched,
    lift,
    map_batch,
    tangent_axis,
)
from fwdad.rules.reductions import as_array
from fwdad.rules.registry import frule
from fwdad.rules.sinc import sinc_derivative
from fwdad.rules.widening import overwrite
from fwdad.tangents import NoTangent


def bilinear(fn, a: Dual, b: Dual, **kwargs):
    """d fn(a, b) = fn(da, b) + fn(a, db), item by item for a batch."""
    left = map_batch(lambda t: fn(t, b.primal, **kwargs), a.primal, a.tangent)
    right = map_batch(lambda t: fn(a.primal, t, **kwargs), b.primal, b.tangent)
    return left + right


# ---- differences and integrals: linear --------------------------------------------------------
@frule(np.diff)
def _diff(a: Dual, n=1, axis=-1, prepend: Dual = None, append: Dual = None) -> Dual:
    """Linear in a, prepend and append together (they are differences of one array)."""
    a = as_array(a)
    pads = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    out = np.diff(a.primal, n, axis, **{k: v.primal for k, v in pads.items()})
    parts = [a] + list(pads.values())
    if all(d.tangent is NoTangent for d in parts):
        return Dual(out, NoTangent)
    if not pads:
        return Dual(out, np.diff(a.tangent, n, tangent_axis(a.primal, a.tangent, axis)))
    size = common_batch([d.primal for d in parts], [d.tangent for d in parts])
    da, *dpads = [dense(d.primal, d.tangent, size) for d in parts]
    if size is None:
        return Dual(out, np.diff(da, n, axis, **dict(zip(pads, dpads))))
    return Dual(out, np.stack([np.diff(da[b], n, axis, **{k: d[b] for k, d in zip(pads, dpads)})
                               for b in range(size)]))


@frule(np.ediff1d)
def _ediff1d(ary: Dual, to_end: Dual = None, to_begin: Dual = None) -> Dual:
    """Linear in ary, to_end and to_begin together (the result joins them)."""
    ary = as_array(ary)
    ends = {k: as_array(v) for k, v in (("to_end", to_end), ("to_begin", to_begin))
            if v is not None}
    out = np.ediff1d(ary.primal, **{k: v.primal for k, v in ends.items()})
    parts = [ary] + list(ends.values())
    if all(d.tangent is NoTangent for d in parts):
        return Dual(out, NoTangent)
    size = common_batch([d.primal for d in parts], [d.tangent for d in parts])
    dary, *dends = [dense(d.primal, d.tangent, size) for d in parts]
    if size is None:
        return Dual(out, np.ediff1d(dary, **dict(zip(ends, dends))))
    return Dual(out, np.stack([np.ediff1d(dary[b], **{k: d[b] for k, d in zip(ends, dends)})
                               for b in range(size)]))


@frule(np.gradient)
def _gradient(f: Dual, *spacing: Dual, **kwargs) -> Dual:
    """Linear in f; the spacings must be constants. Several axes give a tuple."""
    if any(np.any(dense(d.primal, d.tangent)) for d in spacing):
        raise FwdadError("fwdad differentiates np.gradient in f, not in the spacing: give "
                         "the spacing no tangent.")
    varargs = [d.primal for d in spacing]
    f = as_array(f)
    out = np.gradient(f.primal, *varargs, **kwargs)
    if f.tangent is NoTangent:
        return Dual(out, NoTangent)
    if not is_batched(f.primal, f.tangent):
        return Dual(out, np.gradient(f.tangent, *varargs, **kwargs))
    per = [np.gradient(t, *varargs, **kwargs) for t in f.tangent]
    if isinstance(out, np.ndarray):
        return Dual(out, np.stack(per))
    return Dual(out, type(out)(np.stack([p[k] for p in per]) for k in range(len(out))))


@frule(np.trapezoid)
def _trapezoid(y: Dual, x: Dual = None, dx: Dual = None, axis=-1) -> Dual:
    """sum(diff(x) * (y[1:] + y[:-1]) / 2): bilinear in y and x (without x, in y and
    the spacing dx)."""
    xp = None if x is None else x.primal
    step = 1.0 if dx is None else dx.primal
    out = np.trapezoid(y.primal, xp, step, axis)
    dy = map_batch(lambda t: np.trapezoid(t, xp, step, axis), y.primal, y.tangent)
    if x is None and dx is not None and dx.tangent is not NoTangent:
        unit = np.trapezoid(y.primal, None, 1.0, axis)
        dy = dy + lift(step, dx.tangent, np.ndim(unit)) * unit
    if x is None or x.tangent is NoTangent:
        return Dual(out, fit(dy, out))
    yp = np.moveaxis(np.asarray(y.primal, dtype=float), axis, -1)
    mid = (yp[..., 1:] + yp[..., :-1]) / 2.0
    dense_dx = dense(x.primal, x.tangent)
    if np.ndim(x.primal) > 1:  # x like y: differences along `axis`, moved last as in mid
        along = tangent_axis(x.primal, dense_dx, axis)
        dxs = np.moveaxis(np.diff(dense_dx, axis=along), along, -1)
    else:
        dxs = lift(x.primal, np.diff(dense_dx, axis=-1), mid.ndim)
    return Dual(out, fit(dy + np.sum(dxs * mid, axis=-1), out))


# ---- products of sequences: bilinear -----------------------------------------------------------
@frule(np.cross)
def _cross(a: Dual, b: Dual, **kwargs) -> Dual:
    return Dual(np.cross(a.primal, b.primal, **kwargs), bilinear(np.cross, a, b, **kwargs))


@frule(np.convolve)
def _convolve(a: Dual, v: Dual, mode="full") -> Dual:
    return Dual(np.convolve(a.primal, v.primal, mode), bilinear(np.convolve, a, v,
                                                                  mode=mode))


@frule(np.correlate)
def _correlate(a: Dual, v: Dual, mode="valid") -> Dual:
    return Dual(np.correlate(a.primal, v.primal, mode), bilinear(np.correlate, a, v,
                                                                   mode=mode))


def _derivative(p):
    """np.polyder(p), spelled with functions that have rules (second order derives this
    rule again)."""
    return p[:-1] * np.arange(len(p) - 1, 0, -1)


@frule(np.polyval)
def _polyval(p: Dual, x: Dual) -> Dual:
    """d polyval(p, x) = polyval(p', x) dx + sum_k dp_k x^(n-1-k)."""
    p, x = as_array(p), (as_array(x) if isinstance(x.primal, (list, tuple)) else x)
    out = np.polyval(p.primal, x.primal)
    n = len(p.primal)
    dx = x.tangent * np.polyval(_derivative(p.primal), x.primal) if n > 1 else NoTangent
    dp = NoTangent if p.tangent is NoTangent else \
        np.tensordot(p.tangent, _powers(x.primal, n), axes=(-1, 0))
    return Dual(out, fit(lift(x.primal, dx, np.ndim(out)) + dp, out))


def _powers(x, n: int):
    """x^(n-1), ..., x^0 along a new first axis; in floats for an int x, and complex for a
    complex one (a cast to float gave a bare TypeError: linalg_cases.py, polyval rows)."""
    x = np.asarray(x)
    x = x.astype(np.result_type(x, 1.0))
    return np.moveaxis(x[..., None] ** np.arange(n - 1, -1, -1), -1, 0)


# ---- interpolation and averages --------------------------------------------------------------
@frule(np.interp)
def _interp(x: Dual, xp: Dual, fp: Dual, left: Dual = None, right: Dual = None,
            period: Dual = None) -> Dual:
    """Linear in fp, left and right; in x, the slope of the segment x falls in (at a
    knot, the segment to its right; outside [xp[0], xp[-1]], 0). The knots xp and the
    period must be constants."""
    for given, name in ((xp, "the knots xp"), (period, "period=")):
        if given is not None and given.tangent is not NoTangent and np.any(given.tangent):
            raise FwdadError(f"np.interp{in_user_code()}: fwdad differentiates it in x "
                             f"and fp, not in {name}: give it no tangent.")
    period = None if period is None else period.primal
    knots, fp = np.asarray(xp.primal, dtype=float), as_array(fp)
    given = [None if end is None else end.primal for end in (left, right)]
    out = np.interp(x.primal, knots, fp.primal, *given, period)
    ends = [None if end is None else 0.0 for end in given]
    dfp = map_batch(lambda t: np.interp(x.primal, knots, t, *ends, period),
                    fp.primal, fp.tangent)
    values = np.asarray(fp.primal)  # (float, or complex: the slope is complex too)
    values = values.astype(np.result_type(values, 1.0), copy=False)
    at, knots, values = (x.primal, knots, values) if period is None else \
        _periodic(x.primal, knots, values, period)
    k = np.clip(np.searchsorted(knots, at, "right") - 1, 0, len(knots) - 2)
    slope = (values[k + 1] - values[k]) / (knots[k + 1] - knots[k])
    below, above = (x.primal < knots[0], x.primal > knots[-1]) if period is None else \
        (False, False)
    inside = ~np.asarray(below | above)
    ndim = np.ndim(out)
    dleft = NoTangent if left is None else below * lift(left.primal, left.tangent, ndim)
    dright = NoTangent if right is None else above * lift(right.primal, right.tangent, ndim)
    return Dual(out, fit(slope * inside * x.tangent + dfp + dleft + dright, out))


def _periodic(x, knots, values, period):
    """What np.interp does with `period`: x and the knots taken modulo the period, the
    knots sorted, and one knot added at each end from the other end."""
    period = abs(period)
    knots = knots % period
    order = np.argsort(knots)
    knots, values = knots[order], values[order]
    knots = np.concatenate([knots[-1:] - period, knots, knots[:1] + period])
    values = np.concatenate([values[-1:], values, values[:1]])
    return np.asarray(x, dtype=float) % period, knots, values


@frule(np.average)
def _average(a: Dual, axis=None, weights: Dual = None, returned=False, *,
             keepdims=False) -> Dual:
    """sum(w a) / sum(w): linear in a, and a quotient in the weights."""
    a = as_array(a)
    w = Dual(np.ones_like(a.primal), NoTangent) if weights is None else as_array(weights)
    if w.primal.shape != a.primal.shape:  # 1-d weights along `axis`
        shape = [1] * a.primal.ndim
        shape[axis] = -1
        w = Dual(w.primal.reshape(shape), NoTangent if w.tangent is NoTangent else
                 w.tangent.reshape(w.tangent.shape[:1] * is_batched(w.primal, w.tangent)
                                   + tuple(shape)))
    out = np.average(a.primal, axis, None if weights is None else weights.primal,
                     returned, keepdims=keepdims)
    size = common_batch([a.primal, w.primal], [a.tangent, w.tangent])
    da, dw = dense(a.primal, a.tangent, size), dense(w.primal, w.tangent, size)
    total = np.sum(w.primal * np.ones_like(a.primal), axis, keepdims=True)
    mean = np.sum(w.primal * a.primal, axis, keepdims=True) / total
    ax = axis if size is None else tangent_axis(a.primal, da, axis)
    dmean = np.sum(w.primal * da + dw * (a.primal - mean), ax, keepdims=keepdims) / \
        (total if keepdims else np.squeeze(total, axis))
    if not returned:
        return Dual(out, fit(dmean, out))
    dtotal = np.sum(dw * np.ones_like(a.primal), ax, keepdims=keepdims)
    return Dual(out, (fit(dmean, out[0]), fit(dtotal, out[1])))


# ---- elementwise, not ufuncs ------------------------------------------------------------------
@frule(np.sinc)
def _sinc(x: Dual) -> Dual:
    """sinc(x) = sin(pi x) / (pi x): its derivative without cancellation near 0, to
    every order (fwdad/rules/sinc.py)."""
    out = np.sinc(x.primal)
    return Dual(out, fit(sinc_derivative(1, x.primal) * x.tangent, out))


@frule(np.nan_to_num)
def _nan_to_num(x: Dual, copy=True, nan=0.0, posinf=None, neginf=None) -> Dual:
    """The tangent of the finite entries; the replaced ones are constants (0, not the
    NaN a NaN entry's tangent may be)."""
    dx = np.where(np.isfinite(x.primal), dense(x.primal, x.tangent), 0.0)
    out = np.nan_to_num(x.primal, copy=copy, nan=nan, posinf=posinf, neginf=neginf)
    if out is x.primal:  # copy=False: in place
        overwrite(x, dx, "np.nan_to_num(x, copy=False)")
        return x
    return Dual(out, fit(dx, out))
