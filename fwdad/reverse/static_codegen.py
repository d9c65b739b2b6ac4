"""Recorded reverse steps -> the source of one flat generator: forward, then backward.

    def f_reverse_schedule(a0, a1):
        v1 = a0 * a1                    # forward: plain values, no Var, no tape
        if not v1 > 0.0:                # a guard: the full rule runs instead
            raise _fw_Fallback
        _seed, _adjoints = yield (v1,), _writes
        ct_a0, ct_a1 = _adjoints        # backward: adjoints are plain locals
        ct_v1 = 0.0
        ct_v1 += _seed[0]
        ct_a0 += ct_v1 * a1             # a specialized step (static_templates.py)
        ct_a1 += ct_v1 * a0
        return ct_a0, ct_a1

Note: the lines are printed from small per-step templates rather than built as syntax
trees, as forward schedules are: a reverse step's code reads the adjoint names of its
inputs, and two strings per step kept this module short; the text is parsed once, by
compile_function, which keeps it as the schedule's `.source`.
"""
from __future__ import annotations

import ast
import builtins
import math
import operator
from dataclasses import dataclass
from typing import Any, Callable, Dict, List

import numpy as np

from fwdad import lang
from fwdad.compile import compile_function
from fwdad.forward.record import Fallback
from fwdad.forward.schedule import read_global
from fwdad.reverse import static_templates as templates
from fwdad.reverse.registry import unbroadcast
from fwdad.reverse.rules_arrays import _last_writes
from fwdad.reverse.static_record import Const, ReverseRecorder, Step

# Plain calls that neither mutate nor fail in a replay: dropped when nothing reads them.
_NO_EFFECT = {operator.getitem, getattr, lang.build_tuple, lang.build_list, len, range}


class Writer:
    """The lines of a schedule and the constants they name."""

    def __init__(self, rec: ReverseRecorder) -> None:
        self.rec = rec
        self.constants: Dict[str, Any] = {}
        self._names: Dict[int, str] = {}
        self.forward: List[str] = []
        self.backward: List[Any] = []   # lines and Adds, last step first
        self.prologue: List[str] = []   # adjoint buffers, in the order of the steps
        self.writes = 0
        self.reached: set = set()
        self.used: set = set()

    def bind(self, value: Any, hint: str = "") -> str:
        name = self._names.get(id(value))
        if name is None:
            hint = hint or getattr(value, "__name__", None) or "k"
            base = "_fw_" + "".join(c for c in hint if c.isalnum() or c == "_")
            name, count = base, 1
            while name in self.constants:
                count += 1
                name = f"{base}_{count}"
            self._names[id(value)], self.constants[name] = name, value
        return name

    def atom(self, arg: Any) -> str:
        if isinstance(arg, str):
            return arg
        value = arg.value
        if type(value) in (int, bool, type(None)) or (type(value) is float and
                                                      math.isfinite(value)):
            return repr(value)
        if type(value) is str and len(value) < 40:
            return repr(value)
        return self.bind(value, getattr(value, "__name__", None) or "k")

    def call(self, callee: Any, args: List[Any], kwargs: Dict[str, Any]) -> str:
        inner = [self.atom(a) for a in args] + [f"{k}={self.atom(v)}"
                                                for k, v in kwargs.items()]
        name = getattr(callee, "__name__", None) or type(callee).__name__
        return f"{self.bind(callee, name)}({', '.join(inner)})"

    def fail(self, test: str) -> None:
        self.forward += [f"if {test}:", f"    raise {self.bind(Fallback, 'Fallback')}"]

    # ---- adjoints -------------------------------------------------------------------
    def accumulate(self, ref: Any, expr: str, shape: Any) -> None:
        """`ct_ref += expr`, as registry.accumulate adds a cotangent of `shape` (None for
        a number) into the variable `ref`."""
        if not self.rec.is_variable(ref):
            return
        own = self.rec.shapes[ref]
        if own is None and shape is None:
            self.backward.append(f"ct_{ref} += {expr}")
        elif own is None:
            self.backward.append(f"ct_{ref} = {self.bind(add_to_scalar)}(ct_{ref}, {expr})")
        else:
            self.backward.append(Add(ref, expr, "same" if shape == own else "any"))

    def fill(self, ref: str, expr: str) -> None:
        """`ct_ref += expr` for a scalar expr spread over the array variable `ref`."""
        self.backward.append(Add(ref, expr, "fill"))

    def lines(self, preallocated: set) -> List[str]:
        """The backward lines in the order they run: the first cotangent an array
        variable gets is its adjoint (as VarMat.add_adjoint makes it), unless the
        adjoint must exist before (a view's base, an argument, a write's target)."""
        made, out = set(preallocated), []
        for item in reversed(self.backward):
            if type(item) is not Add:
                out.append(item)
                continue
            name = f"ct_{item.ref}"
            if item.ref in made:
                out.append(f"{name} += {item.expr}" if item.kind != "any" else
                           f"{self.bind(add_to_array)}({name}, {item.expr})")
                continue
            made.add(item.ref)
            if item.kind == "fill":
                shape = self.rec.shapes[item.ref]
                out.append(f"{name} = {self.bind(np.full, 'full')}({shape!r}, {item.expr})")
            elif item.kind == "same" and item.expr.isidentifier():
                out.append(f"{name} = {item.expr}.copy()")  # (another's adjoint: a copy)
            elif item.kind == "same":
                out.append(f"{name} = {item.expr}")  # (a new array of the same shape)
            else:
                shape = self.rec.shapes[item.ref]
                out.append(f"{name} = {self.bind(first_array)}({item.expr}, {shape!r})")
        return out


