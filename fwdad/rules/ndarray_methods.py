"""Rules for in-place array functions and ndarray methods that are not reductions or
shapes: fill, put, copyto, fill_diagonal, item, tolist.

Each updates primal and tangent alike; a batched value written into an array whose
tangent has no batch axis gives that array a batched tangent (`widening.assign`).
"""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import dense, is_batched, map_batch
from fwdad.rules.reductions import as_array
from fwdad.rules.registry import frule
from fwdad.rules.ufuncs import write_outputs
from fwdad.rules.widening import assign
from fwdad.tangents import NoTangent

_NONE = Dual(None, NoTangent)


@frule(np.ndarray.fill)
def _fill(x: Dual, value: Dual) -> Dual:
    x.primal.fill(value.primal)
    assign(x, Ellipsis, value.primal, value.tangent)
    return _NONE


@frule(np.copyto)
def _copyto(dst: Dual, src: Dual, casting="same_kind", where=True) -> Dual:
    """copyto is `out=` of the identity: values and tangents are copied where `where`."""
    write_outputs((dst,), np.asarray(src.primal), src.tangent,
                  dict(casting=casting, where=where))
    return _NONE


@frule(np.put, np.ndarray.put)
def _put(a: Dual, ind, v: Dual, mode="raise") -> Dual:
    """a.flat[ind] = v (repeated: the last write wins, as for the values)."""
    np.put(a.primal, ind, v.primal, mode)
    if a.tangent is NoTangent:
        return _NONE
    v = as_array(v)  # (a list of values: its items' batched tangents, stacked)
    flat_index = np.unravel_index(np.ravel(ind) % max(a.primal.size, 1), a.primal.shape) \
        if mode != "clip" else np.unravel_index(np.clip(ind, 0, a.primal.size - 1),
                                                a.primal.shape)
    values = np.resize(np.asarray(v.primal, dtype=float), np.shape(flat_index[0]))
    tangent = map_batch(lambda t: np.resize(t, np.shape(flat_index[0])), v.primal,
                        dense(v.primal, v.tangent))
    assign(a, flat_index, values, tangent)
    return _NONE


@frule(np.fill_diagonal)
def _fill_diagonal(a: Dual, val: Dual, wrap=False) -> Dual:
    np.fill_diagonal(a.primal, val.primal, wrap)
    if a.tangent is not NoTangent:
        val = as_array(val)
        index = np.nonzero(_diagonal_mask(a.primal, wrap))
        count = len(index[0])
        values = np.resize(np.asarray(val.primal, dtype=float), count)
        tangent = map_batch(lambda t: np.resize(t, count), val.primal,
                            dense(val.primal, val.tangent))
        assign(a, index, values, tangent)
    return _NONE


def _diagonal_mask(a, wrap):
    mask = np.zeros(a.shape, dtype=bool)
    np.fill_diagonal(mask, True, wrap)
    return mask


@frule(np.ndarray.item, np.generic.item)
def _item(x: Dual, *args) -> Dual:
    return Dual(x.primal.item(*args), map_batch(lambda t: _item_of(t, args), x.primal,
                                                dense(x.primal, x.tangent)))


def _item_of(tangent, args):
    """tangent.item(*args); a Python number (a zero tangent of jacobian_sparsity's) is
    its own item."""
    return tangent if type(tangent) in (int, float, complex) else tangent.item(*args)


@frule(np.ndarray.tolist, np.generic.tolist)
def _tolist(x: Dual) -> Dual:
    """Nested lists of floats; batched, each float's tangent is a 1-d array."""
    out = x.primal.tolist()
    if x.tangent is NoTangent or np.asarray(x.primal).dtype.kind not in "fc":
        return Dual(out, NoTangent)
    if not is_batched(x.primal, x.tangent):
        return Dual(out, _listed(x.tangent))
    return Dual(out, _nested(np.moveaxis(x.tangent, 0, -1).copy()))  # new floats


def _listed(t):
    """t.tolist(); a tangent recorded by linearize becomes nested lists of its entries,
    each still recorded."""
    if isinstance(t, (np.ndarray, np.generic, float, complex)):
        return np.asarray(t).tolist()
    return t if t.ndim == 0 else [_listed(t[i]) for i in range(len(t))]


def _nested(t):
    return t if t.ndim == 1 else [_nested(part) for part in t]
