"""The reverse rule of a @static_graph function: record once, replay a flat schedule.

The first call with a signature (inside `grad`, `vjp`, `value_and_grad`, or reverse code
that calls the function) runs a recording rule (record.py) on the tape, as the
full rule would, and compiles what it did into one generator (codegen.py):

    gen = schedule(*values)              # forward: plain values, guards
    outputs, writes = next(gen)          # -> Var / VarMat outputs, one tape callback
    cts = gen.send((seeds, adjoints))    # backward, when the tape reaches the callback

Later calls with that signature replay it: no Var for intermediate values, no tape
callbacks but one, no dispatch. A guard that fails (another branch, loop length,
global, callee), or a signature the schedule cannot take, runs the full reverse rule.
"""
from __future__ import annotations

import weakref
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from fwdad.core import rebinding
from fwdad.dual import Dual
from fwdad.forward.dispatch import derived_rule
from fwdad.reverse import dispatch
from fwdad.reverse.registry import complex_ready, raw_rrule
from fwdad.reverse.tape import current, current_layout, recording
from fwdad.reverse.var import Var, VarMat
from fwdad.reverse_schedules.codegen import build_source, compile_schedule
from fwdad.reverse_schedules.model import Const, RecordedThrough
from fwdad.reverse_schedules.record import ReverseRecorder
from fwdad.rules.registry import frule

_MISSING = object()
_PLAIN = (int, bool, str, type(None))


def add_reverse_schedules(wrapper: Callable[..., Any], graph: Any) -> None:
    """The hook of @static_graph: `graph.reverse` is the wrapper's reverse rule."""
    graph.reverse = ReverseGraph(graph.fn)
    raw_rrule(wrapper)(graph.reverse)
    complex_ready(wrapper)  # (complex arguments have no signature: the full rule runs)


class Schedule:
    """A compiled reverse schedule and how its outputs are boxed."""

    def __init__(self, run: Callable, shape: List[Any], container: Any, source: str) -> None:
        self.run, self.shape, self.container, self.source = run, shape, container, source


