"""Rules for SciPy's linear algebra (`scipy.linalg`): solve, solve_triangular, inv, det,
cholesky, cho_factor and cho_solve, lu_factor and lu_solve, expm and expm_frechet.

    x = sl.solve(a, b)   ->   dx = a^-1 (db - da x)

The primal is SciPy's own call, so a result matches a plain call exactly. The tangents
are written with np.linalg's functions (solve, matmul, trace), which have rules, so the
rules can be differentiated again; expm's tangent is SciPy's Fréchet derivative
(`expm_frechet`), which has a rule here too (by SciPy's expm_frechet of a block
matrix), so expm can be differentiated again as well. Real matrices only
(`real_only`); a routine that reads one triangle of a (solve_triangular, cholesky, solve
with assume_a='sym' or 'pos') reads that triangle of da too. SciPy's `overwrite_*` flags
are not passed on (SciPy may, not must, overwrite: the arguments stay as they were).
This module imports SciPy: fwdad/rules/scipy_support.py loads it when first needed.
"""
from __future__ import annotations

import functools

import numpy as np
import scipy.linalg as sl

from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, in_user_code
from fwdad.rules import spectra
from fwdad.rules.batching import common_batch, dense, fit, linear_call, map_batch
from fwdad.rules.complex_input import real_only
from fwdad.rules.decompositions import det_tangent
from fwdad.rules.empty_inputs import zero_at_empty
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent

GENERAL = (None, "gen", "general")
SYMMETRIC = ("sym", "symmetric", "pos", "positive definite", "her", "hermitian")


def _T(a):
    return np.swapaxes(a, -1, -2)


def _da(a: Dual):
    return dense(a.primal, a.tangent)


def mirrored(a, lower: bool):
    """The symmetric matrix a symmetric routine reads: a's lower (else upper) triangle,
    mirrored."""
    low = a if lower else _T(a)
    return np.tril(low) + _T(np.tril(low, -1))


def check_assume_a(call: str, assume_a) -> None:
    """Refuse the assume_a values whose solvers read other parts of a (banded,
    triangular, diagonal): their derivative is not that of the general solve."""
    if assume_a not in GENERAL + SYMMETRIC:
        at = in_user_code()
        raise NonDifferentiableError(
            f"scipy.linalg.{call}{at}: fwdad differentiates it with "
            f"assume_a None, 'gen', 'sym' or 'pos' only (here {assume_a!r}: that solver "
            f"reads part of a, and its derivative differs). Use "
            f"scipy.linalg.solve_triangular for a triangular a, or assume_a='gen'.")


def solve_tangent(a, da, x, db):
    """dx = a^-1 (db - da x) for the matrix a solved with; a 1-d x is a vector."""
    if np.ndim(x) == 1:
        rhs = db - (da @ x[..., None])[..., 0]
        return fit(np.linalg.solve(a, rhs[..., None])[..., 0], x)
    return fit(np.linalg.solve(a, db - da @ x), x)


# ---- solvers --------------------------------------------------------------------------------
@frule(sl.solve)
def _solve(a: Dual, b: Dual, lower=False, overwrite_a=False, overwrite_b=False,
           check_finite=True, assume_a=None, transposed=False) -> Dual:
    """x = A^-1 b with A = a (a^T when transposed; a's lower or upper triangle mirrored,
    transposed or not, when assume_a is 'sym' or 'pos'): dx = A^-1 (db - dA x)."""
    real_only("scipy.linalg.solve", a.primal, b.primal)
    check_assume_a("solve", assume_a)
    x = sl.solve(a.primal, b.primal, lower=lower, check_finite=check_finite,
                 assume_a=assume_a, transposed=transposed)
    a_used, da = (_T(a.primal), _T(_da(a))) if transposed else (a.primal, _da(a))
    if assume_a in SYMMETRIC:  # (SciPy reads a's triangle, transposed or not)
        a_used, da = mirrored(a.primal, lower), mirrored(_da(a), lower)
    return Dual(x, solve_tangent(a_used, da, x, dense(b.primal, b.tangent)))


def triangle(a, lower: bool, unit_diagonal: bool, diagonal: float):
    """What solve_triangular reads of a: one triangle, its diagonal set to `diagonal`
    (1 for a, 0 for da) when unit_diagonal."""
    part = np.tril(a) if lower else np.triu(a)
    if not unit_diagonal:
        return part
    eye = np.eye(np.shape(a)[-1])
    return part * (1.0 - eye) + diagonal * eye


@frule(sl.solve_triangular)
def _solve_triangular(a: Dual, b: Dual, trans=0, lower=False, unit_diagonal=False,
                      overwrite_b=False, check_finite=True) -> Dual:
    """x = op(T)^-1 b, T the triangle of a read (op: the transpose for trans 1, 'T',
    2, 'C'): dx = op(T)^-1 (db - op(dT) x)."""
    real_only("scipy.linalg.solve_triangular", a.primal, b.primal)
    x = sl.solve_triangular(a.primal, b.primal, trans, lower, unit_diagonal,
                            check_finite=check_finite)
    t, dt = triangle(a.primal, lower, unit_diagonal, 1.0), \
        triangle(_da(a), lower, unit_diagonal, 0.0)
    if trans in (1, 2, "T", "C"):
        t, dt = _T(t), _T(dt)
    return Dual(x, solve_tangent(t, dt, x, dense(b.primal, b.tangent)))


