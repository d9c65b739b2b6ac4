"""Recorded reverse steps -> the source of one flat generator: forward, then backward.

    def f_reverse_schedule(a0, a1):
        _writes, _undo = [], []
        v1 = a0 * a1                        # forward: plain values, no Var, no tape
        if not v1 > 0.0:                    # a guard: the full rule runs instead
            raise _fw_Fallback
        _seed, _adjoints = yield (v1,), _writes
        while True:                         # backward, as often as the pullback runs
            ct_a0, ct_a1, = _adjoints       # adjoints are plain locals
            ct_v1 = 0.0
            ct_v1 += _seed[0]
            ct_a0 += ct_v1 * a1             # a step template (templates.py)
            ct_a1 += ct_v1 * a0
            _seed, _adjoints = yield (ct_a0, ct_a1, )

The steps print themselves (steps.py) into a Writer (writer.py); this
module puts the parts together. Note: the lines are printed from small per-step
templates rather than built as syntax trees, as forward schedules are: a reverse step's
code reads the adjoint names of its inputs, and two strings per step kept the printers
short; the text is parsed once, by compile_function, which keeps it as `.source`.
"""
from __future__ import annotations

import ast
import builtins
from typing import Any, Callable, Dict, List

import numpy as np

from fwdad.compile import compile_function
from fwdad.reverse_schedules.record import ReverseRecorder
from fwdad.reverse_schedules.steps import NO_EFFECT, undo, write_step
from fwdad.reverse_schedules.writer import Writer, add_to_array


def reached_variables(rec: ReverseRecorder, outputs: List[Any]) -> set:
    """The variables whose adjoint the tape would make: rule_calls.Chain skips the
    pullback of a VarMat nothing reached (its infinities never become nans)."""
    reached = {o for o in outputs if rec.is_variable(o)}
    for step in reversed(rec.steps):
        if step.kind == "pure":
            out = step.outputs[0]
            if rec.shapes[out] is None or out in reached:
                reached.update(step.args[i] for i in step.info["at"])
        elif step.kind in ("index", "view", "write"):
            reached.update(a for a in step.args if rec.is_variable(a))
    return reached


def used_refs(rec: ReverseRecorder, outputs: List[Any]) -> set:
    """The refs some step, guard or output reads (a plain call without effects whose
    outputs nothing reads is left out of the schedule)."""
    used = {o for o in outputs if isinstance(o, str)}
    for step in reversed(rec.steps):
        dead = step.kind == "plain" and step.callee in NO_EFFECT and not any(
            o in used for o in step.outputs if o is not None)
        if not dead:
            used.update(a for a in step.args if isinstance(a, str))
            used.update(v for v in step.kwargs.values() if isinstance(v, str))
            if step.kind not in ("plain", "unpack", "read", "fresh"):
                used.update(o for o in step.outputs if o is not None)
    return used


def build_source(rec: ReverseRecorder, leaves: List[str], containers: List[str],
                 outputs: List[Any], name: str) -> tuple:
    """The source of the schedule of a valid recording, and the constants it names."""
    w = Writer(rec)
    w.reached = reached_variables(rec, outputs)
    w.used = used_refs(rec, outputs)
    for index, step in enumerate(rec.steps):
        write_step(w, step, index)
    variables = [r for r in leaves if rec.is_variable(r)]
    forward = containers + w.forward
    if w.writes:  # a guard failing after a write puts the old values back first
        forward = ["try:"] + ["    " + line for line in forward] + [
            "except BaseException:", f"    {w.bind(undo)}(_undo)", "    raise"]
    returned = ", ".join(w.atom(o) for o in outputs)
    body = ["_writes, _undo = [], []"] + forward + [
        f"_seed, _adjoints = yield ({returned},), _writes", "while True:"]
    backward = []
    if variables:
        backward.append(f"{', '.join('ct_' + r for r in variables)}, = _adjoints")
    preallocated = _preallocated(rec, variables, outputs)
    backward += _buffers(w, rec, preallocated)
    for i, o in enumerate(outputs):
        if rec.is_variable(o) and rec.shapes[o] is None:
            backward.append(f"ct_{o} += _seed[{i}]")
        elif rec.is_variable(o):
            backward += [f"if _seed[{i}] is not None:",
                         f"    {w.bind(add_to_array)}(ct_{o}, _seed[{i}])"]
    backward += w.lines(preallocated)
    backward.append(f"_seed, _adjoints = yield ({''.join('ct_' + r + ', ' for r in variables)})")
    body += ["    " + line for line in backward]
    text = "\n".join("    " + line for line in body)
    return f"def {name}_reverse_schedule({', '.join(leaves)}):\n{text}\n", w.constants


def _preallocated(rec: ReverseRecorder, arguments: List[str], outputs: List[Any]) -> set:
    """The array variables whose adjoint must exist before the backward pass adds to
    it: arguments (the caller's), outputs (seeded), views and their bases (which share
    it), and arrays indexed by copy or written into (changed in place)."""
    out = set(arguments) | {o for o in outputs if rec.is_variable(o)}
    for step in rec.steps:
        if step.kind in ("view", "write", "index"):
            out.update(a for a in step.args if rec.is_variable(a))
            out.update(o for o in step.outputs if o is not None)
    return out


def _buffers(w: Writer, rec: ReverseRecorder, preallocated: set) -> list:
    """0.0 for every scalar variable; zeros, or a view of another's, for the arrays
    `preallocated` (in the order the variables were made: a view after its base)."""
    out = []
    views = {line.split(" = ")[0]: line for line in w.prologue}
    for step in rec.steps:
        for ref in step.outputs:
            if ref is None or not rec.is_variable(ref) or ref.startswith("a"):
                continue
            if f"ct_{ref}" in views:
                out.append(views[f"ct_{ref}"])
            elif rec.shapes[ref] is None:
                out.append(f"ct_{ref} = 0.0")
            elif ref in preallocated:
                out.append(f"ct_{ref} = {w.bind(np.zeros, 'zeros')}({rec.shapes[ref]!r})"
                           if w.c_layout else f"ct_{ref} = "
                           f"{w.bind(np.zeros_like, 'zeros_like')}({ref}, dtype=float)")
    return out


def compile_schedule(source: str, constants: Dict[str, Any], name: str) -> Callable:
    tree = ast.parse(source).body[0]
    scope = {"__builtins__": builtins}
    return compile_function(tree, constants, {}, scope, (), {}, "<reverse schedule>",
                            f"reverse static schedule of {name}")
