"""Rules for creating arrays and converting them: array/asarray of (nested lists of)
Duals, arange, linspace, full, zeros, ones and their *_like versions, copy, astype and
the NumPy scalar types.

A new array's zero tangent comes from `created_tangent`, so that inside a batched call
it already has the batch axis (see the Note in rules/batching.py).
"""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.array_protocol import (
    as_array,
    constant_array,
    implicit_array,
    reads_as_array,
)
from fwdad.rules.batching import cast, created_tangent, fit, holds_sets, lift, running_batch_size
from fwdad.rules.layout import laid_out_like
from fwdad.rules.registry import def_nondiff, frule
from fwdad.rules.unshared import own_unless_view
from fwdad.tangents import NoTangent, Tangent


@frule(np.array, pure=True)
def array_rule(x: Dual, dtype=None, **kwargs) -> Dual:
    if reads_as_array(x):
        return _of_instance(np.array, x, dtype, kwargs, kwargs.get("copy", True))
    x = _items_read(x)
    return _converted(x, np.array(x.primal, dtype=dtype, **kwargs))


def _items_read(x: Dual) -> Dual:
    """A list or tuple (nested) with its instances that carry a derivative and that
    NumPy reads by their __array__ made those arrays; x itself when it holds none."""
    if type(x.primal) not in (list, tuple) or not _holds_instance(x.tangent):
        return x
    parts = [implicit_array(_items_read(Dual(p, t)), np.array)
             for p, t in zip(x.primal, x.tangent)]
    return Dual([d.primal for d in parts], [d.tangent for d in parts])


def _holds_instance(tangent) -> bool:
    if type(tangent) in (list, tuple):
        return any(_holds_instance(t) for t in tangent)
    return type(tangent) is Tangent


def _of_instance(fn, x: Dual, dtype, kwargs: dict, copy) -> Dual:
    """fn(b) of an instance b whose class defines __array__: the array its derived
    rule gives (called with `dtype` and `copy` as NumPy calls it), converted by `fn` as
    NumPy converts it, with the copy NumPy still makes when __array__ takes no `copy`."""
    primal = x.primal
    x, copy = as_array(x, fn, dtype, copy)
    if x is None:  # (a constant NumPy reads by itself)
        return constant_array(fn(primal, dtype=dtype, **kwargs))
    if "copy" in kwargs or fn is np.array:
        kwargs = dict(kwargs)  # (the caller's own dict stays as it is)
        kwargs["copy"] = copy
    return _converted(x, fn(x.primal, dtype=dtype, **kwargs))


def _converted(x: Dual, out: np.ndarray) -> Dual:
    """`out`, made from x: x itself when no copy was made (copy=None, asarray of an
    array), so that both share one tangent; else a new array with a new tangent."""
    if out is x.primal:
        return x
    if out.dtype.kind not in "fc":
        return Dual(out, NoTangent)
    if out.size == 0 and not isinstance(x.primal, np.ndarray):  # (np.array(()): no items
        return Dual(out, created_tangent(out))                 # to read the batch from)
    if isinstance(x.primal, np.ndarray):
        if x.tangent is NoTangent:
            return Dual(out, created_tangent(out))
        lead = x.tangent.shape[:x.tangent.ndim - x.primal.ndim]  # (a copy, as np.array,
        return Dual(out, laid_out_like(out, x.tangent.reshape(lead + out.shape)))  # in its order)
    size = _batch_size(x.tangent, x.primal) or running_batch_size()
    dense = _boxed(_stack(x.tangent, x.primal, size))  # `ndmin` may add unit axes:
    shape = dense.shape[:0 if size is None else 1] + out.shape
    dense = dense if dense.shape == shape else dense.reshape(shape).copy()  # (not a view)
    return Dual(out, dense if dense.dtype == out.dtype else cast(dense, out.dtype))


def _boxed(dense) -> np.ndarray:
    """`dense`, or a 0-d array of it: a number's dependency set (fwdad/sparsity), which
    `zeros + set` leaves a set."""
    if type(dense) is np.ndarray or not holds_sets():
        return dense
    box = np.empty((), dtype=object)
    box[()] = dense
    return box


def _stack(tangent, primal, size) -> np.ndarray:
    """The tangent of np.array(primal) for nested lists of values. NoTangent leaves are
    zeros; with batched leaves (a batch of `size`, or None), the batch axis becomes the
    leading axis."""

    def leaf(t, p):
        if t is NoTangent:
            t = 0.0
        if size is None or np.ndim(t) == np.ndim(p) + 1:  # (adding zeros broadcasts)
            return np.zeros(np.shape(t) if size else np.shape(p)) + t
        return np.zeros((size,) + np.shape(p)) + t
    return _nest(_map_leaves(leaf, tangent, primal), 0 if size is None else 1)