@frule(sl.inv)
def _inv(a: Dual, overwrite_a=False, check_finite=True, **kwargs) -> Dual:
    """d inv(a) = -inv(a) da inv(a); a must be invertible."""
    real_only("scipy.linalg.inv", a.primal)
    check_assume_a("inv", kwargs.get("assume_a"))
    out = sl.inv(a.primal, check_finite=check_finite, **kwargs)
    if kwargs.get("assume_a") in SYMMETRIC:
        return Dual(out, -out @ mirrored(_da(a), kwargs.get("lower", False)) @ out)
    return Dual(out, -out @ _da(a) @ out)


@frule(sl.det)
def _det(a: Dual, overwrite_a=False, check_finite=True) -> Dual:
    """d det(a) = tr(adj(a) da) (Jacobi's formula: rules/decompositions.det_tangent)."""
    real_only("scipy.linalg.det", a.primal)
    out = sl.det(a.primal, check_finite=check_finite)
    return Dual(out, fit(det_tangent(a.primal, _da(a)), out))


# ---- decompositions ------------------------------------------------------------------------
@frule(sl.cholesky)
def _cholesky(a: Dual, lower=False, overwrite_a=False, check_finite=True) -> Dual:
    """a = L L^T (upper: U = L^T), from a's lower (upper) triangle: dL = L phi(L^-1 da
    L^-T), phi: the lower triangle with a halved diagonal; a positive definite."""
    real_only("scipy.linalg.cholesky", a.primal)
    out = sl.cholesky(a.primal, lower=lower, check_finite=check_finite)
    low = out if lower else _T(out)
    dlow = cholesky_tangent(low, mirrored(_da(a), lower))
    return Dual(out, dlow if lower else _T(dlow))


def cholesky_tangent(low, da):
    """dL of a = L L^T along a symmetric da."""
    inner = np.linalg.solve(low, _T(np.linalg.solve(low, _T(da))))
    return fit(low @ (np.tril(inner) - 0.5 * np.eye(low.shape[-1]) * inner), low)


# Note: the factor functions' outputs are tuples, (c, lower) and (lu, piv); their tangents
# are (dc, NoTangent) and (dlu, NoTangent), and the solve functions read dc and dlu. The
# alternative, a rule for the pair used together, would not serve a factorization used
# otherwise (its triangle read, its diagonal's logarithms summed for a log-determinant).
@frule(sl.cho_factor)
def _cho_factor(a: Dual, lower=False, overwrite_a=False, check_finite=True) -> Dual:
    """c holds L (lower) or L^T in one triangle: cholesky's tangent there; in the other,
    what this SciPy leaves there: a's own entries, with da's, or zeros."""
    real_only("scipy.linalg.cho_factor", a.primal)
    c, lower = out = sl.cho_factor(a.primal, lower=lower, check_finite=check_finite)
    dlow = cholesky_tangent(factor_of(c, lower), mirrored(_da(a), lower))
    dc = dlow if lower else _T(dlow)
    if cho_factor_keeps_a(bool(lower)):
        dc = dc + (np.triu(_da(a), 1) if lower else np.tril(_da(a), -1))
    return Dual(out, (fit(dc, c), NoTangent))


@functools.cache
def cho_factor_keeps_a(lower: bool) -> bool:
    """Whether cho_factor leaves a's entries in the triangle of c its solver does not
    read (SciPy before 1.18), rather than zeros (1.18 and later): asked of SciPy once."""
    c, _ = sl.cho_factor(np.array([[2.0, 1.0], [1.0, 2.0]]), lower=lower)
    return bool(c[0, 1] == 1.0 if lower else c[1, 0] == 1.0)


def factor_of(c, lower: bool):
    """L of a = L L^T, from cho_factor's c (the triangle its solver reads)."""
    return np.tril(c) if lower else _T(np.triu(c))


@frule(sl.cho_solve)
def _cho_solve(c_and_lower: Dual, b: Dual, overwrite_b=False, check_finite=True) -> Dual:
    """x = (L L^T)^-1 b: dx = a^-1 (db - (dL L^T + L dL^T) x), L and dL from c and dc."""
    (c, lower), dc = c_and_lower.primal, factor_tangent(c_and_lower)
    real_only("scipy.linalg.cho_solve", c, b.primal)
    x = sl.cho_solve((c, lower), b.primal, check_finite=check_finite)
    low, dlow = factor_of(c, lower), factor_of(dc, lower)
    da = dlow @ _T(low) + low @ _T(dlow)
    return Dual(x, solve_tangent(low @ _T(low), da, x, dense(b.primal, b.tangent)))


def factor_tangent(pair: Dual):
    """The tangent of a factorization's first item (zeros for a constant)."""
    tangent = pair.tangent if pair.tangent is NoTangent else pair.tangent[0]
    return dense(pair.primal[0], tangent)


