"""Central finite differences of a function's outputs and final arguments, with a step
suited to the precision of the arguments."""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from fwdad.probe import probe
from fwdad.tangents import inner, perturb

STEP, RTOL = 1e-6, 1e-6  # for float64 arguments (and Python floats)


def coarsest_eps(args: Any) -> float:
    """The machine epsilon of the least precise float among `args` (in containers and
    instances' fields too): float64's when there is none coarser."""
    eps = float(np.finfo(np.float64).eps)
    stack = [args]
    while stack:
        x = stack.pop()
        if isinstance(x, (np.ndarray, np.floating, np.complexfloating)) and \
                x.dtype.kind in "fc":
            eps = max(eps, float(np.finfo(x.dtype).eps))
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif probe(x, "__dict__") is not None and not isinstance(x, type):
            stack.extend(vars(x).values())
    return eps


def default_step(args: Any, h: Optional[float] = None) -> float:
    """`h`, or STEP for float64 arguments; for less precise ones the cube root of their
    eps (float32: 4.9e-3, float16: 0.1), where the rounding of the perturbed point
    (eps / h) and the truncation of central differences (h^2) balance: 1e-6 moved a
    float32 near 1 by a step rounded to 6%."""
    if h is not None:
        return h
    eps = coarsest_eps(args)
    return STEP if eps <= np.finfo(np.float64).eps else eps ** (1.0 / 3.0)


def default_rtol(args: Any, rtol: Optional[float] = None) -> float:
    """`rtol`, or RTOL for float64 arguments; for less precise ones 10 eps^(2/3), the
    error of central differences at the step above (float32: 1.7e-4)."""
    if rtol is not None:
        return rtol
    eps = coarsest_eps(args)
    return RTOL if eps <= np.finfo(np.float64).eps else 10.0 * eps ** (2.0 / 3.0)


def run_on_copies(f: Callable[..., Any], args: Sequence[Any], kwargs: Dict[str, Any]
                  ) -> tuple[Any, ...]:
    """`f(*args)` on deep copies: the output and the arguments as f leaves them."""
    args = copy.deepcopy(list(args))
    out = f(*args, **kwargs)
    return out, args


def directional(f: Callable[..., Any], args: Sequence[Any], kwargs: Dict[str, Any],
                direction: Sequence[Any], cotangent: Any, h: Optional[float] = None
                ) -> float:
    """The central-difference estimate of <cotangent, d(out, args after)/dt> along
    `direction`, where cotangent = (cotangent of out, cotangents of the args); the step
    `h` defaults to one suited to the arguments' precision (`default_step`)."""
    h = default_step(args, h)
    def measure(step: float) -> float:
        moved = [perturb(a, t, step) for a, t in zip(args, direction)]
        out, after = run_on_copies(f, moved, kwargs)
        return inner(cotangent, (out, after))
    return (measure(h) - measure(-h)) / (2 * h)
