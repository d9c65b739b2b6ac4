"""Every holder of an array's tangent, found so that a widened tangent can replace it in
all of them (fwdad/rules/widening.py), or the reason it cannot.

    m = C * 2.0           # m's tangent T (computed from a constant: no batch axis)
    holder = [m]          # T is held by m's Dual and by the list's tangent [T]
    holder[0][0] = x[0]   # found: Dual(m, T).tangent, [T][0] of Dual([m], [T]), and
                          # the tangent of holder[0]'s Dual(m, T): each pairs T with m

A holder is a slot that pairs the tangent with the array `primal` being written: the
`tangent` of a Dual whose primal is that array, or an item of a list, dict or tuple or
a field of a `Tangent` that is itself (a few levels up) the tangent of a Dual whose
primal holds the array at the same place. A tuple, which cannot change, is rebuilt and
replaced in its own holders. Every reference to the tangent, and to each container on
the way, must be such a slot: references are counted (sys.getrefcount) and found in the
collector's young generations, indexed once per search (a tangent made in this call is
held there). The whole heap is not searched: gc.get_referrers over a long test run's
heap cost 60 ms a container, and a Hessian through a write into another argument went
from 0.1 to 28 s there. A reference that is not found (an older holder, a view's base,
a local of running code, a C structure) or is no slot (a closure cell, a generator)
refuses, since a new tangent would miss it; so does a slot that pairs the tangent with
another array, since a new tangent there would write this array's derivative into that
one's.
"""
from __future__ import annotations

import gc
import sys
import types
from typing import Any, Dict, List, NamedTuple, Optional, Set, Tuple, Union

from fwdad.dual import Dual
from fwdad.tangents import Tangent

_DEPTH = 6  # containers followed up from the tangent (a list in a dict in an object ...)
_MISSING = object()
_HELD = 3  # references to a container being explained in the search's frames: explain's
#            loop variable and argument, _held's argument (its referrer lists are counted)
Path = Tuple[Any, ...]  # keys from a holder down to the tangent


class Slot(NamedTuple):
    """`holder[key]` (an item of a list or dict), or `holder.key` with `field`."""
    holder: Any
    key: Any
    field: bool = False


class Rebuilt(NamedTuple):
    """The tuple `old` with a new value at `keys`, put in the slots that held `old`."""
    old: tuple
    keys: List[int]
    slots: List[Union[Slot, "Rebuilt"]]


Slots = List[Union[Slot, Rebuilt]]


class Found(NamedTuple):
    """The slots holding the tangent, or (slots None) what holds it that is no slot."""
    slots: Optional[Slots]
    refusal: str


def holders(primal: Any, tangent: Any, held_outside: int) -> Found:
    """The slots that hold `tangent` as the tangent of `primal`, when they are all its
    holders; `held_outside` counts the references to it in the caller's frames."""
    search, slots = _Search(primal), []
    try:
        explained = search.explain(tangent, [()], held_outside + 2, 0, slots)  # (+ args)
    finally:  # (a traceback that keeps this frame must not keep the young objects)
        search.table, search.index, search.made = None, {}, []
    return Found(slots if explained else None, search.refusal)


def replace(slots: Slots, new: Any) -> None:
    """Put the widened tangent `new` in every slot `holders` found."""
    for slot in slots:
        if type(slot) is Rebuilt:
            replace(slot.slots, tuple(new if i in slot.keys else item
                                      for i, item in enumerate(slot.old)))
        elif slot.field:
            setattr(slot.holder, slot.key, new)
        else:
            slot.holder[slot.key] = new


