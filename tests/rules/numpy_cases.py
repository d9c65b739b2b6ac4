"""The case tables of the NumPy rules: ufuncs, reductions, shapes, creation and methods
(linear algebra and statistics: linalg_cases.py; np.random: random_cases.py). Rows are
`Case(fn, *args, domain=..., **kwargs)`, as in cases.py.

Positional arguments are perturbed by test_rule; `out` arrays are given positionally so
that their state afterwards (primal and tangent) is checked too.
"""
from __future__ import annotations

import numpy as np

from fwdad.testing.strategies import (
    ABOVE_MINUS_ONE,
    ABOVE_ONE,
    FRACTION,
    NONZERO,
    POSITIVE,
    TAN_PERIOD,
    UNIT_OPEN,
    Domain,
)
from tests.rules.case import (
    C3,
    C23,
    I3,
    M23,
    M34,
    MASK3,
    MASK23,
    P23,
    POS3,
    T223,
    U3,
    V3,
    W3,
    Z3,
    Z23,
    ZEROS_IN,
    Case,
)
from tests.rules.complex_cases import (
    CMATH_CASES,
    COMPLEX_REDUCTION_CASES,
    COMPLEX_UFUNC_CASES,
)
from tests.rules.fft_cases import FFT_CASES
from tests.rules.library_cases import LIBRARY_CASES, LIBRARY_NONDIFF_CASES
from tests.rules.linalg_cases import LINALG_TABLES
from tests.rules.loop_cases import LOOP_CASES
from tests.rules.polynomial_cases import POLYNOMIAL_CASES
from tests.rules.random_cases import RANDOM_CASES
from tests.rules.reordering_cases import REORDERING_CASES, REORDERING_FLOAT32_CASES

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
    Case(np.radians, M23), Case(np.degrees, M23),
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
    Case(np.frexp, M23 * 0.9), Case(np.frexp, np.array([37.0, -0.03, 0.7])),
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
    Case(np.heaviside, M23, 0.5), Case(np.bitwise_count, I3),
    Case(np.isnat, np.array(['2020-01-01', '2021-03-04'], dtype='datetime64[D]')),
    Case(np.floor, V3, Z3), Case(np.sign, M23, Z23),
    Case(np.round, P23), Case(np.round, P23, 1), Case(np.around, P23), Case(np.fix, P23),
    Case(np.isclose, V3, W3), Case(np.allclose, V3, V3), Case(np.array_equal, V3, W3),
    Case(np.isreal, V3), Case(np.iscomplex, V3),
]
# ---- numpy: reductions, products, creation --------------------------------------------
# ---- numpy: reductions ---------------------------------------------------------------
EMPTY = np.zeros((0, 3))
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
    # empty arrays: reduced to empty results, or to `initial` alone
    Case(np.prod, EMPTY, axis=1), Case(np.max, EMPTY, axis=1), Case(np.ptp, EMPTY, axis=1),
    Case(np.median, EMPTY, axis=1), Case(np.quantile, EMPTY, 0.6, axis=1),
    Case(np.linalg.norm, EMPTY, axis=1), Case(np.max, EMPTY, axis=0, initial=0.6),
    Case(np.min, EMPTY, axis=0, initial=0.6), Case(np.prod, EMPTY, axis=0, initial=2.0),
    Case(np.mean, M23), Case(np.mean, M23, axis=0),
    # the unique values of distinct floats are those floats (ties: tests/test_unique.py)
    Case(np.unique, M23), Case(np.unique, V3, return_index=True, return_counts=True),
    Case(np.unique, M23, return_inverse=True), Case(np.unique_values, M23),
    Case(np.unique_counts, V3), Case(np.unique_inverse, M23), Case(np.unique_all, V3),
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
    Case(np.std, np.array([0.7])), Case(np.std, M23[:, :1], axis=1),  # one value: std = 0
    Case(np.std, M23[:1], axis=0, keepdims=True), Case(np.std, M23, axis=(0, 1), ddof=2),
    Case(np.var, C3), Case(np.var, C23, axis=1), Case(np.var, C23, axis=0, ddof=1,
                                                       keepdims=True),
    Case(np.std, C3), Case(np.std, C23, axis=0), Case(np.ndarray.std, C23, ddof=1),
    Case(np.std, C23[:, :1], axis=1),
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
    Case(np.bincount, np.array([0, 2, 2]), V3),  # sums of weights: linear in them
    Case(np.bincount, np.array([1, 0, 1]), V3, minlength=4),
    Case(np.may_share_memory, V3, W3), Case(np.shares_memory, V3, W3),
]

