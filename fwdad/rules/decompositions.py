"""Rules for np.linalg's solvers and decompositions: solve, inv, det, slogdet,
cholesky, qr, eigh, eigvalsh, eig, eigvals, svd, lstsq, pinv, matrix_power; and vander.

Each works on stacks of matrices (leading axes) and on batched tangents: the formulas
are matrix products, which broadcast a batch axis like a stack axis. Each rule's
docstring states where it is defined.
"""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import FwdadError, NonDifferentiableError, in_user_code
from fwdad.rules import phases, spectra
from fwdad.rules.adjugates import adjugate
from fwdad.rules.batching import dense, fit, lift
from fwdad.rules.complex_input import real_only
from fwdad.rules.empty_inputs import zero_at_empty
from fwdad.rules.reductions import as_array, re_conj_times
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


def _T(a):
    return np.swapaxes(a, -1, -2)


def _H(a):
    """The conjugate transpose (the transpose, for real a)."""
    return np.swapaxes(a, -1, -2).conj() if np.iscomplexobj(a) else np.swapaxes(a, -1, -2)


def _tr(a):
    return np.trace(a, axis1=-2, axis2=-1)


def _diag(a):
    return np.diagonal(a, axis1=-2, axis2=-1)


def _da(a: Dual):
    return dense(a.primal, a.tangent)


