"""Rules see the globals they resolved when they were built.

A rule resolves the global names its calls go through (`helper(x)`, `np.sin(x)`,
`Model(w)`) when it is built, and calls what they held then. Rebinding one later (a
notebook cell run again, a test's monkeypatch) would leave the rule calling the old
function: a wrong value and a wrong derivative, with no error. So each rule starts by
checking that those names still hold the same objects; when one does not, every
derived rule is dropped (`forget_rules`) and the call goes to the rule built anew:

    if helper is not _fw_was_helper:
        _fw_forget_rules()
        return _fw_rebuilt(x, n)

Names bound to modules (`np`), and attributes reached through a module or class that
stays bound (`np.sin` replaced in NumPy itself), are not checked.
"""
from __future__ import annotations

import ast
import copy
from typing import Any, Callable, Dict, List, Tuple

_FORGETTERS: List[Callable[[], None]] = []  # each mode's caches (forward, reverse)


def on_forget(forget: Callable[[], None]) -> None:
    """Call `forget()` when a rule finds a global it resolved rebound."""
    _FORGETTERS.append(forget)


def forget_rules() -> None:
    """Drop every derived rule of every mode: they are built again on use."""
    for forget in _FORGETTERS:
        forget()


def bound_names(normalized: ast.FunctionDef) -> Dict[str, Any]:
    """The globals a normalized tree's static calls resolved (normalize/scope.py)."""
    return getattr(normalized, "fw_bound", {})


def checked(tree: ast.FunctionDef, constants: Dict[str, Any], bound: Dict[str, Any],
            rebuilt: Callable[..., Any]) -> ast.FunctionDef:
    """`tree` starting with the check that the global names in `bound` still hold the
    values `bound` gives (their names bound in `constants`), and calling `rebuilt`
    (the rule built again) with the rule's own arguments when one does not."""
    if not bound:
        return tree
    tests: List[ast.expr] = [
        ast.Compare(_load(name), [ast.IsNot()], [_load(_bind(constants, f"was_{name}", v))])
        for name, v in sorted(bound.items())]
    test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests)
    forget = ast.Expr(ast.Call(_load(_bind(constants, "forget_rules", forget_rules)), [], []))
    again = ast.Return(_call_with_own_arguments(_bind(constants, "rebuilt", rebuilt),
                                                tree.args))
    check = ast.If(test, [forget, again], [])
    for stmt in (check, forget, again):  # (at the def's line: what codegen reads)
        stmt.lineno = tree.lineno
    out = copy.copy(tree)  # (the tree itself may be compiled again, as it is)
    out.body = [check] + tree.body
    return out


class Bindings:
    """The globals the rules a static schedule records through resolved: (a module's
    globals, a name, its value) triples. Slots, no fields: zero_tangent, which walks
    the fields of what a global holds (a graph in a registry), must not walk into
    module dicts."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: List[Tuple[Dict[str, Any], str, Any]] = []

    def add(self, scope: Dict[str, Any], bound: Dict[str, Any]) -> None:
        self.items += [(scope, name, value) for name, value in bound.items()]

    def rebound(self) -> bool:
        """Whether one of the globals no longer holds its value."""
        return any(scope.get(name, _GONE) is not value for scope, name, value in self.items)


_GONE = object()


def read_live(tree: ast.FunctionDef, bound: Dict[str, Any], reader: str) -> None:
    """Start `tree` (a recording rule's) with `reader(lambda: name)` for each name in
    `bound`: the static schedule recorded reads them live, so a replay falls back when
    one has been rebound (forward/schedule, reverse_schedules), and the graph, seeing
    its Bindings rebound, drops its schedules to record them again."""
    no_arguments = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                 kw_defaults=[], kwarg=None, defaults=[])
    reads = [ast.Expr(ast.Call(_load(reader), [ast.Lambda(no_arguments, _load(name))], []))
             for name in sorted(bound)]
    for stmt in reads:
        stmt.lineno = tree.lineno
    tree.body[:0] = reads


def _bind(constants: Dict[str, Any], hint: str, value: Any) -> str:
    name, n = f"_fw_{hint}", 1
    while name in constants and constants[name] is not value:
        n += 1
        name = f"_fw_{hint}{n}"
    constants[name] = value
    return name


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _call_with_own_arguments(fn: str, args: ast.arguments) -> ast.Call:
    positional: List[ast.expr] = [_load(a.arg) for a in args.posonlyargs + args.args]
    if args.vararg is not None:
        positional.append(ast.Starred(_load(args.vararg.arg), ast.Load()))
    keywords = [ast.keyword(a.arg, _load(a.arg)) for a in args.kwonlyargs]
    if args.kwarg is not None:
        keywords.append(ast.keyword(None, _load(args.kwarg.arg)))
    return ast.Call(_load(fn), positional, keywords)