class ReverseGraph(RecordedThrough):
    """The raw rrule of a @static_graph function: one reverse schedule per signature.

    `counts` has records, replays, fallbacks (a guard failed) and full (no schedule for
    the signature); `reasons[key]` says why a signature has no schedule.
    """

    made: "weakref.WeakSet[ReverseGraph]" = weakref.WeakSet()

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.schedules: Dict[Any, Optional[Schedule]] = {}
        self.counts: Counter[str] = Counter()
        self.reasons: Dict[Any, str] = {}
        self.bound: Dict[Any, rebinding.Bindings] = {}  # the globals each resolved
        self.__name__ = f"reverse_static_graph_{fn.__name__}"
        ReverseGraph.made.add(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key, why = (None, "keyword arguments") if kwargs else signature(args)
        if key is None:
            self.reasons[None] = why
            return self.full(*args, **kwargs)
        if not recording() or current_layout() != "varmat":  # (plain values, or matvars)
            return self.full(*args)
        schedule = self.schedules.get(key, _MISSING)
        if schedule is _MISSING:
            return self.record(key, args)
        if schedule is not None:
            out = replay(schedule, args)
            if out is not _MISSING:
                self.counts["replays"] += 1
                return out
            self.counts["fallbacks"] += 1
            if key in self.bound and self.bound[key].rebound():
                rebinding.forget_rules()  # (this graph's schedules with the rest)
        return self.full(*args)

    def full(self, *args: Any, **kwargs: Any) -> Any:
        """The full reverse rule (the derived rrule of the function)."""
        self.counts["full"] += 1
        return dispatch.derived_rrule(self.fn)(*args, **kwargs)

    def record(self, key: Any, args: tuple) -> Any:
        """Run the recording rule once; keep its schedule when it can be replayed."""
        rec = ReverseRecorder()
        leaves, containers = _name_arguments(rec, args)
        region = current()
        chain, writes = len(region.chain), len(region.writes)
        out = rec.rule_of(self.fn)(*args)
        pushed = sum(s.kind in ("pure", "write") or (s.kind == "index" and
                                                     not s.info["view"]) for s in rec.steps)
        if len(region.chain) - chain != pushed or len(region.writes) - writes != sum(
                s.kind == "write" for s in rec.steps):
            rec.invalid("a callee recorded on the tape outside the recorded steps")
        outputs, shape, container = _outputs(rec, out)
        self.counts["records"] += 1
        if rec.reason:
            self.schedules[key], self.reasons[key] = None, rec.reason
            return out
        source, constants = build_source(rec, leaves, containers, outputs,
                                         self.fn.__name__)
        run = compile_schedule(source, constants, self.fn.__name__)
        self.schedules[key] = Schedule(run, shape, container, source)
        self.bound[key] = rec.bound
        return out

    def source(self) -> str:
        """The source of the last schedule recorded (for reading)."""
        ready = [s for s in self.schedules.values() if s is not None]
        return ready[-1].source if ready else ""


def _forget_schedules() -> None:
    """A global a schedule's rules resolved was rebound: record them again."""
    for graph in list(ReverseGraph.made):
        graph.schedules.clear()


rebinding.on_forget(_forget_schedules)


def replay(schedule: Schedule, args: tuple) -> Any:
    """The outputs of the schedule on `args`, with one callback on the tape; _MISSING
    when a guard fails (the old values of any array written are back by then)."""
    leaves: List[Any] = []
    _leaves(args, leaves)
    gen = schedule.run(*[x.value if type(x) in (Var, VarMat) else x for x in leaves])
    try:
        values, writes = next(gen)
    except Exception:  # noqa: BLE001 (a guard, or an error the full rule will raise with
        return _MISSING  # its own message, at the user's line)
    outputs = [(Var(v) if shape is None else VarMat(v)) if shape is not _MISSING else v
               for v, shape in zip(values, schedule.shape)]
    variables = [x for x in leaves if type(x) in (Var, VarMat)]
    boxed = [o for o, s in zip(outputs, schedule.shape) if s is not _MISSING]

    def backward() -> None:
        seeds = [o.adjoint if type(o) is Var or o.has_adjoint else None for o in boxed]
        adjoints = [x.adjoint for x in variables]
        cts = gen.send((_by_position(seeds, schedule.shape), adjoints))
        for x, ct in zip(variables, cts):
            if type(x) is Var:
                x.adjoint = ct
    region = current()
    region.push(backward, tuple(boxed))
    region.writes.extend(writes)
    return outputs[0] if schedule.container is None else schedule.container(outputs)


def _by_position(seeds: List[Any], shape: List[Any]) -> List[Any]:
    it = iter(seeds)
    return [next(it) if s is not _MISSING else None for s in shape]


# ---- signatures --------------------------------------------------------------------------
def signature(args: tuple) -> Tuple[Any, str]:
    """What a schedule is specialized on: the structure of the arguments (lists and
    tuples), the kind, shape, dtype and layout (C order or not) of each variable and
    array, and the value of each int, bool, str or None; (None, why) for anything
    else."""
    out: List[Any] = []
    for a in args:
        why = _describe(a, out)
        if why:
            return None, why
    leaves: List[Any] = []
    _leaves(args, leaves)
    if len({id(x) for x in leaves}) != len(leaves):
        return None, "one array or variable passed as two arguments"
    return tuple(out), ""


def _describe(x: Any, out: List[Any]) -> str:
    t = type(x)
    if t is Var:
        if type(x.value) not in (float, np.float64):
            return f"a Var holding {type(x.value).__name__} (forward over reverse, or " \
                   f"complex): the full reverse rule runs"
        out.append((t, type(x.value)))
    elif t is VarMat or t is np.ndarray:
        value = x.value if t is VarMat else x
        if value.dtype.kind != "f":
            return f"an array of dtype {value.dtype}"
        out.append((t, value.shape, value.dtype.str, value.flags.c_contiguous))
    elif t is float or t is np.float64:
        out.append(t)
    elif t in _PLAIN:
        out.append((t, x))
    elif t in (list, tuple):
        out.append((t, len(x)))
        for item in x:
            why = _describe(item, out)
            if why:
                return why
    else:
        return f"an argument of type {t.__name__}"
    return ""


def _name_arguments(rec: ReverseRecorder, args: tuple) -> Tuple[List[str], List[str]]:
    """Refs for the leaves (a0, a1, ...) and lines rebuilding the lists and tuples."""
    leaves: List[str] = []
    containers: List[str] = []

    def visit(x: Any) -> str:
        if type(x) in (list, tuple):
            items = [visit(v) for v in x]
            ref = rec.name(x, f"p{len(containers)}")
            brackets = "[]" if type(x) is list else "()"
            comma = "," if type(x) is tuple and len(items) == 1 else ""
            containers.append(f"{ref} = {brackets[0]}{', '.join(items)}{comma}{brackets[1]}")
            return ref
        if type(x) in _PLAIN:
            return repr(x)
        ref = rec.name(x, f"a{len(leaves)}")
        leaves.append(ref)
        return ref
    for a in args:
        visit(a)
    return leaves, containers


def _leaves(x: Any, out: List[Any]) -> None:
    if type(x) in (list, tuple):
        for item in x:
            _leaves(item, out)
    elif type(x) not in _PLAIN:
        out.append(x)


def _outputs(rec: ReverseRecorder, out: Any) -> Tuple[List[Any], List[Any], Any]:
    """The refs (or constants) of the output's items; for each its box: None for a
    Var, a shape for a VarMat, _MISSING for a plain value; and the container type."""
    items = list(out) if type(out) in (list, tuple) else [out]
    refs, shape = [], []
    for item in items:
        ref = rec.atom(item)
        if type(item) in (list, tuple, dict):
            rec.invalid("a nested container as the output")
        refs.append(ref)
        shape.append(rec.shapes[ref] if rec.is_variable(ref) else _MISSING)
        if isinstance(ref, Const) and type(item) in (Var, VarMat):
            rec.invalid("an output of unknown origin")
    return refs, shape, type(out) if type(out) in (list, tuple) else None


# ---- double backward ----------------------------------------------------------------------
SECOND_ORDER = ("forward mode over the reverse rule (hvp, hessian, jvp of grad): the "
                "full reverse rule runs, differentiated as any reverse code is")


def full_reverse_rule(graph: ReverseGraph, *args: Any, **kwargs: Any) -> Any:
    """What forward mode differentiates in place of a replay (plain Python code)."""
    return dispatch.derived_rrule(graph.fn)(*args, **kwargs)


@frule(ReverseGraph.__call__)
def _reverse_graph_in_forward_mode(graph: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """A schedule is compiled for plain values: under forward mode (whose Duals fill the
    Vars), the full reverse rule runs instead, and the graph says so."""
    graph.primal.counts["full"] += 1
    graph.primal.reasons["second order"] = SECOND_ORDER
    out: Dual = derived_rule(full_reverse_rule)(graph, *args, **kwargs)
    return out
