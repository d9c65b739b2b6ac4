"""Record the primitive calls a derived rule makes, as a flat schedule of Dual code.

A recording rule is the plain derived rule with every callee it binds wrapped: a
primitive's rule records a step `v3 = _fw_mul(v1, v2)` and runs; a static call runs the
recording rule of its callee, so the schedule is flat; `if t.primal:` records the
outcome as a guard; a global read records a live read guarded by identity. Whatever the
recorder cannot replay exactly (mutation, nested defs, `*args`, callees it cannot
resolve) marks the schedule invalid, and the call still runs normally.

    v2 = _fw_sin(a0)                           a schedule, before forward/optimizer/optimize.py
    v3 = _fw_mul(v2, _fw_2_0)
    if not v3.primal:
        raise _fw_Fallback
"""
from __future__ import annotations

import ast
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List

from fwdad import frontend
from fwdad.compile import compile_function
from fwdad.core import duals, rebinding
from fwdad.core.lazy_rule import LazyRule
from fwdad.core.rebinding import bound_names
from fwdad.core.written_names import writes_by_name
from fwdad.dual import Dual
from fwdad.forward import dispatch
from fwdad.forward.defaults import is_immutable
from fwdad.forward.schedule import recording
from fwdad.forward.schedule.recording import RecordingCode
from fwdad.forward.transform.dual_code import transform
from fwdad.probe import probe
from fwdad.rules import purity
from fwdad.rules.registry import RuleEntry, entries, entry_of, get_frule
from fwdad.source import python_function


class Fallback(Exception):
    """A guard of a schedule failed: run the full rule instead."""


@dataclass
class Step:
    callee: Any            # what the schedule calls (a rule, or a helper)
    args: List[Any]        # refs (str) or ("const", Dual)
    keywords: Dict[str, Any]
    outputs: List[str]     # one ref, or several for an unpacking
    kind: str = "call"     # call, unpack, test, const
    entry: Any = None      # the callee's registry entry (a RuleEntry), for a primitive


