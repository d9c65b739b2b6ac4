"""Activity analysis of a derived rule: which locals stay boxed, split, or plain.

It reads the Lines that forward/transform/dual_code.py recorded as it wrote the Dual code (one
operation each, forward/optimizer/lines.py) and gives each local of the rule one kind, for the
whole rule (flow-insensitive, so loops need no special care):
  BOXED  holds a Dual, exactly as in the plain rule: a call may mutate it or
         something it aliases, a nested def reads it, or a statement the optimizer
         does not know mentions it;
  SPLIT  a primal local and a tangent local;
  PLAIN  the primal only: its tangent is zero whatever the inputs (constants, loop
         counters, comparisons, arithmetic on those).
A local is also OPAQUE when its tangent may carry a batch axis that the rule's inputs
do not show (results of derived and dynamic calls): templates on it call the rule.
"""
from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Set

from fwdad import lang
from fwdad.forward.constant_calls import MissingRule, is_data
from fwdad.forward.optimizer import metadata
from fwdad.forward.optimizer.kinds import is_number
from fwdad.forward.optimizer.lines import Line, RuleLines, walk_lines

BOXED, SPLIT, PLAIN = "boxed", "split", "plain"


# ---- the analysis ---------------------------------------------------------------------
@dataclass
class Analysis:
    kinds: Dict[str, str]          # local -> BOXED, SPLIT or PLAIN
    names: Set[str]                # every name the rule mentions
    scoped: bool                   # it has `global` or `nonlocal` statements
    opaque: Set[str]               # locals whose tangents may carry a hidden batch axis
    lines: List[Line]              # every Line of the rule, blocks' after their own
    quiet: Set[int]                # ids of lines reading metadata (optimizer/metadata.py)
    value_kinds: Dict[str, Any]    # local -> its kind (optimizer/kind_flow.py), if known


def analyse(fn: ast.FunctionDef, rule_lines: RuleLines, constants: Dict[str, Any],
            inactive: Set[str] = frozenset(), guarded: bool = False,
            kinds_of: Optional[Callable[[List[Line]], Dict[str, Any]]] = None
            ) -> Analysis:
    """The kind of every local of the rule `fn`, whose Lines are `rule_lines` (see the
    module docstring); the parameters `inactive` have no tangent (the rule is
    specialized for that). A `guarded` rule turns away instances of user classes, so
    its parameters' metadata carry no tangent (forward/optimizer/metadata.py). Given
    `kinds_of` (the values' kinds of a rule specialized on its arguments' kinds:
    kind_flow.propagate), locals that always hold a number are never forced: no call
    can mutate a number, nor can it share an object with what it was read from
    (`a = c[0]` of a vector c: c stays as active as it was)."""
    lines = walk_lines(rule_lines.body)
    bound = params(fn)
    for line in lines:
        bound.update(line.targets)
    unknown = [line.opaque for line in lines if line.kind == "unknown"]
    names, reads, locals_ = set(), Counter(), bound | rule_lines.locals
    for opaque in unknown:
        names.update(opaque.mentioned)
        reads.update(opaque.loads)
        locals_ |= opaque.bound
    _join_tuple_swaps(rule_lines.body, lines, reads, [])
    scoped = any(opaque.scoped for opaque in unknown)
    names |= locals_ | rule_lines.globals | set(constants) | _literal_names(lines)
    everything, lines = lines, _rows(lines)
    value_kinds = kinds_of(everything) if kinds_of is not None else {}
    numbers = {name for name, kind in value_kinds.items() if is_number(kind)}
    args = fn.args
    forced = _forced(lines, locals_, numbers) | {
        a.arg for a in (args.vararg, args.kwarg) if a}
    readers = _readers(lines)
    quiet = metadata.quiet_reads(lines, params(fn)) if guarded else set()
    active = _closure(readers, (params(fn) - inactive) | forced | {
        t for line in lines if line.kind == "call" and not line.pure
        and not _is_nondiff(line) and not _missing(line)
        and not _reads_only_data(line, numbers) for t in line.targets},
        lambda line: _passes_activity(line) and id(line) not in quiet)
    opaque = _closure(readers, {t for line in lines if line.kind in ("call", "unknown")
                                and not line.pure for t in _defined(line, locals_)},
                      None, active)
    kinds = {name: BOXED if name in forced else SPLIT if name in active else PLAIN
             for name in locals_}
    return Analysis(kinds, names, scoped, opaque, everything, quiet, value_kinds)


def _literal_names(lines: List[Line]) -> Set[str]:
    """The names tests read as they are: an except clause's global class, which no
    tangent's name may shadow."""
    return {test.literal.id for line in lines for _, test in line.tests
            if type(test.literal) is ast.Name}


def _rows(lines: List[Line]) -> List[Line]:
    """The lines for the analysis: `x, y = a, b` counts as two copies."""
    out = []
    for line in lines:
        if line.kind == "copies":
            out.extend(Line("copy", line.node, [t], [arg])
                       for t, arg in zip(line.targets, line.args))
        else:
            out.append(line)
    return out


