"""Tangents that SciPy computes inside a rule (an ODE's sensitivities, the integral of an
integrand's tangent, the implicit function theorem with a closure), recorded by
linearize as one linear operation of its tape.

    dvalue = recorded(lambda: quad(df/dp dp, a, b), [func, a, b, *args])
    # under linearize, one op of the tape:  dvalue = <quad's tangent>(dp, dcaptured)

SciPy reads tangents as numbers at every step of its solver, so the `Linear` values
linearize records cannot go in (fwdad/recording.py). `recorded` finds every tangent the
computation reads: those of the Duals among its inputs, and of the Duals that the
functions among them captured (a function defined inside the differentiated one). When
some are recorded, the computation runs once, when linearize records it, as jvp runs it
in a batch (jacfwd's way): with one unit tangent per entry of those `Linear` values, put
in the Duals that hold them, so that it gives its matrix M in them. The tape records
one op, M times those values (`RecordedTangent`): lin(t) applies M, and lin.T its
transpose, which agree to rounding; lin(t) agrees with jvp's own run along t to the
solver's tolerance (the solver's steps depend on the tangents it carries, as jacfwd's
batch does). Refused (an UnrecordableError naming the call and the user's line), never
approximated: a recorded tangent that the computation reads and `recorded` did not find;
a computation that writes into what the functions captured (an array, a list, a field,
a nonlocal name: what the solver's last call left there would keep the tangent it had
before the call); complex tangents (a real matrix cannot hold them). Outside linearize
(no tangent context) nothing is looked for: jvp runs the computation as before.
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable, List, Sequence

import numpy as np

from fwdad.core.closures import DerivedClosure
from fwdad.dual import Dual
from fwdad.errors import UnrecordableError, in_user_code
from fwdad.rules.batching import batch, in_a_context
from fwdad.tangents import NoTangent, Tangent, rebuild

_DEPTH = 8  # functions and containers followed to the Duals they hold


def recording(inputs: Sequence[Any]) -> bool:
    """Whether a tangent that linearize records is reachable from `inputs` (as
    `recorded` looks for them)."""
    return in_a_context() and _records(_duals_in(inputs))


def _records(duals: List[Dual]) -> bool:
    return bool(_recorded_leaves(duals))


def recorded(compute: Callable[[], Any], inputs: Sequence[Any], name: str) -> Any:
    """compute(): the tangent (a float or a float array) that SciPy computes from the
    tangents of the Duals reachable from `inputs`; one op of linearize's tape when one
    of those tangents is recorded (see the module docstring). `name`: the call, as
    "integrate.quad" (scipy.integrate.quad)."""
    if not in_a_context():  # (jvp: no tangent is recorded, and nothing to look for)
        return compute()
    cells: List[Any] = []
    duals = _duals_in(inputs, cells)
    leaves = _recorded_leaves(duals)
    if not leaves:
        return compute()
    tape = leaves[0].tape
    if any(leaf.tape is not tape for leaf in leaves):
        raise refusal(f"scipy.{name}{in_user_code()}: the tangents of two linearizations "
                      f"meet in it. Use fwdad.jvp or fwdad.jacfwd.")
    if any(leaf.dtype.kind == "c" for leaf in leaves):
        raise complex_refusal(name)
    op = RecordedTangent(compute, duals, cells, leaves, name)
    return tape.record(op, tuple(leaves), {})


def refusal(message: str) -> UnrecordableError:
    """An UnrecordableError whose message is whole (the call, the user's line, what to
    do): linearize raises it as it is, adding nothing."""
    exc = UnrecordableError(message)
    exc.whole = True
    return exc


def complex_refusal(name: str) -> UnrecordableError:
    return refusal(f"scipy.{name}{in_user_code()}: its tangent is complex here (a complex "
                   f"value reaches it), and linearize records SciPy's tangents as real "
                   f"matrices, which cannot represent a complex one. Use fwdad.jvp or "
                   f"fwdad.jacfwd, which differentiate it.")


def _recorded_leaves(duals: List[Dual]) -> List[Any]:
    """The recorded tangents (`Linear`) the Duals hold, each once."""
    from fwdad.recording import Linear  # (recording imports the rules' modules)
    leaves: List[Any] = []
    for dual in duals:
        _linear_leaves(dual.tangent, Linear, leaves)
    return leaves


class RecordedTangent:
    """One rule's SciPy computation as a recorded linear map: its matrix in each
    recorded tangent it reads, made once when linearize records it."""

    def __init__(self, compute: Callable[[], Any], duals: List[Dual], cells: List[Any],
                 leaves: List[Any], name: str) -> None:
        self.__name__ = name  # (the tape's readable program names the op)
        self.shapes = [leaf.shape for leaf in leaves]
        self.matrices, self.shape = _matrices(compute, duals, cells, leaves, name)

    def __call__(self, *values: Any) -> np.ndarray:
        out = np.zeros(int(np.prod(self.shape)))
        for matrix, value in zip(self.matrices, values):
            out += matrix @ np.ravel(value)
        return out.reshape(self.shape)

    def transpose(self, buffers: list, index: int, args: tuple, kwargs: dict) -> None:
        """lin.T's rule: each input's cotangent gains M_k^T ct."""
        from fwdad.cotangents import accumulate  # (it imports the tape's modules)
        ct = np.ravel(buffers[index])
        for leaf, matrix in zip(args, self.matrices):
            accumulate(buffers, leaf, (ct @ matrix).reshape(leaf.shape))


def _matrices(compute: Callable[[], Any], duals: List[Dual], cells: List[Any],
              leaves: List[Any], name: str):
    """([M_k], output shape): compute() run once, in a batch of one unit tangent per
    entry of the recorded leaves (the others zero) put in the Duals that hold them."""
    sizes = [leaf.size for leaf in leaves]
    total, starts = sum(sizes), np.cumsum([0] + sizes)
    index = {id(leaf): k for k, leaf in enumerate(leaves)}
    units = [_unit_block(total, start, size).reshape((total,) + leaf.shape)
             for leaf, start, size in zip(leaves, starts, sizes)]
    saved = [dual.tangent for dual in duals]
    given = [_substituted(tangent, index, units) for tangent in saved]
    copies = [_copied(tangent) for tangent in given]
    bound = [(cell, cell.cell_contents) for cell in cells]
    tape = leaves[0].tape
    ops = len(tape.ops)
    try:
        for dual, tangent in zip(duals, given):
            dual.tangent = tangent
        with batch(total):  # (jacfwd's context, not linearize's)
            out = compute()
        written = _written(duals, given, copies, bound)  # (before the restore)
    except UnrecordableError as exc:  # (a recorded tangent read as a number)
        if getattr(exc, "whole", False):
            raise
        raise _not_found(name) from exc
    finally:
        for dual, tangent in zip(duals, saved):
            dual.tangent = tangent
    if len(tape.ops) != ops or not isinstance(out, (float, np.ndarray, np.generic)) or \
            np.shape(out)[:1] != (total,):
        raise _not_found(name)
    if written:
        raise _writes(name)
    if np.iscomplexobj(out):
        raise complex_refusal(name)
    columns = np.reshape(np.asarray(out, dtype=float), (total, -1)).T
    return [columns[:, start:start + size] for start, size in zip(starts, sizes)], \
        np.shape(out)[1:]


class CapturedWrites:
    """What the functions among `inputs` captured, before a computation runs it again
    on Duals (jvp's passes of an implicit function): `written()` after it says whether
    it wrote into one of those values' tangents or rebound a captured name to a value
    with a tangent, as the linearize path checks (`_written`)."""

    def __init__(self, inputs: Sequence[Any]) -> None:
        cells: List[Any] = []
        self.duals = _duals_in(inputs, cells)
        self.given = [dual.tangent for dual in self.duals]
        self.copies = [_copied(tangent) for tangent in self.given]
        self.bound = [(cell, cell.cell_contents) for cell in cells]

    def recording(self) -> bool:
        """Whether linearize records a tangent among these (`recording(inputs)`)."""
        return in_a_context() and _records(self.duals)

    def written(self) -> bool:
        return _written(self.duals, self.given, self.copies, self.bound)

    def frozen(self) -> "_Frozen":
        """`with captured.frozen():` the captured tangents' arrays read-only meanwhile,
        so that a write into one raises (a write that leaves the values as they were,
        which written() cannot see, too)."""
        arrays: List[np.ndarray] = []
        for tangent in self.given:
            _writable_arrays(tangent, arrays, 0)
        return _Frozen(arrays)


class _Frozen:
    def __init__(self, arrays: List[np.ndarray]) -> None:
        self.arrays = arrays

    def __enter__(self) -> None:
        for array in self.arrays:
            array.flags.writeable = False

    def __exit__(self, *exc: Any) -> None:
        for array in self.arrays:
            array.flags.writeable = True


def _writable_arrays(tangent: Any, found: List[np.ndarray], depth: int) -> None:
    if type(tangent) is np.ndarray:
        if tangent.flags.writeable and tangent.flags.owndata:  # (a view's base: its own)
            found.append(tangent)
    elif depth < _DEPTH and isinstance(tangent, (list, tuple)):
        for item in tangent:
            _writable_arrays(item, found, depth + 1)
    elif depth < _DEPTH and type(tangent) is dict:
        for item in tangent.values():
            _writable_arrays(item, found, depth + 1)
    elif depth < _DEPTH and type(tangent) is Tangent:
        for item in vars(tangent).values():
            _writable_arrays(item, found, depth + 1)


def _unit_block(total: int, start: int, size: int) -> np.ndarray:
    """Columns start..start+size of the (total x total) identity, made alone (a view of
    np.eye(total) kept the whole identity alive for each recorded value)."""
    block = np.zeros((total, size))
    block[np.arange(start, start + size), np.arange(size)] = 1.0
    return block


def _not_found(name: str) -> UnrecordableError:
    return refusal(f"scipy.{name}{in_user_code()}: the function it calls reads a "
                   f"differentiated value that fwdad did not find among the call's "
                   f"arguments and the values the function captured, so linearize cannot "
                   f"record its tangent. Pass that value in args=, or use fwdad.jvp or "
                   f"fwdad.jacfwd.")


def _writes(name: str) -> UnrecordableError:
    return refusal(f"scipy.{name}{in_user_code()}: the function it calls writes into a "
                   f"differentiated value it captured (an array, a list, a field, or a "
                   f"nonlocal name), and linearize records the tangent of the call's "
                   f"result only, not of what the solver's last call left there. Make "
                   f"the values the function writes inside it, or use fwdad.jvp or "
                   f"fwdad.jacfwd.")


def _written(duals: List[Dual], given: List[Any], copies: List[Any],
             bound: List[Any]) -> bool:
    """Whether the run wrote into a captured Dual's tangent (rebound it, or changed an
    array or container of it) or rebound a captured name to a value with a tangent."""
    if any(dual.tangent is not tangent or not _same(tangent, copy)
           for dual, tangent, copy in zip(duals, given, copies)):
        return True
    return any(cell.cell_contents is not value and isinstance(cell.cell_contents, Dual)
               and cell.cell_contents.tangent is not NoTangent for cell, value in bound)


def _copied(tangent: Any) -> Any:
    """A copy of a tangent's arrays and containers (what `_same` compares with)."""
    if type(tangent) is np.ndarray:
        return tangent.copy()
    if isinstance(tangent, (list, tuple)):
        return [_copied(item) for item in tangent]
    if type(tangent) is dict:
        return {k: _copied(item) for k, item in tangent.items()}
    if type(tangent) is Tangent:
        return {k: _copied(item) for k, item in vars(tangent).items()}
    return tangent


