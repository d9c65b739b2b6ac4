"""The rewrite of a derived rule's Lines into typed records (optimize.py runs it).

    _fw_mul1 = _fw_mul(k, x)           ->  _fw_mul1 = k * x
                                            _fw_dmul1 = dk * x + k * dx
Each local is boxed, split or plain (activity.py): its operands are read as
`x.primal`, `x`, or a constant; a template line is instantiated (inline.py), a call
line calls its rule on Duals (or its primal alone where no derivative can flow:
constant_lines.py), and the other kinds of line are other_lines.py's.
"""
from __future__ import annotations

import ast
import functools
import math
from typing import Dict, Iterable, List, Optional, Set

import numpy as np

from fwdad.core import duals
from fwdad.core.constants import Constants
from fwdad.core.lazy_rule import LazyRule
from fwdad.dual import Dual
from fwdad.forward.optimizer import (
    activity,
    array_lines,
    batched_variant,
    inplace,
    kind_flow,
    kinds,
    sequences,
    vanishing,
)
from fwdad.forward.optimizer.activity import BOXED, PLAIN, SPLIT
from fwdad.forward.optimizer.batch_axes import BatchAxes
from fwdad.forward.optimizer.constant_lines import primal_function
from fwdad.forward.optimizer.inline import built_plainly, instantiate, nondiff_call
from fwdad.forward.optimizer.kinds import Kind
from fwdad.forward.optimizer.lines import Atom, Line
from fwdad.forward.optimizer.other_lines import OtherLines
from fwdad.forward.optimizer.records import (
    CALL,
    TANGENT,
    Assign,
    Expr,
    Raw,
    Record,
    Split,
    located,
)
from fwdad.forward.optimizer.zeros import ZERO
from fwdad.forward.routes import FLOAT, Specialized
from fwdad.forward.transform.astbuild import attr as _attr
from fwdad.forward.transform.astbuild import call as _call
from fwdad.forward.transform.astbuild import literal
from fwdad.forward.transform.astbuild import load as _name
from fwdad.forward.transform.astbuild import tangent_name as _tangent_name
from fwdad.normalize.names import RESERVED_PREFIX, unused
from fwdad.tangents import NoTangent

_LITERALS = (int, float, bool, str, type(None))
_NUMBERS = (int, float, complex, np.number, np.bool_)
# math functions that take many values, or return what the operand's method returns
_MATH_ON_MANY = frozenset({math.prod, math.fsum, math.ceil, math.floor, math.trunc})


