"""Reverse rules for SciPy's linear algebra (`scipy.linalg`): solve, solve_triangular,
inv, det, cholesky, cho_factor and cho_solve, lu_factor and lu_solve, expm and
expm_frechet.

Each pullback is the adjoint of forward mode's tangent map (fwdad/rules/scipy_linalg.py),
with the same domains: real matrices, invertible (positive definite for cholesky). A
routine that reads one triangle of a gives its cotangent to that triangle. expm's uses
that the adjoint of the Fréchet derivative at a is the Fréchet derivative at a^T. This
module imports SciPy: fwdad/reverse/__init__.py loads it only where SciPy imports.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from fwdad.reverse.registry import get_rrule, raw_rrule, rrule
from fwdad.reverse.rules_decompositions import det_pullback
from fwdad.rules import spectra
from fwdad.rules.empty_inputs import zero_at_empty_rrule
from fwdad.rules.scipy_linalg import (
    SYMMETRIC,
    blocks,
    check_assume_a,
    cho_factor_keeps_a,
    factor_of,
    lu_parts,
    mirrored,
    row_order,
    triangle,
)


def _T(a):
    return np.swapaxes(a, -1, -2)


def _onto_triangle(ct, lower: bool):
    """The adjoint of `mirrored`: a symmetric matrix's cotangent, on the triangle read."""
    if lower:
        return np.tril(ct) + np.tril(_T(ct), -1)
    return np.triu(ct) + np.triu(_T(ct), 1)


def _solve_pullback(a_used, x, ct):
    """x = A^-1 b: (the cotangent of A, that of b); a 1-d x is a vector."""
    vector = np.ndim(x) == 1
    ct_b = np.linalg.solve(_T(a_used), ct[..., None] if vector else ct)
    ct_a = -ct_b @ _T(x[..., None] if vector else x)
    return ct_a, ct_b[..., 0] if vector else ct_b


# ---- solvers --------------------------------------------------------------------------------
@rrule(sl.solve)
def _solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
           assume_a=None, transposed=False):
    """b gets A^-T ct, A gets -(A^-T ct) x^T; then back through transposed and the
    mirrored triangle (assume_a 'sym', 'pos')."""
    check_assume_a("solve", assume_a)
    x = sl.solve(a, b, lower=lower, check_finite=check_finite, assume_a=assume_a,
                 transposed=transposed)
    symmetric = assume_a in SYMMETRIC  # (SciPy reads a's triangle, transposed or not)
    a_used = mirrored(a, lower) if symmetric else _T(a) if transposed else np.asarray(a)

    def pullback(ct):
        ct_a, ct_b = _solve_pullback(a_used, x, ct)
        if symmetric:
            return _onto_triangle(ct_a, lower), ct_b
        return (_T(ct_a) if transposed else ct_a), ct_b
    return x, pullback


@rrule(sl.solve_triangular)
def _solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                      check_finite=True):
    """As solve, with op(T) for A; a gets the cotangent of T on the triangle read (not
    on a unit diagonal)."""
    x = sl.solve_triangular(a, b, trans, lower, unit_diagonal, check_finite=check_finite)
    transpose = trans in (1, 2, "T", "C")
    t = triangle(a, lower, unit_diagonal, 1.0)

    def pullback(ct):
        ct_t, ct_b = _solve_pullback(_T(t) if transpose else t, x, ct)
        return triangle(_T(ct_t) if transpose else ct_t, lower, unit_diagonal, 0.0), ct_b
    return x, pullback


@rrule(sl.inv)
def _inv(a, overwrite_a=False, check_finite=True, **kwargs):
    """a gets -inv(a)^T ct inv(a)^T (on the triangle read, for assume_a 'sym', 'pos')."""
    check_assume_a("inv", kwargs.get("assume_a"))
    out = sl.inv(a, check_finite=check_finite, **kwargs)

    def pullback(ct):
        ct_a = -_T(out) @ ct @ _T(out)
        if kwargs.get("assume_a") in SYMMETRIC:
            return (_onto_triangle(ct_a, kwargs.get("lower", False)),)
        return (ct_a,)
    return out, pullback


@rrule(sl.det)
def _det(a, overwrite_a=False, check_finite=True):
    """Jacobi's formula: a gets ct adj(a)^T (rules_decompositions.det_pullback)."""
    return sl.det(a, check_finite=check_finite), det_pullback(a)


# ---- decompositions ------------------------------------------------------------------------
@rrule(sl.cholesky)
def _cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """a = L L^T (upper: U = L^T): the symmetric cotangent L^-T phi(L^T ct_L) L^-1 (phi:
    the lower triangle, diagonal halved), on the triangle read."""
    out = sl.cholesky(a, lower=lower, check_finite=check_finite)
    low = out if lower else _T(out)

    return out, lambda ct: (_cholesky_pullback(low, ct if lower else _T(ct), lower),)


def _cholesky_pullback(low, ct_low, lower: bool):
    """The cotangent of a (on the triangle read) from that of L."""
    inner = _T(low) @ np.tril(ct_low)
    phi = np.tril(inner) - 0.5 * np.eye(low.shape[-1]) * inner
    y = np.linalg.solve(_T(low), _T(np.linalg.solve(_T(low), _T(phi))))
    return _onto_triangle(y, lower)


