"""Reverse rules for linear algebra: products (vdot, inner, outer, tensordot, einsum,
kron, multi_dot, trace, diag) and np.linalg's solvers and decompositions.

Products pull back by contracting the output cotangent with the other operands. The
solvers' and decompositions' pullbacks are the adjoints of forward mode's tangent
maps (rules/decompositions.py), with the same domains: invertible a for solve, inv and
det; distinct eigenvalues for eigh; distinct nonzero singular values for svd; full
column rank for qr and lstsq; constant rank for pinv. Symmetric routines read one
triangle of a, so the cotangent lands on that triangle (`_one_triangle`). Stacks of
matrices (leading axes) work throughout.
"""
from __future__ import annotations

import numpy as np

from fwdad.reverse.adjoints import unbroadcast
from fwdad.reverse.positions import positions, scatter
from fwdad.reverse.registry import get_rrule, raw_rrule, rrule
from fwdad.reverse.rules_arrays import keeping_views
from fwdad.reverse.rules_shapes import selection_rrule
from fwdad.rules.linalg import explicit_subscripts, from_sublists


def _T(a):
    return np.swapaxes(a, -1, -2)


# ---- products ----------------------------------------------------------------------------
@rrule(np.vdot)
def _vdot(a, b):
    """sum(conj(a) * b) over the raveled arguments: a's cotangent is conj(ct b), as
    Re(ct conj(da) b) = Re(conj(ct b) da) (docs/complex.md)."""
    return np.vdot(a, b), lambda ct: (lambda: np.conjugate(ct * np.reshape(b, np.shape(a))),
                                      lambda: ct * np.conjugate(np.reshape(a, np.shape(b))))


@rrule(np.outer)
def _outer(a, b):
    """outer(a, b)_ij = a_i b_j, on the raveled arguments."""
    a1, b1 = np.ravel(a), np.ravel(b)
    return np.outer(a1, b1), lambda ct: (lambda: np.reshape(ct @ b1, np.shape(a)),
                                         lambda: np.reshape(a1 @ ct, np.shape(b)))


@rrule(np.inner)
def _inner(a, b):
    """inner sums over the last axes (a scalar multiplies)."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return np.inner(a, b), lambda ct: (lambda: ct * b, lambda: ct * a)
    return _tensordot(a, b, ([np.ndim(a) - 1], [np.ndim(b) - 1]))


@rrule(np.tensordot)
def _tensordot(a, b, axes=2):
    """Each operand's cotangent contracts ct with the other over that one's free axes."""
    a_axes, b_axes = _contracted(np.ndim(a), np.ndim(b), axes)
    a_free = [k for k in range(np.ndim(a)) if k not in a_axes]
    b_free = [k for k in range(np.ndim(b)) if k not in b_axes]
    on_a = a_free + [a_axes[b_axes.index(k)] for k in sorted(b_axes)]
    on_b = [b_axes[a_axes.index(k)] for k in sorted(a_axes)] + b_free
    return np.tensordot(a, b, (a_axes, b_axes)), lambda ct: (
        lambda: _moved_back(np.tensordot(ct, b, (list(range(len(a_free), np.ndim(ct))),
                                                 b_free)), on_a),
        lambda: _moved_back(np.tensordot(a, ct, (a_free, list(range(len(a_free))))), on_b))


def _contracted(a_ndim: int, b_ndim: int, axes):
    """tensordot's `axes` as two lists of non-negative axes."""
    if isinstance(axes, (int, np.integer)):
        return list(range(a_ndim - axes, a_ndim)), list(range(axes))
    a_axes, b_axes = ([x] if isinstance(x, (int, np.integer)) else list(x) for x in axes)
    return [k % a_ndim for k in a_axes], [k % b_ndim for k in b_axes]


def _moved_back(result, axes):
    """`result`'s axes are the operand's axes `axes`, in that order: put them back."""
    return np.transpose(result, np.argsort(axes))


@rrule(np.kron)
def _kron(a, b):
    """kron(a, b) = a_i b_k at (i * len(b) + k): the cotangent, split into blocks, is
    contracted with b (for a) and with a (for b)."""
    nd = max(np.ndim(a), np.ndim(b))
    sa, sb = (1,) * (nd - np.ndim(a)) + np.shape(a), (1,) * (nd - np.ndim(b)) + np.shape(b)
    blocks = [n for pair in zip(sa, sb) for n in pair]
    odd, even = list(range(1, 2 * nd, 2)), list(range(0, 2 * nd, 2))
    return np.kron(a, b), lambda ct: (
        lambda: np.tensordot(np.reshape(ct, blocks), np.reshape(b, sb),
                             (odd, list(range(nd)))).reshape(np.shape(a)),
        lambda: np.tensordot(np.reshape(a, sa), np.reshape(ct, blocks),
                             (list(range(nd)), even)).reshape(np.shape(b)))


