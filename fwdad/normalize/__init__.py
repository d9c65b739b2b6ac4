"""Normalization: the passes, in order, that leave one operation per line.

Each pass is a function from a tree to a tree with the same behaviour:

    foreign        np.frexp(x)          ->  fwdad.foreigncall(np.frexp, x); static callees
                                            carry their values
    intrinsics     a + b, x[i] = v      ->  operator.add(a, b), operator.setitem(x, i, v)
    constructors   [a, b], x[1:n]       ->  fwdad.build_list(a, b), fwdad.build_slice(...)
    flatten        f(g(x))              ->  _fw_g1 = g(x); f(_fw_g1)
    unbox          s = State(t, p)      ->  s_t = t; s_pos = p   (a plain class's instance
                                            made and used here: one local per field)
                   f(s)                 ->  _, s_t, s_pos = f__s_fields(s_t, s_pos)

intrinsics and constructors run in one walk of the tree (see _OperatorsAndDisplays).
"""
from __future__ import annotations

import ast
import os
from typing import Dict, List, Optional

from fwdad.astwalk import walk_by_class
from fwdad.normalize import constructors, flatten, foreign, intrinsics, unbox
from fwdad.normalize.names import Namer
from fwdad.normalize.scope import Scope, local_names
from fwdad.source import FunctionSource

PASSES = ("foreign", "intrinsics", "constructors", "flatten", "unbox")

# FWDAD_UNBOX=0 in the environment leaves instances boxed (to compare when debugging).
UNBOX = os.environ.get("FWDAD_UNBOX", "1") != "0"


def normalize(src: FunctionSource, names: Namer = None,
              groups: Optional[Dict[type, List[ast.AST]]] = None,
              unboxed: bool = True) -> ast.FunctionDef:
    """`src.tree`, normalized (the fence must have accepted it). `groups`, when given,
    is `walk_by_class(src.tree)`, for a caller that walked it already. With
    `unboxed=False` (or UNBOX off) the unbox pass is left out: the reference the
    optimized forward rule is checked against keeps its instances.

    Note: the passes rewrite `src.tree` in place instead of copying it first: every
    FunctionSource comes from get_source, which parses a fresh copy for each call."""
    names = names or Namer()
    tree = src.tree
    if groups is None:
        groups = walk_by_class(tree)  # once, for the scope and the foreign pass
    scope = Scope(src.globals, src.cells, local_names(tree, groups))
    tree = foreign.run(tree, names, scope, groups)
    tree = _OperatorsAndDisplays(names).visit(tree)  # intrinsics, then constructors
    tree = flatten.run(tree, names)
    if unboxed and UNBOX:
        tree = unbox.run(tree, names)
    tree.fw_bound = scope.bound  # type: ignore[attr-defined]  # (core/rebinding.py)
    return tree


class _OperatorsAndDisplays(intrinsics.Intrinsics, constructors.Constructors):
    """The intrinsics and constructors passes in one walk of the tree, which gives what
    running one after the other gives: they rewrite different node types (no method
    name is in both), and each rewrites a node after visiting its parts."""
