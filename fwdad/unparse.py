"""Expression -> text, fast, for the node kinds generated code is made of.

`expression(node)` writes Names, Constants, Attributes, Calls, displays, subscripts and
operators itself, with the parentheses their precedence needs and no others
(`dk * x + k * dx`, `(-1.0) ** y`, `a - (b - c)`); any other node goes through
`ast.unparse`, in parentheses when it sits inside an operator. The text parses back to
the same tree (a negative number constant comes back as a minus sign and its number).
"""
from __future__ import annotations

import ast
import math
from typing import Callable, Dict

# Binding strength, loosest first (the order of Python's grammar, as in ast.unparse).
TUPLE, TEST, OR, AND, NOT, CMP = 1, 3, 4, 5, 6, 7
BOR, BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, POWER, ATOM = 8, 9, 10, 11, 12, 13, 14, 15, 17

_Name, _Constant, _Tuple, _Starred = ast.Name, ast.Constant, ast.Tuple, ast.Starred
_INFINITE = (math.inf, -math.inf)

BINARY = {
    ast.Add: ("+", ARITH), ast.Sub: ("-", ARITH), ast.Mult: ("*", TERM),
    ast.Div: ("/", TERM), ast.FloorDiv: ("//", TERM), ast.Mod: ("%", TERM),
    ast.MatMult: ("@", TERM), ast.Pow: ("**", POWER), ast.LShift: ("<<", SHIFT),
    ast.RShift: (">>", SHIFT), ast.BitOr: ("|", BOR), ast.BitXor: ("^", BXOR),
    ast.BitAnd: ("&", BAND),
}
_UNARY = {ast.USub: ("-", FACTOR), ast.UAdd: ("+", FACTOR), ast.Invert: ("~", FACTOR),
          ast.Not: ("not ", NOT)}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
            ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
            ast.NotIn: "not in"}
# Fallback nodes whose text is already an atom: no parentheses around them.
_ATOMS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr)


def expression(node: ast.expr, prec: int = TUPLE) -> str:
    """The text of `node` where an expression binding at least as tightly as `prec`
    fits without parentheses."""
    cls = type(node)
    if cls is _Name:
        return node.id
    write = _WRITERS.get(cls)
    return write(node, prec) if write is not None else _fallback(node, prec)


def _fallback(node: ast.AST, prec: int) -> str:
    text = ast.unparse(node)
    return text if prec <= TUPLE or isinstance(node, _ATOMS) else f"({text})"


def _paren(text: str, own: int, prec: int) -> str:
    return f"({text})" if prec > own else text


def _constant(node: ast.Constant, prec: int) -> str:
    value = node.value
    kind = type(value)
    if kind is float:
        if value != value or value in _INFINITE:
            return _fallback(node, prec)
        text = repr(value)
        return f"({text})" if text[0] == "-" and prec > FACTOR else text
    if kind is int:
        return f"({value})" if value < 0 and prec > FACTOR else repr(value)
    if kind in (str, bool, bytes) or value is None:
        return repr(value)
    if value is Ellipsis:
        return "..."
    return _fallback(node, prec)


def _binop(node: ast.BinOp, prec: int) -> str:
    symbol, own = BINARY[type(node.op)]
    left, right = node.left, node.right
    if own == POWER:  # right-associative, and `x ** -y` needs no parentheses
        left_prec, right_prec = POWER + 1, FACTOR
    else:
        left_prec, right_prec = own, own + 1
    kind = type(left)  # Names and known nodes inline: this is the hot path
    left = left.id if kind is _Name else _WRITERS.get(kind, _fallback)(left, left_prec)
    kind = type(right)
    right = right.id if kind is _Name else _WRITERS.get(kind, _fallback)(right, right_prec)
    text = f"{left} {symbol} {right}"
    return f"({text})" if prec > own else text