@dataclass
class Recorder:
    """Collects the steps of one run; `valid` turns False with a reason."""

    steps: List[Step] = field(default_factory=list)
    refs: Dict[int, Any] = field(default_factory=dict)    # id(Dual) -> ref
    keep: List[Any] = field(default_factory=list)         # keeps ids unique
    values: Dict[str, Any] = field(default_factory=dict)  # ref -> Dual
    producers: Dict[str, Step] = field(default_factory=dict)
    reason: str = ""
    rules: Dict[Any, Callable] = field(default_factory=dict)
    count: int = 0
    bound: rebinding.Bindings = field(default_factory=rebinding.Bindings)  # globals the rules
    # recorded through resolved (core/rebinding.py)

    @property
    def valid(self) -> bool:
        return not self.reason

    def invalid(self, reason: str) -> None:
        self.reason = self.reason or reason

    def name(self, value: Any, ref: Any) -> Any:
        self.refs[id(value)] = ref
        self.keep.append(value)
        if isinstance(ref, str):
            self.values[ref] = value
        return ref

    def add(self, step: Step) -> None:
        self.steps.append(step)
        for ref in step.outputs:
            self.producers[ref] = step

    def fresh(self, value: Any) -> str:
        self.count += 1
        return self.name(value, f"v{self.count}")

    def ref(self, value: Any) -> Any:
        ref = self.refs.get(id(value))
        if ref is None:
            self.invalid(f"a value of unknown origin ({type(value).__name__}) reached a call")
        return ref

    # ---- what recording rules call ----------------------------------------------------
    def call(self, callee: Any, entry: Any, args: tuple, kwargs: dict) -> Any:
        """A call of the rule `callee` of the registry entry `entry`."""
        if not purity.call_is_pure(entry, len(args), kwargs):
            self.invalid(f"{probe(callee, '__name__', callee)} may mutate its arguments")
        refs = [self.ref(a) for a in args]
        kw = {k: self.ref(v) for k, v in kwargs.items()}
        out = callee(*args, **kwargs)
        self.add(Step(callee, refs, kw, [self.fresh(out)], entry=entry))
        return out

    def unpack(self, d: Dual, count: int, star: int = -1) -> tuple:
        if star >= 0:
            self.invalid("starred unpacking")
        items = duals.unpack(d, count, star)
        self.add(Step(duals.unpack, [self.ref(d), ("const", count)], {},
                      [self.fresh(i) for i in items], "unpack"))
        return items

    def iterate(self, d: Dual):
        if type(d.tangent) is duals.TangentStream:  # a lazy iterator (zip, enumerate,
            # iter): counting its items would use it up; and a loop may stop early and
            # leave the rest to another. It runs as it is, and is not replayed.
            self.invalid("a loop over a lazy iterator (zip, enumerate, map, iter)")
            return duals.iterate(d)
        return iter(self.unpack(d, len(list(duals.iterate(d)))))

    def test(self, d: Dual) -> Any:
        self.steps.append(Step(None, [self.ref(d)], {}, [], "test"))
        self.steps[-1].keywords["outcome"] = bool(d.primal)
        return d.primal

    def const(self, read: Callable[[], Any]) -> Dual:
        value = read()
        out = duals.read_global(value)
        if duals.shared_default(value, 1) is not None:  # (a replay reads a constant)
            self.invalid("a mutable default read through a global or closure variable")
        self.steps.append(Step(read, [("const", value)], {}, [self.fresh(out)], "const"))
        return out

    # ---- recording rules ---------------------------------------------------------------
    def rule_of(self, fn: Callable) -> Callable:
        fn = python_function(fn)
        rule = self.rules.get(fn)
        if rule is None:
            rule = self.rules[fn] = _recording_rule(fn, self)
        return rule

    def dynamic(self, f: Dual, *args: Dual, **kwargs: Dual) -> Dual:
        """A dynamic call: bound methods of primitives and plain Python functions are
        resolved now, and the callee guarded; anything else makes the schedule invalid."""
        fn = f.primal
        if isinstance(fn, (types.MethodType, types.BuiltinMethodType)) and \
                not isinstance(getattr(fn, "__self__", None), (types.ModuleType, type(None))):
            return self._method(f, fn, args, kwargs)
        if isinstance(fn, types.FunctionType) and get_frule(fn) is None:
            self.steps.append(Step(None, [self.ref(f)], {"callee": fn}, [], "callee"))
            return self.rule_of(fn)(*args, **kwargs)
        entry = entry_of(fn)
        if entry is None:
            self.invalid(f"a dynamic call of {type(fn).__name__}")
            return dispatch.call(f, *args, **kwargs)
        self.steps.append(Step(None, [self.ref(f)], {"callee": fn}, [], "callee"))
        return self.call(get_frule(fn), entry, args, kwargs)

    def _method(self, f: Dual, fn: Any, args: tuple, kwargs: dict) -> Dual:
        function = getattr(fn, "__func__", None) or getattr(type(fn.__self__), fn.__name__)
        me = Dual(fn.__self__, f.tangent)
        owner = self._attribute_of(f, fn)
        if owner is not None:  # x.name(...): call the method on x itself
            self.name(me, owner)
            self.steps.append(Step(None, [owner], {"type": type(fn.__self__)}, [], "callee"))
        else:
            key = (type(fn.__self__), fn.__name__)
            self.steps.append(Step(None, [self.ref(f)], {"method": key}, [], "callee"))
            self.steps.append(Step(_bound_self, [self.ref(f)], {}, [self.fresh(me)]))
        entry = entry_of(function)
        if entry is not None:
            return self.call(get_frule(function), entry, (me,) + args, kwargs)
        if python_function(function) is None:
            self.invalid(f"a call of {fn.__name__}, which has no rule")
            return dispatch.call(f, *args, **kwargs)
        return self.rule_of(function)(me, *args, **kwargs)

    def _attribute_of(self, f: Dual, fn: Any) -> Any:
        """The ref of x when f is the step `getattr(x, name)` of a method bound to x
        (whose tangent is x's tangent)."""
        made = self.producers.get(self.refs.get(id(f)))
        if made is None or made.callee is not get_frule(getattr) or len(made.args) != 2:
            return None
        owner = made.args[0]
        if owner is None:  # (of unknown origin: the schedule is invalid already)
            return None
        value = self.values[owner] if isinstance(owner, str) else owner[1]
        ok = value.primal is fn.__self__ and value.tangent is f.tangent
        return owner if ok else None