def _join_tuple_swaps(block: List[Line], lines: List[Line], reads: Counter,
                      counted: List[bool]) -> None:
    """`t = build_tuple(a, b)` then `x, y = unpack(t, 2)`, t read nowhere else: the
    user wrote `x, y = a, b`, which is two copies made at once (`reads`: the reads of
    the statements the optimizer does not know, to which those of `lines` are added
    when first needed: `counted`)."""
    previous: Optional[Line] = None
    for line in block:
        if _is_tuple_swap(previous, line):
            if not counted:
                counted.append(True)
                for other in lines:  # (`operands` would be kept, and args change)
                    reads.update(a.name for a, _ in other.args)
                    reads.update(a.name for _, a in other.keywords)
                    reads.update(a.name for a in other.tested)
            if reads[previous.targets[0]] == 1:
                previous.kind, previous.targets = "skip", []
                line.kind, line.args = "copies", previous.args
        if line.body or line.orelse:
            _join_tuple_swaps(line.body, lines, reads, counted)
            _join_tuple_swaps(line.orelse, lines, reads, counted)
        previous = line


def _is_tuple_swap(built: Optional[Line], line: Line) -> bool:
    if built is None or line.kind != "unpack" or built.kind != "call" or \
            built.entry is None or built.entry.primal is not lang.build_tuple:
        return False
    counts = [c.value for c in line.counts if isinstance(c, ast.Constant)]
    return len(built.targets) == 1 and line.args[0][0].name == built.targets[0] and \
        counts[:1] == [len(built.args)] and counts[1:] in ([], [-1]) and \
        not any(s for _, s in built.args)


def params(fn: ast.FunctionDef) -> Set[str]:
    args = fn.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    return names | {a.arg for a in (args.vararg, args.kwarg) if a is not None}


def _defined(line: Line, locals_: Set[str]) -> List[str]:
    if line.kind == "unknown":
        return [name for name in line.opaque.mentioned if name in locals_]
    return line.targets


def _forced(lines: List[Line], locals_: Set[str], numbers: Set[str]) -> Set[str]:
    """Locals that must stay Duals: mentioned by unknown statements, passed to calls
    that may mutate them, or aliased by such a local (through a copy, an unpacking, a
    loop or a call result, which may all share objects with their operands); not the
    locals `numbers`, which always hold a number (immutable, and a view of nothing)."""
    forced = set()
    for line in lines:
        if line.kind == "unknown":
            forced.update(_defined(line, locals_))
        elif line.kind in ("call", "template") and not line.pure and not _missing(line):
            forced.update(a.name for a in line.operands
                          if a.kind == "local" and a.name not in numbers)
    changed = True
    while changed:
        changed = False
        for line in lines:
            if line.kind in ("call", "template", "copy", "unpack", "for", "copies") and \
                    not _is_nondiff(line) and (set(line.targets) & forced) - numbers:
                new = {a.name for a in line.operands if a.kind == "local"} - forced
                forced |= new
                changed |= bool(new)
    return forced


def _is_nondiff(line: Line) -> bool:
    return line.entry is not None and line.entry.kind == "nondiff"


def _missing(line: Line) -> bool:
    """Whether `line` calls a function with no rule (forward/constant_calls.MissingRule):
    the call raises unless its operands are data with zero tangents, so its result has
    none, and whatever it mutates stays as constant as it was."""
    return type(line.callee) is MissingRule


def _reads_only_data(line: Line, numbers: Set[str]) -> bool:
    """Whether `line` calls a primitive (not a derived rule: the user's code may read
    state that holds Duals) and every operand is a constant that is data or a local that
    always holds a number (forward/constant_calls.is_data): an impure primitive
    (np.linspace) sees no Dual then, and what it mutates or returns stays as constant
    as its operands. (Not a local array: the result may be a view of it, which a later
    update may make active.)"""
    return line.entry is not None and all(
        a.name in numbers if a.kind == "local" else
        a.kind == "const" and is_data(getattr(a.value, "primal", a.value))
        for a in line.operands)


def _passes_activity(line: Line) -> bool:
    """Whether an active operand makes the targets of `line` active (an impure call
    makes them active whatever its operands)."""
    return line.kind != "unknown" and not _is_nondiff(line) and not _missing(line)


def _readers(lines: List[Line]) -> Dict[str, List[Line]]:
    """name -> the lines with targets that read it."""
    readers: Dict[str, List[Line]] = {}
    for line in lines:
        if line.targets:
            # an update's index (forward/optimizer/inplace.py) passes on no tangent
            operands = [line.args[0][0], line.args[-1][0]] if line.kind == "update" \
                and not line.template.out \
                else line.operands
            for atom in operands:
                known = readers.get(atom.name)
                if known is None:
                    readers[atom.name] = [line]
                elif known[-1] is not line:
                    known.append(line)
    return readers


def _closure(readers: Dict[str, List[Line]], start: Set[str],
             passes: Optional[Callable[[Line], bool]],
             through: Optional[Set[str]] = None) -> Set[str]:
    """The least set holding `start` and the targets of every line that `passes` (all
    when None) and reads a name of the set (one in `through` as well, when given)."""
    seen = set(start)
    todo = list(seen)
    while todo:
        name = todo.pop()
        if through is not None and name not in through:
            continue
        for line in readers.get(name, ()):
            if passes is not None and not passes(line):
                continue
            for target in line.targets:
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
    return seen
