"""Displays, slices and f-strings become constructor calls.

    [a, *b]        ->  fwdad.build_list(a, *b)
    (a, b)         ->  fwdad.build_tuple(a, b)
    {a, b}         ->  fwdad.build_set(a, b)
    {k: v}         ->  fwdad.build_dict(k, v)
    x[1:n]         ->  x[fwdad.build_slice(1, n, None)]
    f"{x:.2f} s"   ->  str.format('{:.2f} s', x)

Tuples and lists that are assignment targets stay as they are. After this pass the only
expressions that build containers are calls; comprehensions are left to flatten.
"""
from __future__ import annotations

import ast

from fwdad import lang
from fwdad.astwalk import Transformer, copy_location
from fwdad.normalize.names import Namer
from fwdad.normalize.refs import call


def run(tree: ast.FunctionDef, names: Namer) -> ast.FunctionDef:
    return Constructors().visit(tree)


def _lang_call(name: str, args: list, like: ast.AST) -> ast.Call:
    return call(getattr(lang, name), f"fwdad.{name}", args, like)


class Constructors(Transformer):
    def visit_List(self, node: ast.List) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        return _lang_call("build_list", node.elts, node)

    def visit_Tuple(self, node: ast.Tuple) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        return _lang_call("build_tuple", node.elts, node)

    def visit_Set(self, node: ast.Set) -> ast.Call:
        self.generic_visit(node)
        return _lang_call("build_set", node.elts, node)

    def visit_Dict(self, node: ast.Dict) -> ast.Call:
        self.generic_visit(node)
        items = [x for pair in zip(node.keys, node.values) for x in pair]
        return _lang_call("build_dict", items, node)

    def visit_Slice(self, node: ast.Slice) -> ast.Call:
        self.generic_visit(node)
        parts = [p if p is not None else copy_location(ast.Constant(None), node)
                 for p in (node.lower, node.upper, node.step)]
        return _lang_call("build_slice", parts, node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.Call:
        template, values = _template(node, self.visit)
        template = copy_location(ast.Constant(template), node)
        return call(str.format, "str.format", [template] + values, node)


def _template(node: ast.JoinedStr, visit) -> tuple:
    """The str.format template of an f-string, and the values it formats in order."""
    text, values = [], []
    for part in node.values:
        if isinstance(part, ast.Constant):
            text.append(part.value.replace("{", "{{").replace("}", "}}"))
            continue
        values.append(visit(part.value))
        conversion = "" if part.conversion == -1 else "!" + chr(part.conversion)
        spec = ""
        if part.format_spec is not None:
            inner, spec_values = _template(part.format_spec, visit)
            spec, values = ":" + inner, values + spec_values
        text.append("{" + conversion + spec + "}")
    return "".join(text), values
