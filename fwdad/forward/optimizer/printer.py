"""Print the records of a rule (optimizer/records.py) as statements of a syntax tree,
each located at the user's line its record comes from (the `# line N` headers of
fwdad/codegen.py). The one place the optimizer makes statements, and the plain rule's
printer too (forward/transform/plain_code.py).

    Split("y", "dy")          ->  y, dy = y.primal, y.tangent
    Del(["_fw_t1"])           ->  del _fw_t1
"""
from __future__ import annotations

import ast
from typing import List

from fwdad.forward.optimizer.records import (
    Assign,
    Block,
    Del,
    Expr,
    Guard,
    Raw,
    Record,
    Return,
    Split,
    TryElse,
)
from fwdad.forward.transform.astbuild import DEL, LOAD, STORE


def statements(records: List[Record]) -> List[ast.stmt]:
    out: List[ast.stmt] = []
    for record in records:
        stmt = _PRINT[type(record)](record)
        if record.lineno is not None:
            stmt.lineno = record.lineno
        out.append(stmt)
    return out


def _assign(record: Assign) -> ast.stmt:
    if record.unpack:
        target: ast.expr = ast.Tuple([ast.Name(t, STORE) for t in record.targets], STORE)
    else:
        target = ast.Name(record.targets[0], STORE)
    return ast.Assign([target], record.value)


def _split(record: Split) -> ast.stmt:
    source = ast.Name(record.name, LOAD)
    primal = ast.Attribute(source, "primal", LOAD)
    if record.dname is None:
        return ast.Assign([ast.Name(record.name, STORE)], primal)
    return ast.Assign([ast.Tuple([ast.Name(record.name, STORE),
                                  ast.Name(record.dname, STORE)], STORE)],
                      ast.Tuple([primal, ast.Attribute(source, "tangent", LOAD)],
                                LOAD))


def _block(record: Block) -> ast.stmt:
    if record.kind is ast.Try:
        return _try(record)
    if record.kind is ast.With:
        return ast.With([ast.withitem(**record.fields)], statements(record.body))
    fields = dict(record.fields)
    if record.kind is not ast.Assert and record.kind is not ast.Raise:
        fields["body"] = statements(record.body)
        fields["orelse"] = statements(record.orelse)
    if record.kind is ast.For:
        fields["type_comment"] = None
    return record.kind(**fields)  # type: ignore[no-any-return]


def _try(record: Block) -> ast.stmt:
    """`try:` with the parts in the record's orelse (records.Block)."""
    handlers: List[ast.ExceptHandler] = []
    orelse: List[ast.stmt] = []
    final: List[ast.stmt] = []
    for part in record.orelse:
        body = statements(part.body)
        if part.kind is ast.ExceptHandler:
            name = part.fields["name"]
            handler = ast.ExceptHandler(part.fields["type"], name and name.id, body)
            if part.lineno is not None:
                handler.lineno = part.lineno
            handlers.append(handler)
        elif part.kind is TryElse:
            orelse = body
        else:
            final = body
    return ast.Try(statements(record.body), handlers, orelse, final)


_PRINT = {
    Assign: _assign, Split: _split, Block: _block,
    Guard: lambda record: ast.If(record.test, [ast.Return(record.away)], []),
    Expr: lambda record: ast.Expr(record.value),
    Return: lambda record: ast.Return(record.value),
    Del: lambda record: ast.Delete([ast.Name(n, DEL) for n in record.names]),
    Raw: lambda record: record.stmt,
}
