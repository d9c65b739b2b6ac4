"""One recorded reverse step -> its forward lines and its backward lines.

    pure    v5 = v3 * a0  /  ct_v3 += ct_v5 * a0     (a row of templates.py)
    pure    v5, _pb5 = rule(v3)  /  _c5 = _pb5(ct_v5); ct_v3 += _c5[0]   (generic)
    index   v5 = v3[k]  /  ct_v5 = ct_v3[k] (a view) or add.at(ct_v3, k, ct_v5)
    write   save, write  /  read, zero and restore the written part, pass it on
    guards  if <the recorded outcome no longer holds>: raise Fallback
"""
from __future__ import annotations

import operator
from typing import Any, List

import numpy as np

from fwdad import lang
from fwdad.forward.schedule.record import Fallback
from fwdad.forward.schedule.replay import read_global
from fwdad.reverse.rules_arrays import last_writes
from fwdad.reverse_schedules import templates as templates
from fwdad.reverse_schedules.model import Const, Step
from fwdad.reverse_schedules.writer import Add, Writer, add_to_scalar

# Plain calls that neither mutate nor fail in a replay: dropped when nothing reads them.
NO_EFFECT = {operator.getitem, getattr, lang.build_tuple, lang.build_list, len, range}


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
        if not targets and step.callee in NO_EFFECT:
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
            w.forward.append(f"_landed{index} = {w.bind(last_writes)}({x}.shape, {key})")
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
    """The pullback recorded in the forward pass, called as rule_calls.Chain calls it."""
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



def undo(saved: list) -> None:
    for target, key, old in reversed(saved):
        target[key] = old