def _bound_self(f: Dual) -> Dual:
    """The object a bound method is bound to, with the method's tangent."""
    return Dual(f.primal.__self__, f.tangent)


purity.PURE_HELPERS.add(_bound_self)


class _Primitive:
    """A primitive's rule inside a recording rule."""

    def __init__(self, rule: Callable, entry: RuleEntry, recorder: Recorder) -> None:
        self.rule, self.entry, self.recorder = rule, entry, recorder
        self.__name__ = getattr(rule, "__name__", "rule")

    def __call__(self, *args: Dual, **kwargs: Dual) -> Dual:
        return self.recorder.call(self.rule, self.entry, args, kwargs)


def _recording_rule(fn: Callable, rec: Recorder) -> Callable:
    if any(not is_immutable(d) for d in _defaults_of(fn)):
        # a mutable default is one Dual per derivative, shared with the reads of it
        # through a global (forward/defaults.py): the derived rule runs, unrecorded
        rec.invalid(f"{fn.__qualname__} has a mutable default")
        return dispatch.derived_rule(fn)
    if writes_by_name(fn):  # (the schedule would read the object as a constant; the
        rec.invalid(f"{fn.__qualname__} writes into a global or closure object by name")
        return dispatch.derived_rule(fn)  # derived rule follows such writes)
    src, normalized = frontend.normalized(fn)
    tree, constants = transform(normalized, src, RecordingCode)
    if any(isinstance(n, (ast.FunctionDef, ast.Lambda)) for n in ast.walk(normalized)
           if n is not normalized) or tree.args.vararg or tree.args.kwarg:
        rec.invalid(f"{fn.__qualname__} has nested functions or *args/**kwargs")
    rebinding.read_live(tree, bound_names(normalized), recording.CONST)
    rec.bound.add(src.globals, bound_names(normalized))
    values = {name: _wrap(value, rec) for name, value in constants.values.items()}
    values.update({recording.TEST: rec.test, recording.CONST: rec.const})
    defaults = [duals.const(d) for d in (fn.__defaults__ or ())]
    kwdefaults = {k: duals.const(v) for k, v in (fn.__kwdefaults__ or {}).items()}
    for d in defaults + list(kwdefaults.values()):
        rec.name(d, ("const", d))
    return compile_function(tree, values, src.cells, src.globals, defaults, kwdefaults,
                            src.filename, f"recording rule of {fn.__qualname__}")


def _defaults_of(fn: Callable) -> List[Any]:
    return list(getattr(fn, "__defaults__", None) or ()) + \
        list((getattr(fn, "__kwdefaults__", None) or {}).values())


def _wrap(value: Any, rec: Recorder) -> Any:
    if isinstance(value, Dual):
        rec.name(value, ("const", value))
        return value
    if value is dispatch.call:
        return rec.dynamic
    if value is duals.unpack:
        return rec.unpack
    if value is duals.iterate:
        return rec.iterate
    if isinstance(value, LazyRule):
        return lambda *args, **kwargs: rec.rule_of(value.fn)(*args, **kwargs)
    entry = next((e for e in entries() if value is e.callable), None)
    if entry is not None:
        return _Primitive(value, entry, rec)
    if callable(value):
        return _Poisoned(value, rec)
    return value


class _Poisoned:
    """A callee the recorder cannot replay: it runs, and the schedule is invalid."""

    def __init__(self, fn: Callable, rec: Recorder) -> None:
        self.fn, self.rec = fn, rec

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.rec.invalid(f"a call of {probe(self.fn, '__name__', self.fn)!r}")
        return self.fn(*args, **kwargs)
