"""Inline tests of a call's kinds: the entry of an optimized rule into its keyed variant.

    # in the general rule, after its guard (the first call with every argument active
    # decides what `_fw_keyed` holds: forward/keyed.py)
    if _fw_keyed is not None:
        _fw_keyed_out = _fw_keyed(x, a)
        if _fw_keyed_out is not _fw_MISS:
            return _fw_keyed_out

    # the keyed variant, built for one signature: its first lines
    if not (_fw_type(x.primal) is _fw_float and x.tangent is not _fw_NoTangent and
            _fw_type(a.primal) is _fw_ndarray and a.primal.ndim == 1 and
            a.primal.dtype is _fw_float64 and a.tangent is not _fw_NoTangent):
        return _fw_MISS

Computing a call's signature (optimizer/kinds.signature) costs microseconds; these
tests cost tens of nanoseconds, so the variant for one signature can be taken on every
call. Only kinds a test of the type (and, for an array, of ndim and dtype) decides are
keyable: a list, tuple or dict has items of their own kinds, and OTHER is anything.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from fwdad.forward.optimizer.kinds import Kind
from fwdad.forward.optimizer.records import Guard, Raw, Record, located
from fwdad.forward.transform.astbuild import attr, call, load
from fwdad.tangents import NoTangent

_SCALAR_TYPES = {"float": float, "int": int, "bool": bool}


class Miss:
    """What a keyed variant returns for a call of other kinds: the general rule then
    runs its own body."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISS"


MISS = Miss()


def keyable(kind: Kind) -> bool:
    """Whether a value's having `kind` can be tested inline (see the module docstring)."""
    return kind[0] in ("float", "int", "bool", "npfloat", "array")


def _is(left: ast.expr, right: ast.expr, negated: bool = False) -> ast.Compare:
    return ast.Compare(left=left, ops=[ast.IsNot() if negated else ast.Is()],
                       comparators=[right])


def _kind_tests(k: Any, name: str, kind: Kind) -> List[ast.expr]:
    """`type(x.primal) is float`, and for an array its ndim and dtype."""
    primal = attr(name, "primal")
    of_type = call(k.bind(type, "type"), primal)
    if kind[0] in _SCALAR_TYPES:
        scalar = _SCALAR_TYPES[kind[0]]
        return [_is(of_type, k.bind(scalar, scalar.__name__))]
    if kind[0] == "npfloat":
        return [_is(of_type, k.bind(kind[1].type, kind[1].type.__name__))]
    assert kind[0] == "array", kind
    return [_is(of_type, k.bind(np.ndarray, "ndarray")),
            ast.Compare(left=ast.Attribute(value=attr(name, "primal"), attr="ndim",
                                           ctx=ast.Load()),
                        ops=[ast.Eq()], comparators=[ast.Constant(value=int(kind[1]))]),
            _is(ast.Attribute(value=attr(name, "primal"), attr="dtype", ctx=ast.Load()),
                k.bind(kind[2], f"{kind[2].name}_dtype", key=("dtype", kind[2])))]


def test(k: Any, kinds: Dict[str, Kind], without: Sequence[str],
         params: Sequence[str]) -> ast.expr:
    """The test that the parameters `params` hold values of `kinds` (parameter -> its
    kind; those not in it are not tested) and that exactly those of `without` have no
    tangent."""
    no_tangent = k.bind(NoTangent, "NoTangent")
    tests: List[ast.expr] = []
    for name in params:
        if name in kinds:
            tests += _kind_tests(k, name, kinds[name])
        tests.append(_is(attr(name, "tangent"), no_tangent, negated=name not in without))
    return tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.And(), values=tests)


def miss_guard(k: Any, tree: ast.FunctionDef, kinds: Optional[Tuple[Kind, ...]],
               without: Sequence[str]) -> List[Record]:
    """The first line of a keyed variant: `if not (test): return MISS`."""
    args = tree.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    named = positional + [a.arg for a in args.kwonlyargs]
    by_name = dict(zip(positional, kinds or ()))
    checked = ast.UnaryOp(op=ast.Not(), operand=test(k, by_name, without, named))
    return [located(Guard(checked, k.bind(MISS, "MISS")), tree)]


def entry(k: Any, tree: ast.FunctionDef, keyed: Any, passed: Tuple[list, list]
          ) -> List[Record]:
    """The lines of the general rule that try its keyed variant (module docstring);
    `passed` is the rule's parameters as a call passes them on (guard.passed_on)."""
    name = k.bind(keyed, "keyed")
    keyed.name = name.id
    out = ast.Name("_fw_keyed_out", ast.Store())
    tried = ast.If(
        test=_is(load(name.id), ast.Constant(value=None), negated=True),
        body=[ast.Assign(targets=[out], value=call(load(name.id), *passed[0],
                                                   keywords=passed[1])),
              ast.If(test=_is(load(out.id), k.bind(MISS, "MISS"), negated=True),
                     body=[ast.Return(value=load(out.id))], orelse=[])],
        orelse=[])
    return [located(Raw(tried), tree)]
