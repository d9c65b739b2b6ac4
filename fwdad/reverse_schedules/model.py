"""What a reverse recording is made of: steps, constants, the calls the recorder treats
apart, and the tests on values it makes.

    Step("pure", rule, ["v1", Const(2.0)], outputs=["v2"])    v2 = rule(v1, 2.0)
    Const(value)      an argument that is the same object on every replay
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from fwdad import lang
from fwdad.probe import probe
from fwdad.reverse.rules_python import Method
from fwdad.reverse.tracked import untracked
from fwdad.reverse.var import Var, VarMat, is_matvar

# Plain scalars that a replay must see again with the same value: an int can be an
# index, a loop count or a literal the interpreter shares (ids of small ints repeat).
GUARDED_SCALARS = (int, bool, str, type(None), np.integer, np.bool_)
VIEWS = {np.transpose, np.ndarray.transpose, np.reshape, np.ndarray.reshape, np.ravel,
         np.ndarray.ravel}
# Calls that place variables in a container by position alone (no comparison of values).
STRUCTURAL = {lang.build_list, lang.build_tuple, lang.build_dict, operator.getitem,
              operator.add, list, tuple, dict, zip, enumerate, reversed, iter, lang.unpack,
              list.copy, dict.copy, dict.items, dict.values, dict.keys}
# Calls that only place objects (a function defined in recorded code may go through).
PLACING = STRUCTURAL | {list.append, list.extend, list.insert, operator.setitem}
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


def immutable(arg: Any) -> bool:
    """A constant no code can change between calls (a number, a string, a slice, a
    tuple of them)."""
    if type(arg) is not Const:
        return False
    value = arg.value
    if type(value) is tuple:
        return all(immutable(Const(v)) for v in value)
    return isinstance(value, GUARDED_SCALARS + (float, slice, type(Ellipsis)))


def name_of(fn: Any) -> str:
    return probe(fn, "__name__") or type(fn).__name__


RETURN_NONE = (list.append, operator.setitem, operator.delitem)
# Plain calls that change their first argument in place.
MUTATING = {list.append, list.extend, list.insert, list.pop, list.remove, list.clear,
            list.sort, list.reverse, operator.setitem, operator.delitem, operator.iadd,
            operator.imul, dict.update, dict.pop, dict.setdefault}


def variables_at(args: tuple) -> List[int]:
    """The positions of Vars and VarMats, or [] when another argument needs the general
    path of the rule (a list, a matvar, an object): rule_calls.Pure's fast path."""
    at = []
    for i, a in enumerate(args):
        if type(a) in (Var, VarMat):
            at.append(i)
        elif not untracked((a,), {}):
            return []
    return at


def _holds(x: Any, found: Callable[[Any], bool], depth: int) -> bool:
    """Whether `found` holds for x or for an item of the lists, tuples and dicts in x,
    `depth` levels down."""
    if found(x):
        return True
    if depth and type(x) in (list, tuple):
        return any(_holds(v, found, depth - 1) for v in x)
    if depth and type(x) is dict:
        return any(_holds(v, found, depth - 1) for v in x.values())
    return False


def _is_variable(x: Any) -> bool:
    return type(x) in (Var, VarMat) or is_matvar(x)


def holds_variable(x: Any, depth: int = 3) -> bool:
    return _holds(x, _is_variable, depth)


def holds_closure(x: Any, depth: int = 3) -> bool:
    """A function defined in recorded code (reverse code's ReverseClosure), in x."""
    from fwdad.reverse.dispatch import ReverseClosure
    return _holds(x, lambda v: type(v) is ReverseClosure, depth)


def holds_unknown_variable(rec: Any, x: Any, depth: int = 3) -> bool:
    """A variable the recording `rec` has not named, in x (or bound to a method in x)."""
    def unknown(v: Any) -> bool:
        if type(v) is Method:
            v = v.obj
        if not _is_variable(v):
            return False
        ref = rec.refs.get(id(v))
        return ref is None or rec.values[ref] is not v
    return _holds(x, unknown, depth)
