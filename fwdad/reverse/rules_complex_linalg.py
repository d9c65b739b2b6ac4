"""Reverse rules of np.linalg.slogdet, eigvalsh and svd (compute_uv=False) on complex
matrices: the transposes, for the pairing Re(sum(ct * t)), of forward mode's tangents
(fwdad/rules/decompositions.py). Real matrices keep the rules of rules_decompositions.

    slogdet:   t = tr(a^-1 da); d log|det| = Re t, d sign = i Im(t) sign
               ->  ct_a = (ct_log - i Re(i ct_sign sign)) a^-T
    eigvalsh:  dw = Re diag(V^H herm(da) V)   ->  herm^T(conj(V) diag(ct) V^T)
    svd (values only): ds = Re diag(U^H da V) ->  conj(U diag(ct) Vh)

Note: eigh and svd with vectors of complex matrices are refused: each vector is defined
up to a phase, and forward mode differentiates the vectors NumPy returns under NumPy's
phase convention (fwdad/rules/phases.py); their transposes are not written yet. The
values alone (eigvalsh, svd(compute_uv=False)) do not depend on the phases.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.errors import NonDifferentiableError
from fwdad.reverse import rules_decompositions as real
from fwdad.reverse.registry import complex_ready, rrule


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
    if np.iscomplexobj(a):
        _refuse_vectors("np.linalg.eigh")
    return real._eigh(a, UPLO)


def _refuse_vectors(fn: str) -> None:
    raise NonDifferentiableError(
        f"{fn} of a complex matrix in reverse mode: its eigen- or singular vectors are "
        f"each defined up to a phase, and the reverse rule of the vectors under NumPy's "
        f"phase convention is not written yet. Use np.linalg.eigvalsh or "
        f"np.linalg.svd(a, compute_uv=False) for the values alone (they do not depend on "
        f"the phases), or forward mode (fwdad.jvp, fwdad.jacfwd), which differentiates "
        f"the vectors.")


complex_ready(np.linalg.slogdet, np.linalg.eigvalsh, np.linalg.svd, np.linalg.eigh)
