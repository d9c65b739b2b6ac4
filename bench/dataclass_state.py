"""A dataclass as the state of an integrator, against the same code without the class.

  leapfrog(k, state0, steps, h)   200 steps of a State(t, pos, vel) of a float and two
                                  arrays, updated field by field; jvp along k and the
                                  initial arrays
  leapfrog_plain(...)             the same code on three locals
  leapfrog_stepper(...)           the same steps in a helper step(s, k, h) that takes the
                                  instance and writes its fields, called each step
  leapfrog_stepper_plain(...)     the same helper on three values, which it returns
  advance(state, k, h, steps)     the steps of leapfrog on a State given as an argument,
                                  whose fields it writes: jvp along k and the state

The unbox pass (fwdad/normalize/unbox.py) turns the instance into one local per field,
so the rule is optimized like the plain one; the helper gets the fields and gives them
back (normalize/field_calls.py); `advance`, given the instance, keeps its fields in
locals from the entry to the exit (normalize/param_locals.py), in the variant for the
kinds of the fields (forward/routes.py: two float vectors and a float, so np.sin and
np.sum of them are inlined as in the plain code's variant for its arguments). Target (the
specialization issue's): the class's jvp within 1.3x of the plain code's. The row
"instances kept" is the same jvp with the pass off (FWDAD_UNBOX=0; for `advance`,
FWDAD_FIELDS=0: the general rule, which writes each field through), for scale.
"""
from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Callable, Dict, List

import numpy as np

import fwdad
import fwdad.normalize
from bench.report import Row
from fwdad.forward import plain_instances
from fwdad.tangents import Tangent

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


def step(s, k, h):
    s.vel = s.vel - 0.5 * h * k * np.sin(s.pos)
    s.pos = s.pos + h * s.vel
    s.vel = s.vel - 0.5 * h * k * np.sin(s.pos)
    s.t += h


def leapfrog_stepper(k, pos0, vel0, steps, h):
    s = State(0.0, pos0, vel0)
    for _ in range(steps):
        step(s, k, h)
    return np.sum(s.pos * s.vel) + s.t


def step_plain(t, pos, vel, k, h):
    vel = vel - 0.5 * h * k * np.sin(pos)
    pos = pos + h * vel
    vel = vel - 0.5 * h * k * np.sin(pos)
    t += h
    return t, pos, vel


def leapfrog_stepper_plain(k, pos0, vel0, steps, h):
    t, pos, vel = 0.0, pos0, vel0
    for _ in range(steps):
        t, pos, vel = step_plain(t, pos, vel, k, h)
    return np.sum(pos * vel) + t


def advance(s, k, h, steps):
    for _ in range(steps):
        s.vel = s.vel - 0.5 * h * k * np.sin(s.pos)
        s.pos = s.pos + h * s.vel
        s.vel = s.vel - 0.5 * h * k * np.sin(s.pos)
        s.t += h
    return np.sum(s.pos * s.vel) + s.t


def advance_given(k, pos0, vel0, steps, h):
    """jvp of `advance` on a new State of these values (the call writes its fields)."""
    return advance(State(0.0, pos0, vel0), k, h, steps)


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
    name = f"leapfrog on a dataclass State(t, pos, vel), {STEPS} steps, n={SIZE}"
    helper = f"leapfrog with a helper step(state, k, h), {STEPS} steps, n={SIZE}"
    given = f"leapfrog on a State given as an argument, fields written, {STEPS} steps, n={SIZE}"
    return _rows(name, leapfrog, leapfrog_plain, repeats, medians, seconds, verdict) + \
        _rows(helper, leapfrog_stepper, leapfrog_stepper_plain, repeats, medians,
              seconds, verdict) + \
        _given_rows(given, repeats, medians, seconds, verdict)


def advance_jvp(in_locals: bool = True) -> tuple:
    """jvp of `advance` along k and the state's arrays, from a new State; with
    `in_locals` off, as FWDAD_FIELDS=0 runs it (the general rule)."""
    (k, pos, vel, steps, h), (dk, dpos, dvel, _, _) = _point()
    saved, plain_instances.IN_LOCALS = plain_instances.IN_LOCALS, in_locals
    try:
        return fwdad.jvp(advance, (State(0.0, pos, vel), k, h, steps),
                         (Tangent(t=0.0, pos=dpos, vel=dvel), dk, None, None))
    finally:
        plain_instances.IN_LOCALS = saved


def _given_rows(name: str, repeats: int, medians: Callable, seconds: Callable,
                verdict: Callable) -> List[Row]:
    args, tangents = _point()
    want = fwdad.jvp(leapfrog_plain, args, tangents)
    for in_locals in (True, False):
        if not np.allclose(advance_jvp(in_locals)[1], want[1], rtol=1e-10):
            raise SystemExit(f"{name}: fwdad's derivative is wrong")
    times: Dict[str, float] = medians(
        {"primal": lambda: advance_given(*args), "plain primal": lambda: leapfrog_plain(*args),
         "class": advance_jvp, "plain": lambda: fwdad.jvp(leapfrog_plain, args, tangents),
         "kept": lambda: advance_jvp(False)}, repeats)
    ratio = times["class"] / times["plain"]
    return [
        Row(name, "primal", seconds(times["primal"])),
        Row(name, "fwdad.jvp", seconds(times["class"]),
            f"{times['class'] / times['primal']:.2f}x",
            f"{ratio:.2f}x the plain code's jvp, " + verdict(ratio, 1.3)),
        Row(name, "same code without the class: fwdad.jvp", seconds(times["plain"]),
            f"{times['plain'] / times['plain primal']:.2f}x"),
        Row(name, "fwdad.jvp, fields written through (FWDAD_FIELDS=0)",
            seconds(times["kept"]), f"{times['kept'] / times['primal']:.2f}x",
            f"{times['kept'] / times['plain']:.2f}x the plain code's jvp"),
    ]


def _rows(name: str, with_class: Callable, plain: Callable, repeats: int,
          medians: Callable, seconds: Callable, verdict: Callable) -> List[Row]:
    args, tangents = _point()
    boxed = kept_boxed(with_class)
    jvps = {kind: (lambda f=f: fwdad.jvp(f, args, tangents))
            for kind, f in (("class", with_class), ("plain", plain), ("kept", boxed))}
    want = jvps["plain"]()
    for kind in ("class", "kept"):
        if not np.allclose(jvps[kind]()[1], want[1], rtol=1e-10):
            raise SystemExit(f"{name} ({kind}): fwdad's derivative is wrong")
    times: Dict[str, float] = medians(
        {"primal": lambda: with_class(*args), "plain primal": lambda: plain(*args),
         **jvps}, repeats)
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