@raw_rrule(np.linalg.multi_dot)
def _multi_dot(arrays, **kwargs):
    """A chain of dot products, left to right (NumPy may choose another order, so
    values can differ in the last bits)."""
    dot, out = get_rrule(np.dot), arrays[0]
    for array in arrays[1:]:
        out = dot(out, array)
    return out


@rrule(np.trace, np.ndarray.trace)
def _trace(x, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum of a diagonal: its cotangent goes to that diagonal."""
    source = np.diagonal(positions(np.shape(x)), offset, axis1, axis2)
    return np.trace(x, offset, axis1, axis2, dtype), lambda ct: (
        scatter(source, np.asarray(ct)[..., None], np.shape(x)),)


rrule(np.diag)(selection_rrule(np.diag))


# ---- einsum: each operand's cotangent is an einsum of the others and the cotangent ----
@rrule(np.einsum)
def _einsum(*args, **kwargs):
    """Subscripts given as a string (explicit or implicit, with or without ...), or
    interleaved with the operands as lists of axis numbers."""
    if isinstance(args[0], str):
        return _einsum_of(args[0], args[1:], kwargs, lambda cts: (None,) + cts)
    subscripts, operands = from_sublists(args)
    return _einsum_of(subscripts, operands, kwargs, lambda cts: sum(
        ((c, None) for c in cts), ()))


def _one_operand(args):
    """The operand of einsum("ij->ji", a) or einsum(a, [0, 1], [1, 0]), whose result
    NumPy may give as a view of it; None for several operands."""
    if isinstance(args[0], str):
        return args[1] if len(args) == 2 else None
    return args[0] if len(args) in (2, 3) else None


keeping_views(np.einsum, _one_operand)


def _einsum_of(subscripts, operands, kwargs, place):
    inputs, output = explicit_subscripts(subscripts)
    out = np.einsum(subscripts, *operands, **kwargs)
    return out, lambda ct: place(tuple(
        (lambda i=i: _einsum_cotangent(inputs, output, operands, ct, i))
        for i in range(len(operands))))


def _einsum_cotangent(inputs, output, operands, ct, i):
    """The cotangent of operand i: an einsum of ct and the other operands to i's
    subscript, all at the broadcast sizes of their letters, then summed over the axes
    along which operand i was broadcast. A letter repeated in i's subscript (a diagonal)
    is read through an identity matrix; a letter only i has (summed over) through a
    vector of ones."""
    specs, out_spec = _spelled(inputs, output, operands)
    sizes = _broadcast_sizes(specs, operands)
    args = [np.broadcast_to(ct, _shape(out_spec, sizes))] + [
        np.broadcast_to(o, _shape(s, sizes)) for k, (s, o) in enumerate(zip(specs, operands))
        if k != i]
    arg_specs = [out_spec] + [s for k, s in enumerate(specs) if k != i]
    free = iter(c for c in _LETTERS if c not in "".join(specs) + out_spec)
    spec = ""
    for c in specs[i]:
        if c in spec:  # a repeated letter: a fresh one, tied to c by an identity
            fresh = next(free)
            spec, arg_specs = spec + fresh, arg_specs + [c + fresh]
            args.append(np.eye(sizes[c]))
            continue
        spec += c
        if c not in "".join(arg_specs):
            arg_specs.append(c)
            args.append(np.ones(sizes[c]))
    result = np.einsum(",".join(arg_specs) + "->" + spec, *args)
    return unbroadcast(result, np.shape(operands[i]))


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _spelled(inputs, output, operands):
    """The subscripts with each ... spelled as letters of its own: the same letters for
    the same axes counted from the right (as ... broadcasts)."""
    ranks = [np.ndim(o) - len(s.replace("...", "")) for s, o in zip(inputs, operands)]
    free = (c for c in _LETTERS if c not in "".join(inputs) + output)
    letters = "".join(next(free) for _ in range(max(ranks, default=0)))
    specs = [s.replace("...", letters[len(letters) - r:] if r else "")
             for s, r in zip(inputs, ranks)]
    return specs, output.replace("...", letters)


def _broadcast_sizes(specs, operands) -> dict:
    """The length of each letter's axis once the operands are broadcast together."""
    sizes: dict = {}
    for spec, operand in zip(specs, operands):
        for c, n in zip(spec, np.shape(operand)):
            sizes[c] = n if sizes.get(c, 1) == 1 else sizes[c]
    return sizes


def _shape(spec: str, sizes: dict) -> tuple:
    return tuple(sizes[c] for c in spec)
