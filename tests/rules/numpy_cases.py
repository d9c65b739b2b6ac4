"""The case tables of the NumPy rules: ufuncs, reductions, linear algebra, shapes,
creation and methods. Rows are `Case(fn, *args, domain=..., **kwargs)`, as in cases.py.

Positional arguments are perturbed by test_rule; `out` arrays are given positionally so
that their state afterwards (primal and tangent) is checked too.
"""
from __future__ import annotations

import numpy as np

from fwdad.testing.strategies import (ABOVE_MINUS_ONE, ABOVE_ONE, FRACTION, NONZERO,
                                      POSITIVE, TAN_PERIOD, UNIT_OPEN, Domain)
from tests.rules.case import (M23, M32, M34, MASK3, MASK23, POS3, S22, T223, T232,
                               UNCOMPARABLE, V3, W3, Case, xfail)

Z3 = np.zeros(3)
Z23 = np.zeros((2, 3))
I3 = np.array([2, 0, 5])
U3 = np.array([0.2, -0.5, 0.9])     # never equal to an entry of M23 (no ties)
P23 = M23 + 0.03                    # away from the jumps of round, rint, frexp
# maximum and kin: |x| <= 1 < 1.5 <= |y|, so either input can win but never ties
SMALL = Domain("SMALL", 0.1, 1.0, either_sign=True)
LARGE = Domain("LARGE", 1.5, 3.0, either_sign=True)

# ---- ufuncs: unary --------------------------------------------------------------------
UFUNC_CASES = [
    Case(np.sin, 0.3), Case(np.sin, M23), Case(np.cos, M23),
    Case(np.tan, 0.3, domain=TAN_PERIOD),
    Case(np.arcsin, 0.3, domain=UNIT_OPEN), Case(np.arccos, 0.3, domain=UNIT_OPEN),
    Case(np.arctan, M23), Case(np.sinh, M23), Case(np.cosh, M23), Case(np.tanh, M23),
    Case(np.arcsinh, M23), Case(np.arccosh, 1.7, domain=ABOVE_ONE),
    Case(np.arctanh, 0.3, domain=UNIT_OPEN), Case(np.deg2rad, M23), Case(np.rad2deg, M23),
    Case(np.exp, 0.3), Case(np.exp, M23), Case(np.expm1, M23), Case(np.exp2, M23),
    Case(np.log, 1.7, domain=POSITIVE), Case(np.log, POS3),
    Case(np.log2, 1.7, domain=POSITIVE), Case(np.log10, 1.7, domain=POSITIVE),
    Case(np.log1p, 0.3, domain=ABOVE_MINUS_ONE), Case(np.sqrt, 1.7, domain=POSITIVE),
    Case(np.sqrt, POS3), Case(np.cbrt, -1.7, domain=NONZERO), Case(np.square, M23),
    Case(np.reciprocal, 1.7, domain=NONZERO), Case(np.absolute, -1.3, domain=NONZERO),
    Case(np.absolute, M23), Case(np.fabs, -1.3, domain=NONZERO),
    Case(np.negative, 0.3), Case(np.negative, M23), Case(np.positive, M23),
    Case(np.conjugate, M23),
    Case(np.sin, V3, Z3), Case(np.exp, M23, Z23),       # out= given positionally
    Case(np.sin, V3, Z3, where=MASK3),
    Case(np.exp, V3, dtype=np.float64), Case(np.sqrt, np.array(1.7)),
    Case(np.modf, P23, domain=FRACTION), Case(np.sin, np.zeros((0, 3))),
]

# ---- ufuncs: binary -------------------------------------------------------------------
NUMPY_BINARY_CASES = [
    Case(np.add, 0.3, -1.2), Case(np.add, M23, V3),
    Case(np.subtract, 0.3, -1.2), Case(np.subtract, V3, M23),
    Case(np.multiply, 0.3, -1.2), Case(np.multiply, M23, V3),
    Case(np.divide, 0.3, -1.2, domain=(POSITIVE, NONZERO)), Case(np.divide, M23, POS3),
    Case(np.power, 1.3, 2.5, domain=(POSITIVE, POSITIVE)), Case(np.power, POS3, V3),
    Case(np.float_power, 1.3, 2.5, domain=(POSITIVE, POSITIVE)),
    Case(np.arctan2, 0.3, -1.2, domain=NONZERO), Case(np.arctan2, M23, W3),
    Case(np.hypot, 0.3, -1.2, domain=NONZERO), Case(np.hypot, M23, W3),
    Case(np.logaddexp, 0.3, -1.2), Case(np.logaddexp, M23, W3),
    Case(np.logaddexp2, 0.3, -1.2), Case(np.logaddexp2, M23, 0.4),
    Case(np.maximum, 0.3, -1.2, domain=(SMALL, LARGE)), Case(np.maximum, M23, U3),
    Case(np.minimum, 0.3, -1.2, domain=(SMALL, LARGE)), Case(np.minimum, M23, U3),
    Case(np.fmax, 0.3, -1.2, domain=(SMALL, LARGE)), Case(np.fmax, M23, U3),
    Case(np.fmin, 0.3, -1.2, domain=(SMALL, LARGE)), Case(np.fmin, M23, U3),
    Case(np.copysign, 0.3, -1.2, domain=NONZERO), Case(np.copysign, M23, W3),
    Case(np.nextafter, V3, W3),
]

