"""The phases of complex singular vectors and eigenvectors of Hermitian matrices.

Each vector of a complex svd or eigh is defined up to a phase e^{i phi}: the formulas
give the tangent that leaves the phase alone, but NumPy's values follow LAPACK's
convention, which makes one row of the vectors real. `in_numpy_phase` moves the tangent
to that convention (adding i c_k v_k to column k), so that it is the derivative of what
NumPy returns; where the convention is not recognized, it refuses.

    eigh(a, UPLO='L'): row 0 of V real; UPLO='U': its last row real
    svd(a), m >= n: row 0 of V (column 0 of Vh) real; m < n, when so: row 0 of U real
    eig(a), complex vectors: the largest component of each unit vector real (LAPACK geev)
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from fwdad.errors import FwdadError


def real_row(v, rows) -> Optional[int]:
    """The first of `rows` (row indices) in which every (unit) vector of v is real, up
    to rounding, or None."""
    tol = 100 * np.finfo(v.dtype).eps
    return next((r for r in rows if np.all(np.abs(v[..., r, :].imag) <= tol)), None)


def phase_shift(v, dv, row: int):
    """c with Im(dv + i c v)[row] = 0, for v real in `row`: c_k = -Im dv[row, k] / v[row, k]."""
    return -dv[..., row, :].imag / v[..., row, :].real


def refuse(fn: str) -> None:
    raise FwdadError(
        f"fwdad cannot differentiate the vectors of {fn} of a complex matrix of this "
        f"shape: each is defined up to a phase, and NumPy's phase convention for it is not "
        f"one fwdad knows, so the derivative of the vectors NumPy returns is unknown. "
        f"Differentiate a quantity that does not depend on the phases (the values alone, "
        f"u @ diag(s) @ vh, abs(u)), or pass a real matrix.")


def largest_component_real(v, dv):
    """dv + i c v (c real, per column), with Im dv = 0 at the largest component of each
    column of v, which eig makes real (of the real ones, where rounding hides the tie)."""
    tol = 100 * np.finfo(v.dtype).eps
    size = np.where(np.abs(v.imag) <= tol, np.abs(v), -1.0)
    rows = np.argmax(size, axis=-2)[..., None, :]
    top = np.take_along_axis(v, rows, axis=-2).real
    batch = (1,) * (dv.ndim - v.ndim)  # a batch of tangents: one more leading axis
    picked = np.take_along_axis(dv, rows.reshape(batch + rows.shape), axis=-2)
    return dv - 1j * v * (picked.imag / top)
