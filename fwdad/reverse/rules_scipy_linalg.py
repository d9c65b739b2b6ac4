"""Reverse rules for SciPy's linear algebra (`scipy.linalg`): solve, solve_triangular,
inv, det, cholesky, expm and expm_frechet.

Each pullback is the adjoint of forward mode's tangent map (fwdad/rules/scipy_linalg.py),
with the same domains: real matrices, invertible (positive definite for cholesky). A
routine that reads one triangle of a gives its cotangent to that triangle. expm's uses
that the adjoint of the Fréchet derivative at a is the Fréchet derivative at a^T. This
module imports SciPy: fwdad/reverse/__init__.py loads it only where SciPy imports.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from fwdad.reverse.registry import rrule
from fwdad.rules.scipy_linalg import SYMMETRIC, blocks, check_assume_a, mirrored, triangle


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
    a_used = _T(a) if transposed else np.asarray(a)
    a_used = mirrored(a_used, lower) if assume_a in SYMMETRIC else a_used

    def pullback(ct):
        ct_a, ct_b = _solve_pullback(a_used, x, ct)
        ct_a = _onto_triangle(ct_a, lower) if assume_a in SYMMETRIC else ct_a
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
    """Jacobi's formula: a gets ct det(a) a^-T."""
    out = sl.det(a, check_finite=check_finite)
    return out, lambda ct: (np.asarray(ct * out)[..., None, None] * _T(np.linalg.inv(a)),)


# ---- decompositions ------------------------------------------------------------------------
@rrule(sl.cholesky)
def _cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """a = L L^T (upper: U = L^T): the symmetric cotangent L^-T phi(L^T ct_L) L^-1 (phi:
    the lower triangle, diagonal halved), on the triangle read."""
    out = sl.cholesky(a, lower=lower, check_finite=check_finite)
    low = out if lower else _T(out)

    def pullback(ct):
        inner = _T(low) @ (ct if lower else _T(ct))
        phi = np.tril(inner) - 0.5 * np.eye(low.shape[-1]) * inner
        y = np.linalg.solve(_T(low), _T(np.linalg.solve(_T(low), _T(phi))))
        return (_onto_triangle(y, lower),)
    return out, pullback


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