def _off_diagonal_inverse(w):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it."""
    gap = w[..., None, :] - w[..., :, None]
    eye = np.eye(w.shape[-1], dtype=bool)
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, gap))


# ---- solvers --------------------------------------------------------------------------------
@frule(np.linalg.solve)
def _solve(a: Dual, b: Dual) -> Dual:
    """x = a^-1 b, dx = a^-1 (db - da x); a must be invertible. A 1-d b is a vector."""
    x = np.linalg.solve(a.primal, b.primal)
    if np.ndim(b.primal) == 1:  # (one vector for every matrix of a stack: db too)
        db = dense(b.primal, b.tangent)
        stacked = np.ndim(a.primal) - 2
        db = np.expand_dims(db, tuple(range(-1 - stacked, -1))) if stacked else db
        rhs = db - (_da(a) @ x[..., None])[..., 0]
        return Dual(x, fit(np.linalg.solve(a.primal, rhs[..., None])[..., 0], x))
    rhs = dense(b.primal, b.tangent) - _da(a) @ x
    return Dual(x, fit(np.linalg.solve(a.primal, rhs), x))


@frule(np.linalg.inv)
def inv_rule(a: Dual) -> Dual:
    """d inv(a) = -inv(a) da inv(a); a must be invertible."""
    out = np.linalg.inv(a.primal)
    return Dual(out, -out @ _da(a) @ out)


def det_tangent(a, da):
    """d det(a) = tr(adj(a) da) (Jacobi's formula), = det(a) tr(a^-1 da) for an
    invertible a. A singular a has a derivative too, adj(a), and so has the formula:
    its own derivative is exact there (rules/adjugates.py), which the derivative of
    det(a) a^-1 is not. (tr(b da) is the sum of b^T * da: no matrix product.)"""
    return np.sum(_T(adjugate(a)) * da, axis=(-2, -1))


def refuse_singular_slogdet(call: str, logabsdet) -> None:
    """log|det a| is -inf at a singular a, with no derivative: refuse it (both modes)."""
    if np.any(np.isneginf(logabsdet)):
        raise NonDifferentiableError(
            f"{call}{in_user_code()}: a is singular (log|det a| is -inf), where "
            f"log|det a| has no derivative. Differentiate at an invertible matrix, or "
            f"use np.linalg.det, which has a derivative at a singular one.")


@frule(np.linalg.det)
def _det(a: Dual) -> Dual:
    """d det(a) = tr(adj(a) da) (Jacobi's formula: det_tangent)."""
    out = np.linalg.det(a.primal)
    return Dual(out, fit(det_tangent(a.primal, _da(a)), out))


@frule(np.linalg.slogdet)
def _slogdet(a: Dual) -> Dual:
    """With t = tr(a^-1 da): d log|det a| = Re t, d sign = i Im(t) sign (0 for real a:
    the sign is constant); a must be invertible."""
    out = np.linalg.slogdet(a.primal)
    refuse_singular_slogdet("np.linalg.slogdet", out.logabsdet)
    t = _tr(np.linalg.solve(a.primal, _da(a)))
    dsign = 1j * np.imag(t) * out.sign if np.iscomplexobj(t) else np.zeros_like(out.sign)
    return Dual(out, type(out)(fit(dsign, out.sign), fit(np.real(t), out.logabsdet)))


@frule(np.linalg.matrix_power)
def _matrix_power(a: Dual, n: int) -> Dual:
    """By repeated products (negative n: of the inverse)."""
    base = inv_rule(a) if n < 0 else Dual(a.primal, _da(a))
    out = Dual(np.broadcast_to(np.eye(a.primal.shape[-1]), a.primal.shape), NoTangent)
    for _ in range(abs(n)):
        dout = NoTangent if out.tangent is NoTangent else out.tangent @ base.primal
        out = Dual(out.primal @ base.primal, dout + out.primal @ base.tangent)
    result = np.linalg.matrix_power(a.primal, n)
    return Dual(result, fit(out.tangent, result))


# ---- decompositions ------------------------------------------------------------------------
@frule(np.linalg.cholesky)
def _cholesky(a: Dual, upper=False) -> Dual:
    """dL = L phi(L^-1 da L^-H), phi: the lower triangle with a halved diagonal. As
    LAPACK, it reads the lower (upper=True: upper) triangle of a and of da; a must be
    positive definite (Hermitian, when complex)."""
    low = np.linalg.cholesky(a.primal)
    da = hermitian_part(_da(a), "U" if upper else "L")
    inner = np.linalg.solve(low, _H(np.linalg.solve(low, _H(da))))
    phi = np.tril(inner) - 0.5 * np.eye(low.shape[-1]) * inner
    dlow = fit(low @ phi, low)
    return Dual(_H(low) if upper else low, _H(dlow) if upper else dlow)


@frule(np.linalg.qr)
@zero_at_empty(np.linalg.qr)
def _qr(a: Dual, mode="reduced") -> Dual:
    """a = QR, with C = Q^T da R^-1 and Omega = tril(C, -1) - tril(C, -1)^T:
    dR = (C - Omega) R, dQ = da R^-1 - Q (C - Omega). For an m x n a of full rank with
    m >= n, modes 'reduced' and 'r' ('complete' for square a only: its extra columns of
    Q are not unique)."""
    real_only("np.linalg.qr", a.primal)
    m, n = a.primal.shape[-2:]
    if m < n or (mode == "complete" and m != n) or mode == "raw":
        raise NotImplementedError(f"fwdad differentiates np.linalg.qr of an m x n matrix "
                                  f"with m >= n, in modes 'reduced' and 'r' (here "
                                  f"{m} x {n}, mode={mode!r})")
    q, r = np.linalg.qr(a.primal, mode="reduced")
    spectra.check_triangular_factor("np.linalg.qr", r, "R")
    da = _da(a)
    da_rinv = _T(np.linalg.solve(_T(r), _T(da)))
    c = _T(q) @ da_rinv
    omega = np.tril(c, -1) - _T(np.tril(c, -1))
    dr = (c - omega) @ r
    if mode == "r":
        return Dual(np.linalg.qr(a.primal, mode="r"), dr)
    out = np.linalg.qr(a.primal, mode=mode)
    return Dual(out, type(out)(da_rinv - q @ (c - omega), dr))


@frule(np.linalg.eigh)
def _eigh(a: Dual, UPLO="L") -> Dual:
    """dw = Re diag(V^H da V), dV = V (F * V^H da V), F_ij = 1 / (w_j - w_i): eigenvalues
    must be distinct. It reads the UPLO triangle of a (and of da), as LAPACK does; complex
    eigenvectors follow NumPy's phases (phases.py)."""
    out = np.linalg.eigh(a.primal, UPLO)
    w, v = out
    spectra.check_spectrum("np.linalg.eigh", w, "eigenvalues")
    dw, dv = eigh_tangent(w, v, hermitian_part(_da(a), UPLO))
    if np.iscomplexobj(v):
        row = phases.real_row(v, (0,) if UPLO == "L" else (-1,))
        if row is None:
            phases.refuse("np.linalg.eigh")
        dv = dv + v * (1j * phases.phase_shift(v, dv, row))[..., None, :]
    return Dual(out, type(out)(fit(dw, w), fit(dv, v)))


def eigh_tangent(w, v, da):
    """(dw, dV) of a = V diag(w) V^H along a Hermitian da: dw = Re diag(V^H da V),
    dV = V (F * V^H da V) (before any phase convention); eigenvalues distinct."""
    vdv = _H(v) @ da @ v
    return np.real(_diag(vdv)), v @ (_off_diagonal_inverse(w) * vdv)


def hermitian_part(da, UPLO):
    """What LAPACK's Hermitian routines read of da: its UPLO triangle, mirrored
    (conjugated), with a real diagonal."""
    low = da if UPLO == "L" else _H(da)
    full = np.tril(low, -1) + _H(np.tril(low, -1))
    return full + np.real(_diag(low))[..., None] * np.eye(da.shape[-1])


@frule(np.linalg.eigvalsh)
def _eigvalsh(a: Dual, UPLO="L") -> Dual:
    """dw = Re diag(V^H da V) (distinct eigenvalues)."""
    w, v = np.linalg.eigh(a.primal, UPLO)
    spectra.check_spectrum("np.linalg.eigvalsh", w, "eigenvalues")
    dw = np.real(_diag(_H(v) @ hermitian_part(_da(a), UPLO) @ v))
    return Dual(np.linalg.eigvalsh(a.primal, UPLO), fit(dw, w))


@frule(np.linalg.svd)
@zero_at_empty(np.linalg.svd)
def svd_rule(a: Dual, full_matrices=True, compute_uv=True, hermitian=False) -> Dual:
    """With dP = U^H da V and F_ij = 1 / (s_j^2 - s_i^2): ds = Re diag(dP),
    dU = U (F * (dP S + S dP^H) + i Im diag(dP) / S) + (I - U U^H) da V S^-1, and dV
    alike (without the diagonal). Singular values must be distinct and nonzero;
    full_matrices=True only for square matrices (the extra columns of U or V are not
    unique otherwise); complex vectors follow NumPy's phases (phases.py)."""
    u, s, vh = np.linalg.svd(a.primal, full_matrices=False, hermitian=hermitian)
    spectra.check_spectrum("np.linalg.svd", s[..., ::-1], "singular values")
    spectra.check_full_matrices("np.linalg.svd", a.primal.shape, full_matrices, compute_uv)
    da = _da(a)
    dp = _H(u) @ da @ _H(vh)
    ds = np.real(_diag(dp))
    if not compute_uv:
        values = np.linalg.svd(a.primal, compute_uv=False, hermitian=hermitian)
        return Dual(values, fit(ds, values))
    du, dv = singular_vector_tangents(u, s, vh, da, dp)
    out = np.linalg.svd(a.primal, full_matrices=full_matrices, hermitian=hermitian)
    return Dual(out, type(out)(fit(du, out[0]), fit(ds, s), fit(_H(dv), out[2])))


def singular_vector_tangents(u, s, vh, da, dp):
    """dU and dV (of V = Vh^H) for a = U S Vh, dP = U^H da V: see svd_rule."""
    m, n = u.shape[-2], vh.shape[-1]
    f = _off_diagonal_inverse(s * s)
    du = u @ (f * (dp * s[..., None, :] + s[..., :, None] * _H(dp)))
    dv = _H(vh) @ (f * (s[..., :, None] * dp + _H(dp) * s[..., None, :]))
    if m > n:
        du = du + (da @ _H(vh) - u @ dp) / s[..., None, :]
    if n > m:
        dv = dv + (_H(da) @ u - _H(vh) @ _H(dp)) / s[..., None, :]
    if not np.iscomplexobj(dp):
        return du, dv
    du = du + u * (1j * _diag(dp).imag / s)[..., None, :]
    v = _H(vh)
    phase = [(w, dw) for w, dw in ((v, dv), (u, du)) if phases.real_row(w, (0,)) == 0]
    if not phase:
        phases.refuse("np.linalg.svd")
    shift = (1j * phases.phase_shift(*phase[0], 0))[..., None, :]
    return du + u * shift, dv + v * shift


# ---- least squares and the pseudo-inverse -----------------------------------------------------
@frule(np.linalg.pinv)
def _pinv(a: Dual, rcond=None, hermitian=False, **kwargs) -> Dual:
    """dP = -P da P + P P^H da^H (I - a P) + (I - P a) da^H P^H P, where the rank of a
    is constant nearby (full rank, or no singular value close to the cut-off)."""
    p = np.linalg.pinv(a.primal, **({} if rcond is None else {"rcond": rcond}),
                       hermitian=hermitian, **kwargs)
    da, x = _da(a), a.primal
    eye_m, eye_n = np.eye(x.shape[-2]), np.eye(x.shape[-1])
    dp = -p @ da @ p + p @ _H(p) @ _H(da) @ (eye_m - x @ p) + \
        (eye_n - p @ x) @ _H(da) @ _H(p) @ p
    return Dual(p, fit(dp, p))


def check_lstsq_rank(shape, rank) -> None:
    """Refuse np.linalg.lstsq of a matrix of `shape` whose `rank` is not full column
    rank (both modes' formulas solve with a^H a)."""
    if rank < shape[-1]:
        raise FwdadError(
            f"fwdad differentiates np.linalg.lstsq for a matrix a of full column rank only "
            f"(its formula solves with a^H a){in_user_code()}: this a ({shape[-2]} x "
            f"{shape[-1]}) has rank {rank}. For a wide a of full row rank, use "
            f"np.linalg.pinv(a) @ b; else drop the dependent columns of a.")


def lstsq_tie(at: str) -> NonDifferentiableError:
    """The error for singular values of np.linalg.lstsq (its fourth result) that are
    equal, where they have no derivative (`at`: the user's line, in_user_code())."""
    return NonDifferentiableError(
        f"np.linalg.lstsq{at}: two singular values of a (its fourth result) are equal to "
        f"rounding, where they have no derivative, and fwdad differentiates every "
        f"result. For the solution alone, use np.linalg.pinv(a) @ b, which has one here.")


@frule(np.linalg.lstsq)
def _lstsq(a: Dual, b: Dual, rcond=None) -> Dual:
    """For a of full column rank: with r = b - a x, dx = pinv(a) (db - da x) +
    (a^H a)^-1 da^H r; the residuals' tangent is 2 sum(Re(conj(r) (db - da x))); the
    rank has none; the singular values', Re diag(U^H da V)."""
    a, b = as_array(a), as_array(b)
    x, res, rank, s = out = np.linalg.lstsq(a.primal, b.primal, rcond=rcond)
    check_lstsq_rank(a.primal.shape, rank)
    if spectra.repeated(s[..., ::-1]):
        raise lstsq_tie(in_user_code())
    vector = np.ndim(b.primal) == 1
    col = (lambda v: v[..., None]) if vector else (lambda v: v)
    row = (lambda v: v[..., 0]) if vector else (lambda v: v)
    da, db = _da(a), dense(b.primal, b.tangent)
    change = col(db) - da @ col(x)
    r = col(b.primal - a.primal @ x)
    gram = _H(a.primal) @ a.primal
    dx = row(np.linalg.pinv(a.primal) @ change + np.linalg.solve(gram, _H(da) @ r))
    # residuals: shape (1,) for a vector b, (k,) for k columns: the sum over rows
    dres = 2.0 * np.sum(re_conj_times(r, change), axis=-2) if np.size(res) else \
        np.zeros_like(res)
    return Dual(out, (dx, dres, NoTangent, svd_rule(a, False, False).tangent))


@frule(np.linalg.eigvals)
def _eigvals(a: Dual) -> Dual:
    """d lambda = diag(V^-1 da V) for a diagonalizable a with distinct eigenvalues
    (complex in general; real when NumPy returns real eigenvalues)."""
    w, v = np.linalg.eig(a.primal)
    out = np.linalg.eigvals(a.primal)
    dw = _diag(np.linalg.solve(v, _da(a) @ v))
    return Dual(out, fit(dw if np.iscomplexobj(out) else np.real(dw), out))


@frule(np.linalg.eig)
def _eig(a: Dual) -> Dual:
    """For distinct eigenvalues: dw = diag(C), C = V^-1 da V, and dV = V (F * C) moved to
    NumPy's convention: unit columns, each with its largest component real when complex."""
    out = np.linalg.eig(a.primal)
    w, v = out
    c = np.linalg.solve(v, _da(a) @ v)
    dv = v @ (_off_diagonal_inverse(w) * c)
    dv = dv - v * np.real(np.sum(v.conj() * dv, axis=-2, keepdims=True))  # unit columns
    if np.iscomplexobj(v):
        dv = phases.largest_component_real(v, dv)
    return Dual(out, type(out)(_diag(c), dv))


@frule(np.vander)
def _vander(x: Dual, N=None, increasing=False) -> Dual:
    """Columns x**k: their tangents k x**(k-1) dx."""
    out = np.vander(x.primal, N, increasing)
    n = out.shape[1]
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    slope = powers * np.vander(x.primal, n + 1, True)[:, np.maximum(powers - 1, 0)] * \
        (powers > 0)
    return Dual(out, fit(slope * lift(x.primal, x.tangent, 1)[..., None], out))