@dataclass
class Add:
    """One cotangent added into an array variable's adjoint."""
    ref: str
    expr: str
    kind: str  # "same": an array of the variable's shape; "fill": a number spread over
    # it; "any": a thunk, None, or a cotangent to sum over broadcast axes


def first_array(ct: Any, shape: tuple) -> np.ndarray:
    """The adjoint made by the first cotangent (VarMat.add_adjoint): zeros for None."""
    ct = ct() if callable(ct) else ct
    out = np.empty(shape)
    out[...] = 0.0 if ct is None else unbroadcast(ct, shape)
    return out


def add_to_scalar(total: Any, ct: Any) -> Any:
    """What accumulate adds into a scalar Var's adjoint (a thunk called, None ignored)."""
    ct = ct() if callable(ct) else ct
    if ct is None:
        return total
    if type(ct) is float:
        return total + ct
    ct_sum = np.sum(ct)
    return total + float(ct_sum) if type(ct_sum) is np.float64 else \
        total + float(np.real(ct_sum))


def add_to_array(buffer: np.ndarray, ct: Any) -> None:
    """What accumulate adds into a VarMat's adjoint, in place (a thunk called)."""
    ct = ct() if callable(ct) else ct
    if ct is not None:
        buffer += unbroadcast(ct, buffer.shape)


# ---- one step ------------------------------------------------------------------------
def write_step(w: Writer, step: Step, index: int) -> None:
    getattr(_STEPS, step.kind)(w, step, index)


