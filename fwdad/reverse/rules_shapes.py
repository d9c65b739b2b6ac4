"""Reverse rules for shape functions: views, selections, joining, splitting, padding,
differences.

They only move elements (np.diff excepted), so one pullback serves them all: the
function applied to the inputs' flat positions (rules_arrays.positions) says where each
output element came from, and the output cotangent is added back there
(rules_arrays.scatter). A function that returns a view of a VarMat returns the same
view of its adjoint, so writing through it reaches the base, as in NumPy.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from fwdad.errors import FwdadError, describe
from fwdad.reverse.array_protocol import implicit_array
from fwdad.reverse.positions import positions, scatter
from fwdad.reverse.registry import get_rrule, raw_rrule, rrule
from fwdad.reverse.rule_calls import Pure
from fwdad.reverse.rules_arrays import view_rrule
from fwdad.reverse.tracked import holds_variable, is_tracked
from fwdad.reverse.var import VarMat, value_of
from fwdad.rules import registry as forward_registry
from fwdad.rules.indexing import along_axis_index

VIEWS = [np.swapaxes, np.ndarray.swapaxes, np.moveaxis, np.squeeze, np.ndarray.squeeze,
         np.expand_dims, np.flip, np.fliplr, np.flipud, np.rot90, np.rollaxis]
SELECTIONS = [np.broadcast_to, np.diagonal, np.ndarray.diagonal, np.take, np.ndarray.take,
              np.repeat, np.ndarray.repeat, np.roll, np.tile, np.triu, np.tril, np.delete,
              np.resize, np.diagflat, np.take_along_axis, np.ndarray.flatten]
JOINING = [np.concatenate, np.stack, np.hstack, np.vstack, np.dstack, np.column_stack] + \
    ([np.row_stack] if hasattr(np, "row_stack") else [])  # (deprecated since NumPy 2.0)
SPLITTING = [np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit, np.unstack]
SPREADING = [np.broadcast_arrays, np.meshgrid]  # (np.ix_: below)


def selection_rrule(fn: Callable) -> Callable:
    def rule(x, *args, **kwargs):
        return fn(x, *args, **kwargs), lambda ct: (scatter(
            fn(positions(np.shape(x)), *args, **kwargs), ct, np.shape(x)),)
    rule.__name__ = f"_{fn.__name__}"
    return rule


def _sources(fn: Callable, xs: tuple, *args, **kwargs) -> Any:
    """fn of the positions of several inputs, numbered one after the other."""
    start, numbered = 1, []
    for x in xs:
        numbered.append(positions(np.shape(x), start))
        start += int(np.size(x))
    return fn(*numbered, *args, **kwargs)


def _scatter_many(sources: Any, cts: Any, xs: tuple) -> tuple:
    """Each input's cotangent, from outputs taken out of the inputs numbered in turn."""
    if type(sources) is not tuple:
        sources, cts = (sources,), (cts,)
    total = sum(int(np.size(x)) for x in xs)
    flat = sum(scatter(s, c, (total,)) for s, c in zip(sources, cts))
    bounds = np.cumsum([0] + [int(np.size(x)) for x in xs])
    return tuple(flat[a:b].reshape(np.shape(x)) for a, b, x in zip(bounds, bounds[1:], xs))


def _many(fn: Callable) -> Callable:
    """broadcast_arrays, meshgrid: several arrays in, several out."""
    def rule(*xs, **kwargs):
        return fn(*xs, **kwargs), lambda ct: _scatter_many(
            _sources(fn, xs, **kwargs), ct, xs)
    rule.__name__ = f"_{fn.__name__}"
    return rule


def _as_array(item: Any) -> Any:
    """An item given as a list holding variables (`np.concatenate(([x[0]], y))`), as the
    array np.array makes of it: the rule scatters cotangents to arrays (kept as a list,
    the cotangents of the other items were lost: tests/reverse/test_joining_lists.py)."""
    if isinstance(item, (list, tuple)) and holds_variable(item):
        return get_rrule(np.array)(item)
    return item


def _joining(fn: Callable) -> Callable:
    """concatenate, stack, ...: the items of the sequence are the rule's arguments."""
    at = getattr(forward_registry.entry_of(fn), "out_at", None)  # (out's position)
    at = at if isinstance(at, int) else None

    def call(seq, *args, **kwargs):
        if at is not None and len(args) >= at:  # (out by position: as a keyword)
            kwargs, args = {**kwargs, "out": args[at - 1]}, args[:at - 1] + args[at:]
        out = kwargs.get("out")
        if out is not None and (is_tracked(out) or holds_variable(seq)):
            # written into `out` as `out[...] = result` is (NumPy refuses a VarMat)
            del kwargs["out"]
            get_rrule(operator.setitem)(out, Ellipsis, call(seq, *args, **kwargs))
            return out
        seq = [_as_array(implicit_array(item, fn)) for item in seq]
        if not any(is_tracked(item) for item in seq):
            return fn(seq, *args, **kwargs)

        def rule(*xs):
            return fn(list(xs), *args, **kwargs), lambda ct: _scatter_many(
                _sources(lambda *p: fn(list(p), *args, **kwargs), xs), ct, xs)
        rule.__name__ = f"_{fn.__name__}"
        return Pure(fn, rule)(*seq)
    call.__name__ = f"_{fn.__name__}"
    return call


