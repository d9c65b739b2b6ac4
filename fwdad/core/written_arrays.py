"""The global and closure arrays that differentiated code writes into by name, and the
other objects that hold them (forward/written_globals.py registers the arrays).

Within one derivative every read of such an array by a name gets the one Dual that
the derivative keeps for it. A list, dict, instance or view that holds the array too
(`HOLDER = [G]`, `BOX.g = G`, `V = G[1:]`), read live, would get a new zero tangent for
it, which does not see what a write through G's name put there: such a read is
refused (`refuse_holder`), as is a rule that would take such a holder for a constant.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from fwdad.errors import FwdadError, a_type, in_user_code

# id -> a weak reference to the array (a plain dict: read_global tests it at every read;
# an entry whose array is gone stays, and matches nothing)
WRITTEN: Dict[int, "weakref.ref[np.ndarray]"] = {}

# Whether a derivative runs now in this thread: forward/defaults.py, a higher layer,
# tells (`tell_derivative_open`).
_OPEN_TEST: List[Callable[[], bool]] = []


def tell_derivative_open(test: Callable[[], bool]) -> None:
    _OPEN_TEST[:] = [test]


def derivative_is_open() -> bool:
    return bool(_OPEN_TEST) and _OPEN_TEST[0]()


_MOST_ITEMS = 64  # (looked through per container: a bound on a read's cost)
_DEEPEST = 3


def note_written(array: np.ndarray) -> None:
    WRITTEN[id(array)] = weakref.ref(array)


def is_written(array: Any) -> bool:
    ref = WRITTEN.get(id(array))
    return ref is not None and ref() is array


def _registered(array: Any, registry: Dict[int, "weakref.ref[np.ndarray]"]) -> bool:
    ref = registry.get(id(array))
    return ref is not None and ref() is array


def written_within(value: Any, depth: int = 0,
                   registry: Optional[Dict[int, "weakref.ref[np.ndarray]"]] = None
                   ) -> Optional[np.ndarray]:
    """A registered array that `value` holds (a view of it, an item, a field), looked
    for a few levels deep; None when there is none (or no array is registered). The
    `registry` is WRITTEN unless given (reverse/state.py has its own)."""
    registry = WRITTEN if registry is None else registry
    if not registry:
        return None
    if type(value) is np.ndarray:  # (a view of one, or the array one is a view of)
        if _registered(value, registry):
            return None
        for ref in list(registry.values()):
            array = ref()
            if array is not None and np.may_share_memory(value, array):
                return array
        return None
    if depth >= _DEEPEST:
        return None
    if isinstance(value, (list, tuple)):
        items = value[:_MOST_ITEMS]
    elif isinstance(value, dict):
        items = list(value.values())[:_MOST_ITEMS]
    elif hasattr(value, "__dict__") and not isinstance(value, type) and \
            type(value).__module__.split(".")[0] not in ("fwdad", "numpy", "builtins"):
        items = list(vars(value).values())[:_MOST_ITEMS]
    else:
        return None
    for item in items:
        if type(item) is np.ndarray and _registered(item, registry):
            return item
        found = written_within(item, depth + 1, registry)  # (views too)
        if found is not None:
            return found
    return None


def refuse_holder(value: Any) -> None:
    """Refuse a live read, in a derivative, of an object other than a registered array
    that holds one."""
    held = written_within(value)
    if held is None:
        return
    line = in_user_code()
    what = "an array that shares memory with (a view of it, or its base)" \
        if type(value) is np.ndarray else f"{a_type(value)} that holds"
    raise FwdadError(
        f"{what} a global or closure array that the differentiated code writes into "
        f"by name is read{line}: fwdad follows such an array only through its own name "
        f"(a write through the name would not reach this read's derivative). Read the "
        f"array by its name, or pass the object that holds it as an argument.")
