"""The reverse Case row and the inputs the case tables share."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Tuple

import numpy as np

R = np.random.default_rng(7)
A = R.standard_normal((3, 4))
B = R.standard_normal((4, 2))
V3 = R.standard_normal(3)
V4 = R.standard_normal(4)
POS = np.abs(R.standard_normal((2, 3))) + 0.5  # in the domain of log, sqrt, ...
UNIT = R.uniform(-0.8, 0.8, (2, 3))  # in the domain of arcsin, arccos
STACK = R.standard_normal((2, 3, 4))


@dataclass
class Case:
    fn: Callable
    args: Tuple[Any, ...]
    kwargs: Dict[str, Any] = field(default_factory=dict)
    varmat: bool = True  # run through test_varmat_matvar too
    forward: bool = True  # fwdad.jvp can differentiate it (dot-product test)
    rtol: float = 1e-9  # of the dot-product test (looser for lossy casts)

    def __str__(self) -> str:
        name = getattr(self.fn, "__qualname__", None) or getattr(self.fn, "__name__", "f")
        module = getattr(self.fn, "__module__", "") or ""
        shapes = ",".join(str(np.shape(a)) if isinstance(a, np.ndarray) else
                          type(a).__name__ for a in self.args)
        return f"{module.strip('_')}.{name}({shapes})"
