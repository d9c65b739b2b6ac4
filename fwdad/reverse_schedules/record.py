"""Record what a derived reverse rule does, as one flat list of steps (issue 21).

A recording rule is the derived reverse rule of a function with every callee it binds
wrapped, as forward/schedule/record.py does for forward mode. It runs on Vars and records on the
tape exactly as the full rule does (the first call's gradient is the tape's), and notes
each call as a step:

    pure   v3 = mul(v1, a0)        an rrule with variables among its arguments
    plain  v4 = len(a1)            a call on plain values (its output has no adjoint)
    index  v5 = v3[k]              a varmat read: a view (its adjoint shared) or a copy
    view   v6 = transpose(v3)      a varmat view of another (its adjoint the same view)
    write  v3[k] = v6              a varmat write: saved and restored on the way back
    test   v4 is true              a branch or loop outcome, guarded on replay

Variables are known by identity: a plain call that returns a variable already seen (a
list item) names that variable again. Whatever the schedule could not replay exactly (a
rule that records on the tape itself, nested defs, try, complex values, a variable of
unknown origin) makes the recording invalid with a reason; the call still runs.
"""
from __future__ import annotations

import operator
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from fwdad import lang
from fwdad.core import rebinding
from fwdad.core.lazy_rule import LazyRule
from fwdad.core.written_names import writes_by_name
from fwdad.reverse import dispatch
from fwdad.reverse.registry import get_rrule
from fwdad.reverse.rule_calls import NonDiff, Pure, holds_complex, pure_inside
from fwdad.reverse.rules_arrays import last_writes
from fwdad.reverse.rules_python import Method
from fwdad.reverse.specialize import SpecializedRule
from fwdad.reverse.tape import current
from fwdad.reverse.var import Var, VarMat, is_matvar
from fwdad.reverse_schedules.instrument import recording_rule, rule_tables
from fwdad.reverse_schedules.model import (
    FOLDED,
    GUARDED_SCALARS,
    IN_PLACE,
    MUTATING,
    PLACING,
    REPLAYED_AS_PRIMAL,
    RETURN_NONE,
    STRUCTURAL,
    VIEWS,
    Const,
    RecordedThrough,
    Step,
    holds_closure,
    holds_unknown_variable,
    holds_variable,
    immutable,
    name_of,
    variables_at,
)
from fwdad.source import python_function


