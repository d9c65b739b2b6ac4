"""The reverse rule cases for NumPy: ufuncs, reductions, shapes, linear algebra,
creation. One Case per row, run like the rows of cases.py."""
from __future__ import annotations

import numpy as np

from tests.reverse.case import A, B, POS, STACK, UNIT, V3, V4, Case  # noqa: F401

WIDE = np.abs(A) + 1.2  # in the domain of arccosh


def _ufunc_cases():
    unit = [np.arcsinh, np.arctanh, np.deg2rad, np.rad2deg, np.exp2, np.cbrt,
            np.reciprocal, np.fabs, np.conjugate, np.sin, np.cos, np.tan, np.arcsin,
            np.arccos, np.arctan, np.sinh, np.cosh, np.tanh, np.exp, np.expm1, np.square]
    positive = [np.log2, np.log10, np.log, np.log1p, np.sqrt]
    binary = [np.float_power, np.arctan2, np.hypot, np.logaddexp, np.logaddexp2,
              np.copysign, np.nextafter, np.maximum, np.minimum, np.fmax, np.fmin]
    out = [Case(f, (UNIT,)) for f in unit] + [Case(f, (POS,)) for f in positive]
    out += [Case(f, (POS, UNIT)) for f in binary] + [Case(np.arccosh, (WIDE,))]
    out += [Case(np.maximum, (A, V4)), Case(np.minimum, (0.1, A)),
            Case(np.remainder, (POS * 3.0, POS)), Case(np.fmod, (UNIT * 5.0, POS)),
            Case(np.ldexp, (A, np.array([1, -2, 0, 3]))), Case(np.modf, (A * 3.0,)),
            Case(np.divmod, (POS * 3.0, POS)), Case(np.real, (A,)),
            Case(np.imag, (A,), forward=False), Case(np.clip, (A, -0.5, 0.5)),
            Case(np.clip, (A, V4 * 0.1 - 0.3), dict(a_max=None)),
            Case(np.ndarray.clip, (A,), dict(max=0.2)),
            Case(np.where, (A > 0, A, B.T[:1])), Case(np.sign, (A,), varmat=False)]
    return out


NUMPY_CASES = _ufunc_cases()