@frule(sl.lu_factor)
@zero_at_empty(sl.lu_factor)
def _lu_factor(a: Dual, overwrite_a=False, check_finite=True) -> Dual:
    """a[perm] = L U (L unit lower, in lu below the diagonal; U on and above it): with
    X = L^-1 da[perm] U^-1, dL = L tril(X, -1) and dU = triu(X) U."""
    real_only("scipy.linalg.lu_factor", a.primal)
    lu, piv = out = sl.lu_factor(a.primal, check_finite=check_finite)
    low, up = lu_parts(lu)
    spectra.check_triangular_factor("scipy.linalg.lu_factor", up, "U")
    x = _T(np.linalg.solve(_T(up), _T(np.linalg.solve(low, _da(a)[..., row_order(piv), :]))))
    return Dual(out, (fit(low @ np.tril(x, -1) + np.triu(x) @ up, lu), NoTangent))


def lu_parts(lu):
    """(L, U) from lu_factor's lu."""
    return np.tril(lu, -1) + np.eye(lu.shape[-1]), np.triu(lu)


def row_order(piv):
    """perm with a[perm] = L U, from LAPACK's row interchanges (row i with piv[i])."""
    perm = np.arange(len(piv))
    for i, p in enumerate(piv):
        perm[i], perm[p] = perm[p], perm[i]
    return perm


@frule(sl.lu_solve)
def _lu_solve(lu_and_piv: Dual, b: Dual, trans=0, overwrite_b=False,
              check_finite=True) -> Dual:
    """x = op(a)^-1 b with a = (L U)[inverse perm]: dx = op(a)^-1 (db - op(da) x),
    da = (dL U + L dU)[inverse perm], dL and dU from dlu."""
    (lu, piv), dlu = lu_and_piv.primal, factor_tangent(lu_and_piv)
    real_only("scipy.linalg.lu_solve", lu, b.primal)
    x = sl.lu_solve((lu, piv), b.primal, trans, check_finite=check_finite)
    (low, up), (dlow, dup) = lu_parts(lu), (np.tril(dlu, -1), np.triu(dlu))
    back = np.argsort(row_order(piv))
    a, da = (low @ up)[back, :], (dlow @ up + low @ dup)[..., back, :]
    if trans in (1, 2, "T", "C"):
        a, da = _T(a), _T(da)
    return Dual(x, solve_tangent(a, da, x, dense(b.primal, b.tangent)))


# ---- the matrix exponential ------------------------------------------------------------------
@frule(sl.expm)
def _expm(a: Dual) -> Dual:
    """d expm(a) = L(a, da), the Fréchet derivative (SciPy's expm_frechet)."""
    real_only("scipy.linalg.expm", a.primal)
    out = sl.expm(a.primal)
    tangent = map_batch(lambda da: linear_call(_frechet, a.primal, da), a.primal, _da(a))
    return Dual(out, fit(tangent, out))  # (SciPy's Fréchet derivative is float64)


@frule(sl.expm_frechet)
def _expm_frechet(a: Dual, e: Dual, method=None, compute_expm=True,
                  check_finite=True) -> Dual:
    """L(a, e) is linear in e; in a, it is the top-right block of expm's Fréchet
    derivative at [[a, e], [0, a]] along [[da, 0], [0, da]]. With compute_expm, the
    pair (expm(a), L(a, e)): d expm(a) = L(a, da)."""
    real_only("scipy.linalg.expm_frechet", a.primal, e.primal)
    out = sl.expm_frechet(a.primal, e.primal, method, compute_expm, check_finite)
    dfrechet = _frechet_tangents(a.primal, e.primal, a.tangent, e.tangent, method)
    if not compute_expm:
        return Dual(out, dfrechet)
    return Dual(out, (fit(_expm(Dual(a.primal, a.tangent)).tangent, out[0]), dfrechet))


def _frechet_tangents(a, e, da, de, method):
    """d L(a, e) along (da, de), one tangent or a batch of them."""
    size = common_batch((a, e), (da, de))
    if size is None:
        return _frechet_tangent(a, e, dense(a, da), dense(e, de), method)
    da, de = dense(a, da, size), dense(e, de, size)
    return np.stack([_frechet_tangent(a, e, da[i], de[i], method) for i in range(size)])


def blocks(top_left, top_right, bottom_left, bottom_right):
    """The 2 x 2 block matrix (np.block has no rule: np.concatenate has)."""
    return np.concatenate([np.concatenate([top_left, top_right], axis=-1),
                           np.concatenate([bottom_left, bottom_right], axis=-1)], axis=-2)


def _frechet_tangent(a, e, da, de, method):
    n, zero = a.shape[-1], np.zeros_like(a)
    block, along = blocks(a, e, zero, a), blocks(da, zero, zero, da)
    in_a = linear_call(_frechet, block, along, method)[:n, n:]
    return linear_call(_frechet, a, de, method) + in_a


def _frechet(a, e, method=None):
    """L(a, e), linear in e (recorded as one call by linearize: linear_call)."""
    return sl.expm_frechet(a, e, method, compute_expm=False)
