"""Adding a cotangent into a recorded node's buffer (fwdad/transposition.py and its
rules): summed over the axes the node was broadcast along."""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.recording import Linear
from fwdad.reverse.adjoints import unbroadcast


def accumulate(buffers: list, target: Any, ct: Any) -> None:
    """buffers[target] += ct, summed over the axes it was broadcast along."""
    if type(target) is not Linear:
        return
    into = buffers[target.index]
    into += unbroadcast(np.asarray(ct), target.shape)