# ---- factorizations and their solvers ----------------------------------------------------
# Note: cho_solve and lu_solve take the factorization as a pair, (c, lower) or (lu, piv);
# a pure rule sees a pair holding a variable as a constant, so a raw rule unpacks it and
# calls the solver of the parts (cho_solve_parts, lu_solve_parts), which has a pure rule.
@rrule(sl.cho_factor)
def _cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """c's triangle is L (or L^T): cholesky's pullback; its other triangle is a's, or
    zeros (fwdad/rules/scipy_linalg.cho_factor_keeps_a)."""
    out = sl.cho_factor(a, lower=lower, check_finite=check_finite)
    low = factor_of(out[0], lower)
    keeps_a = cho_factor_keeps_a(bool(lower))

    def pullback(ct):
        ct_c = ct[0]
        ct_a = _cholesky_pullback(low, ct_c if lower else _T(ct_c), lower)
        if keeps_a:
            ct_a = ct_a + (np.triu(ct_c, 1) if lower else np.tril(ct_c, -1))
        return ct_a, None
    return out, pullback


def cho_solve_parts(c, b, lower=False, check_finite=True):
    """scipy.linalg.cho_solve((c, lower), b)."""
    return sl.cho_solve((c, lower), b, check_finite=check_finite)


@raw_rrule(sl.cho_solve)
def _cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    c, lower = c_and_lower
    return get_rrule(cho_solve_parts)(c, b, lower=lower, check_finite=check_finite)


@rrule(cho_solve_parts)
def _cho_solve_parts(c, b, lower=False, check_finite=True):
    """x = a^-1 b, a = L L^T: with ct_a = -(a^-1 ct) x^T, L gets (ct_a + ct_a^T) L,
    on c's triangle."""
    x = sl.cho_solve((c, lower), b, check_finite=check_finite)
    low = factor_of(c, lower)

    def pullback(ct):
        ct_a, ct_b = _solve_pullback(low @ _T(low), x, ct)
        ct_low = (ct_a + _T(ct_a)) @ low
        return (np.tril(ct_low) if lower else np.triu(_T(ct_low))), ct_b
    return x, pullback


@rrule(sl.lu_factor)
@zero_at_empty_rrule(sl.lu_factor)
def _lu_factor(a, overwrite_a=False, check_finite=True):
    """a[perm] = L U, X = L^-1 da[perm] U^-1: X gets tril(L^T ct, -1) + triu(ct U^T),
    and a[perm] gets L^-T ct_X U^-T."""
    lu, piv = out = sl.lu_factor(a, check_finite=check_finite)
    low, up = lu_parts(lu)
    spectra.check_triangular_factor("scipy.linalg.lu_factor", up, "U")

    def pullback(ct):
        ct_x = np.tril(_T(low) @ ct[0], -1) + np.triu(ct[0] @ _T(up))
        ct_rows = np.linalg.solve(_T(low), _T(np.linalg.solve(up, _T(ct_x))))
        return ct_rows[np.argsort(row_order(piv))], None
    return out, pullback


def lu_solve_parts(lu, piv, b, trans=0, check_finite=True):
    """scipy.linalg.lu_solve((lu, piv), b, trans)."""
    return sl.lu_solve((lu, piv), b, trans, check_finite=check_finite)


@raw_rrule(sl.lu_solve)
def _lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    lu, piv = lu_and_piv
    return get_rrule(lu_solve_parts)(lu, piv, b, trans=trans, check_finite=check_finite)


@rrule(lu_solve_parts)
def _lu_solve_parts(lu, piv, b, trans=0, check_finite=True):
    """x = op(a)^-1 b, a = (L U)[inverse perm]: L U gets ct_a[perm] =: ct_m, and lu
    gets tril(ct_m U^T, -1) + triu(L^T ct_m)."""
    x = sl.lu_solve((lu, piv), b, trans, check_finite=check_finite)
    (low, up), perm = lu_parts(lu), row_order(piv)
    a = (low @ up)[np.argsort(perm)]
    transpose = trans in (1, 2, "T", "C")

    def pullback(ct):
        ct_a, ct_b = _solve_pullback(_T(a) if transpose else a, x, ct)
        ct_m = (_T(ct_a) if transpose else ct_a)[perm]
        return np.tril(ct_m @ _T(up), -1) + np.triu(_T(low) @ ct_m), None, ct_b
    return x, pullback


# ---- the matrix exponential ------------------------------------------------------------------
@rrule(sl.expm)
def _expm(a):
    """The adjoint of the Fréchet derivative at a is the one at a^T (real a)."""
    out = sl.expm(a)
    return out, lambda ct: (sl.expm_frechet(_T(a), ct, compute_expm=False),)


@rrule(sl.expm_frechet)
def _expm_frechet(a, e, method=None, compute_expm=True, check_finite=True):
    """e gets L(a^T, ct); a gets the sum of the diagonal blocks of L(M^T, P), with
    M = [[a, e], [0, a]] and P = [[0, ct], [0, 0]] (the adjoint of the forward rule's
    block), plus L(a^T, ct_expm) with compute_expm."""
    out = sl.expm_frechet(a, e, method, compute_expm, check_finite)

    def pullback(ct):
        ct_expm, ct_l = ct if compute_expm else (None, ct)
        n, zero = np.shape(a)[-1], np.zeros(np.shape(a))
        q = sl.expm_frechet(blocks(_T(a), zero, _T(e), _T(a)),
                            blocks(zero, ct_l, zero, zero), method, compute_expm=False)
        ct_a = q[:n, :n] + q[n:, n:]
        if ct_expm is not None:
            ct_a = ct_a + sl.expm_frechet(_T(a), ct_expm, method, compute_expm=False)
        return ct_a, sl.expm_frechet(_T(a), ct_l, method, compute_expm=False)
    return out, pullback