class _STEPS:
    @staticmethod
    def pure(w: Writer, step: Step, index: int) -> None:
        out = step.outputs[0]
        if templates.write(w, step, out):
            return
        rule = step.callee.rule
        w.forward.append(f"{out}, _pb{index} = {w.call(rule, step.args, step.kwargs)}")
        if w.rec.shapes[out] is None or out in w.reached:
            _backward_generic(w, step, out, f"_pb{index}", index)

    @staticmethod
    def plain(w: Writer, step: Step, index: int) -> None:
        targets = [t for t in step.outputs if t is not None and t in w.used]
        if not targets and step.callee in _NO_EFFECT:
            return
        text = templates.plain(w, step) or w.call(step.callee, step.args, step.kwargs)
        w.forward.append(f"{targets[0]} = {text}" if targets else text)

    fresh = plain

    @staticmethod
    def unpack(w: Writer, step: Step, index: int) -> None:
        names = [t or "_" for t in step.outputs]
        value = w.atom(step.args[0])
        call = f"{w.bind(unpack_exactly)}({value}, {step.info['count']}, " \
               f"{step.info['size']}, {step.info['star']})"
        w.forward.append(f"{', '.join(names)}, = {call}" if names else call)

    @staticmethod
    def index(w: Writer, step: Step, index: int) -> None:
        out, (x, key) = step.outputs[0], [w.atom(a) for a in step.args]
        w.forward.append(f"{out} = {x}[{key}]")
        if step.info["view"]:
            w.prologue.append(f"ct_{out} = ct_{x}[{key}]")
        else:
            w.backward.append(f"{w.bind(np.add.at, 'add_at')}(ct_{x}, {key}, ct_{out})")

    @staticmethod
    def view(w: Writer, step: Step, index: int) -> None:
        out, x = step.outputs[0], w.atom(step.args[0])
        rest = step.args[1:]
        w.forward.append(f"{out} = {w.call(step.callee, step.args, step.kwargs)}")
        w.prologue.append(f"ct_{out} = {w.call(step.callee, [f'ct_{x}'] + rest, step.kwargs)}")

    @staticmethod
    def write(w: Writer, step: Step, index: int) -> None:
        """rules_arrays.assign: save, write; on the way back read the written part's
        adjoint, zero it, restore the old values, and pass the adjoint to the value."""
        x, key, v = [w.atom(a) for a in step.args]
        copy, landed = w.bind(np.array, "array"), step.info["landed"]
        if isinstance(step.args[1], str):  # (a key computed in the run: so is `landed`)
            w.forward.append(f"_landed{index} = {w.bind(_last_writes)}({x}.shape, {key})")
            landed = f"_landed{index}"
        elif landed is not None:
            landed = w.bind(landed, "landed")
        w.forward += [f"_old{index} = {copy}({x}[{key}])", f"{x}[{key}] = {v}",
                      f"_undo.append(({x}, {key}, _old{index}))",
                      f"_writes.append(({x}, {key}, {copy}({x}[{key}])))"]
        w.writes += 1
        lines = [f"_ct{index} = {copy}(ct_{x}[{key}])", f"ct_{x}[{key}] = 0.0",
                 f"{x}[{key}] = _old{index}"]
        if w.rec.is_variable(step.args[2]):
            ct = f"_ct{index}" if landed is None else \
                f"(_ct{index} if {landed} is None else _ct{index} * {landed})"
            lines.append(_scalar_or_array(w, step.args[2], ct))
        w.backward += lines[::-1]

    @staticmethod
    def test(w: Writer, step: Step, index: int) -> None:
        ref = w.atom(step.args[0])
        w.fail(f"not {ref}" if step.info["value"] else ref)

    @staticmethod
    def value(w: Writer, step: Step, index: int) -> None:
        value = step.info["value"]
        if isinstance(value, (bool, np.bool_)):
            w.fail(f"not {step.args[0]}" if value else step.args[0])
        elif value is None:
            w.fail(f"{step.args[0]} is not None")
        else:
            w.fail(f"{step.args[0]} != {w.atom(Const(value))}")

    @staticmethod
    def same(w: Writer, step: Step, index: int) -> None:
        w.fail(f"{step.args[0]} is not {w.bind(step.info['value'], 'same')}")

    @staticmethod
    def alias(w: Writer, step: Step, index: int) -> None:
        w.fail(f"{step.args[0]} is not {step.args[1]}")

    @staticmethod
    def read(w: Writer, step: Step, index: int) -> None:
        value = w.bind(step.info["value"], "value")
        w.forward.append(f"{step.outputs[0]} = {w.bind(read_global)}("
                         f"{w.bind(step.callee, 'read')}, {value})")


def _scalar_or_array(w: Writer, ref: str, ct: str) -> Any:
    """`ct_ref += ct` for a value written into a varmat (ct has the written part's
    shape; a scalar Var takes its sum)."""
    if w.rec.shapes[ref] is None:
        return f"ct_{ref} = {w.bind(add_to_scalar)}(ct_{ref}, {ct})"
    return Add(ref, ct, "any")


def _backward_generic(w: Writer, step: Step, out: str, pullback: str, index: int) -> None:
    """The pullback recorded in the forward pass, called as registry.Chain calls it."""
    lines: List[Any] = [f"_c{index} = {pullback}(ct_{out})"]
    for i in step.info["at"]:
        ref = step.args[i]
        if w.rec.shapes[ref] is None:
            lines.append(f"ct_{ref} = {w.bind(add_to_scalar)}(ct_{ref}, _c{index}[{i}])")
        else:
            lines.append(Add(ref, f"_c{index}[{i}]", "any"))
    w.backward += lines[::-1]


def unpack_exactly(value: Any, count: int, size: int, star: int) -> tuple:
    """The items of `value` as the recorded run unpacked them; another count falls back."""
    items = tuple(value) if size < 0 else lang.unpack(value, size, star)
    if len(items) != count:
        raise Fallback
    return items


# ---- the whole schedule --------------------------------------------------------------
def reached_variables(rec: ReverseRecorder, outputs: List[Any]) -> set:
    """The variables whose adjoint the tape would make: registry.Chain skips the
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
        dead = step.kind == "plain" and step.callee in _NO_EFFECT and not any(
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


def undo(saved: list) -> None:
    for target, key, old in reversed(saved):
        target[key] = old


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
                out.append(f"ct_{ref} = {w.bind(np.zeros, 'zeros')}({rec.shapes[ref]!r})")
    return out


def compile_schedule(source: str, constants: Dict[str, Any], name: str) -> Callable:
    tree = ast.parse(source).body[0]
    scope = {"__builtins__": builtins}
    return compile_function(tree, constants, {}, scope, (), {}, "<reverse schedule>",
                            f"reverse static schedule of {name}")
