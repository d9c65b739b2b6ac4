"""A function given an unboxed instance: the same function, taking and giving back fields,
and the call of it.

    def step(s, h):                      def step__s_fields(s_t, s_pos, h):
        s.pos = s.pos + h * s.t      ->      s = State(t=s_t, pos=s_pos)
                                             s.pos = s.pos + h * s.t
                                             return None, s.t, s.pos

normalize/unbox.py keeps an instance made in a function as one local per field; where it
is passed to a Python function (`step(s, h)`), it calls this variant with the fields and
takes the fields back: `_fw_r, s_t, s_pos = fwdad.unpack(step__s_fields(s_t, s_pos, h),
3)`, which does what `step(s, h)` does to the instance. The variant is kept only when its
own unbox pass leaves no trace of the instance in it (the instance is only read and
written there, never passed on, compared or returned), so that nothing but the returned
fields can see it; whatever `step` returns comes first.

The variant is a Python function with source (registered with linecache, as
fwdad/compile.py registers rules), so that every mode derives its rule as for any other
function; it shares `step`'s globals. Functions with closure cells, positional-only
parameters, a default on the instance's parameter, generators, or a class name that
`step`'s globals do not hold, get no variant (None): the call passes the instance as it
is (and the instance is made again there, as at any escape).

Note: the variant's text is `ast.unparse` of the rewritten def, so its tracebacks and
fwdad's errors cite that text's lines, not the user's file.
"""
from __future__ import annotations

import ast
import inspect
import itertools
import linecache
import threading
import types
import weakref
from typing import Any, Dict, List, Optional, Set, Tuple

from fwdad import lang
from fwdad.astwalk import copy_location, walk
from fwdad.errors import FwdadError
from fwdad.normalize import refs
from fwdad.normalize.names import Namer
from fwdad.normalize.plain_classes import Layout
from fwdad.normalize.refs import is_ref
from fwdad.normalize.uses import Use
from fwdad.probe import probe
from fwdad.rules.registry import is_primitive

_VARIANTS: "weakref.WeakKeyDictionary[Any, Dict[Tuple[str, type], Any]]" = \
    weakref.WeakKeyDictionary()
_building = threading.local()  # (fn, param, class) being built, against recursion
_serial = itertools.count(1)
_GENERATORS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


# ---- the call -----------------------------------------------------------------------
def passed_to(use: Use, name: str, layout: Layout, depth: int, made: Set[str]) -> Any:
    """The variant of the Python function that the escape `use` (of the unbox pass, whose
    home block is `depth` deep) passes the instance `name` to, once; None where there is
    none, the call is in a try (whose handlers could see the instance half-updated), or
    it passes another local that may be unboxed, of `made` (the statement is rewritten
    for one instance only)."""
    stmt = use.stmt
    value = stmt.value
    if type(stmt) not in (ast.Expr, ast.Assign) or type(value) is not ast.Call or \
            not is_ref(value.func) or \
            any(type(block[i]) is ast.Try for block, i in use.path[depth:-1]) or \
            (type(stmt) is ast.Assign and type(stmt.targets[0]) is not ast.Name) or \
            any(type(n) is ast.Name and n.id != name and n.id in made
                for n in walk(value)):
        return None
    param = _parameter(value, name, value.func.fw_value)
    return None if param is None else fields_variant(value.func.fw_value, param, layout)


