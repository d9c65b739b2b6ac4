"""The plain (unoptimized) rule from the Lines of the transform: each Line becomes the
record of the Dual statement it stands for (forward/optimizer/records.py), which
forward/optimizer/printer.py prints, as it prints the optimized rule's.

    Line("call", targets=["y"], func="_fw_mul", args=[x, 2.0])  ->  y = _fw_mul(x, _fw_2_0)
    Line("use", control=ast.If, tests=[t], body=[...])         ->  if t.primal: ...
    Line("unknown", node)                                      ->  node, as it is
Every local holds a Dual; a global or closure value is read live (`_fw_global(K)`).
"""
from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, Set

from fwdad.core import duals
from fwdad.core.constants import Constants
from fwdad.forward.optimizer.cleanup import free_temporaries
from fwdad.forward.optimizer.lines import TESTED, Atom, Line, Test
from fwdad.forward.optimizer.printer import statements
from fwdad.forward.optimizer.records import (
    CALL,
    COPY,
    UNPACK,
    Assign,
    Block,
    Expr,
    Raw,
    Record,
    Return,
    try_part,
    with_block,
)
from fwdad.forward.transform.astbuild import LOAD, STORE


class PlainCode:
    """Prints Lines as the Dual code of the plain rule, with the helpers it binds in
    `constants` (bound already by the transform: each is looked up, not added)."""

    def __init__(self, constants: Constants) -> None:
        self.k = constants

    def statements(self, lines: List[Line], free: bool = False) -> List[ast.stmt]:
        """The statements of `lines`; with `free`, each temporary is deleted after the
        top-level statement that reads it last (forward/derive.py: for a rule's own
        code, differentiated for second derivatives)."""
        records = self.records(lines)
        if free:
            records = free_temporaries(records, [_reads(line) for line in lines])
        return statements(records)

    def records(self, lines: List[Line]) -> List[Record]:
        out: List[Record] = []
        for line in lines:
            record = _RECORDS[line.kind](self, line)
            record.lineno = line.lineno
            out.append(record)
        return out

    # ---- records ----------------------------------------------------------------------
    def assigned(self, line: Line) -> Record:
        """A call (a template's too), copy or unpack: `targets = value`, or the call
        alone when it assigns nothing."""
        value = self.value(line)
        if not line.targets:
            return Expr(value)
        role = UNPACK if line.kind == "unpack" else COPY if line.kind == "copy" else CALL
        return Assign(line.targets, value, role)

    def for_(self, line: Line) -> Record:
        items = ast.Call(ast.Name(line.func, LOAD), [self.atom(line.args[0][0])], [])
        return Block(ast.For, {"target": ast.Name(line.targets[0], STORE), "iter": items},
                     self.records(line.body), self.records(line.orelse))

    def use(self, line: Line) -> Record:
        """A branch, loop, assert or raise on primals, or a return of a Dual."""
        kind = line.control
        if kind is ast.Return:
            return Return(self.atom(line.args[0][0]))
        fields: Dict[str, Any] = dict.fromkeys(TESTED[kind])
        for name, test in line.tests:
            fields[name] = self.tested(test)
        return Block(kind, fields, self.records(line.body), self.records(line.orelse))

    def try_(self, line: Line) -> Record:
        """A try: its parts (handlers, else, finally) are its orelse's records."""
        return Block(ast.Try, {}, self.records(line.body), self.records(line.orelse))

    def part(self, line: Line) -> Record:
        kind = self.tested(line.tests[0][1]) if line.tests else None
        return try_part(line.clause, kind, line.caught,  # type: ignore[arg-type]
                        self.records(line.body))

    def kept(self, line: Line) -> Record:
        # (keep and unknown lines hold a statement; an unknown line, its names too;
        # a with's holds its header, and its body's Lines)
        if line.body:
            return with_block(line.node, self.records(line.body))  # type: ignore[arg-type]
        return Raw(line.node, line.opaque)  # type: ignore[arg-type]

    # ---- expressions ------------------------------------------------------------------
    def value(self, line: Line) -> ast.expr:
        """What a call, copy or unpack line assigns."""
        kind = line.kind
        if kind == "copy":
            return self.atom(line.args[0][0])
        func = ast.Name(line.func, LOAD)
        if kind == "unpack":
            return ast.Call(func, [self.atom(line.args[0][0])] + line.counts, [])
        atom = self.atom
        args: List[ast.expr] = [
            ast.Starred(self.helped(duals.unbox, "unbox", atom(a)), LOAD) if starred else
            atom(a) for a, starred in line.args]
        if not line.keywords:
            return ast.Call(func, args, [])
        return ast.Call(func, args, [
            ast.keyword(name, atom(a)) if name is not None else
            ast.keyword(None, self.helped(duals.unbox_kw, "unbox_kw", atom(a)))
            for name, a in line.keywords])

    def atom(self, atom: Atom) -> ast.expr:
        """The Dual of an operand: a local, a constant's name, or a global read live."""
        if atom.kind == "global":
            return self.global_read(atom.name)
        return ast.Name(atom.name, LOAD)

    def helped(self, helper: Callable[..., Any], hint: str, value: ast.expr) -> ast.Call:
        return ast.Call(self.k.bind(helper, hint), [value], [])

    def tested(self, test: Test) -> ast.expr:
        """`t.primal` (`not t.primal`), or the literal tested."""
        if test.atom is None:
            return test.literal  # type: ignore[return-value]  # (a literal's test)
        primal = self.primal(test.atom.name)
        return ast.UnaryOp(ast.Not(), primal) if test.negated else primal

    # (the three ways Dual code reaches a plain value: forward/schedule/recording.py
    # prints them as the recorder's calls)
    def primal(self, name: str) -> ast.expr:
        """The primal of the Dual local `name`: what a branch tests."""
        return ast.Attribute(ast.Name(name, LOAD), "primal", LOAD)

    def global_read(self, name: str) -> ast.expr:
        """A global or closure value, read live (as a Dual)."""
        return self.helped(duals.read_global, "global", ast.Name(name, LOAD))

    def constant(self, name: str) -> ast.expr:
        """The Dual of `name`, a plain value Python bound (an exception caught)."""
        return self.helped(duals.const, "const", ast.Name(name, LOAD))


def _reads(line: Line) -> Set[str]:
    """The names `line` reads, the Lines of its blocks included."""
    names = {atom.name for atom in line.operands} | {atom.name for atom in line.tested}
    if line.opaque is not None:  # (a statement no field describes)
        names.update(line.opaque.reads)
    for inner in line.body + line.orelse:
        names |= _reads(inner)
    return names


_RECORDS: Dict[str, Callable[[PlainCode, Line], Record]] = {
    "call": PlainCode.assigned, "template": PlainCode.assigned, "copy": PlainCode.assigned,
    "unpack": PlainCode.assigned, "for": PlainCode.for_, "use": PlainCode.use,
    "keep": PlainCode.kept, "unknown": PlainCode.kept, "try": PlainCode.try_,
    "part": PlainCode.part}
