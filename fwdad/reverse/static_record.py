"""Record what a derived reverse rule does, as one flat list of steps (issue 21).

A recording rule is the derived reverse rule of a function with every callee it binds
wrapped, as forward/record.py does for forward mode. It runs on Vars and records on the
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

import ast
import copy
import operator
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from fwdad import frontend, lang
from fwdad.compile import compile_function
from fwdad.forward.dispatch import LazyRule
from fwdad.reverse import dispatch
from fwdad.reverse.registry import NonDiff, Pure, entries, get_rrule, holds_complex
from fwdad.reverse.rules_python import Method
from fwdad.reverse.tape import current
from fwdad.reverse.transform import transform
from fwdad.reverse.var import Var, VarMat, is_matvar
from fwdad.source import python_function

# Plain scalars that a replay must see again with the same value: an int can be an
# index, a loop count or a literal the interpreter shares (ids of small ints repeat).
GUARDED_SCALARS = (int, bool, str, type(None), np.integer, np.bool_)
VIEWS = {np.transpose, np.ndarray.transpose, np.reshape, np.ndarray.reshape, np.ravel,
         np.ndarray.ravel}
# Calls that place variables in a container by position alone (no comparison of values).
STRUCTURAL = {lang.build_list, lang.build_tuple, lang.build_dict, operator.getitem,
              operator.add, list, tuple, zip, enumerate, reversed, iter, lang.unpack}
# Deterministic calls of constants, whose result is folded into the schedule.
FOLDED = {lang.build_slice, slice, operator.add, operator.sub, operator.mul,
          operator.floordiv, operator.mod, operator.neg, operator.lt, operator.le,
          operator.gt, operator.ge, operator.eq, operator.ne, operator.not_,
          lang.build_tuple, len, range, operator.getitem}
# Raw rules that do on plain values what their primal does, and so replay as it.
REPLAYED_AS_PRIMAL = {getattr, lang.build_tuple, lang.build_list, np.zeros, np.ones,
                      np.empty, np.zeros_like, np.ones_like, np.empty_like, np.eye,
                      np.identity}
IN_PLACE = {operator.iadd: operator.add, operator.isub: operator.sub,
            operator.imul: operator.mul, operator.itruediv: operator.truediv,
            operator.ipow: operator.pow, operator.imatmul: operator.matmul}


class RecordedThrough:
    """A rule whose function the recorder records through, as a static call (the
    reverse rule of another @static_graph function: one flat schedule for both)."""

    fn: Callable[..., Any]


@dataclass(frozen=True)
class Const:
    """An argument that is the same object on every replay (a literal, a bound global)."""
    value: Any


@dataclass
class Step:
    kind: str                 # pure, plain, index, view, write, test, same, value, read
    callee: Any               # what the replay calls (a pure rule, a plain callable)
    args: List[Any]           # refs (str) or Const
    kwargs: Dict[str, Any] = field(default_factory=dict)
    outputs: List[Optional[str]] = field(default_factory=list)  # None: not kept
    info: Dict[str, Any] = field(default_factory=dict)


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
    tables: tuple = field(default_factory=lambda: rule_tables())

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
        if _holds_variable(value):
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
                self.invalid(f"{_name(step.callee)} made a variable the schedule cannot "
                             f"replay")
            elif step.callee is not operator.getitem:  # max(xs) may pick another item
                self.count += 1
                step.outputs.append(f"v{self.count}")
                self.steps.append(Step("alias", None, [f"v{self.count}", ref]))
            return ref
        if _holds_unknown_variable(self, out):
            self.invalid(f"{_name(step.callee)} made a container of variables the "
                         f"schedule cannot replay")
        elif _holds_variable(out) and (self.primal_of(step.callee) or step.callee) not in \
                STRUCTURAL:
            self.invalid(f"{_name(step.callee)} returned variables in an order the "
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
        if step.callee in FOLDED and all(_immutable(a) for a in step.args) and \
                all(_immutable(v) for v in step.kwargs.values()):
            self.folded[id(out)] = out  # (the same on every replay: no step)
            return out
        if len(region.chain) != chain or len(region.writes) != writes:
            self.invalid(f"the reverse rule of {_name(callee)} records on the tape itself")
        self.add(step)
        if type(out) is VarMat and len(region.nochain) == kept + 1 and \
                region.nochain[-1] is out:  # a new array (np.zeros): a variable with no
            step.kind = "fresh"             # inputs, that values may be written into
            step.callee = self.primal_of(callee) or step.callee  # (the primal makes plain
            # arrays: the rule would make a VarMat again, in the region of the replay)
            step.outputs.append(self.fresh(out))
        elif out is not None or self.primal_of(callee) not in _RETURN_NONE:
            self.output(step, out)
        return out

    def pure(self, rule: Pure, args: tuple, kwargs: dict) -> Any:
        """An rrule: a pure step when its arguments are variables and plain values."""
        at = _variables_at(args)
        if not at or any(_holds_variable(v) for v in kwargs.values()) or "out" in kwargs:
            return self.plain(rule, args, kwargs, replay=rule.fn)
        out = rule(*args, **kwargs)
        if type(out) not in (Var, VarMat):
            self.invalid(f"{_name(rule.fn)} gave {type(out).__name__}, not one variable")
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
            self.invalid(f"{_name(fn)} copied a varmat instead of viewing it")
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
        from fwdad.reverse.rules_arrays import _last_writes
        step = Step("write", None, [self.atom(x), self.atom(key), self.atom(v)],
                    info={"landed": _last_writes(x.shape, key)})
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
        return iter(self.unpack(it, -1))

    def unpack(self, value: Any, count: int, star: int = -1) -> tuple:
        if type(value) is VarMat:
            if star >= 0:
                self.invalid("starred unpacking of a varmat")
                return lang.unpack(value, count, star)
            items = tuple(self.index(value, i) for i in range(len(value)))
            if len(items) != count:
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

    def read(self, reader: Callable[[], Any]) -> Any:
        """A global or closure variable, read live: the replay reads it again and falls
        back when it is no longer the same object."""
        value = reader()
        if _holds_variable(value):
            self.invalid("a global or closure variable holds a variable")
            return value
        step = Step("read", reader, [], info={"value": value})
        self.add(step)
        step.outputs.append(self.fresh(value))
        return value

    def call(self, rule: Any, args: tuple, kwargs: dict) -> Any:
        """A call of what reverse code binds for a primitive or a derived rule."""
        if type(rule) is Pure:
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
        if isinstance(rule, (LazyRule, RecordedThrough)):
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
        if isinstance(f, types.FunctionType) and get_rrule(f) is None:
            self._guard_callee(f)
            return self.rule_of(f)(*args, **kwargs)
        if isinstance(f, dispatch.ReverseClosure) or get_rrule(f) is None:
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
            self.invalid(f"{_name(fn)} has no Python source")
            return dispatch.static_rrule(fn)
        rule = self.rules.get(plain)
        if rule is None:
            rule = self.rules[plain] = _recording_rule(plain, self)
        return rule


def rule_tables() -> tuple:
    """id -> (rule, primal) for the raw rrules (and their wrappers), and id -> (rule,
    (Pure, arity)) for rules wrapping a Pure; read anew for each recording, holding the
    rules so that their ids stay theirs."""
    raw: Dict[int, Any] = {}
    wrapping: Dict[int, Any] = {}
    for entry in entries():
        if entry.kind == "raw":
            raw[id(entry.callable)] = entry.callable, entry.primal
            raw[id(entry.rule)] = entry.rule, entry.primal
        inner = _out_wrapped(entry.callable)
        if inner is not None:  # (a copy takes one argument, as a unary ufunc)
            wrapping[id(entry.callable)] = entry.callable, (
                inner, getattr(entry.primal, "nin", 1))
    return raw, wrapping


def _out_wrapped(rule: Any) -> Optional[Pure]:
    """The Pure inside rules_ufuncs.with_out's wrapper (`call`), or inside
    rules_creation.copying's (`pure`), if `rule` is one of them."""
    if not isinstance(rule, types.FunctionType) or rule.__code__.co_name not in (
            "rule", "made"):
        return None
    for name in ("call", "pure"):
        if name in rule.__code__.co_freevars:
            cell = rule.__closure__[rule.__code__.co_freevars.index(name)]
            return cell.cell_contents if type(cell.cell_contents) is Pure else None
    return None