def _parameter(call: ast.Call, name: str, fn: Any) -> Optional[str]:
    """The parameter of `fn` that `call` gives the local `name` to, when it gives it
    once, as a plain argument, and binds it by position or by name."""
    given = [i for i, a in enumerate(call.args) if type(a) is ast.Name and a.id == name]
    named = [k.arg for k in call.keywords if type(k.value) is ast.Name and k.value.id == name]
    mentions = sum(1 for n in walk(call) if type(n) is ast.Name and n.id == name)
    code = probe(fn, "__code__")
    if code is None or mentions != 1 or len(given) + len(named) != 1 or any(
            type(a) is ast.Starred for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return None
    params = code.co_varnames[:code.co_argcount]
    if named:
        return named[0] if named[0] in params[code.co_posonlyargcount:] else None
    i = given[0]
    return params[i] if code.co_posonlyargcount <= i < len(params) else None


def call_with_fields(variant: Any, name: str, fields: List[str], stmt: ast.stmt,
                     names: Namer) -> List[ast.stmt]:
    """`y = step(s, h)` -> `_fw_step1 = step__s_fields(s_t, s_pos, h)`
                          `y, s_t, s_pos = fwdad.unpack(_fw_step1, 3)`
    where `fields` are the locals of the fields of the instance `name`."""
    call = stmt.value
    args = [a for a in call.args if not (type(a) is ast.Name and a.id == name)]
    keywords = [k for k in call.keywords
                if not (type(k.value) is ast.Name and k.value.id == name)]
    result = names.fresh(variant.__name__.split("__")[0])
    new = refs.call(variant, variant.__name__, [_at(ast.Name(f, ast.Load()), stmt)
                                                for f in fields] + args, stmt, keywords)
    target = stmt.targets[0].id if type(stmt) is ast.Assign else names.fresh("result")
    stores = [_at(ast.Name(n, ast.Store()), stmt) for n in [target] + fields]
    unpacked = refs.call(lang.unpack, "fwdad.unpack", [
        _at(ast.Name(result, ast.Load()), stmt), _at(ast.Constant(len(stores)), stmt)], stmt)
    return [_at(ast.Assign(targets=[_at(ast.Name(result, ast.Store()), stmt)], value=new),
                stmt),
            _at(ast.Assign(targets=[_at(ast.Tuple(elts=stores, ctx=ast.Store()), stmt)],
                           value=unpacked), stmt)]


def _at(node: Any, like: ast.AST) -> Any:
    return copy_location(node, like)


# ---- the variant --------------------------------------------------------------------
def fields_variant(fn: Any, param: str, layout: Layout) -> Optional[types.FunctionType]:
    """The variant of `fn` whose parameter `param`, given an instance of `layout.cls`,
    is replaced by one parameter per field (see the module docstring); None when there
    is none. Kept per function, parameter and class."""
    if type(fn) is not types.FunctionType or is_primitive(fn) or fn.__closure__ \
            or fn.__code__.co_flags & _GENERATORS \
            or fn.__module__.partition(".")[0] == "fwdad":
        return None
    known = _VARIANTS.setdefault(fn, {})
    key = (param, layout.cls)
    if key not in known:
        building = _building.__dict__.setdefault("keys", set())
        mark = (id(fn),) + key
        if mark in building:
            return None  # (a recursive call: the call passes the instance as it is)
        building.add(mark)
        try:
            known[key] = _build(fn, param, layout)
        finally:
            building.discard(mark)
    return known[key]


def _build(fn: types.FunctionType, param: str, layout: Layout
           ) -> Optional[types.FunctionType]:
    from fwdad import frontend  # (frontend imports normalize)
    from fwdad.source import get_source
    try:
        tree = get_source(fn).tree
    except FwdadError:
        return None
    if type(tree) is not ast.FunctionDef or fn.__globals__.get(layout.cls.__name__) \
            is not layout.cls:
        return None
    names = _names(tree)
    if layout.cls.__name__ in names:
        return None  # (a local of that name would hide the class)
    fields = _field_params(param, layout, names)
    new = _rewritten(tree, param, layout, fields)
    if new is None:
        return None
    variant = _compiled(fn, new)
    try:
        normalized = frontend.normalized(variant)[1]
    except FwdadError:
        return None
    if any(type(n) is ast.Name and n.id == param for n in ast.walk(normalized)):
        return None  # the instance stays somewhere: others could see it
    return variant


def _names(tree: ast.FunctionDef) -> Set[str]:
    out = {n.id for n in ast.walk(tree) if type(n) is ast.Name}
    return out | {a.arg for a in ast.walk(tree) if type(a) is ast.arg}


def _field_params(param: str, layout: Layout, taken: Set[str]) -> List[str]:
    out = []
    for field in layout.fields:
        name, n = f"{param}_{field}", 1
        while name in taken:
            n += 1
            name = f"{param}_{field}{n}"
        taken.add(name)
        out.append(name)
    return out


def _rewritten(tree: ast.FunctionDef, param: str, layout: Layout, fields: List[str]
               ) -> Optional[ast.FunctionDef]:
    """The variant's def, or None when `param` is not a plain positional parameter
    without a default, or positional-only parameters come first (the fields go first)."""
    args = tree.args
    position = [a.arg for a in args.args].index(param) if param in \
        [a.arg for a in args.args] else -1
    if position < 0 or position >= len(args.args) - len(args.defaults) or args.posonlyargs:
        return None
    for arg in ast.walk(args):
        if type(arg) is ast.arg:
            arg.annotation = None
    args.args = [ast.arg(arg=f) for f in fields] + \
        args.args[:position] + args.args[position + 1:]
    made = ast.Call(func=ast.Name(id=layout.cls.__name__, ctx=ast.Load()), args=[],
                    keywords=[ast.keyword(arg=p, value=ast.Name(id=f, ctx=ast.Load()))
                              for p, f in zip(layout.params, fields)])
    body = [ast.Assign(targets=[ast.Name(id=param, ctx=ast.Store())], value=made)]
    _returns(tree.body, param, layout)
    body += tree.body + [_return(None, param, layout)]
    tree.body, tree.decorator_list, tree.returns = body, [], None
    tree.name = f"{tree.name}__{param}_fields"
    return ast.fix_missing_locations(tree)


def _returns(block: List[ast.stmt], param: str, layout: Layout) -> None:
    """`return x` -> `return (x, s.f1, s.f2, ...)`, in this function's own blocks."""
    for i, stmt in enumerate(block):
        if type(stmt) is ast.Return:
            block[i] = ast.copy_location(_return(stmt.value, param, layout), stmt)
        elif type(stmt) not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            for part in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, part, None)
                if isinstance(inner, list):
                    _returns(inner, param, layout)
            for handler in getattr(stmt, "handlers", ()):
                _returns(handler.body, param, layout)
            for case in getattr(stmt, "cases", ()):
                _returns(case.body, param, layout)


