"""Cases for np.block, np.asarray_chkfinite, the NaN-skipping median and quantiles
(fwdad/rules/numpy_library.py) and the NumPy functions without a derivative beside them."""
from __future__ import annotations

import numpy as np

from tests.rules.case import M23, V3, Case

# (finite: finite differences cannot step a NaN; tests/rules/test_numpy_library.py has
# the NaN-skipping)
HOLES = np.array([[0.3, 1.1, -2.5, 0.9], [0.4, 0.1, 2.0, -0.6], [1.3, -0.2, 0.7, 0.05]])
SQUARE = np.array([[1.0, 2.0], [3.0, 4.0]])

LIBRARY_CASES = [
    Case(np.block, [[SQUARE, SQUARE * 2.0], [np.ones((1, 2)), SQUARE[:1]]]),
    Case(np.block, [V3, 3.0, V3]), Case(np.block, [[[SQUARE]], [[SQUARE]]]),
    Case(np.asarray_chkfinite, M23), Case(np.asarray_chkfinite, [0.3, 1.2]),
    Case(np.nanmedian, HOLES), Case(np.nanmedian, HOLES, axis=0),
    Case(np.nanmedian, HOLES, axis=1, keepdims=True), Case(np.nanquantile, HOLES, 0.3),
    Case(np.nanquantile, HOLES, [0.2, 0.9], axis=1),
    Case(np.nanquantile, HOLES, [0.2, 0.9], axis=0, keepdims=True),
    Case(np.nanpercentile, HOLES, 30.0, axis=-1), Case(np.nanpercentile, M23, [10.0, 75.0]),
]

LIBRARY_NONDIFF_CASES = [
    Case(np.isposinf, V3), Case(np.isneginf, V3),
    Case(np.hanning, 5), Case(np.hamming, 5), Case(np.blackman, 5), Case(np.bartlett, 5),
]