UFUNC_METHOD_CASES = [
    Case(np.ufunc.reduce, np.add, M23), Case(np.ufunc.reduce, np.add, M23, axis=1),
    Case(np.ufunc.reduce, np.multiply, ZEROS_IN), Case(np.ufunc.reduce, np.maximum, M23),
    Case(np.ufunc.reduce, np.minimum, M23, axis=None),
    Case(np.ufunc.accumulate, np.add, M23), Case(np.ufunc.accumulate, np.multiply, M23),
    Case(np.ufunc.accumulate, np.maximum, M23, axis=1),
    Case(np.ufunc.accumulate, np.minimum, M34), Case(np.ufunc.accumulate, np.maximum, V3),
    Case(np.ufunc.reduceat, np.add, M34, [0, 2, 2, 1]),
    Case(np.ufunc.reduceat, np.add, M34, np.array([1, 3]), axis=-1),
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
    Case(np.roll, T223, (1, 2), axis=(0, 2)), Case(np.roll, V3, 4),
    Case(np.roll, T223, -2, axis=1), Case(np.tile, V3, (2, 2)),
    Case(np.triu, M34), Case(np.tril, M34, -1), Case(np.atleast_1d, 0.3),
    Case(np.atleast_2d, V3), Case(np.atleast_2d, V3, M23), Case(np.atleast_3d, 0.3, V3),
    Case(np.atleast_3d, M23), Case(np.delete, V3, 1),
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
    Case(np.longdouble, 0.3), Case(np.complex128, 0.3), Case(np.complex64, 0.3, rtol=1e-3),
    Case(np.int64, 2.7), Case(np.int32, 2.7), Case(np.int16, 3), Case(np.int8, 3),
    Case(np.uint8, 3), Case(np.intp, 3), Case(np.bool_, 0.3),
    Case(np.identity, 3), Case(np.tri, 3), Case(np.indices, (2, 3)),
    Case(np.tril_indices, 3), Case(np.triu_indices, 3), Case(np.diag_indices, 3),
    Case(np.unravel_index, 5, (2, 3)), Case(np.ravel_multi_index, ([1], [2]), (2, 3)),
    Case(np.ndarray.tobytes, V3), Case(np.dtype, "float64"), Case(np.result_type, V3, 1),
    Case(np.can_cast, np.float32, np.float64), Case(np.iscomplexobj, V3),
    Case(np.isrealobj, V3), Case(np.isscalar, 0.3),
    Case(np.finfo, np.float64),
]

IN_PLACE_CASES = [
    Case(np.ndarray.fill, M23, 0.5), Case(np.ndarray.fill, V3, 1.5),
    Case(np.copyto, M23, V3), Case(np.copyto, M23, 0.5, where=MASK23),
    Case(np.copyto, np.zeros(3, dtype=int), np.array([1, 2, 3])),
    Case(np.put, V3, [0, 2], np.array([0.5, 1.5])), Case(np.put, M23, [1, 1, -1], 0.5),
    Case(np.ndarray.put, M23, [5, 0], W3[:2]), Case(np.fill_diagonal, M34, 0.5),
    Case(np.fill_diagonal, M34, W3), Case(np.ndarray.item, M23, 4),
    # a list of values (its items' tangents: batched, they are stacked first)
    Case(np.put, V3, [0, 0, 2], [0.5, 1.5, -0.5]), Case(np.fill_diagonal, M34, [0.5, 1.5]),
    Case(np.put_along_axis, M23, np.array([[2, 0], [1, 1]]), M23[:, :2] * 2.0, 1),  # (1, 1:
    Case(np.put_along_axis, M23, np.array([[1, 0, -1]]), W3, 0),  # the last write wins)
    Case(np.put_along_axis, M23, np.array([4, 0, 4]), 0.5, None),
    Case(np.put_along_axis, M23, np.array([[0], [2]]), [[0.5], [1.5]], -1),
    Case(np.ndarray.item, M23, 1, 2), Case(np.ndarray.item, np.array([0.3])),
    Case(np.ndarray.tolist, M23), Case(np.ndarray.tolist, V3), Case(np.ndarray.tolist, I3),
    Case(np.generic.item, np.float64(0.3)), Case(np.generic.tolist, np.float64(0.3)),
]

