"""Rules for creating arrays and converting them: array/asarray of (nested lists of)
Duals, arange, linspace, full, zeros, ones and their *_like versions, copy, astype and
the NumPy scalar types."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import lift
from fwdad.rules.registry import def_nondiff, frule
from fwdad.tangents import NoTangent


@frule(np.array, np.asarray)
def _array(x: Dual, dtype=None, **kwargs) -> Dual:
    out = np.array(x.primal, dtype=dtype, **kwargs)
    if out.dtype.kind not in "fc":
        return Dual(out, NoTangent)
    if isinstance(x.primal, np.ndarray):
        return Dual(out, np.array(x.tangent, dtype=out.dtype))
    return Dual(out, _stack(x.tangent, x.primal).astype(out.dtype, copy=False))


def _stack(tangent, primal) -> np.ndarray:
    """The tangent of np.array(primal) for nested lists of values. NoTangent leaves are
    zeros; with batched leaves, the batch axis becomes the leading axis."""
    size = _batch_size(tangent, primal)

    def leaf(t, p):
        if t is NoTangent:
            t = 0.0
        if size is None or np.ndim(t) == np.ndim(p) + 1:
            return np.broadcast_to(t, np.shape(t) if size else np.shape(p))
        return np.broadcast_to(t, (size,) + np.shape(p))
    dense = np.array(_map_leaves(leaf, tangent, primal), dtype=float)
    return dense if size is None else np.moveaxis(dense, _depth(primal), 0)


def _map_leaves(fn, tangent, primal):
    if isinstance(primal, (list, tuple)):
        return [_map_leaves(fn, t, p) for t, p in zip(tangent, primal)]
    return fn(tangent, primal)


def _batch_size(tangent, primal):
    """The batch size if any leaf's tangent is batched, else None."""
    if isinstance(primal, (list, tuple)):
        sizes = [_batch_size(t, p) for t, p in zip(tangent, primal)]
        return next((s for s in sizes if s is not None), None)
    if tangent is not NoTangent and np.ndim(tangent) == np.ndim(primal) + 1:
        return np.shape(tangent)[0]
    return None


def _depth(primal) -> int:
    depth = 0
    while isinstance(primal, (list, tuple)):
        depth, primal = depth + 1, primal[0]
    return depth


# ---- ranges: linear in their float arguments -------------------------------------------
@frule(np.arange)
def _arange(*args: Dual, dtype=None, **kwargs) -> Dual:
    """arange(start, stop, step) = start + step * [0, 1, ...]: linear in start and step;
    its length, and so stop, has no derivative."""
    out = np.arange(*(a.primal for a in args), dtype=dtype, **kwargs)
    if len(args) == 1 or out.dtype.kind not in "fc":
        return Dual(out, NoTangent)
    start, step = args[0], args[2] if len(args) >= 3 else None
    dstart = lift(start.primal, start.tangent, 1) * np.ones_like(out)
    dstep = NoTangent if step is None else \
        lift(step.primal, step.tangent, 1) * np.arange(len(out), dtype=out.dtype)
    return Dual(out, dstart + dstep)


@frule(np.linspace)
def _linspace(start: Dual, stop: Dual, num=50, endpoint=True, retstep=False, dtype=None,
              axis=0, **kwargs) -> Dual:
    """Linear in start and stop: the tangent is the linspace of their tangents."""
    out = np.linspace(start.primal, stop.primal, num, endpoint, retstep, dtype, axis,
                      **kwargs)
    samples = out[0] if retstep else out
    if samples.dtype.kind not in "fc" or start.tangent is stop.tangent is NoTangent:
        return Dual(out, NoTangent)
    ndim = samples.ndim - 1  # of start and stop, broadcast together
    dstart, dstop = (0.0 if d.tangent is NoTangent else lift(d.primal, d.tangent, ndim)
                     for d in (start, stop))
    batched = max(np.ndim(dstart), np.ndim(dstop)) > ndim
    axis = axis + 1 if batched and axis >= 0 else axis  # after the batch axis
    return Dual(out, np.linspace(dstart, dstop, num, endpoint, retstep, dtype, axis))


def_nondiff(np.zeros_like, np.ones_like, np.zeros, np.ones, np.empty,
            np.eye, np.shape, np.ndim, np.size)


def_nondiff(np.identity, np.tri, np.indices, np.tril_indices, np.triu_indices,
            np.diag_indices, np.unravel_index, np.ravel_multi_index, np.ndarray.tobytes,
            np.empty_like, np.dtype, np.result_type, np.can_cast, np.iscomplexobj,
            np.isrealobj, np.isscalar)


# ---- filled with a value: linear in the value --------------------------------------------
@frule(np.full)
def _full(shape, fill_value: Dual, dtype=None, **kwargs) -> Dual:
    out = np.full(shape, fill_value.primal, dtype, **kwargs)
    return Dual(out, _filled(out, fill_value))


@frule(np.full_like)
def _full_like(a, fill_value: Dual, dtype=None, **kwargs) -> Dual:
    out = np.full_like(a, fill_value.primal, dtype, **kwargs)
    return Dual(out, _filled(out, fill_value))


def _filled(out, value: Dual):
    """The tangent of an array filled with `value` (broadcast, batch axis in front)."""
    if out.dtype.kind not in "fc" or value.tangent is NoTangent:
        return NoTangent
    dv = lift(value.primal, value.tangent, out.ndim)
    lead = np.shape(dv)[:1] if np.ndim(dv) > out.ndim else ()
    return np.broadcast_to(dv, lead + out.shape).astype(out.dtype)


# ---- copies and conversions ---------------------------------------------------------------
@frule(np.copy, np.ndarray.copy)
def _copy(x: Dual, *args, **kwargs) -> Dual:
    out = np.copy(x.primal, *args, **kwargs) if not isinstance(x.primal, np.ndarray) \
        else x.primal.copy(*args)
    return Dual(out, NoTangent if x.tangent is NoTangent else np.array(x.tangent))


@frule(np.ndarray.astype)
def _astype(x: Dual, dtype, *args, **kwargs) -> Dual:
    """A float dtype keeps the tangent (cast); an integer or bool dtype drops it."""
    out = x.primal.astype(dtype, *args, **kwargs)
    if out.dtype.kind not in "fc" or x.tangent is NoTangent:
        return Dual(out, NoTangent)
    return Dual(out, x.tangent.astype(out.dtype))


@frule(np.ascontiguousarray, np.asanyarray, np.asfortranarray)
def _as_array_like(x: Dual, dtype=None, **kwargs) -> Dual:
    """The same values as np.array makes (the memory layout does not matter here)."""
    return _array(x, dtype=dtype)


def _scalar_type(kind):
    """np.float64(x) and kin: the tangent converts alike (a batch stays an array)."""
    def rule(x: Dual = None) -> Dual:
        if x is None:
            return Dual(kind(), NoTangent)
        out = kind(x.primal)
        keep = x.tangent is not NoTangent and np.asarray(x.tangent).dtype.kind in "fc"
        return Dual(out, kind(x.tangent) if keep else NoTangent)
    rule.__name__ = f"_{kind.__name__}"
    frule(kind)(rule)


for _kind in (np.float64, np.float32, np.float16, np.longdouble, np.complex128):
    _scalar_type(_kind)
def_nondiff(np.int64, np.int32, np.int16, np.int8, np.uint8, np.intp, np.bool_)
