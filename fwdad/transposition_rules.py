"""Transpose rules (fwdad/transposition.py) of the structural and linear-algebra ops that
rules record: joining and splitting, shifts and differences, triangles, picks, pads,
repeats, cumulative sums, and products with a saved operand (einsum, tensordot, dot,
solve, trace). Each entry is `fn: (applies, rule)`: `applies(args, kwargs)` says whether
the op uses its recorded arguments in the way the rule transposes (else lin.T falls back
to the Jacobian), `rule(buffers, ct, args, kwargs)` adds each recorded argument's share
of the result's cotangent `ct`.
"""
from __future__ import annotations

import string
from typing import Any, Callable, Dict, Tuple

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from fwdad.cotangents import accumulate
from fwdad.recording import Linear


def _shape(value: Any) -> tuple:
    return value.shape if type(value) is Linear else np.shape(value)


def _only_first_recorded(args: tuple, kwargs: dict, allowed: set = frozenset()) -> bool:
    return type(args[0]) is Linear and not _recorded_in(args[1:]) and set(kwargs) <= allowed


def _recorded_in(tree: Any) -> bool:
    if type(tree) is Linear:
        return True
    if isinstance(tree, (tuple, list)):
        return any(_recorded_in(v) for v in tree)
    return False


def _int_axis(value: Any) -> bool:
    return isinstance(value, (int, np.integer))


# ---- joining: the cotangent is split back -------------------------------------------------
def _joined(args: tuple, kwargs: dict) -> bool:
    axis = args[1] if len(args) > 1 else kwargs.get("axis", 0)
    return isinstance(args[0], (list, tuple)) and _int_axis(axis) and len(args) <= 2 \
        and set(kwargs) <= {"axis"}


def _stack(buffers, ct, args, kwargs):
    axis = normalize_axis_index(args[1] if len(args) > 1 else kwargs.get("axis", 0), ct.ndim)
    for i, piece in enumerate(args[0]):
        accumulate(buffers, piece, np.take(ct, i, axis=axis))


def _concatenate(buffers, ct, args, kwargs):
    axis = normalize_axis_index(args[1] if len(args) > 1 else kwargs.get("axis", 0), ct.ndim)
    sizes = [_shape(piece)[axis] for piece in args[0]]
    for piece, part in zip(args[0], np.split(ct, np.cumsum(sizes)[:-1], axis=axis)):
        accumulate(buffers, piece, part)


# ---- shifts, differences, sums along an axis, triangles --------------------------------------
def _roll(buffers, ct, args, kwargs):
    shift = args[1] if len(args) > 1 else kwargs["shift"]
    axis = args[2] if len(args) > 2 else kwargs.get("axis")
    back = tuple(-s for s in shift) if isinstance(shift, tuple) else -shift
    accumulate(buffers, args[0], np.roll(ct, back, axis))


def _plain_diff(args: tuple, kwargs: dict) -> bool:
    n = args[1] if len(args) > 1 else kwargs.get("n", 1)
    return _only_first_recorded(args[:1], {}) and n == 1 and len(args) <= 3 and \
        set(kwargs) <= {"n", "axis"}


def _diff(buffers, ct, args, kwargs):
    """out[i] = x[i + 1] - x[i] along the axis: x gets +ct at i + 1 and -ct at i."""
    x = args[0]
    axis = normalize_axis_index(args[2] if len(args) > 2 else kwargs.get("axis", -1),
                                len(x.shape))
    share = np.zeros(x.shape)
    head = [slice(None)] * len(x.shape)
    later, earlier = list(head), list(head)
    later[axis], earlier[axis] = slice(1, None), slice(None, -1)
    share[tuple(later)] += ct
    share[tuple(earlier)] -= ct
    accumulate(buffers, x, share)


def _cumsum(buffers, ct, args, kwargs):
    """out[i] = x[0] + ... + x[i]: x[i] gets ct[i] + ... + ct[-1]."""
    x, axis = args[0], args[1] if len(args) > 1 else kwargs.get("axis")
    if axis is None:
        flat = np.ravel(ct)
        accumulate(buffers, x, np.cumsum(flat[::-1])[::-1].reshape(x.shape))
        return
    accumulate(buffers, x, np.flip(np.cumsum(np.flip(ct, axis), axis), axis))


