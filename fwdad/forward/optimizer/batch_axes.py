"""Which tangents of a batched variant may carry the batch axis, and which surely do.

    def f(x, w):            # jacfwd wrt x: dx (B, n) batched, dw (n,) unbatched
        r = x * 2.0         ->  may[r] = must[r] = {x}
        v = w + 1.0         ->  may[v] = must[v] = {w}
        t = g(w)            ->  may[t] = {w, HIDDEN}, must[t] = {}   (a rule call)
        r[1:] += v          ->  inlined only if may[v] <= must[r]: {w} is not in {x}

A variant for batched tangents runs with some parameters' tangents batched and others
not (jacfwd gives the arguments it does not differentiate unbatched zeros). An update
`r[k] += v` written inline as `dr[..., k] += dv` is right only where dr has a batch
axis whenever dv has one (else the rule widens dr first: optimizer/updates.py). So:
`may[x]`: the parameters whose batched tangent may give dx a batch axis, and HIDDEN
when something else may (a rule call, which may make a batched zero for a constant;
an unpacking, a loop, a statement the optimizer does not know). `must[x]`: the
parameters whose batched tangent surely gives dx one: through templates (elementwise,
matrix products and sums keep a batch axis, and their rules too), copies, updates and
the slices and rolls of forward/optimizer/array_lines.py; for a local assigned by
several lines, what all of them give (flow-insensitive, like the other analyses).
"""
from __future__ import annotations

from typing import Callable, Dict, FrozenSet, Iterable, List, Set, Tuple

from fwdad.forward.optimizer.activity import PLAIN
from fwdad.forward.optimizer.lines import Atom, Line

HIDDEN = ""  # a source of a batch axis that is no parameter
_NONE: FrozenSet[str] = frozenset()


class BatchAxes:
    """`may` and `must` of the active locals of a rule (see the module docstring)."""

    def __init__(self, lines: Iterable[Line], kinds: Dict[str, str], params: Set[str],
                 keeps: Callable[[Line], bool]) -> None:
        rows = _rows(lines, kinds)
        active = {p for p in params if kinds.get(p, PLAIN) != PLAIN}
        self.may = _may(rows, kinds, active, keeps)
        self.must = _must(rows, kinds, active, keeps)

    def follows(self, value: str, target: str) -> bool:
        """Whether the tangent of `target` surely has a batch axis wherever the tangent
        of `value` may have one."""
        may = self.may.get(value, _NONE)
        return HIDDEN not in may and may <= self.must.get(target, _NONE)


def _rows(lines: Iterable[Line], kinds: Dict[str, str]) -> List[Tuple[Line, str]]:
    """(line, target) for each active local a line assigns (`x, y = a, b` as two)."""
    rows = []
    for line in lines:
        if line.kind == "copies":
            rows.extend((Line("copy", line.node, [t], [arg]), t)
                        for t, arg in zip(line.targets, line.args))
        else:
            rows.extend((line, t) for t in line.targets)
    return [(line, t) for line, t in rows if kinds.get(t, PLAIN) != PLAIN]


def _sources(line: Line, kinds: Dict[str, str]) -> List[Atom]:
    """The active operands whose tangents reach the line's target (an update's index
    has none)."""
    atoms = [line.args[0][0], line.args[-1][0]] if line.kind == "update" else line.operands
    return [a for a in atoms if a.kind == "local" and kinds.get(a.name, PLAIN) != PLAIN]


def _kept(line: Line, keeps: Callable[[Line], bool]) -> bool:
    """Whether the line's tangent has a batch axis exactly where an operand's has."""
    return line.kind in ("template", "copy", "update") or (
        line.kind == "call" and keeps(line))


def _may(rows: List[Tuple[Line, str]], kinds: Dict[str, str], active: Set[str],
         keeps: Callable[[Line], bool]) -> Dict[str, FrozenSet[str]]:
    """The least fixpoint: a parameter is its own source; a line adds its operands'."""
    may: Dict[str, FrozenSet[str]] = {p: frozenset({p}) for p in active}
    changed = True
    while changed:
        changed = False
        for line, target in rows:
            new = frozenset().union(*(may.get(a.name, _NONE) for a in _sources(line, kinds)))
            if not _kept(line, keeps):
                new = new | {HIDDEN}
            old = may.get(target, _NONE)
            if not new <= old:
                may[target] = old | new
                changed = True
    return may


def _must(rows: List[Tuple[Line, str]], kinds: Dict[str, str], active: Set[str],
          keeps: Callable[[Line], bool]) -> Dict[str, FrozenSet[str]]:
    """The greatest fixpoint: what every assignment of a local gives it."""
    everything = frozenset(active)
    must: Dict[str, FrozenSet[str]] = {p: frozenset({p}) for p in active}
    for _, target in rows:
        must.setdefault(target, everything)
    changed = True
    while changed:
        changed = False
        for line, target in rows:
            given = frozenset().union(*(must[a.name] for a in _sources(line, kinds)
                                        if a.name in must)) if _kept(line, keeps) else _NONE
            new = must[target] & given
            if new != must[target]:
                must[target] = new
                changed = True
    return must