def _unaryop(node: ast.UnaryOp, prec: int) -> str:
    symbol, own = _UNARY[type(node.op)]
    return _paren(symbol + expression(node.operand, own), own, prec)


def _compare(node: ast.Compare, prec: int) -> str:
    parts = [expression(node.left, CMP + 1)]
    for op, right in zip(node.ops, node.comparators):
        parts.append(_COMPARE[type(op)])
        parts.append(expression(right, CMP + 1))
    return _paren(" ".join(parts), CMP, prec)


def _boolop(node: ast.BoolOp, prec: int) -> str:
    symbol, own = (" and ", AND) if type(node.op) is ast.And else (" or ", OR)
    return _paren(symbol.join(expression(v, own + 1) for v in node.values), own, prec)


def _ifexp(node: ast.IfExp, prec: int) -> str:
    text = (f"{expression(node.body, TEST + 1)} if {expression(node.test, TEST + 1)} "
            f"else {expression(node.orelse, TEST)}")
    return _paren(text, TEST, prec)


def _call(node: ast.Call, prec: int) -> str:
    parts = [a.id if type(a) is _Name else _WRITERS.get(type(a), _fallback)(a, TEST)
             for a in node.args]
    for keyword in node.keywords:
        if keyword.arg is None:
            parts.append("**" + expression(keyword.value, BOR))
        else:
            parts.append(f"{keyword.arg}={expression(keyword.value, TEST)}")
    func = node.func
    func = func.id if type(func) is _Name else expression(func, ATOM)
    return f"{func}({', '.join(parts)})"


def _attribute(node: ast.Attribute, prec: int) -> str:
    value = node.value
    if type(value) is _Constant and type(value.value) is int:
        return f"({value.value}).{node.attr}"
    return f"{expression(value, ATOM)}.{node.attr}"


def _subscript(node: ast.Subscript, prec: int) -> str:
    index = node.slice
    if type(index) is _Tuple and index.elts:
        inner = ", ".join(expression(e, TEST) for e in index.elts)
        if len(index.elts) == 1:
            inner += ","
    else:
        inner = expression(index, TEST)
    return f"{expression(node.value, ATOM)}[{inner}]"


def _slice(node: ast.Slice, prec: int) -> str:
    text = ":".join("" if part is None else expression(part, TEST)
                    for part in (node.lower, node.upper))
    return text if node.step is None else f"{text}:{expression(node.step, TEST)}"


def _elements(elts: list) -> str:
    return ", ".join(e.id if type(e) is _Name else expression(e, TEST) for e in elts)


def _tuple(node: ast.Tuple, prec: int) -> str:
    if not node.elts:
        return "()"
    text = _elements(node.elts) + ("," if len(node.elts) == 1 else "")
    return f"({text})" if prec > TUPLE else text


def _list(node: ast.List, prec: int) -> str:
    return f"[{_elements(node.elts)}]"


def _set(node: ast.Set, prec: int) -> str:
    return f"{{{_elements(node.elts)}}}" if node.elts else _fallback(node, prec)


def _dict(node: ast.Dict, prec: int) -> str:
    items = [f"**{expression(v, BOR)}" if k is None else
             f"{expression(k, TEST)}: {expression(v, TEST)}"
             for k, v in zip(node.keys, node.values)]
    return "{" + ", ".join(items) + "}"


def _starred(node: ast.Starred, prec: int) -> str:
    return "*" + expression(node.value, BOR)


_WRITERS: Dict[type, Callable[[ast.AST, int], str]] = {
    ast.Constant: _constant, ast.BinOp: _binop, ast.UnaryOp: _unaryop,
    ast.Compare: _compare, ast.BoolOp: _boolop, ast.IfExp: _ifexp, ast.Call: _call,
    ast.Attribute: _attribute, ast.Subscript: _subscript, ast.Slice: _slice,
    ast.Tuple: _tuple, ast.List: _list, ast.Set: _set, ast.Dict: _dict,
    ast.Starred: _starred,
}