def _triangle(keep: Callable) -> Callable:
    def rule(buffers, ct, args, kwargs):
        k = args[1] if len(args) > 1 else kwargs.get("k", 0)
        accumulate(buffers, args[0], keep(ct, k))
    return rule


# ---- picks, pads and repeats ------------------------------------------------------------------
def _take(buffers, ct, args, kwargs):
    x, picks = args[0], args[1]
    axis = args[2] if len(args) > 2 else kwargs.get("axis")
    if axis is None:
        flat = np.zeros(int(np.prod(x.shape)))
        np.add.at(flat, picks, ct)
        accumulate(buffers, x, flat.reshape(x.shape))
        return
    axis = normalize_axis_index(axis, len(x.shape))
    share = np.zeros(x.shape)
    np.add.at(share, (slice(None),) * axis + (picks,), ct)
    accumulate(buffers, x, share)


def _constant_pad(args: tuple, kwargs: dict) -> bool:
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    return _only_first_recorded(args[:1], {}) and not _recorded_in(args[1:]) and \
        mode == "constant" and set(kwargs) <= {"mode", "constant_values"}


def _pad(buffers, ct, args, kwargs):
    """The padded result's inner block is x (the constant around it has no tangent)."""
    x = args[0]
    widths = np.broadcast_to(np.asarray(args[1], dtype=int), (len(x.shape), 2))
    inner = tuple(slice(before, before + n) for (before, _), n in zip(widths, x.shape))
    accumulate(buffers, x, ct[inner])


def _whole_repeats(args: tuple, kwargs: dict) -> bool:
    repeats = args[1] if len(args) > 1 else kwargs.get("repeats")
    return _only_first_recorded(args[:1], {}) and _int_axis(repeats) and \
        not _recorded_in(args[1:]) and set(kwargs) <= {"repeats", "axis"}


def _repeat(buffers, ct, args, kwargs):
    """Each entry repeated r times in a row: its cotangent is the sum of theirs."""
    x = args[0]
    repeats = int(args[1] if len(args) > 1 else kwargs["repeats"])
    axis = args[2] if len(args) > 2 else kwargs.get("axis")
    if axis is None:
        accumulate(buffers, x, np.ravel(ct).reshape(-1, repeats).sum(axis=1)
                    .reshape(x.shape))
        return
    axis = normalize_axis_index(axis, len(x.shape))
    moved = np.moveaxis(ct, axis, -1)
    summed = moved.reshape(moved.shape[:-1] + (x.shape[axis], repeats)).sum(axis=-1)
    accumulate(buffers, x, np.moveaxis(summed, -1, axis))


# ---- products with a saved operand ---------------------------------------------------------
def _one_recorded(args: tuple, kwargs: dict) -> bool:
    return sum(type(a) is Linear for a in args) == 1 and not kwargs


def matmul(buffers, ct, args, kwargs):
    """a @ b with one of them recorded: ct @ b^T, or a^T @ ct (1-d operands as matmul
    promotes them)."""
    a, b = args
    a_vector = (len(a.shape) if type(a) is Linear else np.ndim(a)) == 1
    b_vector = (len(b.shape) if type(b) is Linear else np.ndim(b)) == 1
    ct = np.expand_dims(ct, -1) if b_vector else ct
    ct = np.expand_dims(ct, -2) if a_vector else ct
    if type(a) is Linear:
        other = np.expand_dims(b, -1) if b_vector else b
        grad = ct @ np.swapaxes(other, -1, -2)
        accumulate(buffers, a, grad[..., 0, :] if a_vector else grad)
    else:
        other = np.expand_dims(a, -2) if a_vector else a
        grad = np.swapaxes(other, -1, -2) @ ct
        accumulate(buffers, b, grad[..., 0] if b_vector else grad)


