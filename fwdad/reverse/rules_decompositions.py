"""Reverse rules for np.linalg's solvers and decompositions: solve, inv, det, slogdet,
matrix_power, cholesky, qr, eigh, eigvalsh, svd, pinv, lstsq.

Each pullback is the adjoint of forward mode's tangent map, so both modes agree
exactly, with the same domains (see rules_linalg's docstring and each rule's).
"""
from __future__ import annotations

import numpy as np

from fwdad.errors import in_user_code
from fwdad.reverse.registry import rrule
from fwdad.rules import spectra
from fwdad.rules.adjugates import adjugate_cotangent
from fwdad.rules.decompositions import (
    adjugate,
    check_lstsq_rank,
    lstsq_tie,
    refuse_singular_slogdet,
)
from fwdad.rules.empty_inputs import zero_at_empty_rrule


def _T(a):
    return np.swapaxes(a, -1, -2)


def _one_triangle(y):
    """Symmetric routines read the lower triangle of a, mirrored: the cotangent of
    that symmetric matrix lands on the lower triangle."""
    return np.tril(y) + np.tril(_T(y), -1)


def _off_diagonal_inverse(w):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it."""
    gap = w[..., None, :] - w[..., :, None]
    eye = np.eye(w.shape[-1], dtype=bool)
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, gap))


# ---- solvers -------------------------------------------------------------------------------
@rrule(np.linalg.solve)
def _solve(a, b):
    """x = a^-1 b: b gets a^-T ct, a gets -(a^-T ct) x^T. A 1-d b is a vector."""
    x = np.linalg.solve(a, b)
    vector = np.ndim(b) == 1
    col = (lambda v: v[..., None]) if vector else (lambda v: v)

    def pullback(ct):
        ct_b = np.linalg.solve(_T(a), col(ct))
        return -ct_b @ _T(col(x)), ct_b[..., 0] if vector else ct_b
    return x, pullback


@rrule(np.linalg.inv)
def _inv(a):
    out = np.linalg.inv(a)
    return out, lambda ct: (-_T(out) @ ct @ _T(out),)


@rrule(np.linalg.det)
def _det(a):
    """Jacobi's formula: the cotangent is ct adj(a)^T (det(a) a^-T for an invertible a)."""
    return np.linalg.det(a), det_pullback(a)


def det_pullback(a):
    """The pullback of det(a) (both np.linalg's and scipy.linalg's)."""
    return lambda ct: (np.asarray(ct)[..., None, None] * _T(adjugate(a)),)


@rrule(adjugate)
def _adjugate(a):
    """The transpose of d adj(a) (rules/adjugates.py): exact at singular matrices."""
    return adjugate(a), lambda ct: (adjugate_cotangent(a, ct),)


@rrule(np.linalg.slogdet)
def _slogdet(a):
    """The sign has no derivative; log|det a| has a^-T (a invertible)."""
    out = np.linalg.slogdet(a)
    refuse_singular_slogdet("np.linalg.slogdet", out.logabsdet)
    return out, lambda ct: (np.asarray(ct[1])[..., None, None] * _T(np.linalg.inv(a)),)


@rrule(np.linalg.matrix_power)
def _matrix_power(a, n):
    """a^n = a ... a: a gets sum_k (a^k)^T ct (a^(n-1-k))^T; negative n: of inv(a)."""
    base = np.linalg.inv(a) if n < 0 else np.asarray(a)
    powers = [np.broadcast_to(np.eye(base.shape[-1]), base.shape)]
    for _ in range(abs(n) - 1):
        powers.append(powers[-1] @ base)

    def pullback(ct):
        ct_base = sum((_T(powers[k]) @ ct @ _T(powers[abs(n) - 1 - k])
                       for k in range(abs(n))), np.zeros(base.shape))
        return (-_T(base) @ ct_base @ _T(base) if n < 0 else ct_base), None
    return np.linalg.matrix_power(a, n), pullback


# ---- decompositions ----------------------------------------------------------------------
@rrule(np.linalg.cholesky)
def _cholesky(a, upper=False):
    """a = L L^T: the symmetric cotangent L^-T phi(L^T ct) L^-1 (phi: the lower
    triangle, diagonal halved), on the triangle LAPACK reads; a positive definite."""
    low = np.linalg.cholesky(a)

    def pullback(ct):
        ct = _T(ct) if upper else ct
        inner = _T(low) @ ct
        phi = np.tril(inner) - 0.5 * np.eye(low.shape[-1]) * inner
        y = np.linalg.solve(_T(low), _T(np.linalg.solve(_T(low), _T(phi))))
        return (_T(_one_triangle(_T(y))) if upper else _one_triangle(y),)
    return (_T(low) if upper else low), pullback


@rrule(np.linalg.qr)
@zero_at_empty_rrule(np.linalg.qr)
def _qr(a, mode="reduced"):
    """a = QR (m x n, m >= n, full rank; modes 'reduced', 'r', and 'complete' for
    square a): with G = ct_R R^T - Q^T ct_Q and H = triu(G) + tril(G^T, -1), a gets
    (ct_Q + Q H) R^-T."""
    m, n = np.shape(a)[-2:]
    if m < n or (mode == "complete" and m != n) or mode == "raw":
        raise NotImplementedError(f"fwdad differentiates np.linalg.qr of an m x n matrix "
                                  f"with m >= n, in modes 'reduced' and 'r' (here "
                                  f"{m} x {n}, mode={mode!r})")
    q, r = np.linalg.qr(a, mode="reduced")
    spectra.check_triangular_factor("np.linalg.qr", r, "R")

    def pullback(ct):
        ct_q, ct_r = (np.zeros(q.shape), ct) if mode == "r" else ct
        g = ct_r @ _T(r) - _T(q) @ ct_q
        h = np.triu(g) + np.tril(_T(g), -1)
        return (_T(np.linalg.solve(r, _T(ct_q + q @ h))),)
    return np.linalg.qr(a, mode=mode), pullback


