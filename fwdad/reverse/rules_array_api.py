"""Reverse rules for NumPy 2's array-API names and the remaining ndarray methods:
np.linalg's matmul, outer, tensordot, trace, diagonal, matrix_transpose, cross,
vecdot, vector_norm, matrix_norm, svdvals, cond, eigvals and eig; matvec, vecmat,
astype, compress, extract, select, place, putmask, unwrap, logspace, geomspace; conj
and view. Most are another function's rule under a new name, or a composition."""
from __future__ import annotations

import math
import operator

import numpy as np

from fwdad.errors import FwdadError, describe
from fwdad.reverse.registry import complex_ready, composed_rrule, get_rrule, raw_rrule, rrule
from fwdad.reverse.tracked import is_tracked
from fwdad.reverse.var import value_of
from fwdad.rules.array_api import refuse_singular_cond
from fwdad.rules.piecewise import piecewise


def _alias(fn, target, **fixed):
    """fn(x, ...) is target(x, ..., **fixed)."""
    def rule(*args, **kwargs):
        return get_rrule(target)(*args, **kwargs, **fixed)
    rule.__name__ = f"_{fn.__name__}"
    raw_rrule(fn)(rule)


_alias(np.linalg.matmul, np.matmul)
_alias(np.linalg.outer, np.outer)
_alias(np.linalg.tensordot, np.tensordot)
_alias(np.astype, np.ndarray.astype)
_alias(np.ndarray.conj, np.conjugate)
_alias(np.ndarray.conjugate, np.conjugate)
_alias(np.linalg.cross, np.cross)
_alias(np.linalg.matrix_norm, np.linalg.norm, axis=(-2, -1))
_alias(np.linalg.svdvals, np.linalg.svd, compute_uv=False)


@raw_rrule(np.linalg.trace)
def _linalg_trace(x, offset=0, dtype=None):
    return get_rrule(np.trace)(x, offset, -2, -1, dtype)


@raw_rrule(np.linalg.diagonal)
def _linalg_diagonal(x, offset=0):
    return get_rrule(np.diagonal)(x, offset, -2, -1)


@raw_rrule(np.linalg.matrix_transpose, np.matrix_transpose)
def _matrix_transpose(x):
    return get_rrule(np.swapaxes)(x, -1, -2)


@composed_rrule(np.vecdot, np.linalg.vecdot)
def _vecdot(x1, x2, axis=-1):
    return np.sum(x1 * x2, axis=axis)


@composed_rrule(np.matvec)
def _matvec(x1, x2):
    return np.matmul(x1, np.expand_dims(x2, -1))[..., 0]


@composed_rrule(np.vecmat)
def _vecmat(x1, x2):
    return np.matmul(np.expand_dims(x1, -2), x2)[..., 0, :]


@composed_rrule(np.linalg.vector_norm)
def _vector_norm(x, axis=None, keepdims=False, ord=2):
    """The vector norm over all of `axis` (all axes when None), as one flat vector."""
    axes = tuple(range(np.ndim(x))) if axis is None else np.atleast_1d(axis) % np.ndim(x)
    rest = [k for k in range(np.ndim(x)) if k not in axes]
    moved = np.transpose(x, rest + list(axes))
    kept = np.shape(moved)[:len(rest)]
    flat = np.reshape(moved, kept + (math.prod(np.shape(moved)[len(rest):]),))  # (not -1: 0)
    norm = np.linalg.norm(flat, ord, axis=-1)
    if keepdims:
        return np.reshape(norm, tuple([1 if k in axes else n
                                       for k, n in enumerate(np.shape(x))]))
    return norm


@composed_rrule(np.linalg.cond, refuse=refuse_singular_cond)
def _cond(x, p=None):
    """s_max / s_min for p None, 2 and -2; norm(x, p) norm(inv(x), p) otherwise."""
    if p is None or p == 2 or p == -2:
        s = np.linalg.svd(x, compute_uv=False)
        if p == -2:
            return s[..., -1] / s[..., 0]
        return s[..., 0] / s[..., -1]
    return np.linalg.norm(x, p, axis=(-2, -1)) * np.linalg.norm(np.linalg.inv(x), p,
                                                                 axis=(-2, -1))


# ---- eigenvalues of a general matrix (real, distinct) -----------------------------------------
def _real_eig(a, fn, eig):
    """The eigenvalues and vectors of a real matrix whose eigenvalues are real, as real
    arrays, from `eig`, NumPy's result. NumPy 2.5 and later return them complex whatever
    their values (with zero imaginary parts where LAPACK found them real): those are
    taken real here, and the rules' pullbacks read the real part of a complex
    cotangent, `Re(ct t) = Re(ct) t` for a real tangent t (docs/complex.md)."""
    w, v = eig
    if np.iscomplexobj(w):
        if np.iscomplexobj(a) or np.any(w.imag) or np.any(v.imag):
            raise FwdadError(f"{describe(fn)}: reverse mode differentiates real eigenvalues "
                             f"of a real matrix only; use forward mode (fwdad.jvp), or eigh "
                             f"if a is symmetric.")
        w, v = w.real, v.real
    return w, v


# (names of their own: tests give them the complex results of NumPy 2.5)
_general_eig, _general_eigvals = np.linalg.eig, np.linalg.eigvals


def _T(x):
    return np.swapaxes(x, -1, -2)


def _from_c(v, ct_c):
    """C = V^-1 dA V: dA's cotangent is V^-T ct_C V^T."""
    return np.linalg.solve(_T(v), ct_c @ _T(v))


@rrule(np.linalg.eigvals)
def _eigvals(a):
    """dw = diag(V^-1 dA V)."""
    w, v = _real_eig(a, np.linalg.eigvals, _general_eig(a))
    eye = np.eye(w.shape[-1])
    return _general_eigvals(a), lambda ct: (_from_c(v, np.real(ct)[..., None] * eye),)


