"""The optimizer's rewrites of the lines that are not calls (forward/optimizer/optimize.py):
copies, unpacking, loops, branches and returns, and statements kept as they are, each
into records (forward/optimizer/records.py).

    y = x              ->  y, dy = x, dx            (both split)
    for v in _fw_iterate(xs):  ->  for v in xs:     (nothing in it is active)
    if t.primal:       ->  if t:
"""
from __future__ import annotations

import ast
import copy
from typing import Any, Dict, List

from fwdad.forward.optimizer.activity import BOXED, PLAIN, SPLIT
from fwdad.forward.optimizer.lines import TESTED, Line, Test
from fwdad.forward.optimizer.records import (
    COPY,
    TANGENT,
    UNPACK,
    Assign,
    Block,
    Raw,
    Record,
    Return,
    try_part,
    with_block,
)
from fwdad.forward.optimizer.zeros import ZERO
from fwdad.forward.transform.astbuild import call as _call
from fwdad.forward.transform.astbuild import load as _name
from fwdad.forward.transform.astbuild import store as _store
from fwdad.lang import unpack as unpack_values


class OtherLines:
    """Mixed into the optimizer's rewrite, whose operands (primal, tangent, dual),
    kinds, constants and `block` these use."""

    def s_copy(self, line: Line) -> List[Record]:
        target, (atom, _) = line.targets[0], line.args[0]
        kind = self.kinds[target]
        if kind == BOXED:
            return [Assign([target], self.dual(atom), COPY)]
        out: List[Record] = [Assign([target], self.primal(atom), COPY)]
        if kind == SPLIT:
            tangent = self.tangent(atom)
            if isinstance(tangent, ast.Name) and tangent.id == ZERO:
                out.append(self.zero(target, atom))
            elif not (isinstance(tangent, ast.Name) and tangent.id == self.dnames[target]):
                out.insert(0, Assign([self.dnames[target]], tangent, TANGENT))
        return out

    def s_skip(self, line: Line) -> List[Record]:
        return []

    def s_copies(self, line: Line) -> List[Record]:
        """`x, y = a, b` at once: `x, dx, y = a, da, b`."""
        targets, values = [], []
        for target, (atom, _) in zip(line.targets, line.args):
            kind = self.kinds[target]
            targets.append(target)
            if kind == BOXED:
                values.append(self.dual(atom))
                continue
            values.append(self.primal(atom))
            if kind == SPLIT:
                targets.append(self.dnames[target])
                tangent = self.tangent(atom)
                values.append(self.zero(target, atom).value if isinstance(tangent, ast.Name)
                              and tangent.id == ZERO else tangent)
        if len(targets) == 1:
            return [Assign(targets, values[0], COPY)]
        return [Assign(targets, ast.Tuple(elts=values, ctx=ast.Load()), COPY)]

    def s_unpack(self, line: Line) -> List[Record]:
        atom = line.args[0][0]
        kinds = [self.kinds[t] for t in line.targets]
        if all(k == PLAIN for k in kinds) and not self.active(atom):
            value = _call(self.k.bind(unpack_values, "unpack_values"), self.primal(atom),
                          *line.counts)
            return [Assign(list(line.targets), value, UNPACK)]
        value = _call(_name(line.func), self.dual(atom), *line.counts)
        # a name bound twice (`a, _, _ = ...`) holds its last value: split it once
        return [Assign(list(line.targets), value, UNPACK)] + [
            self.split(t) for t in dict.fromkeys(line.targets) if self.kinds[t] != BOXED]

    def s_for(self, line: Line) -> List[Record]:
        atom, target = line.args[0][0], line.targets[0]
        body = self.block(line.body)
        orelse = self.block(line.orelse) if line.orelse else []
        if self.kinds[target] == PLAIN and not self.active(atom):
            items = self.primal(atom)
        else:
            items = _call(_name(line.func), self.dual(atom))
            if self.kinds[target] != BOXED:
                split = self.split(target)
                split.lineno = line.lineno
                body.insert(0, split)
        return [Block(ast.For, {"target": _store(target), "iter": items}, body, orelse)]

    def s_use(self, line: Line) -> List[Record]:
        """A branch, loop, assert, raise or return on primals: the same statement, on
        the primals the optimizer keeps (a return gives back the Dual)."""
        kind = line.control
        if kind is ast.Return:
            return [Return(self.dual(line.args[0][0]))]
        fields: Dict[str, Any] = dict.fromkeys(TESTED[kind])
        for name, test in line.tests:
            fields[name] = self.tested(test)
        if kind is ast.Assert or kind is ast.Raise:
            return [Block(kind, fields, [], [])]
        return [Block(kind, fields, self.block(line.body),
                      self.block(line.orelse) if line.orelse else [])]

    def tested(self, test: Test) -> ast.expr:
        if test.atom is None:
            return test.literal
        primal = self.primal(test.atom)
        return ast.UnaryOp(op=ast.Not(), operand=primal) if test.negated else primal

    def s_try(self, line: Line) -> List[Record]:
        """The same try, on the locals as the rewrite keeps them (its parts, the
        handlers, else and finally, are its orelse's records). A handler or a finally
        may read any local the body assigns when an exception stopped it: in the body
        (and in the handlers and else, when a finally follows them) each template's
        primal runs before its tangent is assigned (optimizer/inline.py), so that a
        primal that raises leaves both as they were."""
        final = any(part.clause == "finally" for part in line.orelse)
        self.protected += 1
        body = self.block(line.body)
        self.protected -= 0 if final else 1
        parts = self.block(line.orelse)
        self.protected -= 1 if final else 0
        return [Block(ast.Try, {}, body, parts)]

    def s_part(self, line: Line) -> List[Record]:
        kind = self.tested(line.tests[0][1]) if line.tests else None
        return [try_part(line.clause, kind, line.caught,  # type: ignore[arg-type]
                         self.block(line.body))]

    def s_keep(self, line: Line) -> List[Record]:
        return [Raw(line.node)]

    def s_unknown(self, line: Line) -> List[Record]:
        if line.body:
            return [with_block(line.node, self.protected_block(line.body))]  # type: ignore
        return [Raw(copy.deepcopy(line.node), line.opaque)]

    def protected_block(self, body: List[Line]) -> List[Record]:
        """A with's body: its manager's `__exit__` may suppress an exception the body
        raises and run on after the with, so each template's primal runs before its
        tangent is assigned there, as in a try's body (s_try)."""
        self.protected += 1
        try:
            return self.block(body)
        finally:
            self.protected -= 1
