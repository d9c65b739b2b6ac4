"""Reverse rules for nonlinear reductions: products, extremes, moments, order statistics,
cumulative sums and products, NaN-skipping reductions and np.linalg.norm.

A reduction over `axis` moves the reduced axes to the end and merges them (`merged_axes`);
its pullback is written on that last axis and moved back. Ties follow forward mode:
max-like reductions give the cotangent to the first extreme element (what argmax
picks); sort and median are stable.
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from fwdad.reverse.registry import get_rrule, raw_rrule, rrule
from fwdad.reverse.rule_calls import TRACKED_KEYWORDS, Pure
from fwdad.reverse.rules_arrays import assign
from fwdad.reverse.tracked import is_tracked
from fwdad.reverse.var import VarMat, is_matvar, value_of
from fwdad.rules import counting
from fwdad.rules.empty_inputs import zero_at_empty_rrule
from fwdad.rules.ieee import selected
from fwdad.rules.reductions import others_product, to_last
from fwdad.tangents import rebuild


def merged_axes(x, axis):
    """x with the axes `axis` moved to the end and merged into one, and the function
    that moves a cotangent of that shape back to x's shape."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else normalize_axis_tuple(axis, x.ndim)
    order = [i for i in range(x.ndim) if i not in axes] + list(axes)
    moved = np.transpose(x, order)
    xf = to_last(x, axes, x.ndim, False)
    return xf, lambda ctf: np.transpose(np.reshape(ctf, moved.shape), np.argsort(order))


def _along(x, axis, out, grad):
    """out reduces x over `axis`; the pullback is ct * grad(xf) on the merged axis."""
    xf, back = merged_axes(x, axis)
    return out, lambda ct: (lambda: back(np.reshape(ct, xf.shape[:-1])[..., None]
                                         * grad(xf)),)


def _picked_along(x, axis, out, spread):
    """out picks elements of x over `axis` (an extreme, a median); the pullback is
    `spread(xf, ct)` on the merged axis, ct of shape (..., 1): the cotangent selected
    into the elements picked (ieee.selected), never multiplied by a 0/1 weight, which
    would give the others inf * 0 = NaN for an infinite ct."""
    xf, back = merged_axes(x, axis)
    return out, lambda ct: (lambda: back(spread(xf, np.reshape(ct, xf.shape[:-1])[
        ..., None])),)


# ---- products --------------------------------------------------------------------------
@rrule(np.prod, np.ndarray.prod)
def _prod(x, axis=None, dtype=None, keepdims=False, *, initial=1, where=True):
    """d prod / d x_i = initial * prod_{j != i} x_j: exact when some x_j are 0. Entries
    `where` leaves out count as 1 and get no cotangent."""
    out = np.prod(x, axis, dtype, keepdims=keepdims, initial=initial, where=where)
    if where is True and initial == 1:
        return _along(x, axis, out, others_product)
    kept = np.broadcast_to(where, np.shape(x))
    xf_kept, _ = merged_axes(kept, axis)
    return _along(np.where(kept, x, 1.0), axis, out,
                  lambda xf: initial * others_product(xf) * xf_kept)


# ---- extremes: the first extreme element takes the cotangent (what argmax picks) -------
def one_hot(xf, index):
    hot = np.zeros(xf.shape)
    np.put_along_axis(hot, index[..., None], 1.0, axis=-1)
    return hot


def hot(xf, index):
    """True at xf[..., index] along the last axis."""
    mask = np.zeros(xf.shape, dtype=bool)
    np.put_along_axis(mask, index[..., None], True, axis=-1)
    return mask


