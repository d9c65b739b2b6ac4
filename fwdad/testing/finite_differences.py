"""Central finite differences (float64) of a function's outputs and final arguments."""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, Sequence

from fwdad.tangents import inner, perturb


def run_on_copies(f: Callable[..., Any], args: Sequence[Any], kwargs: Dict[str, Any]
                  ) -> tuple[Any, ...]:
    """`f(*args)` on deep copies: the output and the arguments as f leaves them."""
    args = copy.deepcopy(list(args))
    out = f(*args, **kwargs)
    return out, args


def directional(f: Callable[..., Any], args: Sequence[Any], kwargs: Dict[str, Any],
                direction: Sequence[Any], cotangent: Any, h: float = 1e-6) -> float:
    """The central-difference estimate of <cotangent, d(out, args after)/dt> along
    `direction`, where cotangent = (cotangent of out, cotangents of the args)."""
    def measure(step: float) -> float:
        moved = [perturb(a, t, step) for a, t in zip(args, direction)]
        out, after = run_on_copies(f, moved, kwargs)
        return inner(cotangent, (out, after))
    return (measure(h) - measure(-h)) / (2 * h)
