"""@fwdad.static_graph: record a schedule of primitive calls, replay it, guard it.

The first call with a given input signature (the types of the arguments, and the shapes
and dtypes of arrays, for primals and tangents) runs the derived rule while recording
the primitive calls it makes (forward/schedule/record.py). Later calls with that signature
replay the flat, optimized schedule (forward/schedule/replay.py): no dispatch, no loops, no
branches. Guards keep it exact: a branch that goes the other way, a loop of another
length, a global rebound, or a different callee at a dynamic call makes that call fall
back to the full derived rule. Functions the recorder cannot replay exactly (in-place
updates, nested defs, `*args`) always run the full rule. Reverse mode has schedules of
its own, forward and backward steps in one (`graph.reverse`:
fwdad/reverse_schedules/schedule.py).
"""
from __future__ import annotations

import functools
import weakref
from collections import Counter
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from fwdad.core import rebinding
from fwdad.dual import Dual
from fwdad.forward.dispatch import derived_rule
from fwdad.forward.schedule.record import Fallback, Recorder
from fwdad.forward.schedule.replay import build_schedule
from fwdad.reverse_schedules.schedule import add_reverse_schedules
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent

_SCALARS = (float, int, bool, complex, str, type(None))
_NUMPY_SCALARS = (np.number, np.bool_)  # (an item of an array: solve_ivp's args=(p[0], ...))
_MISSING = object()


def static_graph(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: `fn` still works on plain values; differentiating it (`fwdad.jvp`, or
    a call from other differentiated code) replays a recorded schedule when it can.

    Example:
        @fwdad.static_graph
        def step(x, w):
            return np.tanh(w @ x) * 0.5 + x

        fwdad.jvp(step, (x, w), (dx, dw))   # records
        fwdad.jvp(step, (x, w), (dx, dw))   # replays
        step.static_graph.counts            # records, replays, fallbacks, full
        step.static_graph.reverse           # the same, for grad, vjp, value_and_grad

    Returns:
        A wrapper of `fn` whose forward rule is a `StaticGraph`.
    """
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)
    graph = StaticGraph(fn)
    wrapper.static_graph = graph  # type: ignore[attr-defined]
    frule(wrapper)(graph)
    add_reverse_schedules(wrapper, graph)
    return wrapper


class StaticGraph:
    """The forward rule of a @static_graph function: one schedule per signature."""

    made: "weakref.WeakSet[StaticGraph]" = weakref.WeakSet()

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.schedules: Dict[Any, Optional[Callable[..., Any]]] = {}
        self.counts: Counter[Any] = Counter()
        self.reasons: Dict[Any, str] = {}
        self.bound: Dict[Any, rebinding.Bindings] = {}  # the globals each resolved
        self.__name__ = f"static_graph_{fn.__name__}"
        StaticGraph.made.add(self)

    def __call__(self, *args: Dual, **kwargs: Dual) -> Dual:
        key = None if kwargs else signature(args)
        schedule: Any = self.schedules.get(key, _MISSING) if key is not None else None
        if schedule is _MISSING:
            return self.record(key, args)
        if schedule is not None:
            try:
                out: Dual = schedule(*args)
            except Fallback:
                self.counts["fallbacks"] += 1
                if key in self.bound and self.bound[key].rebound():
                    rebinding.forget_rules()  # (this graph's schedules with the rest)
            else:
                self.counts["replays"] += 1
                return out
        self.counts["full"] += 1
        full: Dual = derived_rule(self.fn)(*args, **kwargs)
        return full

    def record(self, key: Any, args: tuple[Any, ...]) -> Dual:
        """Run the rule once, recording; keep the schedule if it can be replayed."""
        rec = Recorder()
        for i, d in enumerate(args):
            rec.name(d, f"a{i}")
        out: Dual = rec.rule_of(self.fn)(*args)
        self.schedules[key] = build_schedule(rec, len(args), out, self.fn.__name__)
        self.bound[key] = rec.bound
        self.reasons[key] = rec.reason
        self.counts["records"] += 1
        return out

    def source(self) -> str:
        """The source of the last schedule recorded (for reading)."""
        ready: List[Any] = [s for s in self.schedules.values() if s is not None]
        return str(ready[-1].source) if ready else ""


def _forget_schedules() -> None:
    """A global a schedule's rules resolved was rebound: record them again."""
    for graph in list(StaticGraph.made):
        graph.schedules.clear()


rebinding.on_forget(_forget_schedules)


def signature(args: tuple[Any, ...]) -> Optional[tuple[Any, ...]]:
    """Types, and shapes and dtypes of arrays, of the primals and tangents; None when an
    argument is something else (then the full rule runs)."""
    out = []
    for d in args:
        p, t = _leaf(d.primal), _leaf(d.tangent)
        if p is None or t is None:
            return None
        out.append((p, t))
    return tuple(out)


def _leaf(value: Any) -> Any:
    if value is NoTangent or type(value) in _SCALARS or isinstance(value, _NUMPY_SCALARS):
        return type(value)
    if type(value) is np.ndarray:
        return value.shape, value.dtype.str
    return None