UFUNC_MORE_CASES = [
    Case(np.remainder, 5.3, 2.0), Case(np.remainder, M23, 0.45),
    Case(np.fmod, -5.3, 2.0), Case(np.fmod, M23, 0.45), Case(np.ldexp, M23, 3),
    Case(np.divmod, 5.3, 2.0), Case(np.divmod, M23, 0.45),
    Case(np.add, V3, W3, Z3), Case(np.multiply, M23, V3, Z23),
    Case(np.subtract, V3, W3, Z3, where=MASK3), Case(np.add, 0.3, 1.2, Z3),
    Case(np.maximum, M23, 0.0), Case(np.add, np.array(1.5), V3),
    Case(np.add, V3, np.array([1, 2, 3])), Case(np.multiply, V3, True),
    Case(np.clip, M23, -0.5, 0.6), Case(np.clip, M23, None, 0.6),
    Case(np.clip, M23, U3, 0.8), Case(np.clip, V3, -0.5, 0.6, Z3),
    Case(np.ndarray.clip, M23, -0.5, 0.6), Case(np.ndarray.clip, M23, max=0.6),
    Case(np.where, MASK23, M23, W3), Case(np.where, MASK3, V3, 0.5),
    Case(np.where, MASK3, 0.5, -1.5), Case(np.where, MASK23),
    Case(np.real, M23), Case(np.imag, M23), Case(np.angle, V3),
    Case(np.absolute, V3 + 1j * W3), Case(np.angle, V3 + 1j * W3, deg=True),
]

UFUNC_NONDIFF_CASES = [
    Case(np.sign, M23), Case(np.floor, M23), Case(np.ceil, 2.5), Case(np.trunc, M23),
    Case(np.rint, P23), Case(np.signbit, M23), Case(np.spacing, M23),
    Case(np.isnan, M23), Case(np.isinf, M23), Case(np.isfinite, 0.3),
    Case(np.logical_not, MASK3), Case(np.invert, MASK3), Case(np.greater, V3, W3),
    Case(np.greater_equal, V3, W3), Case(np.less, V3, 0.0), Case(np.less_equal, V3, W3),
    Case(np.equal, V3, V3), Case(np.not_equal, V3, W3), Case(np.logical_and, MASK3, MASK3),
    Case(np.logical_or, MASK3, MASK3), Case(np.logical_xor, MASK3, MASK3),
    Case(np.bitwise_and, I3, 3), Case(np.bitwise_or, I3, 3), Case(np.bitwise_xor, I3, 3),
    Case(np.left_shift, I3, 1), Case(np.right_shift, I3, 1),
    Case(np.floor_divide, M23, 0.45), Case(np.gcd, I3, 4), Case(np.lcm, I3, 4),
    Case(np.heaviside, M23, 0.5),
    Case(np.floor, V3, Z3), Case(np.sign, M23, Z23),
    Case(np.round, P23), Case(np.round, P23, 1), Case(np.around, P23), Case(np.fix, P23),
    Case(np.isclose, V3, W3), Case(np.allclose, V3, V3), Case(np.array_equal, V3, W3),
    Case(np.isreal, V3), Case(np.iscomplex, V3),
]
# ---- numpy: reductions, products, creation --------------------------------------------
ZEROS_IN = np.array([[0.3, 0.0, 0.5], [1.1, 0.0, 0.0]])   # prod and cumprod with zeros
SQ = np.array([[2.0, -0.3, 0.4], [0.1, 1.5, -0.2], [0.3, 0.2, 1.1]])

REDUCTION_CASES = [
    Case(np.sum, M23), Case(np.sum, M23, axis=1), Case(np.sum, M23, axis=0, keepdims=True),
    Case(np.sum, T223, axis=(0, 2)), Case(np.sum, M23, axis=-1), Case(np.sum, 0.3),
    Case(np.sum, [0.3, 1.2, -0.5]), Case(np.sum, np.zeros((0, 3)), axis=0),
    Case(np.ndarray.sum, M23), Case(np.ndarray.sum, M23, axis=1, keepdims=True),
    Case(np.sum, M23, where=MASK23), Case(np.sum, M23, axis=0, initial=2.0),
    Case(np.mean, M23, axis=1, where=MASK23 | np.eye(2, 3, dtype=bool)),
    Case(np.prod, M23, where=MASK23), Case(np.prod, M23, axis=1, initial=2.0),
    Case(np.max, M23, initial=5.0), Case(np.max, M23, axis=0, initial=0.6),
    Case(np.min, M23, axis=1, where=MASK23, initial=9.0),
    Case(np.mean, M23), Case(np.mean, M23, axis=0),
    Case(np.mean, T223, axis=1, keepdims=True),
    Case(np.mean, [[0.3, 1.2], [-0.5, 2.0]], axis=1),
    Case(np.ndarray.mean, M23), Case(np.ndarray.mean, M23, axis=-1),
    Case(np.nansum, M23), Case(np.nansum, M23, axis=1), Case(np.nanmean, M23, axis=0),
    Case(np.prod, M23), Case(np.prod, M23, axis=1), Case(np.prod, ZEROS_IN),
    Case(np.prod, ZEROS_IN, axis=0, keepdims=True), Case(np.prod, T223, axis=(0, 2)),
    Case(np.prod, [0.3, 1.2]), Case(np.prod, 0.3), Case(np.ndarray.prod, M23, axis=-1),
    Case(np.max, M23), Case(np.max, M23, axis=0), 
    Case(np.max, T223, axis=(1, 2), keepdims=True), Case(np.amax, M23, axis=1),
    Case(np.min, M23),  Case(np.amin, T223, axis=0),
    Case(np.ndarray.max, M23, axis=1), Case(np.ndarray.min, M23),
    Case(np.nanmax, M23, axis=1), Case(np.nanmin, M23), Case(np.ptp, M23, axis=1),
    Case(np.var, M23), Case(np.var, M23, axis=1), Case(np.var, M23, axis=0, ddof=1),
    Case(np.var, T223, axis=(0, 2), keepdims=True), Case(np.ndarray.var, M23, ddof=1),
    Case(np.std, M23), Case(np.std, M23, axis=1, ddof=1), Case(np.ndarray.std, M23, axis=0),
    Case(np.sort, M23), Case(np.sort, M23, axis=0), Case(np.sort, M23, axis=None),
    Case(np.sort, V3), Case(np.ndarray.sort, M23), Case(np.ndarray.sort, M23, axis=0),
    Case(np.median, M23), Case(np.median, M23, axis=1), Case(np.median, M34, axis=0),
    Case(np.cumsum, M23), Case(np.cumsum, M23, axis=1), Case(np.cumsum, V3),
    Case(np.ndarray.cumsum, M23, axis=0),
    Case(np.cumprod, M23), Case(np.cumprod, ZEROS_IN, axis=1), Case(np.cumprod, T223, axis=1),
    Case(np.ndarray.cumprod, M23, axis=0),
]