@rrule(np.linalg.eig)
def _eig(a):
    """C = V^-1 dA V: dw = diag C; dV = V (F * C), F_ij = 1 / (w_j - w_i) off the
    diagonal, with each column then kept at unit length (as NumPy returns them)."""
    out = _general_eig(a)
    w, v = _real_eig(a, np.linalg.eig, out)
    gap = w[..., None, :] - w[..., :, None]
    eye = np.eye(w.shape[-1], dtype=bool)
    f = np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, gap))

    def pullback(ct):
        ct_w, ct_v = np.real(ct[0]), np.real(ct[1])
        ct_d = ct_v - v * np.sum(ct_v * v, axis=-2, keepdims=True)
        ct_c = f * (_T(v) @ ct_d) + ct_w[..., None] * eye
        return (_from_c(v, ct_c),)
    return out, pullback


# Right for every value they take: a complex matrix, or complex eigenvalues, are refused
# (_real_eig), and the complex results of NumPy 2.5 hold real eigenvalues.
complex_ready(np.linalg.eig, np.linalg.eigvals)


# ---- selections and writes ----------------------------------------------------------------------
@raw_rrule(np.compress)
def _compress(condition, a, axis=None, out=None):
    """The elements (or slices along `axis`) where condition holds: a take (given
    `out`, written into it as `out[...] = result` is)."""
    if out is not None:
        get_rrule(operator.setitem)(out, Ellipsis, _compress(condition, a, axis))
        return out
    if not is_tracked(a):
        return np.compress(condition, a, axis)
    return get_rrule(np.take)(a, np.flatnonzero(condition), axis=axis)


@raw_rrule(np.ndarray.compress)
def _compress_method(a, condition, axis=None, out=None):
    return _compress(condition, a, axis, out)


@raw_rrule(np.extract)
def _extract(condition, arr):
    if not is_tracked(arr):
        return np.extract(condition, arr)
    return get_rrule(np.take)(arr, np.flatnonzero(condition))


@composed_rrule(np.select)
def _select(condlist, choicelist, default=0):
    """The first choice whose condition holds, else the default: linear in each."""
    out = np.broadcast_to(default, np.broadcast_shapes(*[np.shape(c) for c in condlist],
                                                      *[np.shape(c) for c in choicelist]))
    for k in range(len(condlist) - 1, -1, -1):
        out = np.where(condlist[k], choicelist[k], out)
    return out


@composed_rrule(np.choose)
def _choose(a, choices, out=None, mode="raise"):
    """choices[a[i]][i], item by item (a wrapped or clipped as mode says): linear in
    each choice."""
    if out is not None:
        raise FwdadError("reverse mode: np.choose(a, choices, out=...) with variables is "
                         "not supported: assign its result instead (out = np.choose(a, "
                         "choices)).")
    index = np.asarray(a)
    np.choose(index, [value_of(c) for c in choices], mode=mode)  # (its errors)
    if mode == "wrap":
        index = index % len(choices)
    elif mode == "clip":
        index = np.clip(index, 0, len(choices) - 1)
    shape = np.broadcast_shapes(index.shape, *[np.shape(c) for c in choices])
    picked = np.broadcast_to(choices[0], shape)
    for k in range(1, len(choices)):
        picked = np.where(index == k, choices[k], picked)
    return picked


composed_rrule(np.piecewise)(piecewise)  # (plain NumPy: fwdad/rules/piecewise.py)


@raw_rrule(np.place)
def _place(arr, mask, vals):
    """arr[mask] = vals, cycling through vals."""
    if not (is_tracked(arr) or is_tracked(vals)):
        return np.place(arr, mask, vals)
    where = np.nonzero(mask)
    if len(where[0]):
        get_rrule(operator.setitem)(arr, where, get_rrule(np.resize)(vals, (len(where[0]),)))


@raw_rrule(np.putmask)
def _putmask(a, mask, values):
    """a.flat[i] = values.flat[i % len(values)] where mask.flat[i]."""
    if not (is_tracked(a) or is_tracked(values)):
        return np.putmask(a, mask, values)
    shape = np.shape(value_of(a))
    flat = np.flatnonzero(np.broadcast_to(mask, shape))
    if len(flat):
        cycled = get_rrule(np.resize)(values, (int(np.prod(shape)),))
        get_rrule(operator.setitem)(a, np.unravel_index(flat, shape),
                                    get_rrule(operator.getitem)(cycled, (flat,)))


@rrule(np.unwrap)
def _unwrap(p, *args, **kwargs):
    """Adds piecewise-constant multiples of the period: the cotangent goes through."""
    return np.unwrap(p, *args, **kwargs), lambda ct: (ct,)


@raw_rrule(np.ndarray.view)
def _view(x, *args, **kwargs):
    """A view with the same dtype is the array itself; another dtype reinterprets
    bytes, a constant."""
    value = value_of(x)
    out = value.view(*args, **kwargs)
    if out.dtype != value.dtype or not is_tracked(x):
        return out
    return get_rrule(np.ndarray.reshape)(x, value.shape)


# ---- spaced samples ------------------------------------------------------------------
@composed_rrule(np.logspace)
def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return np.power(base, np.linspace(start, stop, num, endpoint, axis=axis))


@composed_rrule(np.geomspace)
def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """exp(linspace(log |start|, log |stop|)) with the sign of start."""
    logs = np.linspace(np.log(np.abs(start)), np.log(np.abs(stop)), num, endpoint,
                       axis=axis)
    sign = np.sign(start)
    return np.linspace(sign, sign, num, endpoint, axis=axis) * np.exp(logs)
