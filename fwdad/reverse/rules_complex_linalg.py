"""Reverse rules of np.linalg.slogdet, eigh, eigvalsh and svd on complex matrices: the
transposes, for the pairing Re(sum(ct * t)), of forward mode's tangents
(fwdad/rules/decompositions.py). Real matrices keep the rules of rules_decompositions.

    slogdet:   t = tr(a^-1 da); d log|det| = Re t, d sign = i Im(t) sign
               ->  ct_a = (ct_log - i Re(i ct_sign sign)) a^-T
    eigvalsh:  dw = Re diag(V^H herm(da) V)   ->  herm^T(conj(V) diag(ct) V^T)
    svd (values only): ds = Re diag(U^H da V) ->  conj(U diag(ct) Vh)
    eigh, svd: the transposes of forward mode's, phase shifts included (_eigh,
               _svd_pullback)

Note: each eigen- or singular vector is defined up to a phase. Forward mode
differentiates the vectors NumPy returns, in NumPy's (LAPACK's) phase convention
(fwdad/rules/phases.py), and these pullbacks are its transposes: the gradient of the
loss as NumPy computes it, rather than JAX's gauge-invariant part, so that both modes
agree (the dot-product test) and agree with finite differences of NumPy's function; for
a loss that does not depend on the phases, the three are the same. svd(hermitian=True)
of a complex matrix is refused (its vectors come from eigh, in another convention).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.errors import NonDifferentiableError
from fwdad.reverse import rules_decompositions as real
from fwdad.reverse.registry import complex_ready, rrule
from fwdad.rules import phases
from fwdad.rules.empty_inputs import zero_at_empty_rrule


def _T(a: Any) -> Any:
    return np.swapaxes(a, -1, -2)


def _H(a: Any) -> Any:
    return np.conj(_T(a))


def _diagonal(d: Any) -> Any:
    return d[..., :, None] * np.eye(d.shape[-1])


@rrule(np.linalg.slogdet)
def _slogdet(a: Any) -> Any:
    if not np.iscomplexobj(a):
        return real._slogdet(a)
    out = np.linalg.slogdet(a)

    def pullback(ct: Any) -> tuple:
        ct_sign, ct_log = ct
        c = np.real(ct_log) - 1j * np.real(1j * ct_sign * out.sign)
        return (np.asarray(c)[..., None, None] * _T(np.linalg.inv(a)),)
    return out, pullback


def hermitian_input(g: Any, UPLO: str) -> Any:
    """The transpose of forward mode's hermitian_part: what LAPACK reads of a, its
    UPLO triangle mirrored and conjugated, with the real part of the diagonal."""
    low = np.tril(g, -1) + np.tril(np.conj(_T(g)), -1) + _diagonal(np.real(
        np.diagonal(g, axis1=-2, axis2=-1)))
    return low if UPLO == "L" else np.conj(_T(low))


@rrule(np.linalg.eigvalsh)
def _eigvalsh(a: Any, UPLO: str = "L") -> Any:
    if not np.iscomplexobj(a):
        return real._eigvalsh(a, UPLO)
    w, v = np.linalg.eigh(a, UPLO)
    real.spectra.check_spectrum("np.linalg.eigvalsh", w, "eigenvalues")
    return w, lambda ct: (hermitian_input(np.conj(v) @ _diagonal(np.real(ct)) @ _T(v), UPLO),)


@rrule(np.linalg.svd)
@zero_at_empty_rrule(np.linalg.svd)
def _svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
         hermitian: bool = False) -> Any:
    if not np.iscomplexobj(a):
        return real._svd(a, full_matrices, compute_uv, hermitian)
    if hermitian:
        _refuse_vectors("np.linalg.svd(..., hermitian=True)")
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    real.spectra.check_spectrum("np.linalg.svd", s[..., ::-1], "singular values")
    if not compute_uv:
        return s, lambda ct: (np.conj(u @ _diagonal(np.real(ct)) @ vh),)
    real.spectra.check_full_matrices("np.linalg.svd", np.shape(a), full_matrices, compute_uv)
    v = _H(vh)
    on_v = phases.real_row(v, (0,)) == 0
    if not on_v and phases.real_row(u, (0,)) != 0:
        phases.refuse("np.linalg.svd")
    out = np.linalg.svd(a, full_matrices=full_matrices)
    return out, lambda ct: (_svd_pullback(a, u, s, v, on_v, ct[0], np.real(ct[1]), _H(ct[2])),)


def _svd_pullback(a: Any, u: Any, s: Any, v: Any, on_v: bool, ct_u: Any, ct_s: Any,
                  ct_v: Any) -> Any:
    """The transpose of forward mode's singular_vector_tangents (rules/decompositions.py),
    step by step backwards: the phase shift, the diagonal turn of dU, the parts outside
    the thin factors' span (m != n), the in-span parts, ds = Re diag(dP), dP = U^H da V."""
    ct_u, ct_v = np.array(ct_u, dtype=complex), np.array(ct_v, dtype=complex)
    turn = np.real(1j * (np.sum(ct_u * u, axis=-2) + np.sum(ct_v * v, axis=-2)))
    w, ct_w = (v, ct_v) if on_v else (u, ct_u)
    ct_w[..., 0, :] += 1j * turn / np.real(w[..., 0, :])
    ct_dp = _diagonal(-1j * np.real(1j * np.sum(ct_u * u, axis=-2)) / s + ct_s)
    m, n = np.shape(a)[-2:]
    ct_a = np.zeros(np.shape(a), dtype=complex)
    if m > n:
        y = ct_u / s[..., None, :]
        ct_a = ct_a + y @ _T(v)
        ct_dp = ct_dp - _T(u) @ y
    if n > m:
        y = ct_v / s[..., None, :]
        ct_a = ct_a + np.conj(u) @ _H(y)
        ct_dp = ct_dp - _H(y) @ np.conj(v)
    f = real._off_diagonal_inverse(s * s)
    k_u, k_v = f * (_T(u) @ ct_u), f * (_T(v) @ ct_v)
    ct_dp = ct_dp + k_u * s[..., None, :] + _H(k_u) * s[..., None, :] \
        + s[..., :, None] * k_v + s[..., :, None] * _H(k_v)
    return ct_a + np.conj(u) @ ct_dp @ _T(v)


