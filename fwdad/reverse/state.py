"""The user's arrays that reverse code writes variables into: a function's mutable default
array, and a global or closure array that code writes into by name.

    def stash(a, buf=np.zeros(3)):         SCRATCH = np.zeros(3)
        buf[...] = a                        def stash(a):
        buf *= 0.5                              SCRATCH[...] = a
        return buf + np.cos(a) * 0.1            return SCRATCH * 2.0

Such an array is one object for every call, so it cannot be boxed once as an argument
is. As in forward mode (forward/defaults.py, forward/written_globals.py), within one
recorded pass (one vjp region) every read of it gets the same variable: a VarMat (or a
matvar) made from a copy of its value the first time the pass reads it, a leaf with no
inputs, so that reads before the first write are of a constant and later reads see the
writes with their derivatives. The copy keeps the tape's values fixed whatever the user
does to the array after the vjp returns (a pullback may run later, and more than once).
When the forward pass ends, the array is given the variable's value, as a plain call
leaves it (`write_back`); the next derivative starts from a constant again.

The reverse transform reads such arrays through `read`: a parameter whose default is
one on entry (`buf = _fw_state(buf)`), a global or closure name at each load. A holder
fwdad cannot follow would keep the old value while the variable moves on, so it is
refused: a list, dict, object or view that holds the array read through a global or
closure name, the array (or a holder of it) given as an argument of the vjp, and a
holder or the array itself read in the same pass before fwdad knew that the array is
written (its rule was built later in the pass: the next pass is right).
"""
from __future__ import annotations

import types
import weakref
from typing import Any, Dict, Tuple

import numpy as np

from fwdad.core.written_arrays import written_within
from fwdad.core.written_names import written_arrays, written_names
from fwdad.errors import FwdadError, a_type, in_user_code
from fwdad.reverse.tape import Tape, current, recording, regions
from fwdad.reverse.var import VarMat, new_matvar, value_of
from fwdad.source import get_source

# id -> a weak reference to the array: the mutable default arrays written by name, and
# the global or closure arrays written by name (a plain dict: `read` tests it per read)
STATEFUL: Dict[int, "weakref.ref[np.ndarray]"] = {}


class PassState:
    """What one recorded pass (a tape region) knows of the stateful arrays."""

    __slots__ = ("variables", "seen", "given")

    def __init__(self, given: tuple) -> None:
        self.variables: Dict[int, Tuple[np.ndarray, Any]] = {}  # id -> (array, variable)
        self.seen: Dict[int, Any] = {}  # plain values read through names, by id
        self.given = given  # the vjp's arguments (plain), keywords included


def begin(region: Tape, given: tuple) -> None:
    """The pass recorded in `region` calls f with the arguments `given`."""
    region.state = PassState(given)


def register(fn: Any) -> None:
    """Note the arrays that `fn` writes into by name: its float array defaults and the
    float arrays of its globals and closure cells (when its reverse rule is built)."""
    for array in list(written_arrays(fn)) + list(written_defaults(fn).values()):
        STATEFUL[id(array)] = weakref.ref(array)


def written_defaults(fn: Any) -> Dict[str, np.ndarray]:
    """Parameter -> its default, for the float array defaults that fn writes into by
    name (`buf[...] = v`, `buf *= v`, `buf.fill(v)`, `out=buf`)."""
    if not isinstance(fn, types.FunctionType):
        return {}
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    defaults = dict(zip(names[len(names) - len(fn.__defaults__ or ()):],
                        fn.__defaults__ or ()))
    defaults.update(fn.__kwdefaults__ or {})
    arrays = {n: v for n, v in defaults.items()
              if type(v) is np.ndarray and v.dtype.kind in "fc"}
    if not arrays:
        return {}
    written = set(written_names(get_source(fn).tree))
    return {n: v for n, v in arrays.items() if n in written}


def is_stateful(value: Any) -> bool:
    ref = STATEFUL.get(id(value))
    return ref is not None and ref() is value


def read(value: Any) -> Any:
    """A read, by a name, of a value that may be a stateful array or hold one: the
    pass's variable of the array; a holder is refused."""
    if not STATEFUL or not recording():
        return value
    region = current()
    state = region.state
    if state is None:  # (a region that is no vjp's pass: a rule's own, inside one)
        if type(value) is np.ndarray and is_stateful(value) and _outer_variable(value):
            raise _holder(value, "is read inside a rule's own reverse pass (a nested "
                                 "derivative), while the outer pass holds it as a "
                                 "variable,")
        return value
    if type(value) is np.ndarray and is_stateful(value):
        kept = state.variables.get(id(value))
        return kept[1] if kept is not None else _new_variable(value, region, state)
    held = written_within(value, registry=STATEFUL)
    if held is not None:
        raise _holder(value, "is read")
    if type(value) is not np.ndarray or value.dtype.kind in "fc":
        state.seen[id(value)] = value  # (may hold an array not known as written yet)
    return value


def _outer_variable(array: np.ndarray) -> bool:
    """Whether an open vjp pass holds a variable of the array."""
    return any(r.state is not None and id(array) in r.state.variables
               for r in regions())


def _new_variable(array: np.ndarray, region: Tape, state: PassState) -> Any:
    """The pass's variable of the stateful `array`, made at its first read."""
    one = {id(array): weakref.ref(array)}
    for value in state.given:
        if value is array or written_within(value, registry=one) is not None:
            raise _holder(array, "is also given as an argument (or a view of it, or a "
                                 "list, dict or object that holds it, is) of the "
                                 "function differentiated")
    for value in state.seen.values():
        if value is array or written_within(value, registry=one) is not None:
            raise _met_late(array)
    if region.layout == "varmat":
        variable = VarMat(array.astype(array.dtype.newbyteorder("=")))  # (a copy)
    else:
        variable = new_matvar(array)
    region.keep(variable)
    state.variables[id(array)] = (array, variable)
    return variable


def stored(value: Any) -> Any:
    """What `global G; G = value` stores: the user's array for the pass's variable of
    it (`G += v` stores G back), anything else as it is."""
    state = current().state if recording() else None
    if state is not None:
        for array, variable in state.variables.values():
            if variable is value:
                return array
    return value


def write_back(region: Tape) -> None:
    """The user's arrays get the values their variables have when the forward pass ends,
    as a plain call leaves them; the pass's knowledge of them is dropped."""
    state = region.state
    if state is None:
        return
    region.state = None
    for array, variable in state.variables.values():
        array[...] = value_of(variable)


def _holder(value: Any, what: str) -> FwdadError:
    line = in_user_code()
    return FwdadError(
        f"{a_type(value)} that is, or holds, a mutable default array or a global or "
        f"closure array that the differentiated code writes into by name {what}{line}: "
        f"reverse mode follows such an array only through its own name (a write through "
        f"the name would not reach this reference's derivative). Read the array by its "
        f"name, or pass a copy of it (`x.copy()`) as an argument.")


def _met_late(array: np.ndarray) -> FwdadError:
    line = in_user_code()
    return FwdadError(
        f"fwdad met a write into {a_type(array)} (a mutable default, or a global or "
        f"closure array written by name) only in the middle of a reverse pass{line}, "
        f"after the pass had read it (or a list, dict, object or view that holds it) as "
        f"a constant: this derivative would be wrong. fwdad knows the array now: the "
        f"next call is right. To avoid this, call the function that writes the array "
        f"by its name once before differentiating, or pass the array as an argument.")
