"""The case tables of the NumPy rules for linear algebra, norms, differences, statistics
and the array-API names. Rows are `Case(fn, *args, **kwargs)`, as in cases.py."""
from __future__ import annotations

import numpy as np

from fwdad.rules.adjugates import adjugate, near_singular
from fwdad.rules.sinc import sinc_derivative
from tests.rules.case import (
    C3,
    C23,
    C33,
    I3,
    M23,
    M32,
    M34,
    MASK3,
    MASK23,
    P23,
    POS3,
    S22,
    SQ,
    T223,
    T232,
    V3,
    W3,
    Case,
)

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
    # complex x: real norms, real tangents
    Case(np.linalg.norm, C3), Case(np.linalg.norm, C23), Case(np.linalg.norm, C3, ord=1),
    Case(np.linalg.norm, C3, ord=np.inf), Case(np.linalg.norm, C3, ord=3),
    Case(np.linalg.norm, C23, axis=1), Case(np.linalg.norm, C23, ord="fro"),
    Case(np.linalg.norm, C23, ord="nuc"), Case(np.linalg.norm, C23, ord=2),
    Case(np.linalg.norm, C23, ord=-2), Case(np.linalg.norm, C23, ord=1),
    Case(np.linalg.norm, C23, ord=-np.inf),
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
    Case(np.matvec, M23, V3), Case(np.matvec, T223, V3), Case(np.matvec, M23, M23),
    Case(np.vecmat, V3, M34[:, :3].copy()), Case(np.vecmat, M23, T232),
]

SPD = SQ @ SQ.T + np.eye(3)
SYM = np.array([[2.0, 0.3, -0.4], [0.3, 1.0, 0.2], [-0.4, 0.2, -1.5]])
TALL = np.array([[1.0, 0.2], [0.3, -1.2], [0.5, 0.7], [-0.4, 0.9]])
WIDE = TALL.T.copy()
STACK = np.stack([SQ, SPD / 3.0])
# det has a derivative at a singular matrix too, adj(a) (rules/decompositions.adjugate)
RANK_TWO = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])
RANK_ONE = np.outer([1.0, -2.0, 0.5], [0.3, 1.0, 2.0])
ILL = RANK_TWO + 1e-6 * np.eye(3)  # invertible, with a condition number near 1e8

