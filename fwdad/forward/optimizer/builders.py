"""Template expressions compiled into functions that build their instances.

    math.cos(x) * dx    ->  def build(s, bind):
                                return BinOp(left=Call(func=bind(math.cos, 'math_cos'),
                                             args=[s['x']], keywords=[]),
                                             op=Mult(), right=s['dx'])

An instance is a fresh tree with the operands `s` substituted and the names the template
reads bound as constants of the rule (`bind(value, hint)`, in the order of a walk of the
template, so constants get the same names as before). Building a template's tree this
way costs one call instead of a visit of every node; the functions are made once per
template expression (and, for tangents, per set of operands without a tangent).
"""
from __future__ import annotations

import ast
import types
from typing import Any, Callable, Dict, List, Optional

Builder = Callable[[Dict[str, ast.expr], Callable[[Any, str], ast.expr]], ast.expr]


def builder(expr: ast.expr, operands: List[str], globals_: dict,
            hint: Callable[[Any], str], binds: Optional[ast.expr] = None) -> Builder:
    """The builder of `expr`: names in `operands` are taken from `s`, names of
    `globals_` and attributes of modules there are bound as constants named by `hint`,
    other names stay names. With `binds`, the constants that tree reads are bound first
    (`expr` is then what remains of `binds` once simplified)."""
    namespace: Dict[str, Any] = {}
    source = _Source(set(operands), globals_, hint, namespace)
    lines = [f"    {source.bind(v)}\n" for v in source.constants(binds)] if binds else []
    text = "".join(lines) + f"    return {source.expr(expr)}\n"
    exec(compile("def build(s, bind):\n" + text, "<template>", "exec"), namespace)
    build = namespace["build"]
    build.prebound = len(lines)  # the calls of bind before those the tree reads
    return build


class _Source:
    """Python source that constructs a copy of a template expression."""

    def __init__(self, operands: set, globals_: dict, hint: Callable[[Any], str],
                 namespace: Dict[str, Any]) -> None:
        self.operands, self.globals, self.hint, self.ns = operands, globals_, hint, namespace

    def ref(self, value: Any) -> str:
        """A name for `value` in the builder's namespace."""
        name = f"_v{len(self.ns)}"
        self.ns[name] = value
        return name

    def bind(self, value: Any) -> str:
        return f"bind({self.ref(value)}, {self.hint(value)!r})"

    def constants(self, node: ast.AST) -> List[Any]:
        """The values `expr` binds, in its order (depth first, fields in order)."""
        if isinstance(node, ast.Name):
            return [self.globals[node.id]] if node.id in self.globals and \
                node.id not in self.operands else []
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                isinstance(self.globals.get(node.value.id), types.ModuleType):
            return [getattr(self.globals[node.value.id], node.attr)]
        out = []
        for name in node._fields:
            value = getattr(node, name, None)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ast.AST):
                    out.extend(self.constants(item))
        return out

    def expr(self, node: Any) -> str:
        if isinstance(node, list):
            return "[" + ", ".join(self.expr(item) for item in node) + "]"
        if not isinstance(node, ast.AST):
            return self.ref(node)
        if isinstance(node, ast.Name):
            if node.id in self.operands:
                return f"s[{node.id!r}]"
            if node.id in self.globals:
                return self.bind(self.globals[node.id])
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                isinstance(self.globals.get(node.value.id), types.ModuleType):
            return self.bind(getattr(self.globals[node.value.id], node.attr))
        if isinstance(node, ast.expr_context):  # one instance serves every node
            return self.ref(node)
        fields = ", ".join(self.expr(getattr(node, name, None)) for name in node._fields)
        return f"{self.ref(type(node))}({fields})"  # positional: faster than keywords
