"""Adding a cotangent into a recorded node's buffer (fwdad/transposition.py and its
rules): summed over the axes the node was broadcast along."""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.recording import Linear


def accumulate(buffers: list, target: Any, ct: Any) -> None:
    """buffers[target] += ct, summed over the axes it was broadcast along."""
    if type(target) is not Linear:
        return
    into = buffers[target.index]
    into += unbroadcast(np.asarray(ct), target.shape)


def unbroadcast(ct: np.ndarray, shape: tuple) -> np.ndarray:
    extra = ct.ndim - len(shape)
    if extra < 0:  # (a value of shape (1, n) may be written where n values go)
        return ct.reshape(shape)
    if extra > 0:
        ct = ct.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and ct.shape[i] != 1)
    return ct.sum(axis=axes, keepdims=True) if axes else ct
