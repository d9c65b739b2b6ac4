"""The rows of the rules issue 20 added outside np.fft: np.rollaxis, np.row_stack,
np.partition, np.real_if_close (fwdad/rules/reordering.py, ufuncs.py) and np.einsum's
interleaved form (linalg.py), with complex rows; and float32 rows (float32 in, float32
tangents out), for these and for rules that lost float32 before. Rows are
`Case(fn, *args, **kwargs)`, as in cases.py."""
from __future__ import annotations

import operator

import numpy as np

from tests.rules.case import C3, C23, M23, M34, T223, V3, W3, Case

REORDERING_CASES = [
    Case(np.rollaxis, T223, 2), Case(np.rollaxis, T223, -1, 1), Case(np.rollaxis, T223, 0, 3),
    Case(np.rollaxis, C23, 1),
    Case(np.partition, M34, 1), Case(np.partition, M34, (0, 2), axis=0),
    Case(np.partition, M34, 5, axis=None),
    Case(np.partition, C23, 1),
    Case(np.real_if_close, V3), Case(np.real_if_close, C3, tol=1000),
    Case(np.einsum, M23, [0, 1], M34, [1, 2], [0, 2]), Case(np.einsum, C23, [0, 1], C23, [0, 1]),
    Case(np.einsum, T223, [Ellipsis, 1, 2], M23.T, [2, 3], [Ellipsis, 3]),
    Case(np.einsum, M34[:, :3], [0, 0]),
    Case(np.einsum, V3, [0]),
]
if hasattr(np, "row_stack"):  # (deprecated since NumPy 2.0)
    REORDERING_CASES += [Case(np.row_stack, [V3, W3]), Case(np.row_stack, (M23, V3))]

F34 = M34.astype(np.float32)
REORDERING_FLOAT32_CASES = [  # float32 in, float32 (complex64) tangents out
    Case(np.rollaxis, F34, 1, rtol=2e-2), Case(np.partition, F34, 2, rtol=2e-2),
    Case(np.einsum, F34, [0, 1], F34, [2, 1], rtol=2e-2),
    Case(np.real_if_close, F34, rtol=2e-2), Case(np.fft.fft, F34, rtol=2e-2),
    Case(np.fft.irfftn, F34 + 1j * F34[::-1], rtol=2e-2),
    # rules that gave tangents of another dtype than their results (issue 20, item 3).
    # batch=0 with a Python float operand: a batch of its tangents is a float64 array,
    # which promotes the batch of a float32 result in every binary rule (a known gap)
    Case(operator.pow, F34 + 2.0, F34, rtol=2e-2),
    Case(operator.pow, 1.3, F34, rtol=2e-2, batch=0),
    Case(np.dot, 2.0, F34, rtol=2e-2, batch=0), Case(np.inner, F34, 0.5, rtol=2e-2, batch=0),
]
