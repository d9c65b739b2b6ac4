"""NumPy functions (and methods) that mutate none of their arguments and return new
arrays: their rules are pure (RuleEntry.pure) without each registration saying so.

    z = np.where(y > 0, y * y, -y)    # y is only read: the optimizer may split y into
                                      # a primal and a tangent local across this call

A function is listed only when, for every call the rule accepts, NumPy writes into no
argument, runs no code of the caller (no callback, no user class: its rule takes arrays),
and returns arrays it made (no view of an argument, never an argument itself). Left out:
views and reshapes (`reshape`, `transpose`, `split`, `broadcast_to`, `diag` of a
matrix, ...), functions that may return their argument (`asarray_chkfinite`,
`real_if_close`, `astype`, `diff` with n=0, `polyder` and `polyint` with m=0,
`matrix_power`), writers (`copyto`, `put`, `place`, `fill_diagonal`,
`nan_to_num(copy=False)`), callbacks (`vectorize`, `apply_along_axis`, `piecewise`) and
random draws. `out` is the caller's choice: a call that passes it is a mutation
(rules/purity.call_is_pure reads where the function takes it).
"""
from __future__ import annotations

from typing import Any, FrozenSet

import numpy as np

_NUMPY = ("arange", "linspace", "logspace", "geomspace", "full", "full_like", "copy",
          "vander", "diagflat", "tril", "triu", "where", "clip", "angle", "sinc",
          "interp", "unwrap", "convolve", "correlate", "cross", "kron", "inner", "vdot",
          "tensordot", "polyval", "polyadd", "polysub", "polymul", "polydiv",
          "polyfit", "poly", "sort", "partition", "ediff1d", "gradient",
          "trapezoid", "cumulative_sum", "cumulative_prod", "average", "cov", "corrcoef",
          "bincount", "unique", "extract", "select", "take_along_axis", "repeat", "tile",
          "pad", "append", "insert", "delete", "resize", "block", "hstack", "vstack",
          "dstack", "column_stack", "row_stack")
_LINALG = ("cholesky", "cond", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq",
           "matrix_norm", "norm", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "vector_norm", "multi_dot", "tensordot", "trace", "vecdot", "cross", "outer",
           "matmul")
_FFT = ("fftfreq", "rfftfreq", "fftshift", "ifftshift")
# methods: an array's that copy, and a NumPy scalar's (it cannot be written) that take no
# `out` (one given by position is not seen: C methods have no signature to read it from)
_NDARRAY = ("copy", "flatten", "repeat", "item", "tolist")
_GENERIC = ("astype", "conj", "conjugate", "copy", "flatten", "item", "ravel", "repeat",
            "reshape", "squeeze", "tolist", "transpose")


def _present(module: Any, names: tuple) -> set:
    """The functions of `module` among `names` (some are newer than the oldest NumPy
    fwdad runs on)."""
    return {getattr(module, name) for name in names if hasattr(module, name)}


FRESH_RESULTS: FrozenSet[Any] = frozenset(
    _present(np, _NUMPY) | _present(np.linalg, _LINALG) | _present(np.fft, _FFT)
    | _present(np.ndarray, _NDARRAY) | _present(np.generic, _GENERIC))