REDUCTION_NONDIFF_CASES = [
    Case(np.argmax, M23), Case(np.argmax, M23, axis=1), Case(np.argmin, M23),
    Case(np.argsort, M23), Case(np.ndarray.argmax, M23), Case(np.ndarray.argmin, M23),
    Case(np.ndarray.argsort, M23, axis=0), Case(np.nanargmax, M23), Case(np.nanargmin, M23),
    Case(np.nonzero, MASK23), Case(np.ndarray.nonzero, M23), Case(np.count_nonzero, M23),
    Case(np.flatnonzero, M23), Case(np.argwhere, MASK23), Case(np.searchsorted, POS3, 1.0),
    Case(np.any, MASK23), Case(np.all, MASK23, axis=0), Case(np.ndarray.any, MASK3),
    Case(np.ndarray.all, MASK3), Case(np.unique, np.array([1, 3, 1])),
    Case(np.digitize, V3, np.array([-1.0, 0.0, 1.0])),
    Case(np.bincount, np.array([0, 1, 1, 3])),
]

NORM_CASES = [
    Case(np.linalg.norm, V3), Case(np.linalg.norm, M23), Case(np.linalg.norm, T223),
    Case(np.linalg.norm, V3, ord=1), Case(np.linalg.norm, V3, ord=np.inf),
    Case(np.linalg.norm, V3, ord=-np.inf), Case(np.linalg.norm, V3, ord=3),
    Case(np.linalg.norm, V3, ord=0.5), Case(np.linalg.norm, V3, ord=0),
    Case(np.linalg.norm, M23, axis=1), Case(np.linalg.norm, M23, ord=1, axis=0),
    Case(np.linalg.norm, M23, axis=1, keepdims=True), Case(np.linalg.norm, M23, ord="fro"),
    Case(np.linalg.norm, M23, ord="nuc"), Case(np.linalg.norm, M23, ord=2),
    Case(np.linalg.norm, M23, ord=-2), Case(np.linalg.norm, M23, ord=1),
    Case(np.linalg.norm, M23, ord=-1), Case(np.linalg.norm, M23, ord=np.inf),
    Case(np.linalg.norm, M23, ord=-np.inf), Case(np.linalg.norm, T223, ord=2, axis=(1, 2)),
    Case(np.linalg.norm, T223, ord="fro", axis=(0, 2), keepdims=True),
]

UFUNC_METHOD_CASES = [
    Case(np.ufunc.reduce, np.add, M23), Case(np.ufunc.reduce, np.add, M23, axis=1),
    Case(np.ufunc.reduce, np.multiply, ZEROS_IN), Case(np.ufunc.reduce, np.maximum, M23),
    Case(np.ufunc.reduce, np.minimum, M23, axis=None),
    Case(np.ufunc.accumulate, np.add, M23), Case(np.ufunc.accumulate, np.multiply, M23),
    Case(np.ufunc.accumulate, np.maximum, M23, axis=1),
    Case(np.ufunc.accumulate, np.minimum, M34), Case(np.ufunc.accumulate, np.maximum, V3),
    Case(np.ufunc.outer, np.multiply, V3, W3), Case(np.ufunc.outer, np.subtract, M23, V3),
    Case(np.ufunc.outer, np.arctan2, V3, POS3),
    Case(np.ufunc.at, np.add, V3, np.array([0, 0, 2]), W3),
    Case(np.ufunc.at, np.add, M23, (np.array([0, 1, 0]), np.array([2, 2, 2])), W3),
    Case(np.ufunc.at, np.add, M23, np.array([1, 1]), 0.5),
    Case(np.ufunc.at, np.add, M23, (slice(None), np.array([0, 0])), np.ones((2, 2))),
    Case(np.ufunc.at, np.subtract, V3, np.array([1, 1, 1]), W3),
    Case(np.ufunc.at, np.multiply, V3, np.array([0, 0, 2]), W3),
    Case(np.ufunc.at, np.maximum, V3, np.array([1, 1]), np.array([0.2, 0.9])),
    Case(np.ufunc.at, np.negative, V3, np.array([0, 2])),
    Case(np.ufunc.at, np.sin, M23, (1, slice(None))),
]

