"""Where the elements of a result came from: the pullback of functions that only move
elements (reshapes, selections, joins, pads, writes with repeated indices)."""
from __future__ import annotations

from typing import Any

import numpy as np


def positions(shape: tuple, start: int = 1) -> np.ndarray:
    """Each element's flat position (from `start`): a function that only moves
    elements, applied to these, says where each output element came from (0: from no
    input, as the zeros tril or a constant pad fills in)."""
    return np.arange(start, start + int(np.prod(shape))).reshape(shape)


def scatter(source: np.ndarray, ct: Any, shape: tuple) -> np.ndarray:
    """The cotangent of an input of `shape` that `source` (from positions) was taken
    from: each output cotangent added back where its element came from."""
    if np.iscomplexobj(ct):  # (bincount adds real weights only)
        return scatter(source, np.real(ct), shape) + 1j * scatter(source, np.imag(ct), shape)
    size = int(np.prod(shape))
    ct = np.broadcast_to(ct, np.shape(source)).ravel()
    return np.bincount(np.ravel(source), ct, minlength=size + 1)[1:size + 1].reshape(shape)
