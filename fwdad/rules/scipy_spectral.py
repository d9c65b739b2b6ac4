"""Rules for SciPy's symmetric eigendecomposition and singular value decomposition
(`scipy.linalg`): eigh, eigvalsh, svd, svdvals.

    w, v = sl.eigh(a)   ->   dw = diag(V^T da V),  dV = V (F * V^T da V)

The math is np.linalg's (fwdad/rules/decompositions.py: eigh_tangent and
singular_vector_tangents), evaluated at SciPy's own factors: SciPy and NumPy may choose
eigenvectors of opposite signs, and each tangent follows the vectors it was computed
from. Real matrices only. The standard problem only: a generalized one (`b=`) is
refused; a subset of the spectrum (`subset_by_index`, `subset_by_value`) has the
tangents of the whole spectrum's at the positions it keeps. Where two
eigenvalues (singular values) are equal to rounding, or a singular value is zero, the
derivative does not exist, and the rules refuse rather than return infinities or the
derivative of one particular split. This module imports SciPy: fwdad/rules/scipy_support.py loads
it when first needed.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, in_user_code
from fwdad.rules import spectra
from fwdad.rules.batching import dense, fit
from fwdad.rules.complex_input import real_only
from fwdad.rules.decompositions import eigh_tangent, hermitian_part, singular_vector_tangents
from fwdad.rules.empty_inputs import zero_at_empty
from fwdad.rules.registry import frule


def _refuse(call: str, what: str, problem: str) -> None:
    spectra.refuse(f"scipy.linalg.{call}", what, problem)


def check_spectrum(call: str, values, what: str) -> None:
    """spectra.check_spectrum for scipy.linalg's function `call`."""
    spectra.check_spectrum(f"scipy.linalg.{call}", values, what)


def check_standard(call: str, b) -> None:
    """Refuse the generalized problem (b given)."""
    if getattr(b, "primal", b) is not None:
        at = in_user_code()
        raise NonDifferentiableError(
            f"scipy.linalg.{call}{at}: fwdad differentiates the "
            f"standard problem a v = w v only (here b is given). For b positive definite, "
            f"reduce the generalized problem yourself: with L = cholesky(b, lower=True), "
            f"take the eigenvalues of L^-1 a L^-T, whose eigenvectors x give v = L^-T x.")


def chosen(call: str, w, subset_by_index, subset_by_value) -> slice:
    """The positions in the whole ascending spectrum w of the eigenvalues a subset keeps:
    those of the indices given, or those in (lo, hi], none of which may sit on a bound
    (to rounding: the subset changes there), and the same for every matrix of a stack."""
    if subset_by_index is not None:
        first, last = subset_by_index
        return slice(first, last + 1)
    if subset_by_value is None:
        return slice(None)
    lo, hi = subset_by_value
    tol = spectra.ROUNDING_UNITS * np.shape(w)[-1] * np.finfo(np.float64).eps * np.max(np.abs(w))
    if np.any(np.abs(w - lo) <= tol) or np.any(np.abs(w - hi) <= tol):
        _refuse(call, "eigenvalues", f"an eigenvalue is on a bound of subset_by_value "
                                     f"{(lo, hi)} (to rounding), where the subset changes")
    starts, stops = np.sum(w <= lo, axis=-1), np.sum(w <= hi, axis=-1)
    if np.any(starts != np.min(starts)) or np.any(stops != np.min(stops)):
        _refuse(call, "eigenvalues", "the matrices of this stack keep eigenvalues at "
                                     "different positions under subset_by_value")
    return slice(int(np.min(starts)), int(np.min(stops)))


def _da(a: Dual):
    return dense(a.primal, a.tangent)


# ---- the symmetric eigenproblem -------------------------------------------------------------
# Note: with a subset, the tangents are those of the whole spectrum's, at the positions
# kept (the signs of SciPy's subset of vectors, which may differ from the whole
# decomposition's). It costs a decomposition of the whole spectrum, and asks every
# eigenvalue to be distinct; the alternative, the rows of F for the kept values only,
# would not reuse np.linalg's math.
def eigh_factors(call: str, a, options: dict, subset: dict):
    """(w, V) of the whole spectrum, checked; the positions kept; SciPy's result."""
    real_only(f"scipy.linalg.{call}", a)
    w, v = sl.eigh(a, lower=options["lower"], check_finite=options["check_finite"],
                   driver=options["driver"])
    check_spectrum(call, w, "eigenvalues")
    kept = chosen(call, w, **subset)
    if options.get("eigvals_only") or any(x is not None for x in subset.values()):
        return w, v, kept, sl.eigh(a, **options, **subset)
    return w, v, kept, (w, v)