class _Search:
    """One search up the referrers of a tangent (its state: the referrer lists it made,
    which hold what it looks at, and the first reason to refuse)."""

    def __init__(self, primal: Any) -> None:
        self.primal = primal
        self.refusal = ""
        self.own: List[Any] = []
        self.made: List[Any] = []  # (the slots it made, which hold their holders)
        # the young generations' objects (one reference each) and, by id, who holds
        # whom among them: made once, on the first look up
        self.table: Optional[Dict[int, Any]] = None
        self.index: Dict[int, List[int]] = {}

    def explain(self, obj: Any, paths: List[Path], held_here: int, depth: int,
                slots: Optional[Slots]) -> bool:
        """Whether every reference to `obj` (but `held_here` in the frames of this
        search, its argument included) is a slot that pairs it, along each of `paths`,
        with the primal, when obj is to be replaced: then its slots go into `slots`.
        When obj is a container whose item is replaced in place (slots None), every
        holder sees the change: only those found that pair it are checked."""
        if depth > _DEPTH:
            self._refuse("containers nested deeper than fwdad follows")
            return False
        unexplained: Optional[int] = sys.getrefcount(obj) - 1 - held_here  # (its arg)
        unexplained -= self._ours(obj)
        mine = len(self.own)
        self.own.append(self._young_referrers(obj))  # (quick, and usually all of them)
        try:
            unexplained = self._held_by_all(obj, paths, depth, slots, unexplained)
            if unexplained and depth == 0:  # (a container of a container is tracked)
                self.own.append(self._others(self._untracked_holding(obj),
                                             self.own[mine:]))
                unexplained = self._held_by_all(obj, paths, depth, slots, unexplained)
        finally:
            del self.own[mine:]
        if unexplained is None or slots is None:
            return unexplained is not None
        if unexplained:  # (holders not found: a local of running code, a C structure)
            self._refuse(_TUPLE if type(obj) is tuple else
                         "a view of it, a closure or a local of running code")
        return unexplained == 0

    def _ours(self, obj: Any) -> int:
        """The references to obj that this search holds: its table, its referrer lists
        and the slots it made."""
        count = 1 if self.table is not None and self.table.get(id(obj)) is obj else 0
        for own in self.own:
            count += len(_keys_of(own, obj) or ())
        for made in self.made:
            count += len(_keys_of(made, obj) or ())
        return count

    def _young_referrers(self, obj: Any) -> List[Any]:
        """gc.get_referrers(obj) among the objects of the collector's two young
        generations (made since its last full collection), which usually hold all the
        holders of a tangent made in this call: one scan of them, not of the heap."""
        if self.table is None:
            self.table = {}
            enabled = gc.isenabled()
            gc.disable()  # (a collection now would move this search's own objects into
            try:  # the generations it reads)
                young = gc.get_objects(0) + gc.get_objects(1)
                for holder in young:
                    self.table[id(holder)] = holder
                    for part in gc.get_referents(holder):
                        held = self.index.setdefault(id(part), [])
                        if not held or held[-1] != id(holder):
                            held.append(id(holder))
            finally:
                if enabled:
                    gc.enable()
        return [self.table[i] for i in self.index.get(id(obj), ())]

    def _untracked_holding(self, obj: Any) -> List[Any]:
        """The untracked dicts and tuples holding obj (see _untracked_holding), found
        from the young generations' Duals and Tangents (the table _young_referrers
        made)."""
        found: List[Any] = []
        seen: Set[int] = set()
        for root in (self.table or {}).values():
            if isinstance(root, Dual):
                _walk(root.tangent, obj, found, seen, 0)
            elif type(root) is Tangent:
                _walk(vars(root), obj, found, seen, 0)
        return found

    def _others(self, referrers: List[Any], found: List[List[Any]]) -> List[Any]:
        """The referrers that are neither found already nor this search's own."""
        ids = {id(holder) for holders in found for holder in holders}
        return [holder for holder in referrers if id(holder) not in ids and
                holder is not self.table and holder is not self.made and
                not _is_among(holder, self.own) and type(holder) not in (Slot, Rebuilt)]

    def _held_by_all(self, obj: Any, paths: List[Path], depth: int,
                     slots: Optional[Slots], unexplained: Optional[int]) -> Optional[int]:
        """`unexplained` less the references to obj held by the last referrer list,
        each a slot (None when one is not)."""
        for referrer in self.own[-1]:
            count = None if unexplained is None else \
                self._held(referrer, obj, paths, depth, slots)
            if count is None:
                return None
            unexplained -= count
        return unexplained

    def _held(self, referrer: Any, obj: Any, paths: List[Path], depth: int,
              slots: Optional[Slots]) -> Optional[int]:
        """How many references to obj `referrer` holds, each a pairing slot (None: one
        is not). (No comprehension here or in explain: one would hold obj in a cell.)"""
        if isinstance(referrer, Dual):
            return self._in_dual(referrer, obj, paths, slots)
        kind = type(referrer)
        if kind is Tangent and vars(referrer) is obj:  # (the fields of an instance's)
            return 1 if self.explain(referrer, paths, _HELD, depth + 1, None) else None
        if kind is not list and kind is not dict and kind is not tuple:
            if slots is None:
                return 0  # (it sees the container change)
            return self._refuse(f"a {_NAMES.get(kind, kind.__name__)}")
        keys = _keys_of(referrer, obj)
        if keys is None:
            return self._refuse("a dict that has it as a key")
        rebuilt = [] if kind is tuple and slots is not None else None
        if not self.explain(referrer, _prefixed(keys, paths), _HELD, depth + 1, rebuilt):
            return None
        if rebuilt is not None:
            self._add(slots, Rebuilt(referrer, keys, rebuilt))
        elif slots is not None:
            for key in keys:
                self._add(slots, Slot(referrer, key))
        return len(keys)

    def _in_dual(self, dual: Dual, obj: Any, paths: List[Path], slots: Optional[Slots]
                 ) -> Optional[int]:
        count = 0
        if dual.primal is obj:
            return self._refuse("a value that holds it as its primal")
        if dual.tangent is obj:
            if not _pairs(dual.primal, paths, self.primal):
                return self._refuse("another array that has the same tangent")
            if slots is not None:
                self._add(slots, Slot(dual, "tangent", field=True))
            count += 1
        if getattr(dual, "owner", None) is obj:  # a FieldDual's object: read from it
            count += 1
        return count

    def _add(self, slots: Any, slot: Any) -> None:
        slots.append(slot)
        self.made.append(slot)

    def _refuse(self, what: str) -> None:
        """Note the first holder that is no slot; None (and so False) for the caller."""
        self.refusal = self.refusal or what


