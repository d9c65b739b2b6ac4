"""The global and closure arrays, lists, dicts and instances that differentiated code
writes into by name, and the other objects that hold them (forward/written_globals.py
registers them).

Within one derivative every read of such an object by a name gets the one Dual that
the derivative keeps for it. A list, dict, instance or view that holds it too
(`HOLDER = [G]`, `BOX.g = G`, `V = G[1:]`, `VALUES = STORE.values()`), read live, would
get a new zero tangent for it, which does not see what a write through G's name put
there: such a read is refused (`refuse_holder`), as is a rule that would take such a
holder for a constant.
"""
from __future__ import annotations

import gc
import types
import weakref
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from fwdad.errors import FwdadError, a_type, in_user_code
from fwdad.probe import probe

# id -> a weak reference to the array, or a `Kept` of the list, dict or instance (a plain
# dict: read_global tests it at every read; an entry whose object is gone stays, and
# matches nothing)
WRITTEN: Dict[int, Callable[[], Any]] = {}

# Whether a derivative runs now in this thread: forward/defaults.py, a higher layer,
# tells (`tell_derivative_open`).
_OPEN_TEST: List[Callable[[], bool]] = []


def tell_derivative_open(test: Callable[[], bool]) -> None:
    _OPEN_TEST[:] = [test]


def derivative_is_open() -> bool:
    return bool(_OPEN_TEST) and _OPEN_TEST[0]()


_MOST_ITEMS = 64  # (looked through per container: a bound on a read's cost)
_DEEPEST = 3


class Kept:
    """The entry of a list, dict or instance, which cannot be referenced weakly: it
    is registered while the object that keeps its Dual (a forward/defaults.FreshDefault)
    lives."""

    __slots__ = ("keeper",)

    def __init__(self, keeper: Any) -> None:
        self.keeper = weakref.ref(keeper)

    def __call__(self) -> Any:
        keeper = self.keeper()
        return None if keeper is None else keeper.value


def note_written(value: Any, keeper: Any = None) -> None:
    """Register an array (`keeper` None), or a list, dict or instance whose Dual
    `keeper` keeps."""
    WRITTEN[id(value)] = weakref.ref(value) if keeper is None else Kept(keeper)


def is_written(value: Any, registry: Optional[Dict[int, Callable[[], Any]]] = None) -> bool:
    """Whether `value` is registered in `registry` (WRITTEN unless given:
    reverse/state.py has its own)."""
    ref = (WRITTEN if registry is None else registry).get(id(value))
    return ref is not None and ref() is value


# Objects that refer to a dict or list without being one (`STORE.values()`,
# `iter(STORE)`, `STORE.append`): gc tells what they refer to.
_VIEWS = (type({}.values()), type({}.items()), type(iter([])), type(iter({})),
          type(iter({}.values())), type(iter({}.items())), types.BuiltinMethodType,
          types.MethodWrapperType)


def refers(value: Any) -> bool:
    """Whether `value` is a view, iterator or bound method of another object, which a
    write into that object reaches (`STORE.values()`, `STORE.__getitem__`)."""
    return isinstance(value, _VIEWS) and not isinstance(
        getattr(value, "__self__", None), (types.ModuleType, type, type(None))) or \
        isinstance(value, types.MethodType) and not isinstance(value.__self__, type)


def written_within(value: Any, depth: int = 0,
                   registry: Optional[Dict[int, Callable[[], Any]]] = None) -> Any:
    """A registered object that `value` holds (a view of it, an item, a field), looked
    for a few levels deep; None when there is none (or nothing is registered). The
    `registry` is WRITTEN unless given (reverse/state.py has its own)."""
    registry = WRITTEN if registry is None else registry
    if not registry or is_written(value, registry):
        return None
    if type(value) is np.ndarray:  # (a view of one, or the array one is a view of)
        for ref in list(registry.values()):
            array = ref()
            if type(array) is np.ndarray and np.may_share_memory(value, array):
                return array
        return None
    if depth >= _DEEPEST:
        return None
    if isinstance(value, (list, tuple)):
        items = value[:_MOST_ITEMS]
    elif isinstance(value, dict):
        items = list(value.values())[:_MOST_ITEMS]
    elif isinstance(value, _VIEWS):
        items = [getattr(value, "__self__", None)] if isinstance(value, (
            types.BuiltinMethodType, types.MethodWrapperType)) else gc.get_referents(value)
    elif isinstance(value, types.MethodType):
        items = [value.__self__]
    elif probe(value, "__dict__") is not None and not isinstance(value, type) and \
            type(value).__module__.split(".")[0] not in ("fwdad", "numpy", "builtins"):
        items = list(vars(value).values())[:_MOST_ITEMS]
    else:
        return None
    for item in items:
        if is_written(item, registry):
            return item
        found = written_within(item, depth + 1, registry)  # (views too)
        if found is not None:
            return found
    return None


def refuse_holder(value: Any, what: str = "") -> None:
    """Refuse a live read, in a derivative, of an object other than a registered one
    that holds one (`what` it is, for the message)."""
    held = written_within(value)
    if held is None:
        return
    line = in_user_code()
    what = what or ("an array that shares memory with (a view of it, or its base)"
                    if type(value) is np.ndarray else f"{a_type(value)} that holds")
    kind = "array" if type(held) is np.ndarray else type(held).__name__
    such = "an array" if kind == "array" else a_type(held)
    raise FwdadError(
        f"{what} a global or closure {kind} that the differentiated code writes into "
        f"by name is read{line}: fwdad follows such {such} only through its own "
        f"name (a write through the name would not reach this read's derivative). Read "
        f"the {kind} by its name, or pass the object that holds it as an argument.")