class Rewrite(OtherLines):
    def __init__(self, analysis: activity.Analysis, constants: Constants,
                 tree: ast.FunctionDef, without_tangent: Dict[str, str],
                 value_kinds: Dict[str, Kind]) -> None:
        self.kinds, self.opaque, self.lines = \
            analysis.kinds, analysis.opaque, analysis.lines
        self.k, self.inlined = constants, False
        self.calls = 0  # primitives' rule calls left (forward/keyed.py: kinds may save)
        self.batched = False  # the variant for batched tangents (see optimize)
        self.axes: Optional[BatchAxes] = None  # its batch axes, when kinds are known
        self.value_kinds = value_kinds  # local -> its kind, when kinds are known
        self.unfree: Set[str] = set()  # locals that may hold a list (optimizer/sequences.py)
        self.built: Set[str] = set()  # locals that hold a list the rule builds (the same)
        taken = analysis.names | set(self.kinds)
        self.dnames: Dict[str, str] = {}
        for name in sorted(self.kinds):
            if self.kinds[name] == SPLIT:
                self.dnames[name] = _tangent_name(name, taken)
        self.taken = taken
        params = activity.params(tree)
        self.numbers, self.fresh = _defined_by_templates(
            analysis.lines, self.dnames, params,
            {name for name, number in without_tangent.items() if number})
        args = tree.args
        # parameters given as Python floats with no tangent: their zero is 0.0
        self.floats = {name for name, kind in without_tangent.items() if kind == FLOAT}
        self.vanish = vanishing.causes(  # local -> why its tangent may be NoTangent
            analysis.lines, self.kinds, params, set(without_tangent),
            {a.arg for a in (args.vararg, args.kwarg) if a is not None}, self.floats,
            functools.partial(array_lines.passes_tangent, kinds=value_kinds)
            if value_kinds else None, value_kinds)
        self.small: Set[str] = set()  # temporaries that hold one number (see note_small)
        self.needs_tangents: Set[str] = set()  # parameters the guard checks have one
        self.depth = 0  # how deep in blocks the statement being rewritten is
        # how many try statements may catch an exception of the statement being rewritten
        # and run more of the rule (other_lines.s_try): its primal runs first there
        self.protected = 0
        self.names: Dict[str, ast.Name] = {}  # see name_node
        constants.reserve(taken)

    def temp(self, name: str) -> str:
        """A fresh local for the new value of `name` while its tangent still needs the
        old one."""
        return unused(RESERVED_PREFIX + name.lstrip("_") + "_new", self.taken)

    # ---- operands -------------------------------------------------------------------
    def primal(self, atom: Atom) -> ast.expr:
        if atom.kind == "local":
            if self.kinds[atom.name] == BOXED:
                return _attr(atom.name, "primal")
            return self.name_node(atom.name)
        if atom.kind == "const":
            value = getattr(atom.value, "primal", atom.value)
            if type(value) in _LITERALS:
                hint = atom.name[len(RESERVED_PREFIX):] + "_value"
                return literal(value) or self.k.bind(value, hint)
            return self.k.bind(value, atom.name[len(RESERVED_PREFIX):] + "_value")
        return _name(atom.name)

    def tangent(self, atom: Atom) -> ast.expr:
        if atom.kind == "local":
            kind = self.kinds[atom.name]
            if kind == SPLIT:
                return self.name_node(self.dnames[atom.name])
            if kind == BOXED:
                return _attr(atom.name, "tangent")
        return self.name_node(ZERO)

    def name_node(self, name: str) -> ast.Name:
        """The one Name node that reads `name` everywhere in the rule: the passes after
        this one replace names but never change a Name node, so one can serve all."""
        node = self.names.get(name)
        if node is None:
            node = self.names[name] = _name(name)
        return node

    def dual(self, atom: Atom) -> ast.expr:
        kind = self.kinds.get(atom.name) if atom.kind == "local" else None
        if kind == SPLIT:
            return _call(self.k.bind(Dual, "Dual"), _name(atom.name),
                         _name(self.dnames[atom.name]))
        if atom.kind == "global":
            return _call(self.k.bind(duals.read_global, "global"), _name(atom.name))
        if kind == PLAIN:
            return _call(self.k.bind(duals.const, "const"), _name(atom.name))
        return _name(atom.name)

    def is_number(self, atom: Atom) -> bool:
        """Whether the operand is a number wherever the line runs (not an array)."""
        if atom.kind == "const":
            return isinstance(getattr(atom.value, "primal", atom.value), _NUMBERS)
        return atom.kind == "local" and (atom.name in self.numbers or kinds.is_number(
            self.value_kinds.get(atom.name)))

    def active(self, atom: Atom) -> bool:
        return atom.kind == "local" and self.kinds[atom.name] != PLAIN

    # ---- statements -----------------------------------------------------------------
    def block(self, lines: List[Line]) -> List[Record]:
        out: List[Record] = []
        self.depth += 1
        methods = _METHODS
        for line in lines:
            lineno = line.source_line
            for new in methods[line.kind](self, line):
                if lineno is not None:
                    new.lineno = lineno
                out.append(new)
        self.depth -= 1
        return out or [Raw(ast.Pass())]

    def note_small(self, line: Line, target: Optional[str]) -> None:
        """Most `math` functions return a Python number and take only values of one
        element: their results and tangents, and (at the top level, where the call
        always runs) their operands, free no array when deleted, so cleanup leaves
        out their `del`."""
        fn = getattr(line.entry, "primal", None)
        if getattr(fn, "__module__", None) != "math" or fn in _MATH_ON_MANY:
            return
        names = [target] if target is not None else []
        if self.depth == 1:
            names += [a.name for a, starred in line.args
                      if a.kind == "local" and not starred]
        for name in names:
            self.small.add(name)
            self.small.add(self.dnames.get(name, name))

    def entry(self, tree: ast.FunctionDef) -> List[Record]:
        """Split parameters: `x, dx = x.primal, x.tangent`."""
        args = tree.args
        return [located(self.split(a.arg), tree)
                for a in args.posonlyargs + args.args + args.kwonlyargs
                if self.kinds[a.arg] != BOXED]

    def split(self, name: str) -> Split:
        """`y, dy = y.primal, y.tangent`, or `y = y.primal` for a plain local."""
        return Split(name, None if self.kinds[name] == PLAIN else self.dnames[name])

    def s_template(self, line: Line) -> List[Record]:
        target = line.targets[0] if line.targets else None
        opaque = self.opaque
        if (target is not None and self.kinds[target] == BOXED) or opaque and any(
                a.name in opaque and self.active(a) for a in line.operands):
            return self.s_call(line)
        if any(a.name in self.built for a in line.operands) or \
                sequences.reads_arrays(line) and not all(
                    sequences.free(a, self.unfree) for a in line.operands):
            return self.s_call(line)  # (a list operand: the rule makes it an array)
        if self.batched and self.value_kinds:
            reduced = array_lines.reduced(self, line, target)
            if reduced is not None:
                self.inlined = True
                return reduced
        if self.batched and not batched_variant.inlines(
                self, line, line.template):
            return self.s_call(line)
        stmts = instantiate(self, line, target)
        if stmts is None:
            return self.s_call(line)
        self.inlined = True
        self.note_small(line, target)
        return stmts

    def s_call(self, line: Line) -> List[Record]:
        target = line.targets[0] if line.targets else None
        kind = self.kinds.get(target) if target else None
        # (a nondiff call given `out` writes into it: its rule zeroes out's tangent)
        if line.entry is not None and kind != BOXED and (
                (line.entry.kind == "nondiff" and line.pure) or
                kind_flow.reads_metadata(line, self.value_kinds)):
            value = nondiff_call(self, line)
            self.note_small(line, target)
            if target is None:
                return [Expr(value)]
            out: List[Record] = [Assign([target], value, CALL)]
            if kind == SPLIT:
                out.append(self.zero(target))
            return out
        built = built_plainly(self, line) if kind == PLAIN and target else None
        if built is not None:
            return [Assign([target], built, CALL)]
        fn = primal_function(self, line, target)
        if fn is not None:  # (no operand can pass on a derivative: no rule needed)
            self.note_small(line, target)
            return [Assign([target], nondiff_call(self, line, fn), CALL)]
        inlined = array_lines.inlined(self, line, target) if self.value_kinds else None
        if inlined is not None:
            self.inlined = True
            return inlined
        callee = self.callee(line, self.name_node(line.func))
        if line.entry is not None and not (self.opaque and any(
                a.name in self.opaque for a in line.operands)):
            self.calls += 1  # (what kinds may inline: a primitive's rule, on operands
            #                  whose tangents hold no batch axis the inputs do not show)
        call = _call(callee, *[ast.Starred(value=_call(self.k.bind(duals.unbox, "unbox"),
                                                       self.dual(a)), ctx=ast.Load())
                               if starred else self.dual(a) for a, starred in line.args],
                     keywords=[ast.keyword(arg=n, value=self.dual(a) if n else _call(
                         self.k.bind(duals.unbox_kw, "unbox_kw"), self.dual(a)))
                               for n, a in line.keywords])
        if target is None:
            return [Expr(call)]
        if kind == PLAIN:
            return [Assign([target], ast.Attribute(value=call, attr="primal",
                                                   ctx=ast.Load()), CALL)]
        return [Assign([target], call, CALL)] + (
            [self.split(target)] if kind == SPLIT else [])

    def callee(self, line: Line, func: ast.expr) -> ast.expr:
        """What a call line calls: for a derived rule given constants (plain locals,
        literals, globals), its variant for them (forward/routes.Specialized)."""
        if type(line.callee) is not LazyRule:
            return func
        constants = set()
        for i, (atom, starred) in enumerate(line.args):
            if starred:
                break  # the positions after it are not known
            if not self.active(atom):
                constants.add(i)
        constants.update(n for n, atom in line.keywords if n and not self.active(atom))
        if not constants:
            return func
        key = frozenset(constants)
        return self.k.bind(Specialized(line.callee, key), func.id[len(RESERVED_PREFIX):]
                           + "_for_constants", key=("specialized", id(line.callee), key))

    def zero(self, target: str, atom: Optional[Atom] = None) -> Assign:
        """`dy = NoTangent` (or the literal's own zero, `dy = 0.0`)."""
        tangent = getattr(atom.value, "tangent", None) if atom and atom.kind == "const" \
            else 0.0 if atom and atom.name in self.floats else None
        value = ast.Constant(value=tangent) if type(tangent) is float else \
            self.k.bind(NoTangent, "NoTangent")
        return Assign([self.dnames[target]], value, TANGENT)