# ---- shapes ------------------------------------------------------------------------------
SHAPE_CASES = [
    Case(np.reshape, M23, (3, 2)), Case(np.reshape, M23, -1), Case(np.reshape, V3, (3, 1)),
    Case(np.reshape, M23, (3, 2), order="F"), Case(np.reshape, 0.3, (1, 1)),
    Case(np.reshape, [0.3, 1.2], (2, 1)),
    Case(np.ndarray.reshape, M23, 3, 2), Case(np.ndarray.reshape, M23, (6,)),
    Case(np.ndarray.reshape, T223, (-1, 3)),
    Case(np.transpose, M23), Case(np.transpose, T223, (1, 0, 2)),
    Case(np.transpose, T223, axes=(2, 0, 1)), Case(np.ndarray.transpose, T223),
    Case(np.ndarray.transpose, T223, 1, 2, 0), Case(np.ndarray.transpose, M23, (1, 0)),
    Case(np.swapaxes, T223, 0, 2), Case(np.ndarray.swapaxes, M23, 0, -1),
    Case(np.moveaxis, T223, 0, -1), Case(np.moveaxis, T223, (0, 1), (2, 0)),
    Case(np.squeeze, M23[:, None, :]), Case(np.squeeze, M23[None], axis=0),
    Case(np.ndarray.squeeze, V3[None]), Case(np.expand_dims, M23, 1),
    Case(np.expand_dims, V3, (0, -1)), Case(np.ravel, M23), Case(np.ravel, M23, "F"),
    Case(np.ndarray.ravel, T223), Case(np.ndarray.flatten, M23),
    Case(np.broadcast_to, V3, (2, 3)), Case(np.broadcast_to, 0.3, (2,)),
    Case(np.diagonal, M34), Case(np.diagonal, T223, 1, 1, 2),
    Case(np.ndarray.diagonal, M34, -1), Case(np.flip, M23), Case(np.flip, T223, axis=1),
    Case(np.flip, T223, axis=(0, 2)), Case(np.fliplr, M23), Case(np.flipud, M23),
    Case(np.rot90, M23), Case(np.take, M23, np.array([0, 5, 5])),
    Case(np.take, M23, np.array([2, 0]), axis=1), Case(np.ndarray.take, V3, [1, 1]),
    Case(np.take_along_axis, M23, np.array([[2, 0], [1, 1]]), 1),
    Case(np.take_along_axis, V3, np.array([2, 0]), None),
    Case(np.repeat, M23, 2), Case(np.repeat, M23, [1, 2], axis=0),
    Case(np.ndarray.repeat, V3, 2), Case(np.roll, M23, 1), Case(np.roll, M23, -1, axis=1),
    Case(np.roll, T223, (1, 2), axis=(0, 2)), Case(np.tile, V3, (2, 2)),
    Case(np.triu, M34), Case(np.tril, M34, -1), Case(np.atleast_1d, 0.3),
    Case(np.atleast_2d, V3), Case(np.atleast_3d, M23), Case(np.delete, V3, 1),
    Case(np.delete, M23, [0, 2], axis=1), Case(np.resize, V3, (2, 2)),
    Case(np.diagflat, V3),
    Case(np.concatenate, [V3, W3]), Case(np.concatenate, [M23, M23], axis=1),
    Case(np.concatenate, (M23, V3[None]), axis=0), Case(np.concatenate, [M23, V3], axis=None),
    Case(np.concatenate, [V3, np.array([1, 2])]), Case(np.stack, [V3, W3]),
    Case(np.stack, [V3, W3], axis=-1), Case(np.stack, (0.3, 1.2)), Case(np.hstack, [V3, W3]),
    Case(np.vstack, [V3, W3]), Case(np.vstack, [M23, V3]), Case(np.dstack, [M23, M23]),
    Case(np.column_stack, [V3, W3]),
    Case(np.split, V3, 3), Case(np.split, M34, [1, 3], axis=1), Case(np.array_split, V3, 2),
    Case(np.hsplit, M34, 2), Case(np.vsplit, M34, [1]), Case(np.dsplit, T223, 3),
    Case(np.unstack, M23), Case(np.broadcast_arrays, V3, M23),
    Case(np.broadcast_arrays, 0.3, V3), Case(np.meshgrid, V3, W3[:2]),
    Case(np.meshgrid, V3, W3, indexing="ij"),
    Case(np.pad, M23, 1), Case(np.pad, M23, ((1, 0), (0, 2)), "reflect"),
    Case(np.pad, V3, 2, "edge"), Case(np.pad, V3, 2, "wrap"), Case(np.pad, V3, 2, "symmetric"),
    Case(np.pad, V3, 2, "mean"), Case(np.pad, V3, 2, "linear_ramp"),
    Case(np.pad, V3, 1, constant_values=0.5), Case(np.pad, V3, (1, 2), "linear_ramp",
                                                  end_values=1.5),
    Case(np.append, V3, W3), Case(np.append, M23, M23, axis=0), Case(np.append, V3, 0.5),
    Case(np.insert, V3, 1, 0.5), Case(np.insert, M23, [0, 2], W3[:2], axis=1),
]

