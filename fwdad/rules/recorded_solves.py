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
batch does). A recorded tangent that the computation reads and `recorded` did not find
is refused (an UnrecordableError), never read as another value.
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable, List, Sequence

import numpy as np

from fwdad.core.closures import DerivedClosure
from fwdad.dual import Dual
from fwdad.errors import UnrecordableError
from fwdad.rules.batching import batch
from fwdad.tangents import Tangent

_DEPTH = 8  # functions and containers followed to the Duals they hold


def recording(inputs: Sequence[Any]) -> bool:
    """Whether a tangent that linearize records is reachable from `inputs` (as
    `recorded` looks for them)."""
    from fwdad.recording import Linear  # (recording imports the rules' modules)
    leaves: List[Any] = []
    for dual in _duals_in(inputs):
        _linear_leaves(dual.tangent, Linear, leaves)
    return bool(leaves)


def recorded(compute: Callable[[], Any], inputs: Sequence[Any], name: str) -> Any:
    """compute(): the tangent (a float or a float array) that SciPy computes from the
    tangents of the Duals reachable from `inputs`; one op of linearize's tape when one
    of those tangents is recorded (see the module docstring)."""
    from fwdad.recording import Linear  # (recording imports the rules' modules)
    duals = _duals_in(inputs)
    leaves: List[Any] = []
    for dual in duals:
        _linear_leaves(dual.tangent, Linear, leaves)
    if not leaves:
        return compute()
    op = RecordedTangent(compute, duals, leaves, name)
    tape = leaves[0].tape
    if any(leaf.tape is not tape for leaf in leaves):
        raise UnrecordableError(f"{name}: tangents of two linearizations met")
    return tape.record(op, tuple(leaves), {})


class RecordedTangent:
    """One rule's SciPy computation as a recorded linear map: its matrix in each
    recorded tangent it reads, made once when linearize records it."""

    def __init__(self, compute: Callable[[], Any], duals: List[Dual], leaves: List[Any],
                 name: str) -> None:
        self.__name__ = name  # (the tape's readable program names the op)
        self.shapes = [leaf.shape for leaf in leaves]
        self.matrices, self.shape = _matrices(compute, duals, leaves, name)

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


def _matrices(compute: Callable[[], Any], duals: List[Dual], leaves: List[Any],
              name: str):
    """([M_k], output shape): compute() run once, in a batch of one unit tangent per
    entry of the recorded leaves (the others zero) put in the Duals that hold them."""
    sizes = [leaf.size for leaf in leaves]
    total, starts = sum(sizes), np.cumsum([0] + sizes)
    index = {id(leaf): k for k, leaf in enumerate(leaves)}
    units = [np.eye(total)[:, start:start + size].reshape((total,) + leaf.shape)
             for leaf, start, size in zip(leaves, starts, sizes)]
    saved = [dual.tangent for dual in duals]
    tape = leaves[0].tape
    ops = len(tape.ops)
    try:
        for dual in duals:
            dual.tangent = _substituted(dual.tangent, index, units)
        with batch(total):  # (jacfwd's context, not linearize's)
            out = compute()
    finally:
        for dual, tangent in zip(duals, saved):
            dual.tangent = tangent
    if len(tape.ops) != ops or not isinstance(out, (float, np.ndarray, np.generic)) or \
            np.shape(out)[:1] != (total,):
        raise UnrecordableError(f"scipy.{name}: its tangent reads a recorded value fwdad "
                                f"did not find among its arguments and the Duals they hold")
    columns = np.reshape(np.asarray(out, dtype=float), (total, -1)).T
    return [columns[:, start:start + size] for start, size in zip(starts, sizes)], \
        np.shape(out)[1:]


def _duals_in(inputs: Sequence[Any]) -> List[Dual]:
    """The Duals among the inputs and those the functions among them hold (in closure
    cells, a partial's arguments, a DerivedClosure's rule), each once."""
    found: List[Dual] = []
    seen: set = set()
    _walk(list(inputs), found, seen, 0)
    return found


def _walk(values: Any, found: List[Dual], seen: set, depth: int) -> None:
    for value in values:
        if id(value) in seen or depth > _DEPTH:
            continue
        seen.add(id(value))
        if isinstance(value, Dual):
            found.append(value)
            _walk([value.primal], found, seen, depth + 1)
        elif isinstance(value, DerivedClosure):
            _walk([value.rule], found, seen, depth + 1)
        elif isinstance(value, types.FunctionType):
            cells = [c.cell_contents for c in value.__closure__ or () if _filled(c)]
            _walk(cells, found, seen, depth + 1)
        elif isinstance(value, functools.partial):
            _walk([value.func, *value.args, *value.keywords.values()], found, seen, depth + 1)
        elif type(value) in (list, tuple):
            _walk(value, found, seen, depth + 1)
        elif type(value) is dict:
            _walk(list(value.values()), found, seen, depth + 1)


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
    elif type(tangent) in (list, tuple):
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
    if type(tangent) in (list, tuple):
        return type(tangent)(_substituted(item, index, values) for item in tangent)
    if type(tangent) is dict:
        return {k: _substituted(item, index, values) for k, item in tangent.items()}
    if type(tangent) is Tangent:
        return Tangent(**{k: _substituted(item, index, values)
                          for k, item in vars(tangent).items()})
    return tangent