def _return(value: Optional[ast.expr], param: str, layout: Layout) -> ast.Return:
    parts = [value or ast.Constant(None)] + [
        ast.Attribute(value=ast.Name(id=param, ctx=ast.Load()), attr=f, ctx=ast.Load())
        for f in layout.fields]
    return ast.Return(value=ast.Tuple(elts=parts, ctx=ast.Load()))


def _compiled(fn: types.FunctionType, tree: ast.FunctionDef) -> types.FunctionType:
    """The function `tree` defines, with `fn`'s globals and defaults, its text kept in
    linecache so that fwdad reads its source as for any function."""
    text = ast.unparse(ast.Module(body=[tree], type_ignores=[])) + "\n"
    # (not "<fwdad ...>": source.is_generated would take it for a rule fwdad made)
    filename = f"<{fn.__qualname__} given fields, #{next(_serial)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    module = compile(text, filename, "exec")
    code = next(c for c in module.co_consts
                if isinstance(c, types.CodeType) and c.co_name == tree.name)
    variant = types.FunctionType(code, fn.__globals__, tree.name, fn.__defaults__)
    variant.__kwdefaults__ = fn.__kwdefaults__
    variant.__qualname__ = f"{fn.__qualname__}__{tree.name.rsplit('__', 1)[1]}"
    return variant
