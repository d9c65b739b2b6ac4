"""The guard on entry of an optimized rule: the calls it does not take go elsewhere.

    if _fw_batched(x, n) or n.tangent is _fw_NoTangent:
        return _fw_unoptimized(x, n)

Batched tangents, and arguments with no tangent (an int) where that would change what
a template line computes (forward/optimizer/vanishing.py), go to `unoptimized`: a
forward/routes.Routes, or the plain rule.
"""
from __future__ import annotations

import ast
from typing import Any, Callable, List, Set, Tuple

from fwdad.forward.optimizer import sequences, unboxed
from fwdad.forward.optimizer.activity import PLAIN
from fwdad.forward.optimizer.inline import passes_through
from fwdad.forward.optimizer.records import Guard, Record, located
from fwdad.forward.transform.astbuild import attr, call, load
from fwdad.tangents import NoTangent


def guard(rw: Any, tree: ast.FunctionDef, unoptimized: Callable) -> List[Record]:
    """The guard of the rule `tree`, as the rewrite `rw` made it."""
    positional, keywords = passed_on(tree)
    test = call(rw.k.bind(unboxed.batched, "batched"), *positional, keywords=keywords)
    return fallback(rw, tree, test, unoptimized, "unoptimized")


def passed_on(tree: ast.FunctionDef) -> Tuple[List[ast.expr], List[ast.keyword]]:
    """The rule's parameters, as a call that passes them on as they came."""
    args = tree.args
    positional: List[ast.expr] = [load(a.arg) for a in args.posonlyargs + args.args]
    if args.vararg:
        positional.append(ast.Starred(value=load(args.vararg.arg), ctx=ast.Load()))
    keywords = [ast.keyword(arg=a.arg, value=load(a.arg)) for a in args.kwonlyargs]
    if args.kwarg:
        keywords.append(ast.keyword(arg=None, value=load(args.kwarg.arg)))
    return positional, keywords


def fallback(rw: Any, tree: ast.FunctionDef, test: ast.expr, elsewhere: Callable,
             hint: str) -> List[Record]:
    """`if test or p.tangent is NoTangent ... or type(q.primal) in sequences: return
    elsewhere(...)`, for the parameters p of checked_params and q of
    sequences.checked_params (a list where a NumPy template reads an array)."""
    positional, keywords = passed_on(tree)
    missing = [ast.Compare(left=attr(name, "tangent"), ops=[ast.Is()],
                           comparators=[rw.k.bind(NoTangent, "NoTangent")])
               for name in checked_params(rw, tree.args)]
    named = [a.arg for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs]
    missing += [ast.Compare(left=call(rw.k.bind(type, "type"), attr(name, "primal")),
                            ops=[ast.In()],
                            comparators=[rw.k.bind(sequences.SEQUENCES, "sequences")])
                for name in sequences.checked_params(rw.lines, named)]
    if missing:
        test = ast.BoolOp(op=ast.Or(), values=[test] + missing)
    away = call(rw.k.bind(elsewhere, hint), *positional, keywords=keywords)
    return [located(Guard(test, away), tree)]


def checked_params(rw: Any, args: ast.arguments) -> List[str]:
    """The named parameters whose having no tangent (an int) would leave a template
    line's tangent that of one operand alone (see forward/optimizer/vanishing.py), in order."""
    causes: Set[str] = set(getattr(rw, "needs_tangents", ()))
    for line in rw.lines:
        if line.kind == "template" and line.targets and rw.kinds[line.targets[0]] != PLAIN:
            for atom in passes_through(rw, line):
                causes |= rw.vanish.get(atom.name, frozenset())
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs
            if a.arg in causes]
