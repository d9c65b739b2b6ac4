"""The reverse rule cases for NumPy: ufuncs, reductions, shapes, linear algebra,
creation. One Case per row, run like the rows of cases.py."""
from __future__ import annotations

import numpy as np

from fwdad.rules.adjugates import adjugate
from tests.reverse.case import POS, STACK, UNIT, V3, V4, A, B, Case, R  # noqa: F401
from tests.rules.linalg_cases import ILL, RANK_ONE, RANK_TWO  # (singular: det's adj(a))

WIDE = np.abs(A) + 1.2  # in the domain of arccosh


def _ufunc_cases():
    unit = [np.arcsinh, np.arctanh, np.deg2rad, np.rad2deg, np.exp2, np.cbrt,
            np.reciprocal, np.fabs, np.conjugate, np.sin, np.cos, np.tan, np.arcsin,
            np.arccos, np.arctan, np.sinh, np.cosh, np.tanh, np.exp, np.expm1, np.square]
    positive = [np.log2, np.log10, np.log, np.log1p, np.sqrt]
    binary = [np.float_power, np.arctan2, np.hypot, np.logaddexp, np.logaddexp2,
              np.copysign, np.nextafter, np.maximum, np.minimum, np.fmax, np.fmin]
    out = [Case(f, (UNIT,)) for f in unit] + [Case(f, (POS,)) for f in positive]
    out += [Case(f, (POS, UNIT)) for f in binary] + [Case(np.arccosh, (WIDE,))]
    out += [Case(np.maximum, (A, V4)), Case(np.minimum, (0.1, A)),
            Case(np.remainder, (POS * 3.0, POS)), Case(np.fmod, (UNIT * 5.0, POS)),
            Case(np.ldexp, (A, np.array([1, -2, 0, 3]))), Case(np.modf, (A * 3.0,)),
            Case(np.frexp, (A * 3.0,)),
            Case(np.divmod, (POS * 3.0, POS)), Case(np.real, (A,)),
            Case(np.imag, (A,), forward=False), Case(np.clip, (A, -0.5, 0.5)),
            Case(np.clip, (A, V4 * 0.1 - 0.3), dict(a_max=None)),
            Case(np.ndarray.clip, (A,), dict(max=0.2)),
            Case(np.where, (A > 0, A, B.T[:1])), Case(np.sign, (A,)),
            Case(np.heaviside, (np.array([[0.0, 1.5], [-0.3, 0.0]]), 0.5))]
    return out


TIES = np.array([[1.0, 3.0, 3.0], [0.5, -2.0, -2.0]])  # ties for max/min/median
ZEROS = np.array([[1.5, 0.0, 2.0, -0.5], [0.0, 0.0, 1.2, 0.7], [0.3, 1.1, -0.4, 2.0]])
# testing.varmat compares arguments with np.allclose, where NaN != NaN: NANS rows are
# checked by the dot-product test only
NANS = np.array([[1.5, np.nan, 2.0], [0.3, 0.6, np.nan]])