@rrule(np.linalg.eigh)
def _eigh(a: Any, UPLO: str = "L") -> Any:
    """Forward mode's dV = V (F * P) + i V diag(c), P = V^H herm(da) V, with c the phase
    shift that keeps the row LAPACK makes real real (phases.py); transposed: the shift
    moves ct_V's phase part onto that row, then ct_P = diag(ct_w) + F * V^T ct_V'."""
    if not np.iscomplexobj(a):
        return real._eigh(a, UPLO)
    out = w, v = np.linalg.eigh(a, UPLO)
    real.spectra.check_spectrum("np.linalg.eigh", w, "eigenvalues")
    row = phases.real_row(v, (0,) if UPLO == "L" else (-1,))
    if row is None:
        phases.refuse("np.linalg.eigh")

    def pullback(ct: Any) -> tuple:
        ct_w, ct_v = ct
        ct_v = np.array(ct_v, dtype=complex)
        turn = np.real(1j * np.sum(ct_v * v, axis=-2))  # (the phase part of ct_V)
        ct_v[..., row, :] += 1j * turn / np.real(v[..., row, :])
        ct_p = _diagonal(np.real(ct_w)) + real._off_diagonal_inverse(w) * (_T(v) @ ct_v)
        return (hermitian_input(np.conj(v) @ ct_p @ _T(v), UPLO),)
    return out, pullback


def _refuse_vectors(fn: str) -> None:
    raise NonDifferentiableError(
        f"{fn} of a complex matrix in reverse mode: its singular vectors are each "
        f"defined up to a phase, and the reverse rule of the vectors in the phase "
        f"convention of this path is not written yet. Pass hermitian=False (the default), "
        f"use np.linalg.svd(a, compute_uv=False) for the values alone (they do not depend "
        f"on the phases), or forward mode (fwdad.jvp, fwdad.jacfwd).")


complex_ready(np.linalg.slogdet, np.linalg.eigvalsh, np.linalg.svd, np.linalg.eigh)