def _einsum_applies(args: tuple, kwargs: dict) -> bool:
    """Explicit subscripts; one recorded operand, each of whose indices appears once
    in it and also elsewhere (else its cotangent would need a broadcast the einsum
    cannot make); `...` only where the output keeps it."""
    if not (isinstance(args[0], str) and "->" in args[0]):
        return False
    if kwargs or sum(type(a) is Linear for a in args[1:]) != 1:
        return False
    inputs, output = args[0].replace(" ", "").split("->")
    terms = inputs.split(",")
    at = [type(a) is Linear for a in args[1:]].index(True)
    mine, others = terms[at], terms[:at] + terms[at + 1:] + [output]
    if "." in mine.replace("...", "") or ("..." in mine and "..." not in output):
        return False
    letters = mine.replace("...", "")
    return len(set(letters)) == len(letters) and \
        all(any(c in t for t in others) for c in letters)


def _einsum(buffers, ct, args, kwargs):
    """One recorded operand: its cotangent is the einsum of ct with the others, onto its
    own subscripts."""
    inputs, output = args[0].replace(" ", "").split("->")
    terms, operands = inputs.split(","), list(args[1:])
    at = [type(a) is Linear for a in operands].index(True)
    others = [(t, o) for i, (t, o) in enumerate(zip(terms, operands)) if i != at]
    spec = ",".join([output] + [t for t, _ in others]) + "->" + terms[at]
    accumulate(buffers, operands[at], np.einsum(spec, ct, *[o for _, o in others]))


def _as_einsum(spec: str) -> Callable:
    """The rule of a product that is this einsum with its default axes."""
    def rule(buffers, ct, args, kwargs):
        _einsum(buffers, ct, (spec,) + tuple(args), {})
    return rule


def _default_axes(args: tuple, kwargs: dict) -> bool:
    """Two operands, one recorded, the last axis contracted (as vecdot's rule passes
    axis=-1)."""
    return len(args) == 2 and sum(type(a) is Linear for a in args) == 1 and \
        kwargs in ({}, {"axis": -1})


def _tensordot_spec(a_ndim: int, b_ndim: int, axes: Any) -> str:
    """np.tensordot(a, b, axes) as einsum subscripts."""
    if isinstance(axes, (int, np.integer)):
        a_axes, b_axes = list(range(a_ndim - axes, a_ndim)), list(range(axes))
    else:
        a_axes, b_axes = ([axes[0]] if isinstance(axes[0], int) else list(axes[0]),
                          [axes[1]] if isinstance(axes[1], int) else list(axes[1]))
    letters = iter(string.ascii_letters)
    a = [next(letters) for _ in range(a_ndim)]
    b = [next(letters) for _ in range(b_ndim)]
    for i, j in zip(a_axes, b_axes):
        b[j % b_ndim] = a[i % a_ndim]
    summed = {a[i % a_ndim] for i in a_axes}
    out = [c for c in a if c not in summed] + [c for c in b if c not in summed]
    return f"{''.join(a)},{''.join(b)}->{''.join(out)}"


def _tensordot(buffers, ct, args, kwargs):
    a, b = args[0], args[1]
    axes = args[2] if len(args) > 2 else kwargs.get("axes", 2)
    spec = _tensordot_spec(len(_shape(a)), len(_shape(b)), axes)
    _einsum(buffers, ct, (spec, a, b), {})


def _dot_applies(args: tuple, kwargs: dict) -> bool:
    return _one_recorded(args, kwargs) and all(len(_shape(a)) in (1, 2) for a in args)


def _solve_applies(args: tuple, kwargs: dict) -> bool:
    return len(args) == 2 and type(args[0]) is not Linear and type(args[1]) is Linear \
        and not kwargs


def _solve(buffers, ct, args, kwargs):
    """x = solve(a, b) with a saved: b's cotangent is solve(a^T, ct)."""
    a, b = args
    transposed = np.swapaxes(a, -1, -2)
    accumulate(buffers, b, np.linalg.solve(transposed, ct))


