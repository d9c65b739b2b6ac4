"""Comprehensions become loops that fill a fresh container (part of flatten).

    [h(v) for v in xs if v > 0]   ->  _fw_list1 = fwdad.build_list()
                                      for _fw_v1 in xs:
                                          if operator.gt(_fw_v1, 0):
                                              list.append(_fw_list1, h(_fw_v1))

Loop variables get fresh names, so they stay private to the comprehension as in Python.
Generator expressions are evaluated eagerly, into a list.
"""
from __future__ import annotations

import ast
from typing import Dict, List

from fwdad import lang
from fwdad.astwalk import Transformer, copy_location, names
from fwdad.normalize.intrinsics import op_call
from fwdad.normalize.refs import call

_CONTAINER = {ast.ListComp: ("build_list", list.append, "list.append"),
              ast.GeneratorExp: ("build_list", list.append, "list.append"),
              ast.SetComp: ("build_set", set.add, "set.add"),
              ast.DictComp: ("build_dict", None, None)}


def expand(flat, node: ast.expr) -> ast.Name:
    """Emit the loops into `flat` (a flatten visitor); return the filled container."""
    builder, add, add_name = _CONTAINER[type(node)]
    result = flat.names.fresh(builder.replace("build_", ""))
    empty = call(getattr(lang, builder), f"fwdad.{builder}", [], node)
    flat.emit(ast.Assign(targets=[flat.stored(result)], value=empty))
    generators = [_Rename(flat.names, g).apply(g, node) for g in node.generators]
    elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    for rename in generators:
        elements = [rename.visit(e) for e in elements]

    def innermost() -> None:
        target = flat.loaded(result)
        if add is None:
            flat.emit(ast.Expr(value=flat.op(op_call("setitem", [target] + elements, node))))
        else:
            flat.emit(ast.Expr(value=flat.op(call(add, add_name, [target] + elements,
                                                  node))))
    _loops(flat, [r.generator for r in generators], innermost)
    return flat.loaded(result)


def _loops(flat, generators: List[ast.comprehension], innermost) -> None:
    if not generators:
        innermost()
        return
    gen, rest = generators[0], generators[1:]

    def body() -> None:
        _conditions(flat, gen.ifs, lambda: _loops(flat, rest, innermost))
    flat.loop(gen.target, gen.iter, body)


def _conditions(flat, ifs: List[ast.expr], inner) -> None:
    if not ifs:
        inner()
        return
    test = flat.atom(ifs[0])
    body = flat.collect(lambda: _conditions(flat, ifs[1:], inner))
    flat.emit(ast.If(test=test, body=body, orelse=[]))


class _Rename(Transformer):
    """Gives a comprehension's loop variables fresh names, here and in what follows."""

    def __init__(self, namer, generator: ast.comprehension) -> None:
        bound = [n.id for n in names(generator.target)]
        self.mapping: Dict[str, str] = {b: namer.fresh(b) for b in bound}
        self.generator = generator

    def apply(self, generator: ast.comprehension, node: ast.expr) -> "_Rename":
        generator.target = self.visit(generator.target)
        generator.ifs = [self.visit(i) for i in generator.ifs]
        later = node.generators[node.generators.index(generator) + 1:]
        for other in later:
            other.iter = self.visit(other.iter)
            other.ifs = [self.visit(i) for i in other.ifs]
        return self

    def visit_Lambda(self, node: ast.Lambda) -> ast.Lambda:
        """A lambda's defaults are evaluated here (renamed); in its body, its own
        parameters hide the loop variables they share a name with (`lambda t, k=k:`)."""
        args = node.args
        args.defaults = [self.visit(d) for d in args.defaults]
        args.kw_defaults = [d if d is None else self.visit(d) for d in args.kw_defaults]
        params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        saved = self.mapping
        self.mapping = {k: v for k, v in saved.items() if k not in params}
        node.body = self.visit(node.body)
        self.mapping = saved
        return node

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.mapping:
            return copy_location(ast.Name(id=self.mapping[node.id], ctx=node.ctx), node)
        return node
