"""Method calls on float arrays, where a rule's kinds (forward/optimizer/kinds.py) are
known: the rule of the NumPy method, called as a pure primitive.

    _fw_reshape1 = _fw_getattr(u, _fw_s_reshape)     ->  (skip)
    grid = _fw_call(_fw_reshape1, m, m)               ->  grid = _fw_reshape(u, m, m)

A dynamic call may mutate its operands, so the optimizer keeps them boxed. But where
the receiver's kind is a float array (an ndarray of its exact type: a subclass may
override its methods), `u.reshape(m, m)` is `np.ndarray.reshape(u, m, m)`, which
mutates nothing: the call line becomes a call of that method's registered rule (the
one the dynamic call would have found), pure unless it passes an `out`. Its result
may be a view of the receiver (reshape, ravel, transpose, squeeze): that changes
nothing for the analyses, which take every call result as an alias of its operands
(activity.py keeps both boxed when either is written in place, and inplace.py never
takes a call result, nor an array a call reads, for a private one).
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np

from fwdad.core.constants import Constants
from fwdad.forward.optimizer import kind_flow
from fwdad.forward.optimizer.kinds import Kind
from fwdad.forward.optimizer.lines import Line, walk_lines
from fwdad.rules.purity import call_is_pure
from fwdad.rules.registry import entry_of, get_frule

# The methods of a float array that mutate nothing but an `out` they are given.
PURE_METHODS = frozenset({
    "reshape", "ravel", "flatten", "transpose", "swapaxes", "squeeze", "copy", "conj",
    "conjugate", "sum", "mean", "prod", "cumsum", "cumprod", "max", "min"})


def resolve(body: List[Line], params: Dict[str, Kind], constants: Constants) -> None:
    """Turn the method calls on float arrays of the Lines `body` into calls of the
    methods' rules, in place (see the module docstring), until no more are found (the
    result of one may be the receiver of the next: `x.reshape(m, m).sum()`)."""
    while True:
        lines = walk_lines(body)
        kinds = kind_flow.propagate(lines, params)
        reads = _read_counts(lines)
        if not _resolve_block(body, reads, kinds, constants):
            return


def _resolve_block(block: List[Line], reads: Dict[str, int], kinds: Dict[str, Kind],
                   constants: Constants) -> bool:
    """Rewrite the method calls of `block` and of the blocks inside it; whether any."""
    changed = False
    for i, line in enumerate(block):
        if line.body or line.orelse:
            changed |= _resolve_block(line.body, reads, kinds, constants)
            changed |= _resolve_block(line.orelse, reads, kinds, constants)
        if i > 0 and _is_method_call(line, block[i - 1], reads, kinds):
            _rewrite(line, block[i - 1], constants)
            changed = True
    return changed


def _read_counts(lines: List[Line]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for line in lines:
        for atom in line.operands + line.tested:
            counts[atom.name] = counts.get(atom.name, 0) + 1
    return counts


def _is_method_call(line: Line, maker: Line, reads: Dict[str, int],
                    kinds: Dict[str, Kind]) -> bool:
    """Whether `line` calls the bound method that `maker`, the line just before it,
    gets (`m = getattr(x, "reshape")`, read by this call alone), a known pure method
    of a float array with a registered rule."""
    return _calls_bound_method(line, maker, reads) and \
        kind_flow.operand_kind(maker.args[0][0], kinds)[0] == "array"


def _calls_bound_method(line: Line, maker: Line, reads: Dict[str, int]) -> bool:
    """Whether `line` calls what `maker` gets, a known pure method of a local with a
    registered rule (whatever the local's kind)."""
    if line.kind != "call" or line.entry is not None or not line.args or \
            line.args[0][1] or line.args[0][0].kind != "local":
        return False
    bound = line.args[0][0].name
    if maker.kind != "call" or getattr(maker.entry, "primal", None) is not getattr or \
            maker.targets != [bound] or len(maker.args) != 2 or maker.keywords or \
            reads.get(bound) != 1:
        return False
    receiver, name = maker.args[0][0], maker.args[1][0]
    method = getattr(name.value, "primal", None) if name.kind == "const" else None
    return method in PURE_METHODS and receiver.kind == "local" and \
        receiver.name != bound and entry_of(getattr(np.ndarray, method)) is not None


def _rewrite(line: Line, maker: Line, constants: Constants) -> None:
    """`y = call(m, *args)` where `m = getattr(x, name)` -> `y = rule(x, *args)`."""
    name = maker.args[1][0].value.primal
    method = getattr(np.ndarray, name)
    entry, rule = entry_of(method), get_frule(method)
    receiver = maker.args[0]
    maker.kind, maker.targets, maker.args = "skip", [], []
    maker._operands = None
    line.args = [receiver] + line.args[1:]
    line._operands = None
    line.callee, line.entry = rule, entry
    names = [n for n, _ in line.keywords]
    line.pure = "out" not in names and None not in names and (
        entry is None or entry.out_at is None or call_is_pure(
            entry, len(line.args), names, any(s for _, s in line.args)))
    line.func = constants.bind(rule, "array_" + name).id