DECOMPOSITION_CASES = [
    Case(np.linalg.solve, SQ, V3), Case(np.linalg.solve, SQ, M34[:, :2].copy()),
    Case(np.linalg.solve, STACK, np.stack([M32, M32])),
    Case(np.linalg.solve, STACK, V3),  # one vector for every matrix of the stack
    Case(np.linalg.inv, SQ), Case(np.linalg.inv, STACK), Case(np.linalg.det, SQ),
    Case(np.linalg.det, STACK), Case(np.linalg.det, RANK_TWO), Case(np.linalg.det, RANK_ONE),
    Case(np.linalg.det, np.stack([RANK_TWO, SQ])), Case(np.linalg.slogdet, SQ),
    # det's second derivative: adj(a), exact at singular matrices (rules/adjugates.py)
    Case(adjugate, SQ), Case(adjugate, RANK_TWO), Case(adjugate, RANK_ONE),
    Case(adjugate, np.zeros((3, 3))), Case(adjugate, np.stack([RANK_TWO, SQ])),
    Case(adjugate, S22), Case(adjugate, ILL), Case(near_singular, SQ),
    Case(near_singular, RANK_TWO),
    Case(np.linalg.slogdet, SYM),
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

# complex matrices: Hermitian ones for eigh and cholesky, and shapes of each svd path
HERM = C33 @ C33.conj().T       # (numpy's eigh is smooth here for both UPLO: some
HERM2 = np.diag([1.0, 2.0, 4.0]) + 0.5 * (C33 - C33.conj().T)  # points flip a sign)
C42 = np.vstack([C23.T, C3[None, :2] * 0.8])


ROTATING = np.array([[0.0, -1.0, 0.2], [1.0, 0.0, 0.3], [0.1, 0.2, 0.5]])  # a complex pair


def _usv(a):
    """U diag(s) Vh: whatever the phases of the vectors, it is a."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u * s[..., None, :] @ vh, np.abs(u), np.abs(vh)


def _vwv(a):
    w, v = np.linalg.eigh(a)
    return v * w[..., None, :] @ v.conj().T, np.abs(v)


COMPLEX_DECOMPOSITION_CASES = [
    Case(np.linalg.svd, C33), Case(np.linalg.svd, C42, full_matrices=False),
    Case(np.linalg.svd, C23, full_matrices=False), Case(np.linalg.svd, C42, compute_uv=False),
    Case(np.linalg.svd, np.stack([C33, C33.T]), full_matrices=False), Case(_usv, C42),
    Case(_usv, C23), Case(np.linalg.svdvals, C23), Case(np.linalg.cond, C33),
    Case(np.linalg.eigh, HERM), Case(np.linalg.eigh, HERM, UPLO="U"),
    Case(np.linalg.eigh, HERM2), Case(np.linalg.eigh, np.stack([HERM, HERM2]), UPLO="U"),
    Case(np.linalg.eigvalsh, HERM), Case(np.linalg.eigvalsh, HERM2, UPLO="U"), Case(_vwv, HERM),
    Case(np.linalg.slogdet, C33), Case(np.linalg.det, C33), Case(np.linalg.inv, C33),
    Case(adjugate, C33), Case(adjugate, np.outer(C3, C3[::-1]) + np.outer(V3, C3)),
    Case(np.linalg.cholesky, HERM), Case(np.linalg.cholesky, HERM, upper=True),
    Case(np.linalg.pinv, C42), Case(np.linalg.lstsq, C42, C42[:, 0] * 1j + 0.3),
    Case(np.abs, C3), Case(np.angle, C23), Case(np.real, C3), Case(np.imag, C3),
    Case(np.vdot, C3, C3[::-1]), Case(np.vdot, C3, V3), Case(np.inner, C3, C3[::-1]),
    Case(np.dot, C3, np.conj(C3)), Case(np.nanvar, C23, axis=1), Case(np.nanstd, C23),
    Case(np.cov, C23), Case(np.corrcoef, C23),
    # eig: unit vectors with their largest component real (complex input or eigenvalues)
    Case(np.linalg.eig, C33), Case(np.linalg.eig, np.stack([C33, C33.T])),
    Case(np.linalg.eig, ROTATING),
]

KNOTS = np.array([-1, 0, 1, 3])  # integers: constants (interp has no rule in xp)

DIFFERENCE_CASES = [
    Case(np.diff, V3), Case(np.diff, M34, 2), Case(np.diff, M34, axis=0),
    Case(np.diff, V3, prepend=0.5), Case(np.ediff1d, V3), Case(np.ediff1d, M23, to_end=[1.0]),
    Case(np.ediff1d, V3, W3[:2], 0.5),  # to_end and to_begin differentiated too
    Case(np.gradient, V3), Case(np.gradient, M34), Case(np.gradient, M34, 2, axis=1),
    Case(np.trapezoid, V3), Case(np.trapezoid, M34, dx=0.5), Case(np.trapezoid, V3, POS3),
    Case(np.trapezoid, M23, np.array([0.0, 0.4, 1.1]), axis=1),
    Case(np.trapezoid, M34, M34 * 0.5, axis=0),  # a 2-d x, along axis 0
    Case(np.cross, V3, W3), Case(np.cross, M23, W3), Case(np.convolve, V3, W3[:2]),
    Case(np.convolve, V3, W3, mode="same"), Case(np.correlate, V3, W3[:2], mode="full"),
    Case(np.polyval, V3, 0.7), Case(np.polyval, V3, M23), Case(np.polyval, [0.3], 0.7),
    Case(np.polyval, C3, 0.5 + 0.2j), Case(np.polyval, V3, C23), Case(np.polyval, C3, V3),
    Case(np.polyval, V3, [0.5, -1.0]),  # complex x (it was cast to float) and a list x
    Case(np.interp, 0.3, KNOTS, W3.tolist() + [0.2]), Case(np.interp, V3, KNOTS, POS3.tolist()
                                                         + [0.1]),
    Case(np.interp, np.array([-2.0, 0.7, 3.5]), KNOTS, np.array([0.1, 0.4, -0.3, 0.8])),
    Case(np.interp, np.array([-20.0, 5.0, 100.0, 400.0]), np.array([350, 10, 90, 180]),
         W3.tolist() + [0.2], period=360),  # knots unsorted, taken modulo the period
    Case(np.interp, np.array([-2.0, 0.7, 3.5]), KNOTS, POS3.tolist() + [0.1], 0.5, -0.5),
    Case(np.interp, np.array([-0.5, 0.7, 2.5]), KNOTS, C3.tolist() + [0.2j]),  # complex fp:
    Case(np.interp, np.array([-20.0, 5.0, 100.0]), np.array([350, 10, 90, 180]),  # (a real
         C3.tolist() + [0.2j], period=360),  # slope, a zero derivative in x, before)
    Case(np.average, M23), Case(np.average, M23, axis=1, weights=POS3),
    Case(np.average, M23, 0, np.array([0.4, 1.2])), Case(np.average, M23, 1, M23 + 2.0),
    Case(np.average, M23, 1, POS3, True), Case(np.average, M23, 1, POS3, keepdims=True),
    Case(np.sinc, V3), Case(np.sinc, 0.0), Case(np.nan_to_num, V3),
    Case(sinc_derivative, 2, V3), Case(sinc_derivative, 1, 1e-5 * V3),  # (fwdad/rules/sinc.py)
    Case(sinc_derivative, 3, np.array([0.9, 1.1, -2.5])),  # both sides of where it switches
]

HOLES = np.array([[False, True, True], [False, False, False]])  # NaNs at these places


def _nanstd_holes(x, **kwargs):
    return np.nanstd(np.where(HOLES, np.nan, x), **kwargs)


def _nanvar_holes(x, **kwargs):
    return np.nanvar(np.where(HOLES, np.nan, x), **kwargs)


STATISTICS_CASES = [
    Case(np.quantile, M23, 0.3), Case(np.quantile, M23, 0.6, axis=1),
    Case(np.quantile, M34, [0.25, 0.9], axis=0), Case(np.quantile, M34, 0.7, keepdims=True),
    Case(np.quantile, M34, 1, axis=1), Case(np.percentile, M23, 45.0),
    Case(np.percentile, M34, [10.0, 75.0], axis=1), Case(np.percentile, M34, 50, axis=0),
    Case(np.nanprod, M23), Case(np.nanprod, M23, axis=0), Case(np.nancumsum, M23, axis=1),
    Case(np.nancumsum, M23), Case(np.nancumprod, M23, axis=0), Case(np.nanvar, M23),
    Case(np.nanvar, M23, axis=1, ddof=1), Case(np.nanstd, M23, axis=0),
    Case(_nanstd_holes, M23, axis=1), Case(_nanstd_holes, M23, axis=0, keepdims=True),
    Case(_nanstd_holes, C23, axis=1), Case(_nanstd_holes, M23),  # one value left: 0
    Case(_nanvar_holes, M23, axis=1), Case(_nanvar_holes, C23, axis=0),
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
    Case(np.geomspace, POS3, 2.0, 3, axis=1), Case(np.geomspace, 0.3 + 0.1j, 1.0 + 0.5j, 4),
    Case(np.geomspace, -2.0 + 0.1j, 1.0 - 0.5j, 5),  # a spiral: start (stop / start)**t
    Case(np.select, [MASK3, ~MASK3], [V3, W3]), Case(np.select, [V3 > 0], [V3], 0.5),
    Case(np.select, [MASK23], [M23], W3), Case(np.extract, MASK23, M23),
    Case(np.choose, [0, 1, 0], [V3, W3]), Case(np.choose, [[0, 1, 2], [2, 1, 0]], [M23, V3, 0.5]),
    Case(np.choose, [0, 3, -1], [V3, W3], mode="wrap"),
    Case(np.choose, [0, 3, -1], [V3, W3], mode="clip"),
    Case(np.piecewise, V3, [V3 < 0, V3 >= 0], [np.square, np.sin]),
    Case(np.piecewise, M23, [M23 < 0.5], [np.cos, 0.25]),
    Case(np.piecewise, 0.4, [True], [np.exp]),
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
    Case(np.ix_, [0, 1], [2]), Case(np.ix_, V3, [0.5, 1.5]), Case(np.ix_, MASK3, V3),
    Case(np.einsum_path, "ij,jk", M23, M34),
    Case(np.linalg.matrix_rank, M34),
]


LINALG_TABLES = (NORM_CASES + LINALG_CASES + PRODUCT_CASES + DECOMPOSITION_CASES
                 + COMPLEX_DECOMPOSITION_CASES + DIFFERENCE_CASES + STATISTICS_CASES
                 + ARRAY_API_CASES + ARRAY_API_NONDIFF_CASES)
