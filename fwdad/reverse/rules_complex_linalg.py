"""Reverse rules of np.linalg.slogdet, eigh, eigvalsh and svd (compute_uv=False) on complex
matrices: the transposes, for the pairing Re(sum(ct * t)), of forward mode's tangents
(fwdad/rules/decompositions.py). Real matrices keep the rules of rules_decompositions.

    slogdet:   t = tr(a^-1 da); d log|det| = Re t, d sign = i Im(t) sign
               ->  ct_a = (ct_log - i Re(i ct_sign sign)) a^-T
    eigvalsh:  dw = Re diag(V^H herm(da) V)   ->  herm^T(conj(V) diag(ct) V^T)
    svd (values only): ds = Re diag(U^H da V) ->  conj(U diag(ct) Vh)
    eigh:      the transpose of forward mode's, phase shift included (see _eigh)

Note: each eigenvector is defined up to a phase. Forward mode differentiates the vectors
NumPy returns, in NumPy's (LAPACK's) phase convention (fwdad/rules/phases.py), and eigh's
pullback is its transpose: the gradient of the loss as NumPy computes it, rather than
JAX's gauge-invariant part, so that both modes agree (the dot-product test) and agree
with finite differences of NumPy's function; for a loss that does not depend on the
phases, the three are the same. The singular vectors of svd are refused: their
transpose (two phase conventions, by shape) is not written yet.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.errors import NonDifferentiableError
from fwdad.reverse import rules_decompositions as real
from fwdad.reverse.registry import complex_ready, rrule
from fwdad.rules import phases


def _T(a: Any) -> Any:
    return np.swapaxes(a, -1, -2)


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
def _svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
         hermitian: bool = False) -> Any:
    if not np.iscomplexobj(a):
        return real._svd(a, full_matrices, compute_uv, hermitian)
    if compute_uv or hermitian:
        _refuse_vectors("np.linalg.svd" + ("(..., hermitian=True)" if hermitian else ""))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    real.spectra.check_spectrum("np.linalg.svd", s[..., ::-1], "singular values")
    return s, lambda ct: (np.conj(u @ _diagonal(np.real(ct)) @ vh),)


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
        f"defined up to a phase, and the reverse rule of the vectors under NumPy's phase "
        f"convention is not written yet. Use np.linalg.svd(a, compute_uv=False) for the "
        f"values alone (they do not depend on the phases), or forward mode (fwdad.jvp, "
        f"fwdad.jacfwd), which differentiates the vectors.")


complex_ready(np.linalg.slogdet, np.linalg.eigvalsh, np.linalg.svd, np.linalg.eigh)
