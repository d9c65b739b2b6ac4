"""The plain run of a program and its finite-difference reference, or why it has none.

`reference(f, args, tangents, filename)` calls f on copies of the arguments and returns
a `Reference`: the output, the arguments' state after the call, and the central
difference along the tangents, or `.discard`, the reason the program cannot serve as a
test (it raises, is not finite or too large, or its finite differences are not stable: the executed
lines change within a step, one-sided differences disagree at a kink, or the two step
sizes disagree).
"""
from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from tests.fuzz.compare import fresh, leaves, mismatch, perturb, scaled_difference

STEPS = (1e-5, 1e-4)
STABLE = dict(rtol=2e-6, atol=2e-7)     # the two step sizes must agree this well
KINK = 1e-3                              # one-sided differences apart by more: a kink
# a value past this (a local or the output) has grown through repeated squaring: what is
# computed from it (sin of 1e17, say) changes by whole periods within a step, and
# finite differences carry no digits
LARGE = 1e8
# the functions SciPy's solvers call (scientific.py's, defined in the program's file, with
# no branch) run as many times as the solver iterates, a count that changes within a step
# while the program takes the same branches: their lines are left out of the trace
SOLVERS = (f"{os.sep}scipy{os.sep}optimize{os.sep}", f"{os.sep}scipy{os.sep}integrate{os.sep}")


@dataclass
class Reference:
    out: Any = None
    args_after: tuple = ()
    fd: Any = None
    discard: Optional[str] = None


def run(f: Callable, args: tuple) -> tuple:
    """f on copies of args: (output, the copies after the call). Warnings are errors."""
    copies = fresh(args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            out = f(*copies)
    return out, copies


def traced(f: Callable, args: tuple, filename: str, sizes: Optional[list] = None) -> tuple:
    """run(f, args) and the sequence of lines of `filename` it executed; with `sizes`,
    also the largest magnitude of a float local at each line, appended to it."""
    lines: list = []

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != filename:
            return None
        if event == "call" and frame.f_back is not None and \
                any(s in frame.f_back.f_code.co_filename for s in SOLVERS):
            return None
        if event == "line":
            lines.append(frame.f_lineno)
            if sizes is not None:
                sizes.append(_largest(frame.f_locals.values()))
        return tracer
    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        out, after = run(f, args)
    finally:
        sys.settrace(old)
    return out, after, lines


def _largest(values) -> float:
    floats = [np.max(np.abs(v)) for v in values
              if isinstance(v, (float, complex, np.floating, np.complexfloating))
              or isinstance(v, np.ndarray) and v.dtype.kind in "fc" and v.size]
    return max(floats, default=0.0)


def reference(f: Callable, args: tuple, tangents: tuple, filename: str) -> Reference:
    sizes: list = []
    try:
        out, after, trace = traced(f, args, filename, sizes)
    except Exception as exc:
        return Reference(discard=f"plain call raises {type(exc).__name__}")
    if max(sizes, default=0.0) > LARGE:
        return Reference(discard="a value too large for finite differences")
    if not all(np.all(np.isfinite(np.asarray(x, float))) for x in leaves(out)):
        return Reference(discard="output not finite")
    if any(np.any(np.abs(np.asarray(x, float)) > LARGE) for x in leaves(out)):
        return Reference(discard="a value too large for finite differences")
    estimates = []
    for h in STEPS:
        try:
            plus, _, trace_plus = traced(f, perturb(args, tangents, h), filename)
            minus, _, trace_minus = traced(f, perturb(args, tangents, -h), filename)
        except Exception as exc:
            return Reference(discard=f"perturbed call raises {type(exc).__name__}")
        if trace_plus != trace or trace_minus != trace:
            return Reference(discard="branch changes within a step")
        estimates.append((plus, minus))
    central = [scaled_difference(p, m, 2 * h) for (p, m), h in zip(estimates, STEPS)]
    return Reference(out, after, central[0], _unstable(out, estimates[0], central))


def _unstable(out: Any, first: tuple, central: list) -> Optional[str]:
    forward = scaled_difference(first[0], out, STEPS[0])
    backward = scaled_difference(out, first[1], STEPS[0])
    if mismatch(forward, backward, rtol=0.0, atol=KINK):
        return "kink: one-sided differences disagree"
    if mismatch(central[1], central[0], **STABLE):
        return "step sizes disagree"
    return None
