"""The complex rows of the NumPy rule tables: ufuncs and reductions on complex input,
checked along complex directions (test_rule perturbs real and imaginary parts alike).

Rows are `Case(fn, *args, **kwargs)`, as in cases.py. Points stay off the branch cuts
(CQ), where the complex functions are analytic.
"""
from __future__ import annotations

import cmath

import numpy as np

from fwdad.rules.cmathfns import TWINS
from tests.rules.case import C3, C23, CQ, V3, W3, Case

# every unary ufunc with a rule that takes complex numbers
UNARY = [np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh,
         np.tanh, np.arcsinh, np.arccosh, np.arctanh, np.exp, np.exp2, np.expm1, np.log,
         np.log2, np.log10, np.log1p, np.sqrt, np.square, np.reciprocal, np.absolute,
         np.negative, np.positive, np.conjugate, np.sign]
BINARY = [np.add, np.subtract, np.multiply, np.divide, np.power, np.float_power,
          np.maximum, np.minimum, np.fmax, np.fmin]
REAL6 = np.array([0.5, 1.5, 2.5, -0.7, 1.2, -2.0])   # negative bases: complex powers

COMPLEX_UFUNC_CASES = (
    [Case(f, CQ) for f in UNARY] + [Case(f, complex(CQ[1])) for f in UNARY]
    + [Case(f, CQ, CQ[::-1]) for f in BINARY] + [Case(f, CQ, REAL6) for f in BINARY]
    + [Case(f, REAL6, CQ) for f in BINARY] + [Case(f, complex(CQ[1]), 1.7) for f in BINARY]
    + [Case(np.sin, CQ.astype(np.complex64), rtol=2e-2),
       Case(np.power, CQ.astype(np.complex64), np.float32(2.5), rtol=2e-2),
       # powers: a complex zero base, a complex exponent of a zero and of a negative base
       Case(np.power, np.array([0j, 1 + 1j]), 2.5), Case(np.power, np.array([0j, 1 + 1j]),
                                                          np.array([2.5 + 1j, 0.5 + 0.2j])),
       Case(np.power, np.array([0.0, 1.5]), np.array([2.5 + 1j, 2.5 + 0.2j])),
       Case(np.float_power, np.array([-2.0, -0.5]), np.array([0.5 + 1j, 2.5 + 0.2j])),
       Case(np.float_power, CQ, 2), Case(np.power, CQ, 3), Case(np.power, CQ, -2)])

COMPLEX_REDUCTION_CASES = [
    Case(np.sum, C23, axis=1), Case(np.mean, C23), Case(np.prod, C23, axis=1),
    Case(np.prod, np.array([[0j, 1 + 1j, 2 - 1j], [0.5j, 0j, 0j]]), axis=1),
    Case(np.cumsum, C23, axis=1), Case(np.cumprod, C23), Case(np.cumprod, C3 * [1, 0, 1]),
    Case(np.max, C23), Case(np.min, C23, axis=1), Case(np.ptp, C23, axis=1),  # by (re, im)
    Case(np.sort, C23), Case(np.average, C23, axis=1), Case(np.average, C23, 1, C3),
    Case(np.dot, C23, C3), Case(np.dot, C23, V3), Case(np.vdot, C23, C23[::-1]),
    Case(np.inner, C23, C3), Case(np.outer, C3, W3), Case(np.tensordot, C23, C23.T, 1),
    Case(np.einsum, "ij,kj->ik", C23, C23), Case(np.trace, np.outer(C3, C3[::-1])),
    Case(np.diff, C23), Case(np.nansum, C23), Case(np.nanmean, C23, axis=0),
    Case(np.nanprod, C23), Case(np.nancumsum, C23), Case(np.nancumprod, C23, axis=1),
]

# cmath: each function is its ufunc on one complex number (fwdad/rules/cmathfns.py)
CMATH_CASES = (
    [Case(f, 0.3 + 0.2j) for f in TWINS]
    + [Case(f, 1.4 if f is cmath.acosh else 0.4) for f in TWINS]  # (off the cut)
    + [Case(cmath.sqrt, -2.0), Case(cmath.log, 0.3 - 0.8j), Case(cmath.log, 0.3 - 0.8j, 3.0),
       Case(cmath.log, 2.5, 1.5 + 0.5j), Case(cmath.phase, 0.3 - 0.8j),
       Case(cmath.polar, 0.3 - 0.8j), Case(cmath.polar, -1.5), Case(cmath.rect, 0.7, 0.4),
       Case(complex.conjugate, 0.3 - 0.8j)])