@rrule(np.linalg.eigh)
def _eigh(a, UPLO="L"):
    """a = V diag(w) V^T, distinct eigenvalues: the symmetric cotangent
    V (diag(ct_w) + F * V^T ct_V) V^T, F_ij = 1 / (w_j - w_i), on the UPLO triangle."""
    out = w, v = np.linalg.eigh(a, UPLO)
    spectra.check_spectrum("np.linalg.eigh", w, "eigenvalues")
    return out, lambda ct: (symmetric_input(eigh_pullback(w, v, ct[0], ct[1]), UPLO),)


def eigh_pullback(w, v, ct_w, ct_v):
    """The cotangent of the symmetric matrix V diag(w) V^T (distinct eigenvalues)."""
    return v @ (_diagonal(ct_w) + _off_diagonal_inverse(w) * (_T(v) @ ct_v)) @ _T(v)


def _diagonal(d):
    return d[..., :, None] * np.eye(d.shape[-1])


def symmetric_input(y, UPLO):
    """A symmetric matrix's cotangent, on the UPLO triangle that LAPACK reads."""
    return _one_triangle(y) if UPLO == "L" else _T(_one_triangle(_T(y)))


@rrule(np.linalg.eigvalsh)
def _eigvalsh(a, UPLO="L"):
    w, v = np.linalg.eigh(a, UPLO)
    spectra.check_spectrum("np.linalg.eigvalsh", w, "eigenvalues")
    return w, lambda ct: (symmetric_input(v @ _diagonal(ct) @ _T(v), UPLO),)


@rrule(np.linalg.svd)
def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """a = U S V^T, singular values distinct and nonzero (full_matrices=True: square a
    only). With F_ij = 1 / (s_j^2 - s_i^2): a gets U [(F * (U^T ct_U - ct_U^T U)) S +
    diag(ct_s) + S (F * (V^T ct_V - ct_V^T V))] V^T + (I - U U^T) ct_U S^-1 V^T +
    U S^-1 ct_V^T (I - V V^T)."""
    u, s, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
    spectra.check_spectrum("np.linalg.svd", s[..., ::-1], "singular values")
    if not compute_uv:
        return s, lambda ct: (u @ _diagonal(ct) @ vh,)
    spectra.check_full_matrices("np.linalg.svd", np.shape(a), full_matrices, compute_uv)
    out = np.linalg.svd(a, full_matrices=full_matrices, hermitian=hermitian)
    return out, lambda ct: (svd_pullback(u, s, _T(vh), ct[0], ct[1], _T(ct[2])),)


def svd_pullback(u, s, v, ct_u, ct_s, ct_v):
    """The cotangent of a = U S V^T (thin factors; see _svd)."""
    f = _off_diagonal_inverse(s * s)
    uu, vv = _T(u) @ ct_u, _T(v) @ ct_v
    core = (f * (uu - _T(uu))) * s[..., None, :] + _diagonal(ct_s) + \
        s[..., :, None] * (f * (vv - _T(vv)))
    out = u @ core @ _T(v)
    out = out + (ct_u - u @ uu) / s[..., None, :] @ _T(v)
    return out + u @ (_T(ct_v - v @ vv) / s[..., :, None])


# ---- least squares and the pseudo-inverse -----------------------------------------------
@rrule(np.linalg.pinv)
def _pinv(a, rcond=None, hermitian=False, **kwargs):
    """The adjoint of dP = -P da P + P P^T da^T (I - a P) + (I - P a) da^T P^T P (the rank
    of a constant nearby)."""
    p = np.linalg.pinv(a, **({} if rcond is None else {"rcond": rcond}),
                       hermitian=hermitian, **kwargs)
    eye_m, eye_n = np.eye(np.shape(a)[-2]), np.eye(np.shape(a)[-1])
    return p, lambda ct: (-_T(p) @ ct @ _T(p) + (eye_m - a @ p) @ _T(ct) @ p @ _T(p)
                          + _T(p) @ p @ _T(ct) @ (eye_n - p @ a),)


@rrule(np.linalg.lstsq)
def _lstsq(a, b, rcond=None):
    """a of full column rank. x = pinv(a) b; the residuals ||b - a x||^2 (per column);
    the rank (no derivative); the singular values (refused where two are equal and
    their cotangents differ: a sum of them weighted alike has a derivative there)."""
    out = x, res, rank, s = np.linalg.lstsq(a, b, rcond=rcond)
    check_lstsq_rank(np.shape(a), rank)
    tie = spectra.repeated(s[..., ::-1]) and in_user_code()  # (the pullback runs later)
    vector = np.ndim(b) == 1
    col = (lambda v: v[..., None]) if vector else (lambda v: v)
    r, p = col(b - a @ x), np.linalg.pinv(a)
    u, _, vh = np.linalg.svd(a, full_matrices=False)

    def pullback(ct):
        ct_x, ct_res, _, ct_s = ct
        if tie is not False and spectra.split_at_a_tie(s, ct_s):
            raise lstsq_tie(tie)
        change = _T(p) @ col(ct_x) + (2.0 * r * ct_res if np.size(res) else 0.0)
        ct_a = -change @ _T(col(x)) + r @ _T(np.linalg.solve(_T(a) @ a, col(ct_x)))
        ct_b = change[..., 0] if vector else change
        return ct_a + u @ _diagonal(ct_s) @ vh, ct_b
    return out, pullback
