"""Where eigenvalues and singular values have no derivative: refused, for NumPy's and
SciPy's decompositions alike.

Ascending eigenvalues (descending singular values) are not differentiable where two of
them meet: the one-sided derivatives are the sorted eigenvalues of a block, not a linear
map, and the eigenvectors there are not unique; a singular value is |x| at zero. The
rules' formulas would give infinities, or the derivative of one arbitrary split.
"""
from __future__ import annotations

import numpy as np

from fwdad.errors import NonDifferentiableError, in_user_code

# Values closer than this many units of rounding (times n and the largest value) are
# taken as equal: LAPACK computes them to about n eps max|w|, so their computed gap, and
# the derivative 1 / gap, would be noise.
ROUNDING_UNITS = 8.0

_WHY = {
    "eigenvalues": "ascending eigenvalues have no derivative where two of them meet, and "
                   "the eigenvectors of a repeated eigenvalue are not unique",
    "singular values": "descending singular values have no derivative where two of them "
                       "meet, nor at zero (a singular value is |x| there), and the "
                       "singular vectors of a repeated one are not unique",
}
_INSTEAD = {
    "eigenvalues": "np.trace(a) for the sum of the eigenvalues",
    "singular values": "np.linalg.norm(a) for the root of the sum of their squares",
}


def refuse(call: str, what: str, problem: str) -> None:
    """Raise for `call` (its full name, e.g. np.linalg.eigh): `problem` with `what`."""
    at = in_user_code()
    raise NonDifferentiableError(
        f"{call}{at}: {problem}, and {_WHY[what]}. "
        f"fwdad refuses rather than return an infinite or arbitrary derivative. "
        f"Differentiate at a matrix whose {what} are distinct (and nonzero), or write "
        f"the quantity without splitting them ({_INSTEAD[what]}).")


def _rounding(values):
    n = np.shape(values)[-1]
    return ROUNDING_UNITS * n * np.finfo(np.float64).eps * \
        np.max(np.abs(values), axis=-1, keepdims=True)


def repeated(values) -> bool:
    """Whether two of the sorted `values` (along the last axis) are equal to rounding."""
    return bool(np.any(np.abs(np.diff(values, axis=-1)) <= _rounding(values)))


def split_at_a_tie(values, weights) -> bool:
    """Whether two neighbours of the sorted `values` are equal to rounding but their
    `weights` (a cotangent of them) differ: the weighted sum has no derivative there."""
    tied = np.abs(np.diff(values, axis=-1)) <= _rounding(values)
    weights = np.broadcast_to(weights, np.shape(values))
    return bool(np.any(tied & (np.diff(weights, axis=-1) != 0)))


def check_spectrum(call: str, values, what: str) -> None:
    """Refuse eigenvalues or singular values (`what`) two of which are equal to rounding;
    and a singular value zero to rounding."""
    if repeated(values):
        refuse(call, what, f"two of the {what} are equal to rounding")
    if what == "singular values" and np.any(np.abs(values) <= _rounding(values)):
        refuse(call, what, "a singular value is zero to rounding (a is rank deficient)")


def check_triangular_factor(call: str, factor, name: str) -> None:
    """Refuse a triangular `factor` (R of a QR, U of an LU) with a diagonal entry zero
    to rounding: a is rank deficient there, and the factorization's derivative, which
    solves with the factor, is not defined."""
    diagonal = np.abs(np.diagonal(factor, axis1=-2, axis2=-1))
    if np.any(diagonal <= _rounding(diagonal)):
        raise NonDifferentiableError(
            f"{call}{in_user_code()}: a is rank deficient ({name} has a zero on its "
            f"diagonal, to rounding), where the factors have no derivative (fwdad's "
            f"formula solves with {name}). Differentiate at a matrix of full rank.")


def check_full_matrices(call: str, shape, full_matrices: bool, compute_uv: bool) -> None:
    """Refuse the full U or Vh of a non-square matrix: their extra columns are any
    orthonormal completion, with no derivative."""
    m, n = shape[-2:]
    if compute_uv and full_matrices and m != n:
        at = in_user_code()
        raise NonDifferentiableError(
            f"{call}{at}: fwdad differentiates the "
            f"singular vectors of a non-square matrix ({m} x {n}) with "
            f"full_matrices=False only: the extra columns of full_matrices=True are not "
            f"unique, so they have no derivative. Pass full_matrices=False.")