LINALG_CASES = [
    Case(np.matmul, M23, M34), Case(np.matmul, M23, V3), Case(np.matmul, V3, W3),
    Case(np.matmul, V3, M32), Case(np.matmul, T223, M32),
    Case(np.matmul, S22, T223), Case(np.matmul, T223, V3),
    Case(np.dot, M23, M34), Case(np.dot, M23, V3), Case(np.dot, V3, W3),
    Case(np.dot, 2.0, V3), Case(np.dot, M23, 0.5), Case(np.dot, T223, M32),
    Case(np.dot, T223, T232), Case(np.dot, V3, T232), Case(np.dot, M23, T232),
    Case(np.ndarray.dot, M23, M34), Case(np.ndarray.dot, M23, V3),
    Case(np.ndarray.dot, V3, W3),
]

PRODUCT_CASES = [
    Case(np.outer, V3, W3), Case(np.outer, M23, W3[:2]), Case(np.outer, 0.3, V3),
    Case(np.vdot, V3, W3), Case(np.vdot, M23, M23[::-1].copy()),
    Case(np.inner, V3, W3), Case(np.inner, M23, V3), Case(np.inner, M23, M34[:, :3].copy()),
    Case(np.inner, T223, M23), Case(np.inner, 0.5, M23),
    Case(np.tensordot, M23, M34[:, :3].T.copy(), 1), Case(np.tensordot, T223, M23, 0),
    Case(np.tensordot, T223, T232, axes=([1, 2], [0, 1])),
    Case(np.tensordot, T223, M32, axes=([2, 0], [0, 1])), Case(np.tensordot, M23, M23),
    Case(np.einsum, "ij,jk->ik", M23, M34), Case(np.einsum, "ij,jk", M23, M34),
    Case(np.einsum, "i,i", V3, W3), Case(np.einsum, "ii", SQ), Case(np.einsum, "ij->", M23),
    Case(np.einsum, "...ij,...jk->...ik", T223, M32), Case(np.einsum, "ji", M23),
    Case(np.einsum, "i,j,k->ijk", V3, W3, POS3), Case(np.einsum, "bij,bjk->bik", T223, T232),
    Case(np.trace, SQ), Case(np.trace, M34, 1), Case(np.trace, T223, 0, 0, 2),
    Case(np.ndarray.trace, SQ), Case(np.ndarray.trace, T223, axis1=1, axis2=-1),
    Case(np.diag, V3), Case(np.diag, V3, 1), Case(np.diag, M34), Case(np.diag, M34, -1),
    Case(np.kron, S22, M23), Case(np.kron, V3, W3),
    Case(np.linalg.multi_dot, [M23, M34, M34.T.copy()]),
    Case(np.linalg.multi_dot, [V3, M34, M34.T.copy(), V3]),
]

SPD = SQ @ SQ.T + np.eye(3)
SYM = np.array([[2.0, 0.3, -0.4], [0.3, 1.0, 0.2], [-0.4, 0.2, -1.5]])
TALL = np.array([[1.0, 0.2], [0.3, -1.2], [0.5, 0.7], [-0.4, 0.9]])
WIDE = TALL.T.copy()
STACK = np.stack([SQ, SPD / 3.0])

DECOMPOSITION_CASES = [
    Case(np.linalg.solve, SQ, V3), Case(np.linalg.solve, SQ, M34[:, :2].copy()),
    Case(np.linalg.solve, STACK, np.stack([M32, M32])),
    Case(np.linalg.inv, SQ), Case(np.linalg.inv, STACK), Case(np.linalg.det, SQ),
    Case(np.linalg.det, STACK), Case(np.linalg.slogdet, SQ), Case(np.linalg.slogdet, SYM),
    Case(np.linalg.matrix_power, SQ, 3), Case(np.linalg.matrix_power, SQ, -2),
    Case(np.linalg.matrix_power, SQ, 0),
    Case(np.linalg.cholesky, SPD), Case(np.linalg.cholesky, SPD, upper=True),
    Case(np.linalg.cholesky, np.stack([SPD, SPD + np.eye(3)])),
    Case(np.linalg.qr, SQ), Case(np.linalg.qr, TALL), Case(np.linalg.qr, TALL, mode="r"),
    Case(np.linalg.qr, SQ, mode="complete"), Case(np.linalg.qr, np.stack([TALL, TALL[::-1]])),
    Case(np.linalg.eigh, SYM), Case(np.linalg.eigh, SYM, UPLO="U"),
    Case(np.linalg.eigh, np.stack([SYM, SPD])), Case(np.linalg.eigvalsh, SYM),
    Case(np.linalg.svd, SQ), Case(np.linalg.svd, TALL, full_matrices=False),
    Case(np.linalg.svd, WIDE, full_matrices=False), Case(np.linalg.svd, TALL, compute_uv=False),
    Case(np.linalg.svd, np.stack([TALL, TALL[::-1]]), full_matrices=False),
    Case(np.linalg.pinv, TALL), Case(np.linalg.pinv, WIDE), Case(np.linalg.pinv, SQ),
    Case(np.linalg.lstsq, TALL, np.array([0.3, -0.2, 1.1, 0.5])),
    Case(np.linalg.lstsq, TALL, M34.T.copy()[:, :2]), Case(np.linalg.lstsq, SQ, V3),
    Case(np.linalg.eigvals, SQ), Case(np.linalg.eigvals, S22 + [[0.0, -2.0], [0.0, 0.0]]),
    Case(np.linalg.eigvals, STACK), Case(np.linalg.eig, SQ), Case(np.linalg.eig, STACK),
    Case(np.vander, V3), Case(np.vander, V3, 4, increasing=True), Case(np.vander, V3, 2),
]