def _plain_trace(args: tuple, kwargs: dict) -> bool:
    """trace(x, offset=0, axis1=0, axis2=1, dtype=None) of a matrix (as rules call it)."""
    given = dict(zip(("offset", "axis1", "axis2", "dtype"), args[1:]), **kwargs)
    return type(args[0]) is Linear and len(args[0].shape) == 2 and \
        {given.get("axis1", 0), given.get("axis2", 1)} == {0, 1} and \
        given.get("dtype") is None and set(given) <= {"offset", "axis1", "axis2", "dtype"}


def _trace(buffers, ct, args, kwargs):
    x = args[0]
    offset = args[1] if len(args) > 1 else kwargs.get("offset", 0)
    accumulate(buffers, x, ct * np.eye(*x.shape, k=offset))


def _axis_only(args: tuple, kwargs: dict) -> bool:
    return _only_first_recorded(args, kwargs, {"axis", "shift", "k"})


def _inner_applies(args: tuple, kwargs: dict) -> bool:
    return _one_recorded(args, kwargs) and all(len(_shape(a)) >= 1 for a in args)


def _inner(buffers, ct, args, kwargs):
    """np.inner contracts the last axes: as einsum."""
    a, b = args
    letters = iter(string.ascii_letters)
    last = next(letters)
    a_front = "".join(next(letters) for _ in range(len(_shape(a)) - 1))
    b_front = "".join(next(letters) for _ in range(len(_shape(b)) - 1))
    spec = f"{a_front}{last},{b_front}{last}->{a_front}{b_front}"
    _einsum(buffers, ct, (spec, a, b), {})


def _scatter_applies(args: tuple, kwargs: dict) -> bool:
    return len(args) == 3 and type(args[0]) is Linear and not _recorded_in(args[1]) \
        and not kwargs


def _scattered(sign: float) -> Callable:
    """np.add.at(t, idx, v) (np.subtract.at): t keeps its cotangent, v gets what each
    of its additions reached, duplicates included."""
    def rule(buffers, index, args, kwargs):
        target, where, value = args
        accumulate(buffers, value, sign * buffers[target.index][where])
    return rule


def _broadcast_to(buffers, ct, args, kwargs):
    """A broadcast view (its entries share memory): summed back, not a view rule."""
    accumulate(buffers, args[0], ct)


RULES: Dict[Callable, Tuple[Callable, Callable]] = {
    np.broadcast_to: (lambda args, kwargs: _only_first_recorded(args, kwargs, {"shape"}),
                      _broadcast_to),
    np.stack: (_joined, _stack),
    np.concatenate: (_joined, _concatenate),
    np.roll: (_axis_only, _roll),
    np.diff: (_plain_diff, _diff),
    np.cumsum: (lambda args, kwargs: _only_first_recorded(args, kwargs, {"axis"}) and
                (len(args) <= 2 or (len(args) == 3 and args[2] is None)), _cumsum),
    np.tril: (_axis_only, _triangle(np.tril)),
    np.triu: (_axis_only, _triangle(np.triu)),
    np.take: (lambda args, kwargs: _only_first_recorded(args, kwargs, {"axis"}) and
              len(args) <= 3, _take),
    np.pad: (_constant_pad, _pad),
    np.repeat: (_whole_repeats, _repeat),
    np.einsum: (_einsum_applies, _einsum),
    np.tensordot: (_one_recorded, _tensordot),
    np.dot: (_dot_applies, lambda buffers, ct, args, kwargs: matmul(buffers, ct, args,
                                                                    kwargs)),
    np.linalg.solve: (_solve_applies, _solve),
    np.trace: (_plain_trace, _trace),
    np.inner: (_inner_applies, _inner),
    np.vecdot: (_default_axes, _as_einsum("...i,...i->...")),  # (real values: no conj)
    np.matvec: (_default_axes, _as_einsum("...ij,...j->...i")),
    np.vecmat: (_default_axes, _as_einsum("...i,...ij->...j")),
}

# in place, no new node: (applies, rule(buffers, index, args, kwargs)) as for setitem
IN_PLACE: Dict[Callable, Tuple[Callable, Callable]] = {
    np.add.at: (_scatter_applies, _scattered(1.0)),
    np.subtract.at: (_scatter_applies, _scattered(-1.0)),
}
