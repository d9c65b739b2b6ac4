"""Keep an instance argument's fields in locals for the whole call.

    def step(s, h):                          def step(s, h):
        _fw_t1 = getattr(s, 't')                 _fw_s__t = getattr(s, 't')     (entry)
        _fw_add1 = operator.iadd(_fw_t1, h)  ->  _fw_t1 = _fw_s__t
        setattr(s, 't', _fw_add1)                _fw_add1 = operator.add(_fw_t1, h)
                                                 _fw_s__t = _fw_add1
                                                 _fw_returned = fwdad.build_tuple(None,
                                                                                  _fw_s__t)
                                                 return _fw_returned

For the parameters of a sealed function (normalize/sealed.py) that the call gives as
instances of plain classes (forward/plain_instances.py checked it): each field the
function uses is read once on entry into a local; the reads become copies of it and the
writes assignments to it. Where the function writes fields, every return gives
`(value, field, field, ...)` of the written fields instead, which forward/field_writes.py
stores back into the instance at the exit, once; an in-place operator on a field's
value becomes the plain one (the value is an immutable number: plain_instances checks).
The optimizer then treats the fields as it treats any local: unboxed, split into a
primal and a tangent, with no rule call for a read or a write.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Set, Tuple

from fwdad import lang
from fwdad.astwalk import copy_location
from fwdad.normalize import refs
from fwdad.normalize.instance_params import Fields, instance_params
from fwdad.normalize.names import names_in, unused
from fwdad.normalize.sealed import IN_PLACE, Sealed

Written = List[Tuple[str, str]]  # (parameter, field), in the order the returns give them


def unbox_parameters(tree: ast.FunctionDef, params: List[str]) -> Written:
    """`keep_in_locals` for the parameters `params` of the normalized `tree`, which
    normalize/instance_params.py found unboxed (Fields) and Routes checked (FIELDS)."""
    specs = instance_params(tree)
    chosen = {p: specs[p] for p in params}
    assert all(type(f) is Fields for f in chosen.values()), chosen
    return keep_in_locals(tree, chosen,  # type: ignore[arg-type]
                          chosen[params[0]].sealed)  # type: ignore[attr-defined]


def keep_in_locals(tree: ast.FunctionDef, fields: Dict[str, Set[str]], found: Sealed
                   ) -> Written:
    """Rewrite the normalized `tree` in place (see the module docstring) for the
    parameters and fields in `fields`. Returns the (parameter, field) pairs of the
    fields written, which each return gives after its value."""
    taken = names_in(tree)
    locals_: Dict[Tuple[str, str], str] = {}
    for param in sorted(fields):
        for name in sorted(fields[param]):
            locals_[param, name] = unused(f"_fw_{param}__{name}", taken)
    written: Written = []
    _block(tree.body, locals_, found, written)
    written = sorted(set(written))
    like = tree  # (the entry's reads belong to the def line)
    entry = [_assign(local, refs.call(getattr, "getattr", [
        ast.Name(param, ast.Load()), ast.Constant(name)], like), like)
        for (param, name), local in locals_.items()]
    if written:
        if type(tree.body[-1]) is not ast.Return:
            tree.body.append(copy_location(ast.Return(ast.Constant(None)), tree.body[-1]))
        _returns(tree.body, [locals_[w] for w in written], taken)
    tree.body[:0] = entry
    ast.fix_missing_locations(tree)
    return written


def _assign(target: str, value: ast.expr, like: ast.AST) -> ast.Assign:
    return copy_location(ast.Assign([ast.Name(target, ast.Store())], value), like)


def _block(block: List[ast.stmt], locals_: Dict[Tuple[str, str], str], found: Sealed,
           written: Written) -> None:
    for i, stmt in enumerate(block):
        value = getattr(stmt, "value", None)
        if type(value) is ast.Call and is_call(value, getattr) and type(stmt) is ast.Assign:
            key = _field(value, locals_)
            if key is not None:
                stmt.value = copy_location(ast.Name(locals_[key], ast.Load()), value)
        elif type(value) is ast.Call and is_call(value, setattr) and type(stmt) is ast.Expr:
            key = _field(value, locals_)
            if key is not None:
                block[i] = _assign(locals_[key], value.args[2], stmt)
                written.append(key)
        elif type(value) is ast.Call and refs.is_ref(value.func) and \
                value.func.fw_value in IN_PLACE and value.args and \
                type(value.args[0]) is ast.Name and value.args[0].id in found.updated:
            plain = IN_PLACE[value.func.fw_value]
            value.func = refs.ref(plain, f"operator.{plain.__name__}", value.func)
        for part in ("body", "orelse"):
            inner = getattr(stmt, part, None)
            if isinstance(inner, list):
                _block(inner, locals_, found, written)


def is_call(call: ast.Call, fn: object) -> bool:
    return refs.is_ref(call.func) and call.func.fw_value is fn


def _field(call: ast.Call, locals_: Dict[Tuple[str, str], str]) -> "Tuple[str, str] | None":
    args = call.args
    if len(args) >= 2 and type(args[0]) is ast.Name and type(args[1]) is ast.Constant:
        key = (args[0].id, args[1].value)
        return key if key in locals_ else None
    return None


def _returns(block: List[ast.stmt], written: List[str], taken: Set[str]) -> None:
    """`return x` -> `_fw_r = fwdad.build_tuple(x, field, ...)`, `return _fw_r`."""
    i = 0
    while i < len(block):
        stmt = block[i]
        if type(stmt) is ast.Return:
            result = unused("_fw_returned", taken)
            parts = [stmt.value or ast.Constant(None)] + \
                [ast.Name(w, ast.Load()) for w in written]
            block[i:i + 1] = [
                _assign(result, refs.call(lang.build_tuple, "fwdad.build_tuple", parts, stmt),
                        stmt),
                copy_location(ast.Return(ast.Name(result, ast.Load())), stmt)]
            i += 2
            continue
        for part in ("body", "orelse"):
            inner = getattr(stmt, part, None)
            if isinstance(inner, list):
                _returns(inner, written, taken)
        i += 1