def _nest(items, axis: int):
    """np.array of nested lists of equal-shaped arrays, built with np.stack so that
    tangents recorded by linearize (which np.array cannot see into) stack too; with a
    batch, each level stacks after the leading batch axis."""
    if not isinstance(items, list):
        return items
    if not items:
        return np.zeros((0,))
    return np.stack([_nest(item, axis) for item in items], axis)


def _map_leaves(fn, tangent, primal):
    if isinstance(primal, (list, tuple)):
        return [_map_leaves(fn, t, p) for t, p in zip(tangent, primal)]
    return fn(tangent, primal)


def _batch_size(tangent, primal):
    """The batch size if any leaf's tangent is batched, else None."""
    if isinstance(primal, (list, tuple)):
        for t, p in zip(tangent, primal):
            size = _batch_size(t, p)
            if size is not None:
                return size
        return None
    if tangent is not NoTangent and np.ndim(tangent) == np.ndim(primal) + 1:
        return np.shape(tangent)[0]
    return None


def _created(fn):
    """A function that makes a new array from shapes and constants: no derivative, and
    a zero tangent (batched in a batched call)."""
    def rule(*args, **kwargs) -> Dual:
        out = fn(*args, **kwargs)
        return Dual(out, created_tangent(out))
    rule.__name__ = f"new_{fn.__name__}"
    return rule


# ---- ranges: linear in their float arguments -------------------------------------------
def arange_parts(args: tuple, kwargs: dict) -> tuple:
    """(start, stop, step) of an arange call as NumPy binds them, each None where not
    given: by position in that order or by name, and a lone start is the stop
    (arange(5.0, step=2.0) counts from 0). A None given (or a Dual of None) is none."""
    bound = dict(zip(("start", "stop", "step"), args))
    bound.update((k, v) for k, v in kwargs.items() if k in ("start", "stop", "step"))
    start, stop, step = (_given(bound.get(k)) for k in ("start", "stop", "step"))
    return (None, start, step) if stop is None else (start, stop, step)


def _given(value):
    return None if value is None or type(value) is Dual and value.primal is None else value


@frule(np.arange)
def _arange(*args: Dual, start: Dual = None, stop: Dual = None, step: Dual = None,
            dtype=None, **kwargs) -> Dual:
    """arange(start, stop, step) = start + step * [0, 1, ...]: linear in start and step,
    given by position or by name; its length, and so stop, has no derivative."""
    named = {k: v for k, v in (("start", start), ("stop", stop), ("step", step))
             if v is not None}
    out = np.arange(*(a.primal for a in args), dtype=dtype, **kwargs,
                    **{k: v.primal for k, v in named.items()})
    start, _, step = arange_parts(args, named)
    terms = [lift(d.primal, d.tangent, 1) * along for d, along in
             ((start, 1.0), (step, np.arange(len(out), dtype=out.dtype)))
             if d is not None and d.tangent is not NoTangent]
    if out.dtype.kind not in "fc" or not terms:
        return Dual(out, created_tangent(out))
    return Dual(out, fit(sum(terms[1:], terms[0]), out))  # (fit: broadcast to out)


@frule(np.linspace)
def linspace_rule(start: Dual, stop: Dual, num=50, endpoint=True, retstep=False, dtype=None,
              axis=0, **kwargs) -> Dual:
    """Linear in start and stop: the tangent is the linspace of their tangents."""
    out = np.linspace(start.primal, stop.primal, num, endpoint, retstep, dtype, axis,
                      **kwargs)
    samples = out[0] if retstep else out
    if samples.dtype.kind not in "fc" or start.tangent is stop.tangent is NoTangent:
        return Dual(out, created_tangent(out) if not retstep else NoTangent)
    ndim = samples.ndim - 1  # of start and stop, broadcast together
    dstart, dstop = (0.0 if d.tangent is NoTangent else lift(d.primal, d.tangent, ndim)
                     for d in (start, stop))
    batched = max(np.ndim(dstart), np.ndim(dstop)) > ndim
    axis = axis + 1 if batched and axis >= 0 else axis  # after the batch axis
    tangent = np.linspace(dstart, dstop, num, endpoint, retstep, dtype, axis)
    if batched or retstep:
        return Dual(out, tangent)
    return Dual(out, created_tangent(out) + tangent)  # (batched in a batched call)


