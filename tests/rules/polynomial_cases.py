"""Cases for NumPy's polynomial functions on coefficient arrays
(fwdad/rules/polynomials.py)."""
from __future__ import annotations

import numpy as np

from tests.rules.case import V3, W3, Case

V5 = np.array([0.3, -1.2, 0.5, 2.0, -0.7])
X6 = np.linspace(-1.0, 2.0, 6)
Y6 = np.sin(X6)

POLYNOMIAL_CASES = [
    Case(np.polyadd, V5, W3[:2]), Case(np.polyadd, W3[:2], V5), Case(np.polyadd, V3, W3),
    Case(np.polysub, W3[:2], V5), Case(np.polysub, V5, 0.5), Case(np.polysub, V3, W3),
    Case(np.polymul, V5, W3), Case(np.polydiv, V5, W3), Case(np.polydiv, V5, W3[:1]),
    Case(np.polydiv, W3, V5),  # a lower degree: the quotient 0, the remainder the dividend
    Case(np.polydiv, np.array([1.0, -3.0, 2.0]), np.array([1.0, -1.0])),  # exact: r = 0
    Case(np.polydiv, [0.3, 1.2, -0.5], 2.0), Case(np.polyder, V5), Case(np.polyder, V5, 3),
    Case(np.polyder, V5, 0), Case(np.polyint, V5), Case(np.polyint, V5, 2, k=[0.5, -1.0]),
    Case(np.polyint, V3, 3, k=2.0), Case(np.poly, V3),
    Case(np.polyfit, X6, Y6, 2), Case(np.polyfit, X6, np.stack([Y6, Y6 * Y6], 1), 3),
    Case(np.polyfit, X6, Y6, 2, w=np.linspace(1.0, 2.0, 6)),
    # np.roots: real roots (1, 2, -3), a complex pair, a simple root at 0 (a trailing zero
    # coefficient), complex coefficients, a list
    Case(np.roots, np.array([1.0, 0.0, -7.0, 6.0])), Case(np.roots, V5[:4]),
    Case(np.roots, np.array([1.0, 0.5, 2.0, -1.0])),
    Case(np.roots, np.array([1.0, -3.0, 2.0, 0.0])),
    Case(np.roots, np.array([1.0 + 0.5j, -3.0, 5.0 - 1.0j])), Case(np.roots, [2.0, -1.0]),
]