KNOTS = np.array([-1, 0, 1, 3])  # integers: constants (interp has no rule in xp)

DIFFERENCE_CASES = [
    Case(np.diff, V3), Case(np.diff, M34, 2), Case(np.diff, M34, axis=0),
    Case(np.diff, V3, prepend=0.5), Case(np.ediff1d, V3), Case(np.ediff1d, M23, to_end=[1.0]),
    Case(np.gradient, V3), Case(np.gradient, M34), Case(np.gradient, M34, 2, axis=1),
    Case(np.trapezoid, V3), Case(np.trapezoid, M34, dx=0.5), Case(np.trapezoid, V3, POS3),
    Case(np.trapezoid, M23, np.array([0.0, 0.4, 1.1]), axis=1),
    Case(np.cross, V3, W3), Case(np.cross, M23, W3), Case(np.convolve, V3, W3[:2]),
    Case(np.convolve, V3, W3, mode="same"), Case(np.correlate, V3, W3[:2], mode="full"),
    Case(np.polyval, V3, 0.7), Case(np.polyval, V3, M23), Case(np.polyval, [0.3], 0.7),
    Case(np.interp, 0.3, KNOTS, W3.tolist() + [0.2]), Case(np.interp, V3, KNOTS, POS3.tolist()
                                                         + [0.1]),
    Case(np.interp, np.array([-2.0, 0.7, 3.5]), KNOTS, np.array([0.1, 0.4, -0.3, 0.8])),
    Case(np.interp, np.array([-2.0, 0.7, 3.5]), KNOTS, POS3.tolist() + [0.1], 0.5, -0.5),
    Case(np.average, M23), Case(np.average, M23, axis=1, weights=POS3),
    Case(np.average, M23, 0, np.array([0.4, 1.2])), Case(np.average, M23, 1, M23 + 2.0),
    Case(np.average, M23, 1, POS3, True), Case(np.average, M23, 1, POS3, keepdims=True),
    Case(np.sinc, V3), Case(np.sinc, 0.0), Case(np.nan_to_num, V3),
]

NAN23 = np.array([[0.3, np.nan, 0.5], [1.1, 0.7, -0.4]])  # (a NaN stays put under FD)

STATISTICS_CASES = [
    Case(np.quantile, M23, 0.3), Case(np.quantile, M23, 0.6, axis=1),
    Case(np.quantile, M34, [0.25, 0.9], axis=0), Case(np.quantile, M34, 0.7, keepdims=True),
    Case(np.quantile, M34, 1, axis=1), Case(np.percentile, M23, 45.0),
    Case(np.percentile, M34, [10.0, 75.0], axis=1), Case(np.percentile, M34, 50, axis=0),
    Case(np.nanprod, M23), Case(np.nanprod, M23, axis=0), Case(np.nancumsum, M23, axis=1),
    Case(np.nancumsum, M23), Case(np.nancumprod, M23, axis=0), Case(np.nanvar, M23),
    Case(np.nanvar, M23, axis=1, ddof=1), Case(np.nanstd, M23, axis=0),
    Case(np.cumulative_sum, V3), Case(np.cumulative_sum, M23, axis=1, include_initial=True),
    Case(np.cumulative_prod, V3, include_initial=True), Case(np.cumulative_prod, M23, axis=0),
    Case(np.cov, M34), Case(np.cov, M34, rowvar=False), Case(np.cov, V3, W3),
    Case(np.cov, M23, bias=True), Case(np.cov, V3), Case(np.cov, M34, ddof=0),
    Case(np.corrcoef, M34), Case(np.corrcoef, V3, W3), Case(np.corrcoef, M34, rowvar=False),
]

