"""The case table of the scipy.linalg rules (fwdad/rules/scipy_linalg.py): one row at
least per function and per option that changes the math, as in scipy_cases.py. Empty
where SciPy is absent. The matrices are well conditioned: a random matrix plus 3 I, an
SPD one for cholesky and the symmetric solvers; a non-symmetric one where a routine
reads one triangle, so that reading the wrong one would show."""
from __future__ import annotations

import numpy as np

from tests.rules.case import M34, Case

try:
    import scipy.linalg as sl
except ImportError:  # SciPy is optional
    sl = None

R = np.random.default_rng(17)
SQUARE = R.standard_normal((3, 3)) + 3.0 * np.eye(3)
SPD = SQUARE @ SQUARE.T + np.eye(3)
RANK_TWO = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])  # det's adj(a)
LOPSIDED_SPD = np.tril(SPD) + np.triu(R.standard_normal((3, 3)), 1)  # upper: noise
VEC = np.array([0.3, -1.2, 0.5])
SMALL = 0.4 * R.standard_normal((3, 3))  # expm: moderate norm
SPD_STACK = np.stack([SPD, LOPSIDED_SPD.T @ LOPSIDED_SPD])  # eigenvalues distinct
SQUARE4 = R.standard_normal((4, 4)) + 3.0 * np.eye(4)  # solve_sylvester's b, for an M34 q
PIVOTED = np.array([[0.5, 2.0, 1.0], [3.0, 0.2, -1.0], [1.0, -1.0, 4.0]])  # lu swaps rows


# ---- a factorization used by its solver: the pair, differentiated together ----------------
def cho_solve_of(a, b, lower=False):
    return sl.cho_solve(sl.cho_factor(a, lower), b)


def cho_solve_of_a_rebuilt_pair(a, b):
    c, lower = sl.cho_factor(a, lower=True)
    return sl.cho_solve((c, lower), b)


def lu_solve_of(a, b, trans=0):
    return sl.lu_solve(sl.lu_factor(a), b, trans)


def lu_solve_of_a_rebuilt_pair(a, b):
    lu, piv = sl.lu_factor(a)
    return sl.lu_solve((lu, piv), b)


def _rows() -> list:
    return [
        Case(sl.solve, SQUARE, VEC), Case(sl.solve, SQUARE, M34),
        Case(sl.solve, SQUARE, M34, transposed=True),
        Case(sl.solve, SQUARE, VEC, assume_a="gen"),
        Case(sl.solve, LOPSIDED_SPD, M34, assume_a="pos", lower=True),
        Case(sl.solve, LOPSIDED_SPD.T.copy(), VEC, assume_a="sym"),
        Case(sl.solve, LOPSIDED_SPD, VEC, assume_a="sym", lower=True, transposed=True),
        Case(sl.solve_triangular, SQUARE, VEC), Case(sl.solve_triangular, SQUARE, M34, 1),
        Case(sl.solve_triangular, SQUARE, M34, lower=True),
        Case(sl.solve_triangular, SQUARE, VEC, trans="T", lower=True, unit_diagonal=True),
        Case(sl.solve_triangular, SQUARE, M34, unit_diagonal=True),
        Case(sl.inv, SQUARE), Case(sl.inv, LOPSIDED_SPD, assume_a="pos", lower=True),
        Case(sl.det, SQUARE), Case(sl.det, SPD), Case(sl.det, RANK_TWO),
        Case(sl.cholesky, LOPSIDED_SPD.T.copy()), Case(sl.cholesky, LOPSIDED_SPD, lower=True),
        Case(sl.cholesky, SPD, True),
        Case(sl.expm, SMALL), Case(sl.expm, SQUARE / 3.0),
        Case(sl.expm_frechet, SMALL, SQUARE / 3.0, compute_expm=False),
        Case(sl.expm_frechet, SMALL, SQUARE / 3.0),
        # float32 in, float32 tangents out (SciPy's Frechet derivative is float64)
        Case(sl.expm, SMALL.astype(np.float32), rtol=2e-2),
        Case(sl.expm_frechet, SMALL.astype(np.float32), SQUARE.astype(np.float32) / 3.0,
             rtol=2e-2),
    ] + _factor_rows() + _spectral_rows() + _equation_rows()