def _immutable(arg: Any) -> bool:
    """A constant no code can change between calls (a number, a string, a slice, a
    tuple of them)."""
    if type(arg) is not Const:
        return False
    value = arg.value
    if type(value) is tuple:
        return all(_immutable(Const(v)) for v in value)
    return isinstance(value, GUARDED_SCALARS + (float, slice, type(Ellipsis)))


def _name(fn: Any) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


_RETURN_NONE = (list.append, operator.setitem, operator.delitem)


def _variables_at(args: tuple) -> List[int]:
    """The positions of Vars and VarMats, or [] when another argument needs the general
    path of the rule (a list, a matvar, an object)."""
    from fwdad.reverse.registry import _simple_variables
    at = _simple_variables(args)
    return at or []


def _holds_variable(x: Any, depth: int = 3) -> bool:
    if type(x) in (Var, VarMat) or is_matvar(x):
        return True
    if depth and type(x) in (list, tuple):
        return any(_holds_variable(v, depth - 1) for v in x)
    if depth and type(x) is dict:
        return any(_holds_variable(v, depth - 1) for v in x.values())
    return False


def _holds_unknown_variable(rec: ReverseRecorder, x: Any, depth: int = 3) -> bool:
    if type(x) in (Var, VarMat) or is_matvar(x):
        ref = rec.refs.get(id(x))
        return ref is None or rec.values[ref] is not x
    if depth and type(x) in (list, tuple):
        return any(_holds_unknown_variable(rec, v, depth - 1) for v in x)
    if depth and type(x) is dict:
        return any(_holds_unknown_variable(rec, v, depth - 1) for v in x.values())
    if depth and type(x) is Method:
        return _holds_unknown_variable(rec, x.obj, 0)
    return False