ARRAY_API_CASES = [
    Case(np.linalg.matmul, M23, M34), Case(np.linalg.outer, V3, W3),
    Case(np.linalg.tensordot, M23, M23, axes=2), Case(np.astype, M23, np.float64),
    Case(np.linalg.trace, T223), Case(np.linalg.diagonal, M34, offset=1),
    Case(np.linalg.matrix_transpose, T223), Case(np.matrix_transpose, M23),
    Case(np.ndarray.conj, M23), Case(np.ndarray.conjugate, V3),
    Case(np.ndarray.compress, M23, [True, False], axis=0), Case(np.compress, MASK3, V3),
    Case(np.compress, [False, True, True], M23, axis=1),
    Case(np.linalg.cross, V3, W3), Case(np.linalg.cross, M23, W3),
    Case(np.vecdot, V3, W3), Case(np.vecdot, M23, W3), Case(np.vecdot, M23, M23, axis=0),
    Case(np.linalg.vecdot, T223, M23),
    Case(np.linalg.vector_norm, M23), Case(np.linalg.vector_norm, T223, axis=(0, 2)),
    Case(np.linalg.vector_norm, M23, axis=1, ord=1, keepdims=True),
    Case(np.linalg.vector_norm, V3, ord=np.inf),
    Case(np.linalg.matrix_norm, M23), Case(np.linalg.matrix_norm, T223, ord=2),
    Case(np.linalg.matrix_norm, M34, ord="nuc", keepdims=True),
    Case(np.linalg.svdvals, M34), Case(np.linalg.cond, SQ), Case(np.linalg.cond, SQ, -2),
    Case(np.linalg.cond, SQ, "fro"), Case(np.linalg.cond, SQ, 1),
    Case(np.logspace, 0.3, 1.2, 4), Case(np.logspace, 0.3, V3, 3, base=2.0),
    Case(np.geomspace, 0.3, 1.2, 4), Case(np.geomspace, -0.3, -1.2, 3, endpoint=False),
    Case(np.geomspace, POS3, 2.0, 3, axis=1),
    Case(np.select, [MASK3, ~MASK3], [V3, W3]), Case(np.select, [V3 > 0], [V3], 0.5),
    Case(np.select, [MASK23], [M23], W3), Case(np.extract, MASK23, M23),
    Case(np.place, M23, MASK23, [0.5, 1.5]), Case(np.place, V3, MASK3, W3),
    Case(np.putmask, M23, MASK23, W3), Case(np.putmask, V3, MASK3, 0.5),
    Case(np.unwrap, np.array([0.1, 3.5, 6.6, 1.2])), Case(np.unwrap, M23, axis=0),
    Case(np.ndarray.view, M23), Case(np.ndarray.view, M23, np.int64),
    Case(np.ndarray.view, M23, np.ndarray),
]

ARRAY_API_NONDIFF_CASES = [
    Case(np.ndarray.round, P23), Case(np.ndarray.round, P23, 1),
    Case(np.ndarray.searchsorted, POS3, 1.0), Case(np.ndarray.argpartition, M23, 1),
    Case(np.argpartition, V3, 1), Case(np.isin, I3, [0, 5]), Case(np.lexsort, (I3, I3)),
    Case(np.ix_, [0, 1], [2]), Case(np.einsum_path, "ij,jk", M23, M34),
    Case(np.linalg.matrix_rank, M34),
]

CREATION_CASES = [
    Case(np.array, [0.3, 1.2, -0.5]), Case(np.array, [[0.3, 1.2], [-0.5, 2.0]]),
    Case(np.array, [0.3, 1]), Case(np.array, [1, 2]), Case(np.array, M23),
    Case(np.array, [V3, W3]), Case(np.array, [0.3, 1.2], dtype=float),
    Case(np.asarray, [0.3, 1.2, -0.5]), Case(np.asarray, M23),
    Case(np.asarray, ([0.3, 1.2], (-0.5, 2.0))),
    Case(np.arange, 5), Case(np.arange, 0.5, 3.0), Case(np.arange, 0.5, 3.1, 0.5),
    Case(np.arange, 1, 2.1, 0.25), Case(np.linspace, 0.3, 1.2, 5),
    Case(np.linspace, 0.3, V3, 4), Case(np.linspace, V3, 2.0, 3, axis=-1),
    Case(np.linspace, 0.3, 1.2, 5, endpoint=False, retstep=True),
    Case(np.linspace, 0, 4, 5),
]

NUMPY_NONDIFF_CASES = [
    Case(np.zeros_like, M23), Case(np.ones_like, M23),
    Case(np.empty_like, np.zeros((0, 2))),  # empty: no garbage to compare
    Case(np.zeros, (2, 3)), Case(np.ones, 3),
    Case(np.empty, (0, 3)), Case(np.eye, 3),
    Case(np.shape, M23), Case(np.ndim, M23), Case(np.size, M23),
]


CREATION_MORE_CASES = [
    Case(np.full, (2, 3), 0.5), Case(np.full, 3, V3), Case(np.full, (2,), 1.5, dtype=int),
    Case(np.full_like, M23, 0.5), Case(np.full_like, M23, W3),
    Case(np.copy, M23), Case(np.copy, 0.3), Case(np.ndarray.copy, M23),
    Case(np.ndarray.copy, M23, "F"),
    Case(np.ndarray.astype, M23, np.float32, rtol=1e-3), Case(np.ndarray.astype, M23, int),
    Case(np.ndarray.astype, M23, bool), Case(np.ndarray.astype, np.array([1, 2]), float),
    Case(np.ascontiguousarray, M23.T), Case(np.asanyarray, [0.3, 1.2]),
    Case(np.asfortranarray, M23),
    Case(np.float64, 0.3), Case(np.float64, np.array(0.3)), Case(np.float64, 3),
    Case(np.float64), Case(np.float32, 0.5, rtol=1e-3), Case(np.float16, 0.5, rtol=5e-2),
    Case(np.longdouble, 0.3), Case(np.complex128, 0.3),
    Case(np.int64, 2.7), Case(np.int32, 2.7), Case(np.int16, 3), Case(np.int8, 3),
    Case(np.uint8, 3), Case(np.intp, 3), Case(np.bool_, 0.3),
    Case(np.identity, 3), Case(np.tri, 3), Case(np.indices, (2, 3)),
    Case(np.tril_indices, 3), Case(np.triu_indices, 3), Case(np.diag_indices, 3),
    Case(np.unravel_index, 5, (2, 3)), Case(np.ravel_multi_index, ([1], [2]), (2, 3)),
    Case(np.ndarray.tobytes, V3), Case(np.dtype, "float64"), Case(np.result_type, V3, 1),
    Case(np.can_cast, np.float32, np.float64), Case(np.iscomplexobj, V3),
    Case(np.isrealobj, V3), Case(np.isscalar, 0.3),
]

