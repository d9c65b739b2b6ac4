"""Reverse rules for SciPy's eigh, eigvalsh, svd and svdvals (`scipy.linalg`).

Each pullback is np.linalg's (fwdad/reverse/rules_decompositions.py: eigh_pullback,
svd_pullback) at SciPy's own factors, with the forward rules' domain and refusals
(fwdad/rules/scipy_spectral.py): real matrices, the standard problem (a subset of the
spectrum through the whole one's), distinct eigenvalues, distinct nonzero singular
values. This module imports SciPy: fwdad/reverse/__init__.py loads it only where SciPy
imports.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from fwdad.reverse.registry import rrule
from fwdad.reverse.rules_decompositions import eigh_pullback, svd_pullback, symmetric_input
from fwdad.rules.complex_input import real_only
from fwdad.rules.empty_inputs import zero_at_empty_rrule
from fwdad.rules.scipy_spectral import (
    check_full_matrices,
    check_spectrum,
    check_standard,
    eigh_factors,
    same_signs,
)


def _T(a):
    return np.swapaxes(a, -1, -2)


def _diagonal(d):
    return d[..., :, None] * np.eye(d.shape[-1])


# ---- the symmetric eigenproblem -------------------------------------------------------------
def _eigh_rule(call: str, a, options: dict, subset: dict):
    """A subset's cotangents go to the positions it keeps in the whole spectrum's."""
    w, v, kept, out = eigh_factors(call, a, options, subset)
    uplo = "L" if options["lower"] else "U"
    sign = None if options["eigvals_only"] else same_signs(out[1], v[..., kept])

    def pullback(ct):
        ct_w, ct_v = np.zeros(np.shape(w)), np.zeros(np.shape(v))
        ct_w[..., kept] = ct if sign is None else ct[0]
        if sign is not None:
            ct_v[..., kept] = ct[1] * sign
        return (symmetric_input(eigh_pullback(w, v, ct_w, ct_v), uplo),)
    return out, pullback


@rrule(sl.eigh)
def _eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
          type=1, check_finite=True, subset_by_index=None, subset_by_value=None,
          driver=None):
    """The symmetric cotangent V (diag(ct_w) + F * V^T ct_V) V^T, on the triangle read."""
    check_standard("eigh", b)
    options = dict(lower=lower, eigvals_only=eigvals_only, check_finite=check_finite,
                   driver=driver)
    subset = dict(subset_by_index=subset_by_index, subset_by_value=subset_by_value)
    return _eigh_rule("eigh", a, options, subset)


@rrule(sl.eigvalsh)
def _eigvalsh(a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1,
              check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """V diag(ct) V^T, on the triangle read."""
    check_standard("eigvalsh", b)
    options = dict(lower=lower, eigvals_only=True, check_finite=check_finite, driver=driver)
    subset = dict(subset_by_index=subset_by_index, subset_by_value=subset_by_value)
    return _eigh_rule("eigvalsh", a, options, subset)


# ---- the singular value decomposition ----------------------------------------------------
@rrule(sl.svd)
@zero_at_empty_rrule(sl.svd)
def _svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
         lapack_driver="gesdd"):
    """a gets U diag(ct_s) Vh from the values; np.linalg's svd_pullback from the
    factors (full_matrices=True: square a only)."""
    real_only("scipy.linalg.svd", a)
    check_full_matrices(np.shape(a), full_matrices, compute_uv)
    u, s, vh = sl.svd(a, full_matrices=False, check_finite=check_finite,
                      lapack_driver=lapack_driver)
    check_spectrum("svd", s, "singular values")
    if not compute_uv:
        values = sl.svd(a, compute_uv=False, check_finite=check_finite,
                        lapack_driver=lapack_driver)
        return values, lambda ct: (u @ _diagonal(ct) @ vh,)
    return (u, s, vh), lambda ct: (svd_pullback(u, s, _T(vh), ct[0], ct[1], _T(ct[2])),)


@rrule(sl.svdvals)
@zero_at_empty_rrule(sl.svdvals)
def _svdvals(a, overwrite_a=False, check_finite=True):
    """a gets U diag(ct) Vh."""
    real_only("scipy.linalg.svdvals", a)
    u, s, vh = sl.svd(a, full_matrices=False, check_finite=check_finite)
    check_spectrum("svdvals", s, "singular values")
    return sl.svdvals(a, check_finite=check_finite), lambda ct: (u @ _diagonal(ct) @ vh,)