def _extreme(fn, arg):
    """As forward mode's: entries `where` leaves out lie beyond every value, and where
    `initial` wins (ties included) the cotangent goes nowhere (tests/reverse/
    cases_numpy.py: `_extreme_cases`, which gave the cotangent to an element before)."""
    def rule(x, axis=None, keepdims=False, **given):
        out = fn(x, axis=axis, keepdims=keepdims, **given)
        initial, where = given.get("initial"), given.get("where", True)
        if where is not True:
            far = -np.inf if arg in (np.argmax, np.nanargmax) else np.inf
            x = np.where(np.broadcast_to(where, np.shape(x)), x, far)

        def spread(xf, ct):
            if xf.shape[-1] == 0:  # (nothing reduced: `initial` is every result)
                return np.zeros(xf.shape)
            index = arg(xf, axis=-1)
            if initial is None:
                return selected(hot(xf, index), ct)
            won = np.take_along_axis(xf, index[..., None], -1)[..., 0] == \
                np.reshape(out, index.shape)
            return selected(hot(xf, index) & won[..., None], ct)
        return _picked_along(x, axis, out, spread)
    rule.__name__ = f"_{fn.__name__}"
    return rule


rrule(np.max, np.amax, np.ndarray.max)(_extreme(np.max, np.argmax))
rrule(np.min, np.amin, np.ndarray.min)(_extreme(np.min, np.argmin))
rrule(np.nanmax)(_extreme(np.nanmax, np.nanargmax))
rrule(np.nanmin)(_extreme(np.nanmin, np.nanargmin))


# ---- an `initial` that carries a derivative: the reduction, then combined with it -----
def _from_initial(reduce, combine, neutral):
    """`reduce(x, ..., initial=c)` as `combine(reduce(x, ..., initial=neutral), c)`, by
    their reverse rules (for a max, ties go to x, as forward mode's rule has them)."""
    def composed(args, kwargs):
        start = kwargs["initial"]
        rest = {**kwargs, "initial": neutral}
        return get_rrule(combine)(get_rrule(reduce)(*args, **rest), start)
    return ("initial",), composed


for _fns, _parts in (((np.sum, np.ndarray.sum), (np.sum, np.add, 0.0)),
                     ((np.prod, np.ndarray.prod), (np.prod, np.multiply, 1.0)),
                     ((np.max, np.amax, np.ndarray.max), (np.max, np.maximum, -np.inf)),
                     ((np.min, np.amin, np.ndarray.min), (np.min, np.minimum, np.inf))):
    for _fn in _fns:
        TRACKED_KEYWORDS[_fn] = _from_initial(*_parts)


@rrule(np.ptp)
def _ptp(x, axis=None, keepdims=False):
    """max - min, with the tie rule of max and min (equal values: the same element, 0)."""
    return _picked_along(x, axis, np.ptp(x, axis, keepdims=keepdims), _ptp_spread)


def _ptp_spread(xf, ct):
    top, bottom = hot(xf, np.argmax(xf, axis=-1)), hot(xf, np.argmin(xf, axis=-1))
    return selected(top & ~bottom, ct) - selected(bottom & ~top, ct)


def of_complex(x, result):
    """A real function of x (var, a norm) whose real gradient G, written with x and |x|
    and evaluated at a complex x, is its gradient there: df = Re(sum(conj(G) dx)). The
    cotangent of x is then conj(ct G) (docs/complex.md), a real G's conjugate."""
    if not np.iscomplexobj(x):
        return result
    out, pullback = result

    def conjugated(ct):
        ct_x = pullback(ct)[0]
        return (np.conjugate(ct_x() if callable(ct_x) else ct_x),)
    return out, conjugated