@dataclass
class ReverseRecorder:
    """The steps of one run; `reason` says why the run cannot be replayed ('' if it can)."""

    steps: List[Step] = field(default_factory=list)
    refs: Dict[int, str] = field(default_factory=dict)       # id(object) -> ref
    values: Dict[str, Any] = field(default_factory=dict)     # ref -> object
    shapes: Dict[str, Any] = field(default_factory=dict)     # variable ref -> shape
    producers: Dict[str, Step] = field(default_factory=dict)
    rules: Dict[Any, Callable] = field(default_factory=dict)
    folded: Dict[int, Any] = field(default_factory=dict)  # id -> a value folded in
    reason: str = ""
    count: int = 0
    tables: tuple = field(default_factory=rule_tables)
    bound: rebinding.Bindings = field(default_factory=rebinding.Bindings)  # globals the rules
    # recorded through resolved (core/rebinding.py)

    def primal_of(self, rule: Any) -> Any:
        """The primal of a raw rrule (None for anything else)."""
        hit = self.tables[0].get(id(rule))
        return hit[1] if hit is not None and hit[0] is rule else None

    def wrapped_pure(self, rule: Any) -> Any:
        """(the Pure, its arity) inside a ufunc's or a copy's rule, or None."""
        hit = self.tables[1].get(id(rule))
        return hit[1] if hit is not None and hit[0] is rule else None

    def invalid(self, reason: str) -> None:
        self.reason = self.reason or reason

    # ---- names --------------------------------------------------------------------------
    def name(self, value: Any, ref: str) -> str:
        self.refs[id(value)] = ref
        self.values[ref] = value
        if type(value) is Var:
            self.shapes[ref] = None
        elif type(value) is VarMat:
            self.shapes[ref] = value.value.shape
        return ref

    def fresh(self, value: Any) -> str:
        self.count += 1
        return self.name(value, f"v{self.count}")

    def atom(self, value: Any) -> Any:
        if isinstance(value, GUARDED_SCALARS) or id(value) in self.folded:
            return Const(value)  # (equal on replay: guarded where made, or folded)
        ref = self.refs.get(id(value))
        if ref is not None and self.values[ref] is value:
            return ref
        if holds_variable(value):
            self.invalid(f"a variable of unknown origin ({type(value).__name__}) reached a "
                         f"call (made by a rule that records on the tape itself)")
        return Const(value)

    def is_variable(self, ref: Any) -> bool:
        return isinstance(ref, str) and ref in self.shapes

    def add(self, step: Step) -> None:
        self.steps.append(step)
        for ref in step.outputs:
            if ref is not None:
                self.producers[ref] = step

    def output(self, step: Step, out: Any) -> Optional[str]:
        """Name a plain call's output; a variable already seen keeps its name."""
        ref = self.refs.get(id(out))
        if type(out) in (Var, VarMat) or is_matvar(out):
            if ref is None or self.values[ref] is not out:
                self.invalid(f"{name_of(step.callee)} made a variable the schedule cannot "
                             f"replay")
            elif step.callee is not operator.getitem:  # max(xs) may pick another item
                self.count += 1
                step.outputs.append(f"v{self.count}")
                self.steps.append(Step("alias", None, [f"v{self.count}", ref]))
            return ref
        if holds_unknown_variable(self, out):
            self.invalid(f"{name_of(step.callee)} made a container of variables the "
                         f"schedule cannot replay")
        elif holds_variable(out) and (self.primal_of(step.callee) or step.callee) not in \
                STRUCTURAL:
            self.invalid(f"{name_of(step.callee)} returned variables in an order the "
                         f"schedule cannot guard")
        made = self.fresh(out)
        step.outputs.append(made)
        self.producers[made] = step
        if isinstance(out, GUARDED_SCALARS):
            self.add_guard("value", made, out)
        elif any(self.values.get(a) is out if isinstance(a, str) else a.value is out
                 for a in step.args):
            self.add_guard("same", made, out)  # (max(a, b) may pick the other one)
        return made

    def add_guard(self, kind: str, ref: str, value: Any) -> None:
        self.steps.append(Step(kind, None, [ref], info={"value": value}))

    # ---- what recording rules call --------------------------------------------------
    def plain(self, callee: Any, args: tuple, kwargs: dict, replay: Any = None) -> Any:
        """A call whose output has no adjoint; a rule that pushes on the tape, or makes
        variables of its own, makes the recording invalid."""
        region = current()
        chain, writes, kept = len(region.chain), len(region.writes), len(region.nochain)
        step = Step("plain", replay or callee, [self.atom(a) for a in args],
                    {k: self.atom(v) for k, v in kwargs.items()})
        out = callee(*args, **kwargs)
        if step.callee in FOLDED and all(immutable(a) for a in step.args) and \
                all(immutable(v) for v in step.kwargs.values()):
            self.folded[id(out)] = out  # (the same on every replay: no step)
            return out
        if len(region.chain) != chain or len(region.writes) != writes:
            self.invalid(f"the reverse rule of {name_of(callee)} records on the tape itself")
        if (self.primal_of(callee) or step.callee) not in PLACING and any(
                holds_closure(a) for a in (*args, *kwargs.values())):
            self.invalid(f"a function defined in the recorded code passed to "
                         f"{name_of(callee)}")
        if step.args and isinstance(step.args[0], str) and step.args[0].startswith("p") \
                and (self.primal_of(callee) or step.callee) in MUTATING:  # (a replay
            # rebuilds the lists passed as arguments: the caller's would stay as they are)
            self.invalid("a write into a list passed as an argument")
        self.add(step)
        if type(out) is VarMat and len(region.nochain) == kept + 1 and \
                region.nochain[-1] is out:  # a new array (np.zeros): a variable with no
            step.kind = "fresh"             # inputs, that values may be written into
            step.callee = self.primal_of(callee) or step.callee  # (the primal makes plain
            # arrays: the rule would make a VarMat again, in the region of the replay)
            step.outputs.append(self.fresh(out))
        elif out is not None or self.primal_of(callee) not in RETURN_NONE:
            self.output(step, out)
        return out

    def pure(self, rule: Pure, args: tuple, kwargs: dict) -> Any:
        """An rrule: a pure step when its arguments are variables and plain values."""
        args, kwargs = rule.out_by_keyword(args, kwargs)
        at = variables_at(args)
        if not at or any(holds_variable(v) for v in kwargs.values()) or "out" in kwargs:
            return self.plain(rule, args, kwargs, replay=rule.fn)
        out = rule(*args, **kwargs)
        if type(out) not in (Var, VarMat):
            self.invalid(f"{name_of(rule.fn)} gave {type(out).__name__}, not one variable")
            return out
        if holds_complex(out.value) or any(holds_complex(getattr(args[i], "value", None))
                                           for i in at):
            self.invalid("complex values (the schedule replays real ones only)")
        step = Step("pure", rule, [self.atom(a) for a in args],
                    {k: self.atom(v) for k, v in kwargs.items()}, info={"at": at})
        self.add(step)
        step.outputs.append(self.fresh(out))
        return out

    def index(self, x: Any, key: Any) -> Any:
        """x[key]: on a VarMat an index step (a view, or a copy whose adjoint is added
        back); anything else a plain step."""
        getitem = get_rrule(operator.getitem)
        if type(x) is not VarMat:
            return self.plain(getitem, (x, key), {}, replay=operator.getitem)
        region, chain = current(), len(current().chain)
        out = getitem(x, key)
        view = len(region.chain) == chain  # (a copy pushes the callback adding it back)
        step = Step("index", None, [self.atom(x), self.atom(key)], info={"view": view})
        self.add(step)
        step.outputs.append(self.fresh(out))
        return out

    def view(self, fn: Any, x: Any, args: tuple, kwargs: dict) -> Any:
        rule = get_rrule(fn)
        if type(x) is not VarMat:
            return self.plain(rule, (x,) + args, kwargs, replay=fn)
        region, chain = current(), len(current().chain)
        out = rule(x, *args, **kwargs)
        if len(region.chain) != chain:  # (a copy: np.reshape of a transposed view)
            self.invalid(f"{name_of(fn)} copied a varmat instead of viewing it")
        step = Step("view", fn, [self.atom(x)] + [self.atom(a) for a in args],
                    {k: self.atom(v) for k, v in kwargs.items()})
        self.add(step)
        step.outputs.append(self.fresh(out))
        return out

    def write(self, x: Any, key: Any, v: Any) -> None:
        """x[key] = v: on a VarMat a write step (saved, restored on the way back)."""
        setitem = get_rrule(operator.setitem)
        if type(x) is not VarMat:
            self.plain(setitem, (x, key, v), {}, replay=operator.setitem)
            return None
        step = Step("write", None, [self.atom(x), self.atom(key), self.atom(v)],
                    info={"landed": last_writes(x.shape, key)})
        setitem(x, key, v)
        self.add(step)
        return None

    def in_place(self, update: Any, x: Any, y: Any) -> Any:
        """x op= y: a VarMat is overwritten with the pure result, as rules_python does."""
        if type(x) is VarMat:
            self.write(x, Ellipsis, self.call(get_rrule(IN_PLACE[update]), (x, y), {}))
            return x
        if isinstance(x, (list, np.ndarray)):  # (into a matvar: pushes, so invalid)
            return self.plain(get_rrule(update), (x, y), {}, replay=update)
        return self.call(get_rrule(IN_PLACE[update]), (x, y), {})

    def sum(self, items: Any, start: Any = 0) -> Any:
        """builtins.sum, as rules_python._sum adds: one add step per item."""
        total, add = start, get_rrule(operator.add)
        for item in self.unpack(items, -1):
            total = self.call(add, (total, item), {})
        return total

    def test(self, value: Any) -> bool:
        outcome = bool(value)
        ref = self.atom(value)
        if isinstance(ref, str) and not isinstance(value, GUARDED_SCALARS):  # (those
            # are guarded where they are made)
            self.steps.append(Step("test", None, [ref], info={"value": outcome}))
        return outcome

    def iterate(self, it: Any) -> Any:
        if type(it) is VarMat:
            return iter([self.index(it, i) for i in range(len(it))])
        if is_matvar(it):
            self.invalid("a loop over a matvar")
            return iter(it)
        if iter(it) is it:  # an iterator (zip, enumerate, iter, a generator): unpacking
            # it would use it up, and a loop may stop early and leave the rest to another
            self.invalid("a loop over an iterator (zip, enumerate, map, iter)")
            return it
        return iter(self.unpack(it, -1))

    def unpack(self, value: Any, count: int, star: int = -1) -> tuple:
        if type(value) is VarMat:
            if star >= 0:
                self.invalid("starred unpacking of a varmat")
                return lang.unpack(value, count, star)
            items = tuple(self.index(value, i) for i in range(len(value)))
            if count >= 0 and len(items) != count:
                return lang.unpack(value, count, star)  # (raises as Python does)
            return items
        items = tuple(value) if count < 0 else lang.unpack(value, count, star)
        if type(value) is range:  # (its items are ints, constants of the schedule: its
            return items          # bounds are guarded where they were computed)
        step = Step("unpack", None, [self.atom(value)], info={"count": len(items),
                                                              "star": star,
                                                              "size": count})
        self.add(step)
        for item in items:
            ref = self.refs.get(id(item))
            if type(item) in (Var, VarMat):
                step.outputs.append(None)
                if ref is None or self.values[ref] is not item:
                    self.invalid("unpacking made a variable the schedule cannot replay")
                continue
            made = self.fresh(item)
            step.outputs.append(made)
            if isinstance(item, GUARDED_SCALARS):
                self.add_guard("value", made, item)
        return items

    def closure(self, rule: Callable[..., Any]) -> Any:
        """`def inner(...)` in recorded code: its calls are recorded through, so the
        replay needs only a token for it, that a call site's callee must be."""
        made = dispatch.closure(rule)
        step = Step("plain", object, [])
        self.add(step)
        step.outputs.append(self.fresh(made))
        self.producers[step.outputs[0]] = step
        return made

    def read(self, reader: Callable[[], Any]) -> Any:
        """A global or closure variable, read live: the replay reads it again and falls
        back when it is no longer the same object."""
        value = reader()
        if holds_variable(value):
            self.invalid("a global or closure variable holds a variable")
            return value
        step = Step("read", reader, [], info={"value": value})
        self.add(step)
        step.outputs.append(self.fresh(value))
        return value

    def call(self, rule: Any, args: tuple, kwargs: dict) -> Any:
        """A call of what reverse code binds for a primitive or a derived rule."""
        if pure_inside(rule) is rule:
            return self.pure(rule, args, kwargs)
        inner = self.wrapped_pure(rule)  # (a ufunc without out=; a copy of a variable)
        if inner is not None and len(args) == inner[1] and "out" not in kwargs and \
                any(type(a) in (Var, VarMat) for a in args):
            return self.pure(inner[0], args, kwargs)
        if type(rule) is NonDiff:
            return self.plain(rule, args, kwargs, replay=rule.fn)  # (on plain values)
        primal = self.primal_of(rule)
        if primal is operator.getitem:
            return self.index(*args)
        if primal is operator.setitem:
            return self.write(*args)
        if primal in IN_PLACE:
            return self.in_place(primal, *args)
        if primal in VIEWS:
            return self.view(primal, args[0], args[1:], kwargs)
        if primal is getattr and type(args[0]) is VarMat and args[1] == "T":
            return self.view(np.transpose, args[0], (), {})
        if primal is lang.unpack:
            return self.unpack(*args, **kwargs)
        if primal is sum and len(args) in (1, 2) and not kwargs:
            return self.sum(*args)
        if isinstance(rule, (LazyRule, RecordedThrough, SpecializedRule)):
            return self.rule_of(rule.fn)(*args, **kwargs)
        if primal is not None and primal in REPLAYED_AS_PRIMAL:
            return self.plain(rule, args, kwargs, replay=primal)
        return self.plain(rule, args, kwargs)

    def dynamic(self, f: Any, *args: Any, **kwargs: Any) -> Any:
        """A dynamic call: methods of variables and plain Python functions are resolved
        now and the callee guarded; anything else makes the recording invalid."""
        if type(f) is Method:
            self._check_attribute(f, f.obj)
            return self.call(dispatch.static_rrule(f.fn), (f.obj,) + args, kwargs)
        if isinstance(f, types.BuiltinMethodType) and not isinstance(
                f.__self__, (types.ModuleType, type(None))):
            self._check_attribute(f, f.__self__)
            rule = dispatch.static_rrule(getattr(type(f.__self__), f.__name__))
            return self.call(rule, (f.__self__,) + args, kwargs)
        if type(f) is types.MethodType and get_rrule(f.__func__) is not None:
            self._check_attribute(f, f.__self__)  # (a C method bound to an object:
            return self.call(get_rrule(f.__func__), (f.__self__,) + args, kwargs)  # rng.normal)
        if isinstance(f, types.FunctionType) and get_rrule(f) is None:
            self._guard_callee(f)
            return self.rule_of(f)(*args, **kwargs)
        if type(f) is dispatch.ReverseClosure:  # (a function defined in the recorded
            if not isinstance(self.atom(f), str):  # code: its body is recorded too)
                self.invalid("a call of a function defined in another call")
            return f.rule(*args, **kwargs)
        if get_rrule(f) is None:
            self.invalid(f"a dynamic call of {type(f).__name__}")
            return dispatch.call(f, *args, **kwargs)
        self._guard_callee(f)
        return self.call(get_rrule(f), args, kwargs)

    def _guard_callee(self, f: Any) -> None:
        ref = self.atom(f)
        made = self.producers.get(ref) if isinstance(ref, str) else None
        if isinstance(ref, str) and (made is None or made.kind != "read"):  # (a read
            self.add_guard("same", ref, f)  # checks that it is the same object already)

    def _check_attribute(self, f: Any, owner: Any) -> None:
        """`x.name(...)`: the method must come from `getattr(x, name)` in this run, so
        that the replay calls it on x itself."""
        made = self.producers.get(self.refs.get(id(f), ""))
        if made is None or made.kind != "plain" or len(made.args) != 2 or \
                not isinstance(made.args[0], str) or self.values[made.args[0]] is not owner:
            self.invalid("a method not read from its object in the recorded run")

    # ---- recording rules -------------------------------------------------------------
    def rule_of(self, fn: Callable) -> Callable:
        plain = python_function(fn)
        if plain is None:
            self.invalid(f"{name_of(fn)} has no Python source")
            return dispatch.static_rrule(fn)
        rule = self.rules.get(plain)
        if rule is None and writes_by_name(plain):  # (the schedule would read the object
            self.invalid(f"{name_of(fn)} writes into a global or closure object by name")
            rule = self.rules[plain] = dispatch.static_rrule(fn)  # as a constant; the
        if rule is None:                                       # full rule follows writes)
            rule = self.rules[plain] = recording_rule(plain, self)
        return rule