IN_PLACE_CASES = [
    Case(np.ndarray.fill, M23, 0.5), Case(np.ndarray.fill, V3, 1.5),
    Case(np.copyto, M23, V3), Case(np.copyto, M23, 0.5, where=MASK23),
    Case(np.copyto, np.zeros(3, dtype=int), np.array([1, 2, 3])),
    Case(np.put, V3, [0, 2], np.array([0.5, 1.5])), Case(np.put, M23, [1, 1, -1], 0.5),
    Case(np.ndarray.put, M23, [5, 0], W3[:2]), Case(np.fill_diagonal, M34, 0.5),
    Case(np.fill_diagonal, M34, W3), Case(np.ndarray.item, M23, 4),
    Case(np.ndarray.item, M23, 1, 2), Case(np.ndarray.item, np.array([0.3])),
    Case(np.ndarray.tolist, M23), Case(np.ndarray.tolist, V3), Case(np.ndarray.tolist, I3),
    Case(np.generic.item, np.float64(0.3)), Case(np.generic.tolist, np.float64(0.3)),
]


def _generator():
    return np.random.default_rng(7)


def _random_state():
    return np.random.RandomState(7)


# Generators compare by identity, so test_rule cannot compare their state after a call:
# tests/rules/test_numpy_random.py runs these rows instead.
_DRAWS = [
    ("normal", (0.0, 1.0, 3)), ("uniform", (0.0, 1.0, (2, 2))), ("standard_normal", (2,)),
    ("random", (2,)), ("choice", (V3,)), ("exponential", (1.0, 2)),
    ("poisson", (2.0, 2)), ("binomial", (5, 0.5)), ("gamma", (2.0,)), ("beta", (2.0, 3.0)),
    ("lognormal", ()), ("multivariate_normal", (V3, np.eye(3))), ("laplace", ()),
    ("logistic", ()), ("gumbel", ()), ("rayleigh", ()), ("weibull", (2.0,)),
    ("pareto", (2.0,)), ("power", (2.0,)), ("chisquare", (2.0,)), ("standard_t", (3.0,)),
    ("standard_cauchy", ()), ("standard_exponential", ()), ("standard_gamma", (2.0,)),
    ("triangular", (0.0, 0.5, 1.0)), ("vonmises", (0.0, 1.0)), ("wald", (1.0, 1.0)),
    ("f", (2.0, 3.0)), ("noncentral_chisquare", (2.0, 1.0)),
    ("noncentral_f", (2.0, 3.0, 1.0)), ("geometric", (0.5,)), ("zipf", (2.0,)),
    ("logseries", (0.5,)), ("negative_binomial", (2, 0.5)), ("hypergeometric", (5, 5, 3)),
    ("multinomial", (5, [0.5, 0.5])), ("dirichlet", ([1.0, 2.0],)), ("bytes", (4,)),
]
_GENERATOR_ONLY = [("multivariate_hypergeometric", ([3, 2], 2)), ("integers", (5,))]
_RANDOM_STATE_ONLY = [("rand", (2,)), ("randn", (2,)), ("randint", (5,)),
                      ("random_sample", ()), ("random_integers", (5,)), ("tomaxint", ()),
                      ("seed", (3,)), ("get_state", ())]
_SHUFFLES = [("shuffle", (M23.copy(),)), ("permutation", (M23,)), ("permutation", (4,))]
RANDOM_ROWS = (
    [Case(getattr(np.random.Generator, name), _generator(), *args)
     for name, args in _DRAWS + _GENERATOR_ONLY + _SHUFFLES]
    + [Case(getattr(np.random.RandomState, name), _random_state(), *args)
       for name, args in _DRAWS + _RANDOM_STATE_ONLY + _SHUFFLES]
    + [Case(np.random.RandomState.set_state, _random_state(), _random_state().get_state()),
       Case(np.random.default_rng, 3), Case(np.random.Generator, np.random.PCG64(3)),
       Case(np.random.RandomState, 3), Case(np.random.PCG64, 3),
       Case(np.random.PCG64DXSM, 3), Case(np.random.MT19937, 3), Case(np.random.Philox, 3),
       Case(np.random.SFC64, 3), Case(np.random.SeedSequence, 3), Case(np.random.seed, 3),
       Case(np.random.get_state), Case(np.random.set_state, _random_state().get_state())])
RANDOM_CASES = [xfail(row, UNCOMPARABLE.format("Generator"), run=False)
                for row in RANDOM_ROWS]

NUMPY_CASES = (UFUNC_CASES + NUMPY_BINARY_CASES + UFUNC_MORE_CASES + UFUNC_NONDIFF_CASES
               + REDUCTION_CASES + REDUCTION_NONDIFF_CASES + NORM_CASES + UFUNC_METHOD_CASES
               + SHAPE_CASES + LINALG_CASES + PRODUCT_CASES + DECOMPOSITION_CASES
               + DIFFERENCE_CASES + STATISTICS_CASES + ARRAY_API_CASES
               + ARRAY_API_NONDIFF_CASES + CREATION_CASES + CREATION_MORE_CASES
               + IN_PLACE_CASES + RANDOM_CASES + NUMPY_NONDIFF_CASES)