def _defined_by_templates(lines: Iterable[Line], dnames: Dict[str, str],
                          params: Set[str], numbers_in: Set[str]) -> tuple:
    """The locals that only calls of `math` functions assign (numbers), and the
    tangent names of those that only these and templates assign: each such tangent is
    a new object (a copy where a template would pass an operand's through), which no
    view shares. Parameters hold the caller's objects first; those in `numbers_in` are
    numbers."""
    numbers: Dict[str, bool] = {name: name in numbers_in for name in params}
    fresh: Dict[str, bool] = dict.fromkeys(params, False)
    for line in lines:
        primal = getattr(line.entry, "primal", None)
        number = line.kind in ("template", "call") and \
            getattr(primal, "__module__", None) == "math" and primal not in _MATH_ON_MANY
        new = number or line.kind == "template"
        for target in line.targets:
            numbers[target] = numbers.get(target, True) and number
            fresh[target] = fresh.get(target, True) and new
    return ({name for name, yes in numbers.items() if yes},
            {dnames[name] for name, yes in fresh.items() if yes and name in dnames})


# The rewrite of each kind of line (forward/optimizer/lines.py); a table of the class's functions,
# not of bound methods, which would hold the rewrite in a reference cycle.
_METHODS = {kind: getattr(Rewrite, "s_" + kind) for kind in (
    "template", "call", "copy", "copies", "skip", "unpack", "for", "use", "try", "part",
    "keep", "unknown")}
_METHODS["update"] = inplace.rewrite  # r[k] op= v on a local no other name holds