def _reduction_cases():
    out = [Case(np.prod, (A,)), Case(np.prod, (ZEROS,), dict(axis=1)),
           Case(np.ndarray.prod, (STACK,), dict(axis=(0, 2), keepdims=True)),
           Case(np.max, (A,)), Case(np.max, (TIES,), dict(axis=1)),
           Case(np.amax, (STACK,), dict(axis=(0, 2))), Case(np.ndarray.max, (TIES,)),
           Case(np.min, (TIES,), dict(axis=1, keepdims=True)), Case(np.amin, (A,)),
           Case(np.ndarray.min, (A,), dict(axis=0)),
           Case(np.nanmax, (NANS,), dict(axis=1), varmat=False),
           Case(np.nanmin, (NANS,), dict(axis=0), varmat=False),
           Case(np.ptp, (TIES,), dict(axis=1)),
           Case(np.var, (A,)), Case(np.var, (STACK,), dict(axis=1, ddof=1)),
           Case(np.ndarray.var, (A,), dict(axis=0, keepdims=True)), Case(np.std, (A,)),
           Case(np.ndarray.std, (STACK,), dict(axis=(1, 2), ddof=1)),
           Case(np.nansum, (NANS,), dict(axis=1), varmat=False),
           Case(np.nanmean, (NANS,), varmat=False), Case(np.nanmean, (A,), dict(axis=0)),
           Case(np.nanmax, (A,)), Case(np.nanmin, (A,)), Case(np.nansum, (A,)),
           Case(np.sort, (A,)), Case(np.sort, (TIES,), dict(axis=None)),
           Case(np.sort, (STACK,), dict(axis=1)), Case(np.median, (A,)),
           Case(np.median, (TIES,), dict(axis=1)), Case(np.median, (STACK,), dict(axis=2)),
           Case(np.cumsum, (A,)), Case(np.cumsum, (STACK,), dict(axis=1)),
           Case(np.bincount, (np.array([0, 2, 2, 1]), V4)),
           Case(np.bincount, (np.array([3, 0, 0, 1]), V4), dict(minlength=6)),
           Case(np.unique, (np.array([1, 3, 1]),)), Case(np.unique, (A,)),
           Case(np.unique, (V4,), dict(return_counts=True, return_inverse=True)),
           Case(np.unique_values, (A,)), Case(np.unique_counts, (V4,)),
           Case(np.unique_inverse, (A,)), Case(np.unique_all, (A,)),
           Case(np.ndarray.cumsum, (A,), dict(axis=0)), Case(np.cumprod, (ZEROS,)),
           Case(np.cumprod, (ZEROS,), dict(axis=1)), Case(np.ndarray.cumprod, (A,),
                                                           dict(axis=0))]
    return out + _extreme_cases() + _norm_cases()


def _extreme_cases():
    """Reductions with `initial` and `where`. max and min: where `initial` wins, nothing
    moves (the rule gave the cotangent to the largest element before); sum, mean and
    prod raised TypeError before."""
    return [Case(np.max, (TIES,), dict(axis=0, initial=2.0)),
            Case(np.max, (A,), dict(initial=10.0)),
            Case(np.min, (TIES,), dict(axis=1, where=TIES > 0.6, initial=0.7)),
            Case(np.ndarray.max, (A,), dict(axis=1, where=A < 1.0, initial=-10.0)),
            Case(np.amin, (STACK,), dict(axis=(0, 2), where=STACK > -0.5, initial=9.0)),
            Case(np.nanmax, (A,), dict(axis=0, initial=0.2)),
            Case(np.sum, (A,), dict(axis=1, where=A > 0.0)),
            Case(np.ndarray.sum, (STACK,), dict(axis=(0, 2), initial=2.0, keepdims=True)),
            Case(np.mean, (A,), dict(axis=0, where=A < 0.5)),
            Case(np.ndarray.mean, (STACK,), dict(where=STACK > 0.0)),
            Case(np.prod, (A,), dict(axis=1, where=A > -0.5)),
            Case(np.ndarray.prod, (ZEROS,), dict(axis=0, initial=2.0, where=ZEROS != 1.5))]


