"""The optimizer's rewrites of the lines that are not calls (forward/optimize.py):
copies, unpacking, loops, branches and returns, and statements kept as they are.

    y = x              ->  y, dy = x, dx            (both split)
    for v in _fw_iterate(xs):  ->  for v in xs:     (nothing in it is active)
    if t.primal:       ->  if t:
"""
from __future__ import annotations

import ast
import copy
from typing import List

from fwdad.forward.activity import BOXED, PLAIN, SPLIT
from fwdad.forward.astbuild import assign as _assign, call as _call, store as _store
from fwdad.forward.zeros import ZERO
from fwdad.forward.lines import Atom, Line
from fwdad.lang import unpack as unpack_values


class OtherLines:
    """Mixed into the optimizer's rewrite, whose operands (primal, tangent, dual),
    kinds, constants and `block` these use."""

    def s_copy(self, line: Line) -> List[ast.stmt]:
        target, (atom, _) = line.targets[0], line.args[0]
        kind = self.kinds[target]
        if kind == BOXED:
            return [_assign(target, self.dual(atom))]
        out = [_assign(target, self.primal(atom))]
        if kind == SPLIT:
            tangent = self.tangent(atom)
            if isinstance(tangent, ast.Name) and tangent.id == ZERO:
                out.append(self.zero(target, atom))
            elif not (isinstance(tangent, ast.Name) and tangent.id == self.dnames[target]):
                out.insert(0, _assign(self.dnames[target], tangent))
                self.notes.of(out[0]).tangent = True
        return out

    def s_skip(self, line: Line) -> List[ast.stmt]:
        return []

    def s_copies(self, line: Line) -> List[ast.stmt]:
        """`x, y = a, b` at once: `x, dx, y = a, da, b`."""
        targets, values = [], []
        for target, (atom, _) in zip(line.targets, line.args):
            kind = self.kinds[target]
            targets.append(_store(target))
            if kind == BOXED:
                values.append(self.dual(atom))
                continue
            values.append(self.primal(atom))
            if kind == SPLIT:
                targets.append(_store(self.dnames[target]))
                tangent = self.tangent(atom)
                values.append(self.zero(target, atom).value if isinstance(tangent, ast.Name)
                              and tangent.id == ZERO else tangent)
        if len(targets) == 1:
            return [ast.Assign(targets=targets, value=values[0])]
        return [ast.Assign(targets=[ast.Tuple(elts=targets, ctx=ast.Store())],
                           value=ast.Tuple(elts=values, ctx=ast.Load()))]

    def s_unpack(self, line: Line) -> List[ast.stmt]:
        stmt, (atom, _) = line.node, line.args[0]
        kinds = [self.kinds[t] for t in line.targets]
        if all(k == PLAIN for k in kinds) and not self.active(atom):
            value = _call(self.k.bind(unpack_values, "unpack_values"), self.primal(atom),
                          *stmt.value.args[1:])
            return [ast.Assign(targets=stmt.targets, value=value)]
        value = _call(stmt.value.func, self.dual(atom), *stmt.value.args[1:])
        # a name bound twice (`a, _, _ = ...`) holds its last value: split it once
        return [ast.Assign(targets=stmt.targets, value=value)] + [
            self.split(t) for t in dict.fromkeys(line.targets) if self.kinds[t] != BOXED]

    def s_for(self, line: Line) -> List[ast.stmt]:
        stmt, (atom, _), target = line.node, line.args[0], line.targets[0]
        body = self.block(line.body)
        orelse = self.block(line.orelse) if stmt.orelse else []
        if self.kinds[target] == PLAIN and not self.active(atom):
            items = self.primal(atom)
        else:
            items = _call(stmt.iter.func, self.dual(atom))
            if self.kinds[target] != BOXED:
                body.insert(0, ast.copy_location(self.split(target), stmt))
        return [ast.For(target=stmt.target, iter=items, body=body, orelse=orelse,
                        type_comment=None)]

    def s_use(self, line: Line) -> List[ast.stmt]:
        stmt = copy.copy(line.node)
        if isinstance(stmt, ast.Return):
            stmt.value = self.dual(line.args[0][0])
            return [stmt]
        for name in ("test", "msg", "exc", "cause"):
            if getattr(stmt, name, None) is not None:
                setattr(stmt, name, self.test(getattr(stmt, name)))
        for name in ("body", "orelse"):
            if getattr(stmt, name, None):
                setattr(stmt, name, self.block(getattr(line, name)))
        return [stmt]

    def test(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(op=node.op, operand=self.test(node.operand))
        if isinstance(node, ast.Attribute):
            return self.primal(self.atom_of(node.value))
        return node

    def atom_of(self, node: ast.Name) -> Atom:
        if node.id in self.kinds:
            return Atom("local", node.id)
        return Atom("const", node.id, self.k.values[node.id])

    def s_keep(self, line: Line) -> List[ast.stmt]:
        return [line.node]

    def s_unknown(self, line: Line) -> List[ast.stmt]:
        return [copy.deepcopy(line.node)]
