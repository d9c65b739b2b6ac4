"""A dataclass as the state of an integrator, against the same code without the class.

  leapfrog(k, state0, steps, h)   200 steps of a State(t, pos, vel) of a float and two
                                  arrays, updated field by field; jvp along k and the
                                  initial arrays
  leapfrog_plain(...)             the same code on three locals

The unbox pass (fwdad/normalize/unbox.py) turns the instance into one local per field,
so the rule is optimized like the plain one. Target (the specialization issue's): the
class's jvp within 1.3x of the plain code's. The row "instances kept" is the same jvp
with the pass off (FWDAD_UNBOX=0), for scale.
"""
from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Callable, Dict, List

import numpy as np

import fwdad
import fwdad.normalize
from bench.report import Row

STEPS, SIZE = 200, 64


@dataclass
class State:
    t: float
    pos: np.ndarray
    vel: np.ndarray


def leapfrog(k, pos0, vel0, steps, h):
    s = State(0.0, pos0, vel0)
    for _ in range(steps):
        s.vel = s.vel - 0.5 * h * k * np.sin(s.pos)
        s.pos = s.pos + h * s.vel
        s.vel = s.vel - 0.5 * h * k * np.sin(s.pos)
        s.t += h
    return np.sum(s.pos * s.vel) + s.t


def leapfrog_plain(k, pos0, vel0, steps, h):
    t, pos, vel = 0.0, pos0, vel0
    for _ in range(steps):
        vel = vel - 0.5 * h * k * np.sin(pos)
        pos = pos + h * vel
        vel = vel - 0.5 * h * k * np.sin(pos)
        t += h
    return np.sum(pos * vel) + t


def kept_boxed(fn: Callable) -> Callable:
    """A copy of `fn` whose rule is built with the unbox pass off."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__)
    saved, fwdad.normalize.UNBOX = fwdad.normalize.UNBOX, False
    try:
        fwdad.jvp(copy, *_point())  # builds the rule now, with the pass off
    finally:
        fwdad.normalize.UNBOX = saved
    return copy


def _point() -> tuple:
    rng = np.random.default_rng(0)
    pos, vel, dpos, dvel = (rng.standard_normal(SIZE) for _ in range(4))
    return (0.8, pos, vel, STEPS, 0.01), (1.0, dpos, dvel, None, None)


def rows(repeats: int, medians: Callable, seconds: Callable, verdict: Callable
         ) -> List[Row]:
    """The table rows (bench/run.py passes its own timer and formatting)."""
    args, tangents = _point()
    boxed = kept_boxed(leapfrog)
    jvps = {name: (lambda f=f: fwdad.jvp(f, args, tangents))
            for name, f in (("class", leapfrog), ("plain", leapfrog_plain),
                            ("kept", boxed))}
    want = jvps["plain"]()
    for name in ("class", "kept"):
        if not np.allclose(jvps[name]()[1], want[1], rtol=1e-10):
            raise SystemExit(f"dataclass state ({name}): fwdad's derivative is wrong")
    times: Dict[str, float] = medians(
        {"primal": lambda: leapfrog(*args), "plain primal": lambda: leapfrog_plain(*args),
         **jvps}, repeats)
    name = f"leapfrog on a dataclass State(t, pos, vel), {STEPS} steps, n={SIZE}"
    ratio = times["class"] / times["plain"]
    return [
        Row(name, "primal", seconds(times["primal"])),
        Row(name, "fwdad.jvp", seconds(times["class"]),
            f"{times['class'] / times['primal']:.2f}x",
            f"{ratio:.2f}x the plain code's jvp, " + verdict(ratio, 1.3)),
        Row(name, "same code without the class: primal", seconds(times["plain primal"])),
        Row(name, "same code without the class: fwdad.jvp", seconds(times["plain"]),
            f"{times['plain'] / times['plain primal']:.2f}x"),
        Row(name, "fwdad.jvp, instances kept (FWDAD_UNBOX=0)", seconds(times["kept"]),
            f"{times['kept'] / times['primal']:.2f}x",
            f"{times['kept'] / times['plain']:.2f}x the plain code's jvp"),
    ]