def same_signs(v_kept, v):
    """+1 or -1 per column: v_kept's columns against the same eigenvectors in v."""
    return np.sign(np.sum(v_kept * v, axis=-2))[..., None, :]


def _eigh_dual(call: str, a: Dual, options: dict, subset: dict) -> Dual:
    """eigh's value and tangent; eigvals_only: the eigenvalues SciPy computes alone."""
    w, v, kept, out = eigh_factors(call, a.primal, options, subset)
    dw, dv = eigh_tangent(w, v, hermitian_part(_da(a), "L" if options["lower"] else "U"))
    if options["eigvals_only"]:
        return Dual(out, fit(dw[..., kept], out))
    w_kept, v_kept = out
    dv_kept = dv[..., kept] * same_signs(v_kept, v[..., kept])
    return Dual(out, (fit(dw[..., kept], w_kept), fit(dv_kept, v_kept)))


@frule(sl.eigh)
def _eigh(a: Dual, b=None, *, lower=True, eigvals_only=False, overwrite_a=False,
          overwrite_b=False, type=1, check_finite=True, subset_by_index=None,
          subset_by_value=None, driver=None) -> Dual:
    """a = V diag(w) V^T, read from a's lower (else upper) triangle, and da's: np.linalg's
    dw = diag(V^T da V), dV = V (F * V^T da V), F_ij = 1 / (w_j - w_i)."""
    check_standard("eigh", b)
    options = dict(lower=lower, eigvals_only=eigvals_only, check_finite=check_finite,
                   driver=driver)
    subset = dict(subset_by_index=subset_by_index, subset_by_value=subset_by_value)
    return _eigh_dual("eigh", a, options, subset)


@frule(sl.eigvalsh)
def _eigvalsh(a: Dual, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1,
              check_finite=True, subset_by_index=None, subset_by_value=None,
              driver=None) -> Dual:
    """eigh's eigenvalues: dw = diag(V^T da V)."""
    check_standard("eigvalsh", b)
    options = dict(lower=lower, eigvals_only=True, check_finite=check_finite, driver=driver)
    subset = dict(subset_by_index=subset_by_index, subset_by_value=subset_by_value)
    return _eigh_dual("eigvalsh", a, options, subset)


# ---- the singular value decomposition ----------------------------------------------------
def check_full_matrices(shape, full_matrices: bool, compute_uv: bool) -> None:
    """Refuse the full U or Vh of a non-square matrix, as np.linalg.svd's rule does."""
    spectra.check_full_matrices("scipy.linalg.svd", shape, full_matrices, compute_uv)


def _svd_dual(call: str, a: Dual, full_matrices: bool, compute_uv: bool, check_finite,
              lapack_driver) -> Dual:
    real_only(f"scipy.linalg.{call}", a.primal)
    check_full_matrices(np.shape(a.primal), full_matrices, compute_uv)
    u, s, vh = sl.svd(a.primal, full_matrices=False, check_finite=check_finite,
                      lapack_driver=lapack_driver)
    check_spectrum(call, s, "singular values")
    da = _da(a)
    dp = np.swapaxes(u, -1, -2) @ da @ np.swapaxes(vh, -1, -2)
    ds = np.diagonal(dp, axis1=-2, axis2=-1)
    if not compute_uv:
        values = sl.svd(a.primal, compute_uv=False, check_finite=check_finite,
                        lapack_driver=lapack_driver)
        return Dual(values, fit(ds, values))
    du, dv = singular_vector_tangents(u, s, vh, da, dp)
    return Dual((u, s, vh), (fit(du, u), fit(ds, s), fit(np.swapaxes(dv, -1, -2), vh)))


@frule(sl.svd)
@zero_at_empty(sl.svd)
def _svd(a: Dual, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
         lapack_driver="gesdd") -> Dual:
    """a = U S Vh: np.linalg.svd's tangents at SciPy's factors (see
    singular_vector_tangents); singular values distinct and nonzero; full_matrices=True
    for a square a only (its factors are then the thin ones)."""
    return _svd_dual("svd", a, full_matrices, compute_uv, check_finite, lapack_driver)


@frule(sl.svdvals)
@zero_at_empty(sl.svdvals)
def _svdvals(a: Dual, overwrite_a=False, check_finite=True) -> Dual:
    """ds = diag(U^T da V), singular values distinct and nonzero."""
    return _svd_dual("svdvals", a, False, False, check_finite, "gesdd")