def _norm_cases():
    vector = [None, 2, 1, np.inf, -np.inf, 3, 0.5, 0]
    matrix = [None, "fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf]
    out = [Case(np.linalg.norm, (V4,), dict(ord=o)) for o in vector]
    out += [Case(np.linalg.norm, (A,), dict(ord=o)) for o in matrix]
    return out + [Case(np.linalg.norm, (STACK,), dict(axis=1, keepdims=True)),
                  Case(np.linalg.norm, (STACK,), dict(ord=1, axis=(2, 0))),
                  Case(np.linalg.norm, (STACK,))]


def _shape_cases():
    out = [Case(np.swapaxes, (STACK, 0, 2)), Case(np.ndarray.swapaxes, (A, 0, 1)),
           Case(np.moveaxis, (STACK, 0, -1)), Case(np.squeeze, (A[None],)),
           Case(np.ndarray.squeeze, (A[:, None],), dict(axis=1)),
           Case(np.expand_dims, (A, 1)), Case(np.flip, (STACK,), dict(axis=1)),
           Case(np.fliplr, (A,)), Case(np.flipud, (A,)), Case(np.rot90, (A,)),
           Case(np.atleast_1d, (0.5,)), Case(np.atleast_2d, (V4,)),
           Case(np.atleast_3d, (A,)),
           Case(np.atleast_2d, (V3, A)),
           Case(np.broadcast_to, (V4, (3, 4))), Case(np.diagonal, (STACK, 1, 1, 2)),
           Case(np.ndarray.diagonal, (A,)), Case(np.take, (A, [0, 2, 2, 5])),
           Case(np.ndarray.take, (A, [1, 1, 3]), dict(axis=1)),
           Case(np.repeat, (A, 2), dict(axis=0)), Case(np.ndarray.repeat, (V4, [1, 0, 2, 1])),
           Case(np.roll, (A, 2)), Case(np.roll, (STACK, (1, -1)), dict(axis=(0, 2))),
           Case(np.tile, (V3, (2, 2))), Case(np.triu, (A,)), Case(np.tril, (A, -1)),
           Case(np.delete, (A, 1, 1)), Case(np.resize, (V4, (3, 3))),
           Case(np.diagflat, (V3,)), Case(np.take_along_axis, (A, np.argsort(A, 1), 1)),
           Case(np.ndarray.flatten, (A.T,))]
    out += [Case(np.concatenate, ([A, B.T],)), Case(np.concatenate, ([A, V4[None]],)),
            Case(np.concatenate, ([A, STACK[0]],), dict(axis=1)),
            Case(np.stack, ([V4, V4 * 2.0, V4 + 1.0],), dict(axis=1)),
            Case(np.hstack, ([A, A],)), Case(np.vstack, ([A, V4],)),
            Case(np.dstack, ([A, A],)), Case(np.column_stack, ([V3, A],)),
            Case(np.split, (V4, 2)), Case(np.array_split, (A, 2), dict(axis=1)),
            Case(np.hsplit, (A, [1])), Case(np.vsplit, (A, 3)),
            Case(np.dsplit, (STACK, 2)), Case(np.unstack, (A,)),
            Case(np.broadcast_arrays, (V4, A, 2.0)), Case(np.meshgrid, (V3, V4)),
            Case(np.meshgrid, (V3, V4), dict(indexing="ij")), Case(np.ix_, (V3, V4)),
            Case(np.ix_, (V3 > 0.0, V4)),  # a mask beside floats: a bare TypeError before
            Case(np.ix_, (V4, np.array([0, 2])))]
    out += [Case(np.pad, (A, 2)), Case(np.pad, (A, ((1, 0), (0, 2)), "reflect")),
            Case(np.pad, (V4, 3, "wrap")), Case(np.pad, (A, 1, "edge")),
            Case(np.pad, (A, 1, "symmetric")), Case(np.pad, (A, 1),
                                                        dict(constant_values=2.5)),
            Case(np.append, (A, V4[None]), dict(axis=0)), Case(np.append, (A, V3)),
            Case(np.insert, (V4, 1, 2.5)), Case(np.insert, (A, [0, 2], V3[:, None], 1)),
            Case(np.diff, (A,)), Case(np.diff, (STACK,), dict(n=2, axis=1)),
            Case(np.diff, (V4,), dict(prepend=1.0, append=V3))]
    return out


SQUARE = R.standard_normal((3, 3)) + 3.0 * np.eye(3)
SPD = SQUARE @ SQUARE.T + np.eye(3)
SQUARES = R.standard_normal((2, 3, 3)) + 3.0 * np.eye(3)
TALL = R.standard_normal((5, 3))


def _product_cases():
    return [Case(np.vdot, (A, A.T.copy())), Case(np.outer, (V3, A)),
            Case(np.inner, (A, B.T)), Case(np.inner, (V4, STACK)), Case(np.inner, (2.0, A)),
            Case(np.tensordot, (STACK, B, 1)), Case(np.tensordot, (STACK, A, ([1, 2], [0, 1]))),
            Case(np.tensordot, (STACK, STACK, ([2, 0], [2, 0]))),
            Case(np.tensordot, (A, B, 0)), Case(np.kron, (A, B)), Case(np.kron, (V3, A)),
            Case(np.linalg.multi_dot, ([V3, A, B, B.T],)),
            Case(np.trace, (A,)), Case(np.trace, (STACK, 1, 1, 2)),
            Case(np.ndarray.trace, (SQUARE,)), Case(np.diag, (V3,)),
            Case(np.diag, (A, 1)), Case(np.einsum, ("ij,jk->ik", A, B)),
            Case(np.einsum, ("ii", SQUARE)), Case(np.einsum, ("ii->i", SQUARE)),
            Case(np.einsum, ("ij->", A)), Case(np.einsum, ("ij,ij->i", A, A * 2.0)),
            Case(np.einsum, ("...ij,jk->...ik", STACK, B)),
            Case(np.einsum, ("bij,bjk", STACK, STACK.transpose(0, 2, 1))),
            Case(np.einsum, ("i,i,i", V3, V3, V3 + 1.0)), Case(np.einsum, ("ji", A)),
            # ... empty, and ... broadcasting a size-1 axis (reported wrong or refused)
            Case(np.einsum, ("jk...,lj...->lk...", A[:, :2], STACK[:, :, :2])),
            Case(np.einsum, ("j...k,lj...->lk...", STACK[:1].transpose(1, 0, 2),
                             STACK[:, :3, :3])),
            Case(np.einsum, (A, [0, 1], B, [1, 2], [0, 2]), forward=False),  # sublists
            Case(np.einsum, (STACK, [Ellipsis, 1, 2], V4, [2]), forward=False)]


def _solver_cases():
    return [Case(np.linalg.solve, (SQUARE, V3)), Case(np.linalg.solve, (SQUARE, A)),
            Case(np.linalg.solve, (SQUARES, SQUARE)), Case(np.linalg.inv, (SQUARES,)),
            Case(np.linalg.det, (SQUARE,)), Case(np.linalg.det, (SQUARES,)),
            Case(np.linalg.det, (RANK_TWO,)), Case(np.linalg.det, (RANK_ONE,)),
            Case(adjugate, (SQUARES,)), Case(adjugate, (RANK_TWO,)), Case(adjugate, (ILL,)),
            Case(adjugate, (np.stack([RANK_ONE, SQUARE]),)),
            Case(np.linalg.slogdet, (SQUARES * -1.0,)),
            Case(np.linalg.matrix_power, (SQUARE, 3)),
            Case(np.linalg.matrix_power, (SQUARES, -2)),
            Case(np.linalg.matrix_power, (SQUARE, 0)),
            Case(np.linalg.cholesky, (SPD,)), Case(np.linalg.cholesky, (SPD,),
                                                    dict(upper=True)),
            Case(np.linalg.qr, (TALL,)), Case(np.linalg.qr, (SQUARES,), dict(mode="r")),
            Case(np.linalg.qr, (SQUARE,), dict(mode="complete")),
            Case(np.linalg.eigh, (SPD,)), Case(np.linalg.eigh, (SQUARES,), dict(UPLO="U")),
            Case(np.linalg.eigvalsh, (SQUARE,)), Case(np.linalg.svd, (SQUARE,)),
            Case(np.linalg.svd, (TALL,), dict(full_matrices=False)),
            Case(np.linalg.svd, (A,), dict(full_matrices=False)),
            Case(np.linalg.svd, (STACK,), dict(compute_uv=False)),
            Case(np.linalg.pinv, (TALL,)), Case(np.linalg.pinv, (A,)),
            Case(np.linalg.lstsq, (TALL, np.append(V4, 0.5))),
            Case(np.linalg.lstsq, (TALL, R.standard_normal((5, 2))))]


def _creation_cases():
    return [Case(np.full, ((2, 3), 0.7)), Case(np.full, ((2, 4), V4)),
            Case(np.full_like, (A, 0.3)), Case(np.ndarray.astype, (A, float)),
            Case(np.ascontiguousarray, (A.T,)), Case(np.asanyarray, (A,)),
            Case(np.asfortranarray, (A,)), Case(np.float64, (0.3,)),
            Case(np.float32, (0.3,), rtol=1e-6), Case(np.float16, (0.3,), rtol=1e-3),
            Case(np.longdouble, (0.3,)), Case(np.ndarray.item, (A, 5)),
            Case(np.ndarray.item, (A, (1, 2))), Case(np.ndarray.item, (A[:1, :1],)),
            Case(np.ndarray.tolist, (A,))]


def to_int_and_back(a):
    return a.astype(int) * a + np.full(3, 0.5)[0]


def fill_and_copy(a, x):
    b = np.empty_like(a)
    b.fill(x)
    np.copyto(b[1], a[0])
    np.copyto(b, a * 2.0, where=a > 0.3)
    return b * a


def put_and_fill_diagonal(m, v):
    b = m * 1.0
    np.put(b, [0, 5, 5, -1], v)
    b.put([2], v[0] * 3.0)
    np.fill_diagonal(b, v[1:])
    return b


def put_along_axes(m, v):
    """The last of repeated indices wins; axis=None writes into the flattened array."""
    b = m * 1.0
    np.put_along_axis(b, np.array([[1, 1], [0, 3], [2, -1]]), v[:2] * m[:, :1], 1)
    np.put_along_axis(b, np.array([7, 0, 7]), [v[2], 0.5, v[3]], None)
    return b * v


def ufunc_methods(a, b):
    total = np.add.reduce(a, 1) + np.multiply.reduce(a) [:3] + np.maximum.reduce(a, 0)[1]
    return total + np.add.accumulate(a)[2, :3] + np.multiply.accumulate(b)[:3] \
        + np.subtract.outer(b, a[0])[:3, 0]


def running_extremes(a, b):
    """maximum/minimum.accumulate, with ties (c repeats b's values)."""
    c = np.concatenate([b, b[::-1], b[:2]])
    return np.maximum.accumulate(a, axis=1) * 2.0 + np.minimum.accumulate(a)[:, :1] \
        + np.maximum.accumulate(c)[4:8] + np.minimum.accumulate(c)[6:]


def segment_sums(a, b):
    """np.add.reduceat: slices, an index not after the next (a slice of one), an axis."""
    return np.add.reduceat(a, [0, 2, 2, 1], axis=1) * 2.0 + np.add.reduceat(b, [1, 3])[0] \
        + np.add.reduceat(a, np.array([2, 0]))[:, :2].sum()


def concatenators(a, b):
    """np.r_ and np.c_ of variables (a plain array of them was refused before), with a
    range, a scalar, a complex step and the "0,2" directive."""
    r = np.r_[b, a[0], 1.5, 0:2] * np.r_[1.0:3.0:11j]
    return r.sum() * np.c_[a[:, 0], a[:, 1] * a[:, 2]] + np.r_["0,2", a[1], b].sum()


def outputs_by_position(a, b):
    """out= given by position (a bare TypeError before): clip, the method, sum, mean."""
    r, m = b * 0.0, np.zeros(3)
    np.clip(b, -0.5, 0.6, r)
    a.clip(-0.2, 0.3, a * 0.0)
    np.sum(a, 1, None, m)
    n = np.zeros(4)
    np.mean(a, 0, None, n)
    return r * b + m.sum() * n


def add_at(a, b):
    c = a * 1.0
    np.add.at(c, [0, 2, 0], b[:3])
    np.subtract.at(c, 1, b[3])
    np.multiply.at(c, [3, 3, 1], b[1:])
    np.negative.at(c, [2])
    np.add.at(c, [1, 1], 0.5)  # a constant added to a variable
    np.subtract.at(c, 0, 2.0)
    return c * a


def shuffles(a):
    rng = np.random.default_rng(3)
    b = rng.permutation(a) * 2.0
    rng.shuffle(b, axis=1)
    c = a[0] * 1.0
    np.random.RandomState(5).shuffle(c)
    return b * a + np.random.RandomState(2).permutation(c) + rng.normal(size=4)


def array_methods(a):
    b = a.clip(-0.5, 0.5).cumsum(axis=1) + a.prod(axis=0) + a.std() * a.var(1, keepdims=True)
    c = b.astype(float).flatten().repeat(2).take([0, 3, 5])
    d = a.swapaxes(0, 1).squeeze().diagonal().sum() + a.trace() + a.max() + a.item(3)
    e = np.sum(a.tolist()[1]) + a.cumprod(axis=0)[-1, 0] + a[a.argmax(0), [0, 1, 2, 3]].sum()
    return c * d + e + np.sin(a).T.dot(a).sum()


def split_then_write(a, x):
    top, bottom = np.split(a, 2)
    top[0] = x
    return np.concatenate([bottom, top]) * a


def sort_in_place(a):
    b = a * 2.0
    b.sort(axis=0)
    return b * a


def _reordering_cases():
    """Issue 20's gaps: rollaxis, row_stack, partition, real_if_close, einsum's
    interleaved form, dot past two dimensions."""
    out = [Case(np.rollaxis, (STACK, 2)), Case(np.rollaxis, (STACK, -1, 1)),
           Case(np.partition, (A, 1)), Case(np.partition, (STACK, (0, 1)), dict(axis=1)),
           Case(np.partition, (A, 5), dict(axis=None)), Case(np.real_if_close, (A,)),
           Case(np.einsum, (A, [0, 1], B, [1, 2], [0, 2])),
           Case(np.einsum, (STACK, [Ellipsis, 1], V4, [1])),
           Case(np.dot, (STACK, B)), Case(np.dot, (A, STACK.transpose(0, 2, 1))),
           Case(np.dot, (STACK, STACK.transpose(0, 2, 1))),
           Case(np.dot, (STACK, V4)), Case(np.dot, (V3, STACK[:, :, :3].swapaxes(1, 2)))]
    if hasattr(np, "row_stack"):  # (deprecated since NumPy 2.0)
        out += [Case(np.row_stack, ([V4, A[0]],)), Case(np.row_stack, ((A, V4),))]
    return out


NUMPY_CASES = (_ufunc_cases() + _reordering_cases() + _reduction_cases() + _shape_cases()
               + _product_cases()
               + _solver_cases()
               + _creation_cases()
               + [Case(sort_in_place, (A,)), Case(split_then_write, (V4 * 1.0, 0.5)),
                  Case(to_int_and_back, (A,)), Case(fill_and_copy, (A, 0.4)),
                  Case(put_and_fill_diagonal, (A, V4)), Case(ufunc_methods, (A, V4)),
                  Case(put_along_axes, (A, V4)),
                  Case(running_extremes, (A, V4)), Case(segment_sums, (A, V4)),
                  Case(concatenators, (A, V4)), Case(outputs_by_position, (A, V4)),
                  Case(add_at, (V4, V4 * 0.5 + 1.0)), Case(shuffles, (A,)),
                  Case(array_methods, (A,))])
# The primitives that rows above exercise inside a function (complex128 and complex64:
# in test_numpy_rules.py's complex intermediates).
COVERS = [np.ndarray.sort, np.ndarray.fill, np.copyto, np.put, np.ndarray.put,
          np.put_along_axis,
          np.fill_diagonal, np.ufunc.reduce, np.ufunc.accumulate, np.ufunc.reduceat,
          np.ufunc.outer,
          np.ufunc.at, np.random.Generator.shuffle, np.random.Generator.permutation,
          np.random.RandomState.shuffle, np.random.RandomState.permutation, np.complex128,
          np.complex64]