# Methods of NumPy scalars (fwdad/rules/scalar_methods.py).
S = np.float64(0.3)
SCALAR_METHOD_CASES = [Case(getattr(np.generic, name), S, *args) for name, args in [
    ("sum", ()), ("mean", ()), ("prod", ()), ("max", ()), ("min", ()), ("clip", (0.0, 1.0)),
    ("copy", ()), ("astype", (np.float64,)), ("round", (1,)), ("conj", ()),
    ("conjugate", ()), ("reshape", ((1, 1),)), ("transpose", ()), ("squeeze", ()),
    ("ravel", ()), ("flatten", ()), ("cumsum", ()), ("cumprod", ()), ("argmax", ()),
    ("argmin", ()), ("argsort", ()), ("any", ()), ("all", ()), ("repeat", (3,)),
    ("take", ([0, 0],))]] + [Case(np.generic.sum, S, keepdims=True),
                             Case(np.generic.clip, -S, 0.0, None)]


# float32 in, float32 tangents out (test_rule checks the dtype); float32 finite
# differences need a larger step and tolerance
F23 = M23.astype(np.float32)
F3, FSQ = V3.astype(np.float32), (np.eye(3) * 2 + M23[[0, 1, 0]] * 0.3).astype(np.float32)
FLOAT32_CASES = [Case(fn, *args, rtol=2e-2, **kwargs) for fn, args, kwargs in [
    (np.sin, (F23,), {}), (np.exp, (F3,), {}), (np.tanh, (F23,), {}), (np.square, (F3,), {}),
    (np.multiply, (F23, F3), {}), (np.divide, (F23, POS3.astype(np.float32)), {}),
    (np.arctan2, (F23, F3 + 2), {}), (np.hypot, (F23, F3), {}), (np.maximum, (F23, 0.1), {}),
    (np.sum, (F23,), {"axis": 1}), (np.mean, (F23,), {}), (np.prod, (F23,), {}),
    (np.max, (F23,), {"axis": 0}), (np.var, (F23,), {}), (np.std, (F23,), {"axis": 1}),
    (np.cumsum, (F23,), {}), (np.cumprod, (F3,), {}), (np.sort, (F23,), {}),
    (np.median, (F23,), {}), (np.pad, (F3, 1), {"constant_values": np.float32(0.5)}),
    (np.linalg.norm, (F23,), {}), (np.linalg.norm, (F23,), {"ord": "nuc"}),
    (np.matmul, (F23, F23.T.copy()), {}), (np.linalg.inv, (FSQ,), {}),
    (np.linalg.det, (FSQ,), {}), (np.linalg.matrix_power, (FSQ, 2), {}),
    (np.linalg.cholesky, (FSQ @ FSQ.T,), {}), (np.linalg.eigh, (FSQ + FSQ.T,), {}),
    (np.linalg.svd, (FSQ,), {"compute_uv": False}), (np.linalg.pinv, (F23,), {})]]

NUMPY_CASES = (FLOAT32_CASES + UFUNC_CASES + NUMPY_BINARY_CASES + UFUNC_MORE_CASES
               + UFUNC_NONDIFF_CASES
               + REDUCTION_CASES + REDUCTION_NONDIFF_CASES + UFUNC_METHOD_CASES
               + SHAPE_CASES + LINALG_TABLES + CREATION_CASES + CREATION_MORE_CASES
               + IN_PLACE_CASES + RANDOM_CASES + NUMPY_NONDIFF_CASES + SCALAR_METHOD_CASES
               + COMPLEX_UFUNC_CASES + COMPLEX_REDUCTION_CASES + CMATH_CASES + FFT_CASES
               + REORDERING_CASES + REORDERING_FLOAT32_CASES + LOOP_CASES
               + POLYNOMIAL_CASES + LIBRARY_CASES + LIBRARY_NONDIFF_CASES)
