"""A recorded schedule -> Dual code -> a compiled, optimized replay function.

    def schedule(a0, a1):              straight-line Dual code: one step a line, guards
        v1 = _fw_sin(a0)               raise Fallback, and the optimizer then inlines,
        _fw_g1 = _fw_has_length(v1, 3) unboxes and drops inactive tangents as it does
        if not _fw_g1.primal:          for any derived rule
            raise _fw_Fallback
        return v1
"""
from __future__ import annotations

import ast
import builtins
from typing import Any, Callable, List, Optional

from fwdad.compile import compile_function
from fwdad.core import duals
from fwdad.core.constants import Constants
from fwdad.dual import Dual
from fwdad.forward.optimize import optimize
from fwdad.forward.record import Fallback, Recorder, Step
from fwdad.rules.registry import def_nondiff, get_frule
from fwdad.tangents import NoTangent


# ---- guards: nondiff helpers, so that the optimizer calls them on plain values ---------
def has_length(value: Any, count: int) -> bool:
    return len(value) == count


def is_function(value: Any, fn: Any) -> bool:
    return value is fn


def is_method(value: Any, key: tuple) -> bool:
    return type(getattr(value, "__self__", None)) is key[0] and \
        getattr(value, "__name__", None) == key[1]


def type_is(value: Any, cls: type) -> bool:
    return type(value) is cls


def read_global(read: Callable[[], Any], value: Any) -> Any:
    """A global or closure value read live, which must still be the recorded object
    (or an equal number or string: generated code may hold a copy of a literal)."""
    current = read()
    if current is not value and not (type(current) is type(value) in _LITERALS
                                      and current == value):
        raise Fallback
    return current


_LITERALS = (int, float, complex, bool, str, type(None))
def_nondiff(has_length, is_function, is_method, type_is, read_global)


def _raw(value: Any) -> Dual:
    """A constant Dual without a zero tangent built for it (guards read primals only)."""
    d = Dual.__new__(Dual)
    d.primal, d.tangent = value, NoTangent
    return d


class _Writer:
    def __init__(self, count: int) -> None:
        self.k = Constants(set())
        self.body: List[ast.stmt] = []
        self.guards = 0

    def atom(self, ref: Any) -> ast.expr:
        if isinstance(ref, str):
            return ast.Name(id=ref, ctx=ast.Load())
        value = ref[1]
        return self.k.bind(value if isinstance(value, Dual) else _raw(value), "k")

    def call(self, targets: List[str], callee: Any, args: List[ast.expr], kw=None) -> None:
        value = ast.Call(func=self.k.bind(callee, getattr(callee, "__name__", "rule")),
                         args=args, keywords=[ast.keyword(arg=k, value=self.atom(v))
                                              for k, v in (kw or {}).items()])
        if not targets:
            self.body.append(ast.Expr(value=value))
            return
        target = ast.Name(id=targets[0], ctx=ast.Store()) if len(targets) == 1 else \
            ast.Tuple(elts=[ast.Name(id=t, ctx=ast.Store()) for t in targets],
                      ctx=ast.Store())
        self.body.append(ast.Assign(targets=[target], value=value))

    def guard(self, test: ast.expr, outcome: bool = True) -> None:
        """`if not t.primal: raise Fallback` (or `if t.primal:` for a False outcome)."""
        test = ast.Attribute(value=test, attr="primal", ctx=ast.Load())
        if outcome:
            test = ast.UnaryOp(op=ast.Not(), operand=test)
        fail = ast.Raise(exc=self.k.bind(Fallback, "Fallback"), cause=None)
        self.body.append(ast.If(test=test, body=[fail], orelse=[]))

    def checked(self, helper: Callable, *args: ast.expr) -> None:
        self.guards += 1
        name = f"g{self.guards}"
        self.call([name], get_frule(helper), list(args))
        self.guard(ast.Name(id=name, ctx=ast.Load()))

    def step(self, step: Step) -> None:
        if step.kind == "test":
            if isinstance(step.args[0], str):
                self.guard(self.atom(step.args[0]), step.keywords["outcome"])
        elif step.kind == "callee":
            (what, key), = step.keywords.items()
            helper = {"callee": is_function, "method": is_method, "type": type_is}[what]
            self.checked(helper, self.atom(step.args[0]), self.atom(("const", key)))
        elif step.kind == "const":
            self.call(step.outputs, get_frule(read_global), [self.atom(("const", step.callee)),
                                                  self.atom(step.args[0])])
        elif step.kind == "unpack":
            count = step.args[1][1]
            self.checked(has_length, self.atom(step.args[0]), self.atom(("const", count)))
            self.call(step.outputs, duals.unpack, [self.atom(step.args[0]),
                                                     ast.Constant(value=count)])
        else:
            self.call(step.outputs, step.callee, [self.atom(a) for a in step.args],
                      step.keywords)


def _live(steps: List[Step], result: Any) -> List[Step]:
    """The steps the result or a guard needs (recorded steps are all pure; unpacking
    checks a length, the trip count of a loop)."""
    used, out = {result}, []
    for step in reversed(steps):
        if step.kind in ("test", "callee", "const", "unpack") or used & set(step.outputs):
            used.update(a for a in step.args if isinstance(a, str))
            used.update(v for v in step.keywords.values() if isinstance(v, str))
            out.append(step)
    return out[::-1]


def build_schedule(rec: Recorder, nargs: int, out: Dual, name: str) -> Optional[Callable]:
    """The replay function of a valid recording: `replay(*duals)` computes the output of
    the recorded run on new inputs, or raises Fallback where a guard fails."""
    result = rec.refs.get(id(out))
    if not rec.valid or result is None:
        return None
    writer = _Writer(len(rec.steps))
    for step in _live(rec.steps, result):
        writer.step(step)
    writer.body.append(ast.Return(value=writer.atom(result)))
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=f"a{i}") for i in range(nargs)],
                         vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    tree = ast.FunctionDef(name=f"{name}_schedule", args=args, body=writer.body,
                           decorator_list=[], returns=None, type_comment=None)
    scope = {"__builtins__": builtins}
    plain = compile_function(tree, writer.k.values, {}, scope, (), {}, "<schedule>",
                             f"static schedule of {name}")
    better = optimize(tree, writer.k, plain)
    if better is None:
        return plain
    return compile_function(better, writer.k.values, {}, scope, (), {}, "<schedule>",
                            f"optimized static schedule of {name}")
