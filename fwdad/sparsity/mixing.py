"""Sparsity rules of primitives that mix the items of their operands along some axes:
linear solves, inverses and determinants, the FFTs, softmax.

    np.linalg.solve(A, b)[i, j]       depends on every item of A and on b[:, j]
    np.linalg.inv(A)[i, j]            depends on every item of A
    np.linalg.qr(A[k]) (stacked)      each of Q[k], R[k] on every item of A[k]
    np.fft.fft(x, axis=a)[..., k]     depends on the items of x along a (others fixed)
    scipy.special.softmax(x, axis=a)  the same, along a

Each returns None (the caller falls back to the dense rule, with its warning) for a
call it does not cover: `out=`, arguments it does not know.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.registry import RuleEntry
from fwdad.sparsity.deps import Deps
from fwdad.sparsity.rules import carries_deps, shaped_like


def _sets(tangent: Any) -> Optional[np.ndarray]:
    """The dependency sets of a tangent as an object array, None when it has none."""
    if not carries_deps(tangent):
        return None
    if isinstance(tangent, Deps):
        sets = np.empty((), dtype=object)
        sets[()] = tangent
        return sets
    return np.asarray(tangent, dtype=object)


def _join(*unions: Any) -> Any:
    present = [u for u in unions if u is not None]
    if not present:
        return None
    out = present[0]
    for other in present[1:]:
        out = out + other
    return out


# ---- linear algebra ------------------------------------------------------------------
def of_each_matrix(entry: RuleEntry, args: tuple, kwargs: dict) -> Optional[Dual]:
    """inv, det, slogdet and the decompositions (cholesky, qr, eigh, eigvalsh, svd,
    svdvals) of a matrix or a stack of them (..., m, n): each item of each output (of
    a tuple of outputs, each) depends on every item of its own matrix, the one at the
    same stack index. The other arguments are options (mode, UPLO, full_matrices, ...):
    one that carries dependencies falls back."""
    if not args or not isinstance(args[0].primal, np.ndarray) or args[0].primal.ndim < 2 \
            or any(carries_deps(a.tangent) for a in list(args[1:]) + list(kwargs.values())):
        return None
    a = args[0]
    primal = entry.primal(a.primal, *(x.primal for x in args[1:]),
                          **{k: v.primal for k, v in kwargs.items()})
    sets = _sets(a.tangent)
    union = None if sets is None or sets.size == 0 else np.sum(sets, axis=(-2, -1))
    return _per_matrix(primal, union, a.primal.shape[:-2])


def _per_matrix(primal: Any, union: Any, stack: Tuple[int, ...]) -> Optional[Dual]:
    """The Dual of `primal` (an array, or a tuple of them, each led by the `stack`
    axes) whose items hold the `union` (shape `stack`) of their stack index."""
    leaves = list(primal) if isinstance(primal, tuple) else [primal]
    if any(np.shape(leaf)[:len(stack)] != stack for leaf in leaves):
        return None
    tangents = [shaped_like(leaf, None if union is None else np.reshape(
        union, stack + (1,) * (np.ndim(leaf) - len(stack)))) for leaf in leaves]
    if not isinstance(primal, tuple):
        return Dual(primal, tangents[0])
    rebuilt = primal._make(tangents) if hasattr(primal, "_make") else tuple(tangents)
    return Dual(primal, rebuilt)


def solve(entry: RuleEntry, args: tuple, kwargs: dict) -> Optional[Dual]:
    """solve(A, b), A a matrix or a stack of them: x[..., :, j] depends on all of its
    own A and on b[..., :, j] (b a vector: on all of b)."""
    if kwargs or len(args) != 2:
        return None
    a, b = args
    if np.ndim(a.primal) < 2 or np.ndim(b.primal) < 1 or (
            _LEGACY_SOLVE and np.ndim(b.primal) == np.ndim(a.primal) - 1 > 1):
        return None  # (NumPy 1 reads such a b as a stack of vectors)
    primal = entry.primal(a.primal, b.primal)
    of_a = _union_of_matrices(a.tangent)
    sets = _sets(b.tangent)
    if sets is None or sets.size == 0:
        of_b = None
    elif np.ndim(b.primal) == 1:
        of_b = np.sum(sets)
    else:
        of_b = np.sum(sets, axis=-2, keepdims=True)  # one set per column
    if of_a is not None and np.ndim(b.primal) == 1:
        of_a = of_a[..., 0]  # (x is a vector per matrix)
    return Dual(primal, shaped_like(primal, _join(of_a, of_b)))


def _union_of_matrices(tangent: Any) -> Optional[np.ndarray]:
    """Per matrix of a stack, the union of its items' sets, shape (..., 1, 1)."""
    sets = _sets(tangent)
    if sets is None or sets.size == 0:
        return None
    union: np.ndarray = np.sum(sets, axis=(-2, -1), keepdims=True)
    return union