for _fn in (np.zeros_like, np.ones_like, np.empty_like, np.zeros, np.ones, np.empty,
            np.eye, np.identity):
    frule(_fn, nondiff=True)(_created(_fn))

def_nondiff(np.shape, np.ndim, np.size, np.tri, np.indices, np.tril_indices,
            np.triu_indices, np.diag_indices, np.unravel_index, np.ravel_multi_index,
            np.ndarray.tobytes, np.dtype, np.result_type, np.can_cast, np.iscomplexobj,
            np.isrealobj, np.isscalar, np.finfo)


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
    """The tangent of an array filled with `value`: broadcast into a new zero tangent
    (batched in a batched call; a batched value puts its batch axis in front)."""
    if out.dtype.kind not in "fc":
        return NoTangent
    base = created_tangent(out)
    if value.tangent is NoTangent:
        return base
    return (base + lift(value.primal, value.tangent, out.ndim)).astype(out.dtype)


# ---- copies and conversions ---------------------------------------------------------------
@frule(np.copy)
def _copy(x: Dual, order="K", subok=False) -> Dual:
    """np.copy keeps the memory layout (order="K"), so that a later reshape is a view
    or a copy as it is in NumPy; its tangent is copied the same way."""
    out = np.copy(x.primal, order=order, subok=subok)
    return Dual(out, _copied(out, x.tangent, order))


@frule(np.ndarray.copy)
def _method_copy(x: Dual, order="C") -> Dual:
    """a.copy() is C-ordered unless asked otherwise (unlike np.copy)."""
    out = x.primal.copy(order)
    return Dual(out, _copied(out, x.tangent, order))


def _copied(out, tangent, order):
    """The tangent of the copy `out`, laid out as `out` is (so that a reshape of
    both is a view, or a copy, alike: rules/layout.py)."""
    if type(out) is np.ndarray and hasattr(tangent, "astype"):  # (not NoTangent, a list)
        return laid_out_like(out, tangent)
    return tangent if tangent is NoTangent else np.copy(tangent, order=order)


@frule(np.ndarray.astype)
def astype_rule(x: Dual, dtype, *args, **kwargs) -> Dual:
    """A float dtype keeps the tangent (cast); an integer or bool dtype drops it."""
    out = x.primal.astype(dtype, *args, **kwargs)
    if out is x.primal:  # copy=False, and no cast needed
        return x
    if out.dtype.kind not in "fc" or x.tangent is NoTangent:
        return Dual(out, NoTangent)
    if type(out) is np.ndarray and out.ndim > 1:
        return Dual(out, laid_out_like(out, x.tangent))  # (in out's order: `order=`)
    return Dual(out, cast(x.tangent, out.dtype))


def _as_array(fn):
    """asarray and kin: the argument itself when it is such an array already."""
    def rule(x: Dual, dtype=None, **kwargs) -> Dual:
        if reads_as_array(x):
            return _of_instance(fn, x, dtype, kwargs, kwargs.get("copy"))
        x = _items_read(x)
        return _converted(x, fn(x.primal, dtype=dtype, **kwargs))
    rule.__name__ = f"_{fn.__name__}"
    frule(fn, pure=True)(rule)


for _fn in (np.asarray, np.asanyarray, np.ascontiguousarray, np.asfortranarray):
    _as_array(_fn)


def _scalar_type(kind):
    """np.float64(x) and kin: the tangent converts alike (a batch stays an array)."""
    def rule(x: Dual = None) -> Dual:
        if x is None:
            return Dual(kind(), NoTangent)
        out = kind(x.primal)
        keep = x.tangent is not NoTangent and np.result_type(x.tangent).kind in "fc"
        if not keep:
            return Dual(out, NoTangent)
        tangent = kind(x.tangent) if isinstance(x.tangent, (np.ndarray, np.generic, float,
                                                            int, complex)) \
            else x.tangent.astype(kind)  # (a tangent recorded by linearize)
        return Dual(out, own_unless_view(out, x.primal, tangent, x.tangent))
    rule.__name__ = f"_{kind.__name__}"
    frule(kind)(rule)


for _kind in (np.float64, np.float32, np.float16, np.longdouble, np.complex128,
              np.complex64):
    _scalar_type(_kind)
def_nondiff(np.int64, np.int32, np.int16, np.int8, np.uint8, np.intp, np.bool_)
