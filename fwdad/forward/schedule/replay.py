"""A recorded schedule -> Dual code -> a compiled, optimized replay function.

    def schedule(a0, a1):              straight-line Dual code: one step a line, guards
        v1 = _fw_sin(a0)               raise Fallback, and the optimizer then inlines,
        _fw_g1 = _fw_has_length(v1, 3) unboxes and drops inactive tangents as it does
        if not _fw_g1.primal:          for any derived rule
            raise _fw_Fallback
        return v1
"""
from __future__ import annotations

import ast
import builtins
from typing import Any, Callable, Dict, List, Optional

from fwdad.compile import compile_function
from fwdad.core import duals
from fwdad.core.constants import Constants
from fwdad.dual import Dual
from fwdad.forward.optimizer.lines import Atom, Line, LineTable, RuleLines, Test, unknown_line
from fwdad.forward.optimizer.optimize import optimize
from fwdad.forward.schedule.record import Fallback, Recorder, Step
from fwdad.forward.transform.plain_code import PlainCode
from fwdad.probe import probe
from fwdad.rules.registry import RuleEntry, def_nondiff, entry_of, get_frule
from fwdad.tangents import NoTangent


# ---- guards: nondiff helpers, so that the optimizer calls them on plain values ---------
def has_length(value: Any, count: int) -> bool:
    return len(value) == count


def is_function(value: Any, fn: Any) -> bool:
    return value is fn


def is_method(value: Any, key: tuple) -> bool:
    return type(probe(value, "__self__")) is key[0] and probe(value, "__name__") == key[1]


def type_is(value: Any, cls: type) -> bool:
    return type(value) is cls


def read_global(read: Callable[[], Any], value: Any) -> Any:
    """A global or closure value read live, which must still be the recorded object
    (or an equal number or string: generated code may hold a copy of a literal)."""
    current = read()
    if current is not value and not (type(current) is type(value) in _LITERALS
                                      and current == value):
        raise Fallback
    return current


_LITERALS = (int, float, complex, bool, str, type(None))
def_nondiff(has_length, is_function, is_method, type_is, read_global)


def _raw(value: Any) -> Dual:
    """A constant Dual without a zero tangent built for it (guards read primals only)."""
    d = Dual.__new__(Dual)
    d.primal, d.tangent = value, NoTangent
    return d


class _Writer:
    """Writes the schedule's Lines (forward/optimizer/lines.py): the plain schedule is
    printed from them (forward/transform/plain_code.py), and the optimizer rewrites them."""

    def __init__(self, count: int) -> None:
        self.k = Constants(set())
        self.lines = LineTable(self.k.values)
        self.guards = 0

    def operand(self, ref: Any) -> Atom:
        if isinstance(ref, str):
            return self.lines.local(ref)
        value = ref[1]
        return self.lines.const(
            self.k.bind(value if isinstance(value, Dual) else _raw(value), "k").id)

    def call(self, targets: List[str], callee: Any, entry: Optional[RuleEntry],
             refs: List[Any], kw: Optional[Dict[str, Any]] = None) -> None:
        """`targets = callee(*refs, **kw)`, a call of the rule of the registry entry
        `entry` (of a helper of generated code when None)."""
        args = [self.operand(r) for r in refs]
        func = self.k.bind(callee, getattr(callee, "__name__", "rule"))
        keywords = [(k, self.operand(v)) for k, v in (kw or {}).items()]
        line = self.lines.call(callee, entry, [(atom, False) for atom in args], keywords)
        line.func, line.targets = func.id, targets
        self.lines.add(line)

    def unpack(self, targets: List[str], ref: Any, count: int) -> None:
        """`targets = _fw_unpack(ref, count)`."""
        line = Line("unpack", targets=targets, args=[(self.operand(ref), False)])
        line.func = self.k.bind(duals.unpack, "unpack").id
        line.counts = [ast.Constant(value=count)]
        if len(targets) == 1:  # (`a = _fw_unpack(t, 1)`: the tuple itself)
            value = PlainCode(self.k).value(line)
            self.lines.unknown(ast.Assign(targets=[ast.Name(id=targets[0], ctx=ast.Store())],
                                          value=value))
            return
        self.lines.add(line)

    def guard(self, ref: str, outcome: bool = True) -> None:
        """`if not t.primal: raise Fallback` (or `if t.primal:` for a False outcome)."""
        fail = ast.Raise(exc=self.k.bind(Fallback, "Fallback"), cause=None)
        line = self.lines.add(Line("use", control=ast.If))
        line.tests = [("test", Test(self.lines.local(ref), outcome))]
        line.body = [unknown_line(fail)]

    def checked(self, helper: Callable, *refs: Any) -> None:
        self.guards += 1
        name = f"g{self.guards}"
        self.call([name], get_frule(helper), entry_of(helper), list(refs))
        self.guard(name)

    def step(self, step: Step) -> None:
        if step.kind == "test":
            if isinstance(step.args[0], str):
                self.guard(step.args[0], step.keywords["outcome"])
        elif step.kind == "callee":
            (what, key), = step.keywords.items()
            helper = {"callee": is_function, "method": is_method, "type": type_is}[what]
            self.checked(helper, step.args[0], ("const", key))
        elif step.kind == "const":
            self.call(step.outputs, get_frule(read_global), entry_of(read_global),
                      [("const", step.callee), step.args[0]])
        elif step.kind == "unpack":
            count = step.args[1][1]
            self.checked(has_length, step.args[0], ("const", count))
            self.unpack(step.outputs, step.args[0], count)
        else:
            self.call(step.outputs, step.callee, step.entry, step.args, step.keywords)


def _live(steps: List[Step], result: Any) -> List[Step]:
    """The steps the result or a guard needs (recorded steps are all pure; unpacking
    checks a length, the trip count of a loop)."""
    used, out = {result}, []
    for step in reversed(steps):
        if step.kind in ("test", "callee", "const", "unpack") or used & set(step.outputs):
            used.update(a for a in step.args if isinstance(a, str))
            used.update(v for v in step.keywords.values() if isinstance(v, str))
            out.append(step)
    return out[::-1]


def build_schedule(rec: Recorder, nargs: int, out: Dual, name: str) -> Optional[Callable]:
    """The replay function of a valid recording: `replay(*duals)` computes the output of
    the recorded run on new inputs, or raises Fallback where a guard fails."""
    result = rec.refs.get(id(out))
    if not rec.valid or result is None:
        return None
    writer = _Writer(len(rec.steps))
    for step in _live(rec.steps, result):
        writer.step(step)
    lines = writer.lines.block
    lines.append(Line("use", args=[(writer.operand(result), False)], control=ast.Return))
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=f"a{i}") for i in range(nargs)],
                         vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    tree = ast.FunctionDef(name=f"{name}_schedule", args=args,
                           body=PlainCode(writer.k).statements(lines),
                           decorator_list=[], returns=None, type_comment=None)
    scope = {"__builtins__": builtins}
    plain = compile_function(tree, writer.k.values, {}, scope, (), {}, "<schedule>",
                             f"static schedule of {name}")
    better = optimize(tree, writer.k, RuleLines(lines, writer.lines), plain)
    if better is None:
        return plain
    return compile_function(better, writer.k.values, {}, scope, (), {}, "<schedule>",
                            f"optimized static schedule of {name}")