# ---- the recording rule of one function ----------------------------------------------
class _Wrapped:
    """A callee of reverse code inside a recording rule."""

    __slots__ = ("rule", "rec", "__name__")

    def __init__(self, rule: Any, rec: ReverseRecorder) -> None:
        self.rule, self.rec, self.__name__ = rule, rec, _name(rule)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.rec.call(self.rule, args, kwargs)


def _recording_rule(fn: Callable, rec: ReverseRecorder) -> Callable:
    src, normalized = frontend.normalized(fn)
    tree, constants = transform(normalized, src)
    if any(isinstance(n, _REFUSED) for n in ast.walk(tree) if n is not tree) or \
            tree.args.vararg or tree.args.kwarg:
        rec.invalid(f"{fn.__qualname__} has nested functions, try, with, global or *args")
    tree = _Instrument(tree, set(constants.values)).visit(copy.deepcopy(tree))
    values = {name: _wrap(value, rec) for name, value in constants.values.items()}
    values.update(_fw_rec_test=rec.test, _fw_rec_iter=rec.iterate, _fw_rec_read=rec.read)
    return compile_function(tree, values, src.cells, src.globals, fn.__defaults__ or (),
                            dict(fn.__kwdefaults__ or {}), src.filename,
                            f"recording reverse rule of {fn.__qualname__}")


_REFUSED = (ast.FunctionDef, ast.Lambda, ast.Try, ast.With, ast.Global, ast.Nonlocal)
_VALUES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)


def _wrap(value: Any, rec: ReverseRecorder) -> Any:
    """Rules (what reverse code calls) are wrapped; functions and classes bound as
    values (`_apply(square, x)`) stay as they are, so a dynamic call sees them."""
    if value is dispatch.call:
        return rec.dynamic
    if value is dispatch.closure:
        return value  # (the recording is already invalid: nested defs)
    if rec.primal_of(value) is not None or rec.wrapped_pure(value) is not None or (
            callable(value) and not isinstance(value, _VALUES)):
        return _Wrapped(value, rec)
    return value


class _Instrument(ast.NodeTransformer):
    """`if t:` -> `if _fw_rec_test(t):` (and while, assert); `for v in it` -> `for v in
    _fw_rec_iter(it)`; a global or closure name read -> `_fw_rec_read(lambda: name)`."""

    def __init__(self, tree: ast.FunctionDef, bound: set) -> None:
        args = tree.args
        self.local = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and
            not isinstance(n.ctx, ast.Load)} | {
            (a.asname or a.name).split(".")[0] for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names} | bound

    def _test(self, node: Any) -> Any:
        node = self.generic_visit(node)
        node.test = ast.Call(func=ast.Name(id="_fw_rec_test", ctx=ast.Load()),
                             args=[node.test], keywords=[])
        return node

    visit_If = visit_While = visit_Assert = _test  # (an assert that would fail falls
    # back, and the full rule raises it)

    def visit_For(self, node: ast.For) -> Any:
        node = self.generic_visit(node)
        node.iter = ast.Call(func=ast.Name(id="_fw_rec_iter", ctx=ast.Load()),
                             args=[node.iter], keywords=[])
        return node

    def visit_Name(self, node: ast.Name) -> Any:
        if not isinstance(node.ctx, ast.Load) or node.id in self.local or \
                node.id.startswith("_fw_") or node.id in _BUILTIN_NAMES:
            return node
        read = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                                             kwonlyargs=[], kw_defaults=[], kwarg=None,
                                             defaults=[]), body=node)
        return ast.copy_location(ast.Call(func=ast.Name(id="_fw_rec_read", ctx=ast.Load()),
                                          args=[read], keywords=[]), node)


_BUILTIN_NAMES = {"True", "False", "None"}