def _splitting(fn: Callable) -> Callable:
    """split, unstack, ...: the pieces of a VarMat are views of its value and adjoint."""
    def call(x, *args, **kwargs):
        if type(x) is not VarMat:
            return fn(x, *args, **kwargs)
        values, adjoints = fn(x.value, *args, **kwargs), fn(x.adjoint, *args, **kwargs)
        return type(values)(VarMat(v, a) for v, a in zip(values, adjoints))
    call.__name__ = f"_{fn.__name__}"
    return call


for _fn in VIEWS:
    raw_rrule(_fn)(view_rrule(_fn))
for _fn in SELECTIONS:
    rrule(_fn)(selection_rrule(_fn))
for _fn in JOINING:
    raw_rrule(_fn)(_joining(_fn))
for _fn in SPLITTING:
    raw_rrule(_fn)(_splitting(_fn))
for _fn in SPREADING:
    rrule(_fn)(_many(_fn))


@rrule(np.ix_)
def _ix(*seqs):
    """Each 1-d sequence reshaped to an axis of its own: a float one's cotangent is its
    output's, flattened back; a boolean mask or integer indices take none. (Numbering
    the positions, as _many does, read a mask as indices: a bare TypeError.)"""
    out = np.ix_(*seqs)
    return out, lambda ct: tuple(
        None if c is None or o.dtype.kind not in "fc" else np.reshape(c, np.shape(s))
        for s, o, c in zip(seqs, out, ct))


def _atleast_rule(fn: Callable) -> Callable:
    view = view_rrule(fn)

    def call(*xs):
        return view(xs[0]) if len(xs) == 1 else tuple(view(x) for x in xs)
    call.__name__ = f"_{fn.__name__}"
    return call


for _fn in (np.atleast_1d, np.atleast_2d, np.atleast_3d):
    raw_rrule(_fn)(_atleast_rule(_fn))


# ---- pad, append, insert ---------------------------------------------------------------------
_MOVING_PADS = {"constant", "edge", "reflect", "symmetric", "wrap", "empty"}


@rrule(np.pad)
def _pad(x, pad_width, mode="constant", **kwargs):
    """Modes that copy elements; constant_values are constants in reverse mode."""
    if mode not in _MOVING_PADS:
        raise FwdadError(f"{describe(np.pad)} with mode={mode!r} has no reverse rule; "
                         f"use one of {sorted(_MOVING_PADS)}, or forward mode.")
    zero = {"constant_values": 0} if mode == "constant" else {}
    source = np.pad(positions(np.shape(x)), pad_width, mode, **{**kwargs, **zero})
    return np.pad(x, pad_width, mode, **kwargs), lambda ct: (
        scatter(source, ct, np.shape(x)),)


@rrule(np.append)
def _append(arr, values, axis=None):
    return np.append(arr, values, axis), lambda ct: _scatter_many(
        _sources(lambda a, v: np.append(a, v, axis), (arr, values)), ct, (arr, values))


@rrule(np.insert)
def _insert(arr, obj, values, axis=None):
    """The object (where to insert) is a constant."""
    source = _sources(lambda a, v: np.insert(a, obj, v, axis), (arr, values))

    def pullback(ct):
        ct_arr, ct_values = _scatter_many(source, ct, (arr, values))
        return ct_arr, None, ct_values
    return np.insert(arr, obj, values, axis), pullback


# ---- differences ----------------------------------------------------------------------------
@rrule(np.diff)
def _diff(x, n=1, axis=-1, **kwargs):
    """Linear: d_i = x_{i+1} - x_i, n times; prepend and append are constants."""
    lead = _edge_length(kwargs.get("prepend"), x, axis)
    size = np.shape(x)[axis]
    return np.diff(x, n, axis, **kwargs), lambda ct: (np.take(
        _diff_adjoint(ct, n, axis), np.arange(lead, lead + size), axis=axis),)


def _edge_length(values: Any, x: Any, axis: int) -> int:
    """How many entries `prepend` adds along axis (a scalar adds one)."""
    if values is None:
        return 0
    return 1 if np.ndim(values) == 0 else np.shape(values)[axis]


def _diff_adjoint(ct, n, axis):
    ct = np.moveaxis(np.asarray(ct, float), axis, -1)
    for _ in range(n):
        pad = np.zeros(ct.shape[:-1] + (1,))
        ct = np.concatenate([pad, ct], axis=-1) - np.concatenate([ct, pad], axis=-1)
    return np.moveaxis(ct, -1, axis)


@raw_rrule(np.put_along_axis)
def _put_along_axis(arr, indices, values, axis):
    """In place: arr[index] = values, with the index take_along_axis reads (the last of
    repeated indices wins, as the write's own rule has it)."""
    if not holds_variable((arr, values)):
        return np.put_along_axis(arr, indices, values, axis)
    index = along_axis_index(np.asarray(value_of(arr)), indices, axis)
    get_rrule(operator.setitem)(arr, index, _as_array(values))