def _factor_rows() -> list:
    """The factor functions, their solvers given a factorization (its float item is
    perturbed too), and the two used together."""
    return [
        Case(sl.cho_factor, LOPSIDED_SPD, lower=True),
        Case(sl.cho_factor, LOPSIDED_SPD.T.copy()),
        Case(sl.cho_solve, sl.cho_factor(SPD), VEC),
        Case(sl.cho_solve, sl.cho_factor(SPD, lower=True), M34),
        Case(sl.lu_factor, PIVOTED), Case(sl.lu_factor, SQUARE),
        Case(sl.lu_solve, sl.lu_factor(PIVOTED), M34),
        Case(sl.lu_solve, sl.lu_factor(SQUARE), VEC, 1),
        Case(cho_solve_of, SPD, VEC), Case(cho_solve_of, LOPSIDED_SPD, M34, True),
        Case(cho_solve_of_a_rebuilt_pair, LOPSIDED_SPD, VEC),
        Case(lu_solve_of, PIVOTED, VEC), Case(lu_solve_of, PIVOTED, M34, 1),
        Case(lu_solve_of_a_rebuilt_pair, PIVOTED, M34),
    ]


def _spectral_rows() -> list:
    """eigh and svd: each option, a triangle read, a stack, tall and wide matrices."""
    return [
        Case(sl.eigh, LOPSIDED_SPD), Case(sl.eigh, LOPSIDED_SPD.T.copy(), lower=False),
        Case(sl.eigh, LOPSIDED_SPD, eigvals_only=True), Case(sl.eigh, SPD, driver="evd"),
        Case(sl.eigh, SPD_STACK), Case(sl.eigh, LOPSIDED_SPD, subset_by_index=[1, 2]),
        Case(sl.eigh, SPD, subset_by_value=(5.0, np.inf)),
        Case(sl.eigh, SPD_STACK, subset_by_index=(0, 1), eigvals_only=True),
        Case(sl.eigvalsh, SPD, subset_by_value=(-np.inf, 10.0)),
        Case(sl.eigvalsh, LOPSIDED_SPD), Case(sl.eigvalsh, LOPSIDED_SPD.T.copy(), lower=False),
        Case(sl.svd, SQUARE), Case(sl.svd, M34, full_matrices=False),
        Case(sl.svd, M34.T.copy(), False), Case(sl.svd, M34, compute_uv=False),
        Case(sl.svd, SQUARE, lapack_driver="gesvd"), Case(sl.svd, SPD_STACK),
        Case(sl.svdvals, M34), Case(sl.svdvals, M34.T.copy()),
    ]


def _equation_rows() -> list:
    """Sylvester and Lyapunov equations (square and rectangular), sqrtm and logm (a
    random matrix + 3 I, an SPD one), and stacks."""
    return [
        Case(sl.solve_sylvester, SQUARE, SQUARE4, M34),
        Case(sl.solve_sylvester, SQUARE, SPD, SQUARE.T.copy()),
        Case(sl.solve_sylvester, SPD_STACK, SQUARE, SQUARE),  # a stack, broadcast
        Case(sl.solve_continuous_lyapunov, SQUARE, SPD),
        Case(sl.solve_continuous_lyapunov, -SQUARE.T.copy(), SQUARE),
        Case(sl.solve_continuous_lyapunov, SPD_STACK, SPD),
        Case(sl.sqrtm, SQUARE), Case(sl.sqrtm, SPD), Case(sl.sqrtm, SPD_STACK),
        Case(sl.logm, SQUARE), Case(sl.logm, SPD), Case(sl.logm, SPD_STACK),
    ]


SCIPY_LINALG_CASES = [] if sl is None else _rows()


def eigh_signed(a, **kwargs):
    """sl.eigh with each eigenvector's sign fixed by its first entry. LAPACK's sign is
    arbitrary: with SciPy 1.17.1, LOPSIDED_SPD's first eigenvector flips under a step
    of -1e-5 in a[0, 0], so differences of the plain call cross a jump."""
    w, v = sl.eigh(a, **kwargs)
    return w, v * np.sign(v[..., :1, :])


def _second_order_rows() -> list:
    """The branches the first row of each function (second_order_cases.py) misses."""
    return [  # (what it covers, function, arguments, keyword arguments)
        (sl.eigh, eigh_signed, (LOPSIDED_SPD,), {}),
        (sl.eigh, sl.eigh, (LOPSIDED_SPD,), {"eigvals_only": True}),
        (sl.eigh, sl.eigh, (SPD,), {"subset_by_value": (5.0, np.inf)}),
        (sl.svd, sl.svd, (M34.T.copy(),), {"full_matrices": False}),
        (sl.svd, sl.svd, (M34,), {"compute_uv": False}),
    ]


SCIPY_LINALG_SECOND_ORDER_ROWS = [] if sl is None else _second_order_rows()