_LEGACY_SOLVE = int(np.__version__.split(".")[0]) < 2


# ---- along axes: FFTs, softmax --------------------------------------------------------
def _mixed_along(primal: Any, tangent: Any, axes: Sequence[int],
                 used: Sequence[Optional[int]]) -> Any:
    """Each item of `primal` (the output) depends on the items of the input along
    `axes` with the other indices its own: the first `used[i]` along axes[i] (None:
    all of them)."""
    sets = _sets(tangent)
    if sets is None:
        return shaped_like(primal, None)
    for axis, count in zip(axes, used):
        if count is not None:
            sets = np.take(sets, np.arange(min(count, sets.shape[axis])), axis=axis)
    union = np.sum(sets, axis=tuple(axes), keepdims=True) if sets.size else None
    return shaped_like(primal, union)


_ONE_AXIS = {"fft": "c2c", "ifft": "c2c", "rfft": "r2c", "ihfft": "r2c", "irfft": "c2r",
             "hfft": "c2r"}
_MANY_AXES = {"fft2": "c2c", "ifft2": "c2c", "fftn": "c2c", "ifftn": "c2c",
              "rfft2": "r2c", "rfftn": "r2c", "irfft2": "c2r", "irfftn": "c2r"}


def fft(entry: RuleEntry, args: tuple, kwargs: dict) -> Optional[Dual]:
    """The transforms of np.fft: each output item depends on the input items along the
    transformed axes that the transform reads (cropped by `n`/`s`; a transform to
    reals reads n // 2 + 1 of its last axis)."""
    name = getattr(entry.primal, "__name__", "")
    if set(kwargs) - {"n", "s", "axis", "axes", "norm"} or not args or \
            not isinstance(args[0].primal, np.ndarray):
        return None
    values = [a.primal for a in args] + [None] * 3
    named = {k: v.primal for k, v in kwargs.items()}
    x = args[0].primal
    if name in _ONE_AXIS:
        kind = _ONE_AXIS[name]
        sizes = [named.get("n", values[1])]
        axes = [named.get("axis", -1 if values[2] is None else values[2])]
    elif name in _MANY_AXES:
        kind = _MANY_AXES[name]
        sizes_given, axes_given = named.get("s", values[1]), named.get("axes", values[2])
        default = (-2, -1) if name.endswith("2") else None
        axes = _axes(x.ndim, sizes_given, axes_given if axes_given is not None else default)
        sizes = list(sizes_given) if sizes_given is not None else [None] * len(axes)
    else:
        return None
    primal = entry.primal(*[a.primal for a in args], **named)
    axes = [a % x.ndim for a in axes]
    used = list(sizes)
    if kind == "c2r":  # the last axis reads n // 2 + 1 items, n the output's length
        used[-1] = np.shape(primal)[axes[-1]] // 2 + 1
    return Dual(primal, _mixed_along(primal, args[0].tangent, axes, used))


def _axes(ndim: int, sizes: Any, axes: Any) -> Tuple[int, ...]:
    if axes is not None:
        return tuple(axes)
    if sizes is not None:
        return tuple(range(ndim - len(sizes), ndim))
    return tuple(range(ndim))


def softmax(entry: RuleEntry, args: tuple, kwargs: dict) -> Optional[Dual]:
    """scipy.special.softmax and log_softmax(x, axis=None): along `axis` (all axes for
    None), as a normalization over it mixes them."""
    if set(kwargs) - {"axis"} or len(args) > 2 or not isinstance(args[0].primal,
                                                                  (np.ndarray, float)):
        return None
    x = np.asarray(args[0].primal)
    axis = kwargs["axis"].primal if "axis" in kwargs else (
        args[1].primal if len(args) > 1 else None)
    primal = entry.primal(args[0].primal, axis=axis)
    axes = range(x.ndim) if axis is None else (
        [axis] if isinstance(axis, int) else list(axis))
    axes = [a % max(x.ndim, 1) for a in axes]
    return Dual(primal, _mixed_along(primal, args[0].tangent, axes, [None] * len(axes)))