_TUPLE = "a tuple that fwdad cannot replace (a list can change in place)"
_METHODS = (types.MethodType, types.BuiltinMethodType)
_NAMES = {types.CellType: "closure variable", types.FunctionType: "function's defaults",
          types.GeneratorType: "running generator"}


# (an untracked dict or tuple, one the garbage collector stops tracking when it holds
# nothing it tracks, such as only arrays, is seen by no gc.get_referrers: a dict or tuple
# tangent, the fields of an instance's tangent. They are found down the tangents of the
# Duals and Tangents: _Search._untracked_holding)
def _walk(part: Any, obj: Any, found: List[Any], seen: Set[int], depth: int) -> None:
    """Append to `found` the untracked dicts and tuples in `part` that hold obj."""
    kind = type(part)
    if kind is Tangent:
        part, kind = vars(part), dict
    if (kind is not list and kind is not tuple and kind is not dict) or \
            depth > _DEPTH or id(part) in seen:
        return
    seen.add(id(part))
    holds = False
    for item in part.values() if kind is dict else part:
        if item is obj:
            holds = True
        else:
            _walk(item, obj, found, seen, depth + 1)
    if holds and kind is not list and not gc.is_tracked(part):
        found.append(part)


def _is_among(value: Any, values: List[Any]) -> bool:
    return any(value is other for other in values)


def _keys_of(container: Any, obj: Any) -> Optional[List[Any]]:
    """The indices or keys at which a list, tuple or dict holds obj (None: a key is
    obj)."""
    if type(container) is not dict:
        return [i for i, item in enumerate(container) if item is obj]
    if any(key is obj for key in container):
        return None
    return [key for key, item in container.items() if item is obj]


def _prefixed(keys: List[Any], paths: List[Path]) -> List[Path]:
    return [(key,) + path for key in keys for path in paths]


def _pairs(primal: Any, paths: List[Path], array: Any) -> bool:
    """Whether `primal` holds `array` along every path."""
    return all(_follow(primal, path) is array for path in paths)


def _follow(value: Any, path: Path) -> Any:
    """value[key] for each key of the path: an item of a list, tuple or dict, a field of
    an instance or the primal or tangent of a Dual (a level-1 value at level 2)."""
    for key in path:
        value = _part(value, key)
        if value is _MISSING:
            break
    return value


def _part(value: Any, key: Any) -> Any:
    if type(value) in _METHODS and not isinstance(value.__self__, types.ModuleType):
        value = value.__self__  # (a bound method's Dual has its object's tangent)
    if type(value) in (list, tuple) and type(key) is int:
        return value[key] if -len(value) <= key < len(value) else _MISSING
    if isinstance(value, dict):
        return dict.get(value, key, _MISSING)
    if isinstance(value, Dual):
        return getattr(value, key) if key in ("primal", "tangent") else _MISSING
    fields = getattr(value, "__dict__", None)
    return fields.get(key, _MISSING) if type(fields) is dict else _MISSING