def _same(tangent: Any, copy: Any) -> bool:
    if type(tangent) is np.ndarray:
        return np.array_equal(tangent, copy, equal_nan=tangent.dtype.kind in "fc")
    if isinstance(tangent, (list, tuple)):
        return len(tangent) == len(copy) and all(map(_same, tangent, copy))
    if type(tangent) in (dict, Tangent):
        items = tangent if type(tangent) is dict else vars(tangent)
        return items.keys() == copy.keys() and all(_same(items[k], copy[k]) for k in copy)
    return tangent is copy


def _duals_in(inputs: Sequence[Any], cells: List[Any] = None) -> List[Dual]:
    """The Duals among the inputs and those the functions among them hold (in closure
    cells, a partial's arguments, a DerivedClosure's rule), each once; the cells met
    are added to `cells`."""
    found: List[Dual] = []
    seen: set = set()
    _walk(list(inputs), found, seen, 0, [] if cells is None else cells)
    return found


def _walk(values: Any, found: List[Dual], seen: set, depth: int, cells: List[Any]) -> None:
    for value in values:
        if id(value) in seen or depth > _DEPTH:
            continue
        seen.add(id(value))
        if isinstance(value, Dual):
            found.append(value)
            _walk([value.primal], found, seen, depth + 1, cells)
        elif isinstance(value, DerivedClosure):
            _walk([value.rule], found, seen, depth + 1, cells)
        elif isinstance(value, types.FunctionType):
            filled = [c for c in value.__closure__ or () if _filled(c)]
            cells.extend(filled)
            _walk([c.cell_contents for c in filled], found, seen, depth + 1, cells)
        elif isinstance(value, functools.partial):
            _walk([value.func, *value.args, *value.keywords.values()], found, seen,
                  depth + 1, cells)
        elif isinstance(value, (list, tuple)):
            _walk(value, found, seen, depth + 1, cells)
        elif type(value) is dict:
            _walk(list(value.values()), found, seen, depth + 1, cells)


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # (a variable not bound yet)
        return False
    return True


def _linear_leaves(tangent: Any, linear: type, leaves: List[Any]) -> None:
    if type(tangent) is linear:
        if not any(tangent is leaf for leaf in leaves):
            leaves.append(tangent)
    elif isinstance(tangent, (list, tuple)):  # (a NamedTuple's too)
        for item in tangent:
            _linear_leaves(item, linear, leaves)
    elif type(tangent) is dict:
        for item in tangent.values():
            _linear_leaves(item, linear, leaves)
    elif type(tangent) is Tangent:
        for item in vars(tangent).values():
            _linear_leaves(item, linear, leaves)


def _substituted(tangent: Any, index: dict, values: Sequence[Any]) -> Any:
    """The tangent with each recorded leaf replaced by its value (containers rebuilt)."""
    if id(tangent) in index:
        return values[index[id(tangent)]]
    if isinstance(tangent, (list, tuple)):
        return rebuild(tangent, [_substituted(item, index, values) for item in tangent])
    if type(tangent) is dict:
        return {k: _substituted(item, index, values) for k, item in tangent.items()}
    if type(tangent) is Tangent:
        return Tangent(**{k: _substituted(item, index, values)
                          for k, item in vars(tangent).items()})
    return tangent
