"""Rules for SciPy's matrix square root and logarithm (`scipy.linalg`): sqrtm, logm.

    s = sl.sqrtm(a)   ->   s ds + ds s = da:  ds = solve_sylvester(s, s, da)
    l = sl.logm(a)    ->   dl = L(a, da), the top-right block of logm([[a, da], [0, a]])

Both tangents are computed by functions with rules (solve_sylvester, logm itself, and
np.concatenate for the block), so the rules can be differentiated again. Real results
only: SciPy returns a complex root or logarithm for a real matrix with an eigenvalue on
the negative real axis, and fwdad refuses it (as complex input is refused); and a
singular matrix, where neither function has a derivative, is refused too. This module
imports SciPy: fwdad/rules/scipy_support.py loads it when first needed.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from fwdad.dual import Dual
from fwdad.errors import InternalError, NonDifferentiableError, in_user_code
from fwdad.rules.batching import dense, fit, linear_call
from fwdad.rules.complex_input import real_only
from fwdad.rules.empty_inputs import zero_at_empty
from fwdad.rules.registry import frule
from fwdad.rules.scipy_linalg import blocks

_NAMES = {"sqrtm": "square root", "logm": "logarithm"}


def _refuse(call: str, problem: str, instead: str) -> None:
    at = in_user_code()
    raise NonDifferentiableError(f"scipy.linalg.{call}{at}: "
                                 f"{problem}. {instead}")


def check_real_input(call: str, a, options: dict) -> None:
    """Real a; and not disp=False (SciPy's deprecated form, which adds an error
    estimate to the result, with no derivative of its own)."""
    real_only(f"scipy.linalg.{call}", a)
    if options.get("disp", True) is False:
        _refuse(call, "fwdad differentiates it without disp=False, which SciPy deprecates "
                      "(1.16)", "Drop disp=False; compute the error estimate, if needed, "
                                "from the result, as SciPy's documentation shows.")


def check_real_result(call: str, a, out) -> None:
    """Refuse a complex result of a real a, and a singular a."""
    if np.iscomplexobj(out):
        _refuse(call, f"the {_NAMES[call]} of this real matrix is complex (it has an "
                      f"eigenvalue on the negative real axis), and fwdad differentiates "
                      f"{call} where its result is real only",
                "Differentiate at a matrix with no eigenvalue on the closed negative real "
                "axis (e.g. positive definite).")
    values = np.linalg.svd(a, compute_uv=False)
    tol = 8.0 * np.shape(a)[-1] * np.finfo(np.float64).eps * np.max(values, axis=-1)
    if np.any(np.min(values, axis=-1) <= tol):
        _refuse(call, f"this matrix is singular (to rounding), where its {_NAMES[call]} "
                      f"has no derivative (as sqrt and log have none at 0)",
                "Differentiate at an invertible matrix.")


def _da(a: Dual):
    return dense(a.primal, a.tangent)


@frule(sl.sqrtm)
@zero_at_empty(sl.sqrtm)
def _sqrtm(a: Dual, **options) -> Dual:
    """s s = a: s ds + ds s = da, a Sylvester equation (unique: s's eigenvalues have
    positive real parts)."""
    check_real_input("sqrtm", a.primal, options)
    s = sl.sqrtm(a.primal, **options)
    check_real_result("sqrtm", a.primal, s)
    return Dual(s, fit(linear_call(sl.solve_sylvester, s, s, _da(a)), s))


@frule(sl.logm)
def _logm(a: Dual, **options) -> Dual:
    """The Fréchet derivative of the logarithm at a along da (see logm_frechet)."""
    check_real_input("logm", a.primal, options)
    out = sl.logm(a.primal, **options)
    check_real_result("logm", a.primal, out)
    return Dual(out, fit(linear_call(logm_frechet, a.primal, _da(a)), out))


# Note: the block matrix [[a, e], [0, a]] has a's eigenvalues, so SciPy's logm of it is
# real where logm(a) is; against the complex step (logm(a + i h e).imag / h), its
# top-right block agrees to 1.4e-14 (relative) for ||e|| from 1e-8 to 1e8 times ||a||,
# with or without scaling e to a's norm first (Higham's advice), so it is not scaled.
def logm_frechet(a, e):
    """L(a, e), the Fréchet derivative of logm at a along e (a batch of e's: one block
    each): the top-right block of logm([[a, e], [0, a]])."""
    n, a = np.shape(a)[-1], np.broadcast_to(a, np.shape(e))
    out = sl.logm(blocks(a, e, np.zeros(np.shape(e)), a))[..., :n, n:]
    if np.iscomplexobj(out):  # (SciPy keeps a complex result whose imaginary part is
        raise InternalError(  # above 1e-10: not expected where logm(a) is real)
            "scipy.linalg.logm: the Fréchet derivative of a real logarithm came out "
            "complex. Please report it, with the matrix.")
    return out