# ---- moments and NaN-skipping sums ---------------------------------------------------------
@rrule(np.var, np.ndarray.var)
def _var(x, axis=None, dtype=None, ddof=0, keepdims=False):
    """d var / d x_i = 2 (x_i - mean) / (n - ddof)."""
    out = np.var(x, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    return of_complex(x, _along(x, axis, out, lambda xf: 2.0 * (
        xf - xf.mean(axis=-1, keepdims=True)) / np.float64(xf.shape[-1] - ddof)))


@rrule(np.std, np.ndarray.std)
def _std(x, axis=None, dtype=None, ddof=0, keepdims=False):
    """d std = d var / (2 std) where std > 0. Where std is 0 (equal values) it moves like
    |h| and has no gradient: the subgradient 0 (std is convex, 0 its minimum), as for
    the norm at 0; that is the gradient for a group of one value (whose std is always 0)
    and for values equal whatever the input. Forward mode gives the same 0
    (docs/errors-and-debugging.md, "Kinks")."""
    var, pullback = _var(x, axis, dtype, ddof, keepdims)
    out = np.sqrt(var)

    def back(ct):
        with np.errstate(divide="ignore", invalid="ignore"):
            return pullback(np.where(out == 0, 0.0, ct / (2.0 * out)))
    return out, back


def _with_float_ddof(reduce, power: float):
    """`reduce(x, ..., ddof=d)` (np.var: power 1, np.std: 1/2) with d carrying a
    derivative: reduce(x, ..., ddof=0) * (n / (n - d)) ** power, by their reverse rules,
    so that std's subgradient 0 at equal values stays (d var / d ddof = var / (n - d))."""
    def composed(args, kwargs):
        ddof = kwargs["ddof"]
        at_zero = get_rrule(reduce)(*args, **{**kwargs, "ddof": 0})
        n = float(np.size(value_of(args[0])) // max(np.size(value_of(at_zero)), 1))
        scale = get_rrule(operator.truediv)(n, get_rrule(operator.sub)(n, ddof))
        return get_rrule(operator.mul)(at_zero, get_rrule(operator.pow)(scale, power))
    return ("ddof",), composed


for _fns, _parts in (((np.var, np.ndarray.var), (np.var, 1.0)),
                     ((np.std, np.ndarray.std), (np.std, 0.5))):
    for _fn in _fns:
        TRACKED_KEYWORDS[_fn] = _with_float_ddof(*_parts)


@rrule(np.nansum)
def _nansum(x, axis=None, dtype=None, keepdims=False):
    out = np.nansum(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return _along(x, axis, out, lambda xf: 1.0 * ~np.isnan(xf))


@rrule(np.nanmean)
def _nanmean(x, axis=None, dtype=None, keepdims=False):
    """The mean of the valid entries: their sum over their count."""
    out = np.nanmean(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return _along(x, axis, out, lambda xf: ~np.isnan(xf) / np.sum(
        ~np.isnan(xf), axis=-1, keepdims=True))


# ---- order statistics ------------------------------------------------------------------------
@rrule(np.sort)
def _sort(x, axis=-1, kind=None, order=None, **kwargs):
    """Each cotangent goes back to where its value came from (stable for ties)."""
    out = np.sort(x, axis=axis, kind=kind, order=order, **kwargs)
    flat = np.ravel(x) if axis is None else np.asarray(x)
    where = np.argsort(flat, axis=-1 if axis is None else axis, kind="stable")
    return out, lambda ct: (_unsort(ct, where, -1 if axis is None else axis, np.shape(x)),)


def _unsort(ct, where, axis, shape):
    ct_x = np.zeros(where.shape)
    np.put_along_axis(ct_x, where, ct, axis=axis)
    return ct_x.reshape(shape)


@raw_rrule(np.ndarray.sort)
def _sort_in_place(x, axis=-1, kind=None, order=None):
    """x.sort(): x is overwritten with its sorted values (saved and restored)."""
    if type(x) is VarMat:
        assign(x, Ellipsis, get_rrule(np.sort)(x, axis, kind, order))
    elif is_matvar(x):
        x[...] = get_rrule(np.sort)(x, axis, kind, order)
    else:
        x.sort(axis=axis, kind=kind, order=order)


@rrule(np.median)
def _median(x, axis=None, keepdims=False):
    """The middle element's cotangent (shared by the two middle ones for even counts)."""
    return _picked_along(x, axis, np.median(x, axis=axis, keepdims=keepdims), _middle)


def _middle(xf, ct):
    where, n = np.argsort(xf, axis=-1, kind="stable"), xf.shape[-1]
    if n == 0:  # (the median of nothing is NaN, and nothing gets its cotangent)
        return np.zeros(xf.shape)
    half = 0.5 * ct
    return selected(hot(xf, where[..., (n - 1) // 2]), half) + \
        selected(hot(xf, where[..., n // 2]), half)


# ---- cumulative --------------------------------------------------------------------------
@rrule(np.cumsum, np.ndarray.cumsum)
def _cumsum(x, axis=None, dtype=None):
    """The cotangent of x_i is the sum of the output cotangents from i on."""
    out, shape = np.cumsum(x, axis=axis, dtype=dtype), np.shape(x)
    axis_ = 0 if axis is None else axis
    return out, lambda ct: (np.reshape(np.flip(np.cumsum(np.flip(
        ct, axis_), axis_), axis_), shape),)


@rrule(np.cumprod, np.ndarray.cumprod)
def _cumprod(x, axis=None, dtype=None):
    """c_k = c_{k-1} x_k, run backwards: exact with zeros."""
    out = np.cumprod(x, axis=axis, dtype=dtype)
    xs = np.ravel(x) if axis is None else np.moveaxis(x, axis, -1)
    c = out if axis is None else np.moveaxis(out, axis, -1)

    def pullback(ct):
        ct_x = _cumprod_pullback(xs, c, ct if axis is None else np.moveaxis(ct, axis, -1))
        return (np.reshape(ct_x, np.shape(x)) if axis is None
                else np.moveaxis(ct_x, -1, axis),)
    return out, pullback


def _cumprod_pullback(xs, c, ct):
    """Along the last axis: x_k gets ct_k c_{k-1}; c_{k-1} gets ct_k x_k."""
    ct_c = np.array(ct, dtype=np.result_type(ct, xs))  # (complex x: complex cotangents)
    ct_x = np.zeros(xs.shape, dtype=ct_c.dtype)
    for k in range(xs.shape[-1] - 1, 0, -1):
        ct_x[..., k] = ct_c[..., k] * c[..., k - 1]
        ct_c[..., k - 1] += ct_c[..., k] * xs[..., k]
    if xs.shape[-1]:
        ct_x[..., 0] = ct_c[..., 0]
    return ct_x



# ---- norms --------------------------------------------------------------------------------
@rrule(np.linalg.norm)
@zero_at_empty_rrule(np.linalg.norm)
def _norm(x, ord=None, axis=None, keepdims=False):
    """Vector norms (any ord) over one axis or all; matrix norms ('fro', 'nuc', +-1, +-2,
    +-inf) over two. Nonsmooth points as in forward mode: sign(0) = 0, the first
    extreme element, distinct (nonzero) singular values for 2 (nuc). Where the norm is
    0 it moves like |h| and has no gradient; a gradient cannot see the direction, so it
    is the subgradient 0 there (the norm is convex and 0 is its minimum; sign(0) = 0 of
    abs is the same choice), which is the gradient when the argument is identically 0,
    as for norm(v - v). Forward mode gives the same 0 (docs/errors-and-debugging.md,
    "Kinks")."""
    out = np.linalg.norm(x, ord, axis, keepdims)
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else normalize_axis_tuple(axis, x.ndim)
    if len(axes) == 2 and (ord is not None or axis is not None):
        return of_complex(x, (out, lambda ct: (_matrix_norm_pullback(x, ord, axes, ct),)))
    if ord in (np.inf, -np.inf) and not np.iscomplexobj(x):
        return _picked_along(x, axes, out, lambda xf, ct: _picked_sign(xf, ord, ct))
    return of_complex(x, _along(x, axes, out, lambda xf: _vector_norm_grad(xf, ord)))


def _picked_sign(xf, ord, ct):
    """The largest (smallest) |x| takes ct sign(x); the others, and a 0, nothing."""
    pick = (np.argmax if ord > 0 else np.argmin)(np.abs(xf), axis=-1)
    with np.errstate(invalid="ignore"):
        return selected(hot(xf, pick) & (xf != 0), ct * np.sign(xf))


def _vector_norm_grad(xf, ord):
    norm = np.linalg.norm(xf, ord, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _zero_at_zero(norm, _vector_norm_grad_away(xf, ord, norm))


def _zero_at_zero(norm, grad):
    """The subgradient 0 for the groups whose norm is 0 (see _norm)."""
    return np.where(norm == 0, 0.0, grad)


def _vector_norm_grad_away(xf, ord, norm):
    if ord is None or ord == 2:
        return xf / norm
    if ord == 0:  # the number of nonzero entries
        return np.zeros(xf.shape)
    if ord in (np.inf, -np.inf):
        pick = (np.argmax if ord > 0 else np.argmin)(np.abs(xf), axis=-1)
        return np.sign(xf) * one_hot(xf, pick)
    if ord == 1:
        return np.sign(xf)
    weight = np.where(xf == 0, 0.0, np.abs(xf) ** (ord - 1))  # (|0| ** (p - 1): as sign(0))
    return weight * np.sign(xf) / norm ** (ord - 1)


def _matrix_norm_pullback(x, ord, axes, ct):
    a = np.moveaxis(x, axes, (-2, -1))
    ct = np.reshape(ct, a.shape[:-2])[..., None, None]
    norm = np.linalg.norm(a, ord, axis=(-2, -1), keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        grad = _zero_at_zero(norm, _matrix_norm_grad(a, ord))
    return np.moveaxis(ct * grad, (-2, -1), axes)


def _matrix_norm_grad(a, ord):
    """The gradient of a matrix norm of a (its last two axes)."""
    if ord in (None, "fro"):
        return a / np.linalg.norm(a, axis=(-2, -1), keepdims=True)
    if ord in ("nuc", 2, -2):  # d s_k / d a = u_k v_k^T
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        k = {"nuc": slice(None), 2: slice(0, 1), -2: slice(-1, None)}[ord]
        return u[..., :, k] @ vh[..., k, :]
    if ord in (np.inf, -np.inf):  # the largest (smallest) row sum: 1 on the transpose
        return np.swapaxes(_matrix_norm_grad(np.swapaxes(a, -1, -2), 1 if ord > 0 else -1),
                           -1, -2)
    pick = (np.argmax if ord > 0 else np.argmin)(np.abs(a).sum(axis=-2), axis=-1)
    return np.sign(a) * one_hot(a[..., 0, :], pick)[..., None, :]


# ---- np.bincount: sums of weights, linear in them ------------------------------------------
def _bincount_rule(x, weights, minlength=0):
    x = np.asarray(x)
    return np.bincount(x, weights, minlength), lambda ct: (None, ct[x], None)


_bincount_of_weights = Pure(np.bincount, _bincount_rule)


@raw_rrule(np.bincount)
def _bincount(x, weights=None, minlength=0):
    if weights is None:
        return np.bincount(value_of(x), minlength=minlength)
    return _bincount_of_weights(x, weights, minlength)


def _unique_rrule(fn):
    """np.unique and the array API's unique_*: the values are the elements they are
    (rules/counting.py), read from the flattened variable; ties are refused."""
    def rule(ar, *args, **kwargs):
        if not is_tracked(ar):
            return fn(ar, *args, **kwargs)
        out = fn(value_of(ar), *args, **kwargs)
        values = out if isinstance(out, np.ndarray) else out[0]
        if counting.axis_of(fn, args, kwargs) is not None:
            raise counting.axis_error(fn)
        at = counting.unique_positions(np.ravel(value_of(ar)), values)
        if at is None:
            raise counting.tied_error(fn)
        picked = get_rrule(operator.getitem)(get_rrule(np.ravel)(ar), at)
        return picked if isinstance(out, np.ndarray) else rebuild(out, [picked, *out[1:]])
    rule.__name__ = f"_{fn.__name__}"
    raw_rrule(fn)(rule)


for _fn in counting.UNIQUE:
    _unique_rrule(_fn)
