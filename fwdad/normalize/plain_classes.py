"""Which classes are plain records: instances that are only their fields.

    @dataclass                       ->  Layout(fields=('t', 'pos'), params=('t', 'pos'))
    class State: t: float; pos: ...
    class P:                         ->  Layout(fields=('x',), params=('v',))
        def __init__(self, v): self.x = v

A class is plain when it has no registered rule, making an instance runs nothing but
`self.<field> = <parameter>` for each parameter, and reading or writing a field runs
nothing but the plain attribute lookup: no metaclass, `__new__`, `__post_init__`,
`__setattr__`, `__getattribute__`, `__getattr__`, `__delattr__` or `__del__` (a frozen
dataclass's own `__setattr__` is allowed: its fields are then only read), no property or
other descriptor on a field name (the member descriptors of `__slots__` are plain), no
field that a base class declares too. normalize/unbox.py replaces such instances by locals.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import types
from typing import Any, Dict, Optional, Tuple

from fwdad.errors import FwdadError
from fwdad.probe import probe
from fwdad.rules.registry import is_primitive
from fwdad.source import get_source


@dataclasses.dataclass(frozen=True)
class Layout:
    """What the unboxing pass needs to know about a plain class."""

    cls: type
    fields: Tuple[str, ...]  # the instance's attributes, in order
    params: Tuple[str, ...]  # the __init__ parameter that fills each field
    keyword_only: Tuple[str, ...]  # the params that cannot be given by position
    defaults: Dict[str, Any]  # param -> its default, for those that have one
    frozen: bool  # fields may be read, not written

    def bind(self, args: list, keywords: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """field -> the argument (or default) that a call `cls(*args, **keywords)`
        stores in it; None when the call would raise, or a default is not a literal."""
        positional = [p for p in self.params if p not in self.keyword_only]
        if len(args) > len(positional) or set(keywords) - set(self.params) \
                or set(keywords) & set(positional[:len(args)]):
            return None
        given = dict(zip(positional, args), **keywords)
        out = {}
        for field, param in zip(self.fields, self.params):
            if param in given:
                out[field] = given[param]
            elif param in self.defaults and is_literal(self.defaults[param]):
                out[field] = ast.Constant(self.defaults[param])
            else:
                return None
        return out


def is_literal(value: Any) -> bool:
    """A value that a Constant node can stand for (immutable, so sharing it is safe)."""
    return type(value) in (int, float, complex, bool, str, bytes, type(None))


def layout(cls: Any) -> Optional[Layout]:
    """The layout of `cls` when it is a plain class (see the module docstring), else
    None."""
    if not isinstance(cls, type) or type(cls) is not type or is_primitive(cls) \
            or cls.__module__.partition(".")[0] == "fwdad" or not _plain_hooks(cls):
        return None  # (a class with a registered rule, or fwdad's own: Dual, Tangent)
    found = _dataclass_layout(cls) if dataclasses.is_dataclass(cls) else _init_layout(cls)
    if found is None or not _plain_fields(cls, found.fields):
        return None
    return found


_HOOKS = ("__new__", "__post_init__", "__setattr__", "__getattribute__", "__getattr__",
          "__delattr__", "__del__")


def _plain_hooks(cls: type) -> bool:
    """No class on the way to `object` hooks making, reading or writing attributes."""
    frozen = _is_frozen_dataclass(cls)
    for klass in cls.__mro__[:-1]:
        for hook in _HOOKS:
            if hook in vars(klass) and not (
                    frozen and hook in ("__setattr__", "__delattr__")
                    and _made_by_dataclasses(vars(klass)[hook], klass)):
                return False
    return True


def _plain_fields(cls: type, fields: Tuple[str, ...]) -> bool:
    """No descriptor but a slot on a field name; slotted instances have every field."""
    for field in fields:
        for klass in cls.__mro__[:-1]:
            attr = vars(klass).get(field)
            if attr is not None and type(attr) is not types.MemberDescriptorType \
                    and _is_descriptor(attr):
                return False
        if cls.__dictoffset__ == 0 and \
                type(inspect.getattr_static(cls, field, None)) is not \
                types.MemberDescriptorType:
            return False  # no __dict__ and no slot: the original raises
    return True


def _is_descriptor(attr: Any) -> bool:
    kind = type(attr)
    return any(hasattr(kind, name) for name in ("__get__", "__set__", "__delete__"))


# ---- dataclasses --------------------------------------------------------------------
def _dataclass_layout(cls: type) -> Optional[Layout]:
    """A dataclass whose __init__ dataclasses made for it, each field an init field
    declared by one class only (no InitVar, no init=False, no field overridden)."""
    init = vars(cls).get("__init__")
    params_of = getattr(cls, "__dataclass_params__", None)
    if init is None or params_of is None or not params_of.init \
            or not _made_by_dataclasses(init, cls) or _overrides_a_field(cls):
        return None
    if any(f._field_type is not dataclasses._FIELD  # type: ignore[attr-defined]
           for f in cls.__dataclass_fields__.values()
           if f._field_type is not dataclasses._FIELD_CLASSVAR):  # type: ignore
        return None  # an InitVar: an __init__ parameter stored nowhere
    fields = dataclasses.fields(cls)
    if any(not f.init for f in fields):
        return None
    names = tuple(f.name for f in fields)
    defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
    keyword_only = tuple(f.name for f in fields if f.kw_only)
    return Layout(cls, names, names, keyword_only, defaults, params_of.frozen)


def _made_by_dataclasses(fn: Any, cls: type) -> bool:
    """`fn` is a method dataclasses generated for `cls` (exec'd code, no source)."""
    code = probe(fn, "__code__")
    return code is not None and code.co_filename == "<string>" \
        and probe(fn, "__qualname__", "") == f"{cls.__qualname__}.{fn.__name__}"


def _is_frozen_dataclass(cls: type) -> bool:
    params_of = vars(cls).get("__dataclass_params__")
    return params_of is not None and bool(params_of.frozen)


def _overrides_a_field(cls: type) -> bool:
    seen: set = set()
    for klass in cls.__mro__[:-1]:
        own = set(vars(klass).get("__annotations__", {}))
        if own & seen:
            return True
        seen |= own
    return False


# ---- plain classes ------------------------------------------------------------------
def _init_layout(cls: type) -> Optional[Layout]:
    """A class whose own __init__ is `self.<field> = <param>` for each parameter once."""
    init = vars(cls).get("__init__")
    if type(init) is not types.FunctionType or hasattr(init, "__wrapped__"):
        return None
    try:
        tree = get_source(init).tree
    except FwdadError:
        return None
    stored = _stores(tree)
    if stored is None:
        return None
    args = tree.args
    params = tuple(a.arg for a in args.args[1:] + args.kwonlyargs)
    if sorted(stored.values()) != sorted(params):
        return None
    defaults = dict(zip([a.arg for a in args.args][::-1], (init.__defaults__ or ())[::-1]))
    defaults.update(init.__kwdefaults__ or {})
    fields = tuple(stored)
    return Layout(cls, fields, tuple(stored[f] for f in fields),
                  tuple(a.arg for a in args.kwonlyargs), defaults, False)


def _stores(tree: ast.FunctionDef) -> Optional[Dict[str, str]]:
    """field -> parameter, when the body only stores distinct parameters into distinct
    fields of self (after an optional docstring); else None."""
    args = tree.args
    if tree.decorator_list or args.posonlyargs or args.vararg or args.kwarg \
            or not args.args:
        return None
    self_name, params = args.args[0].arg, {a.arg for a in args.args[1:] + args.kwonlyargs}
    body = tree.body
    if body and type(body[0]) is ast.Expr and type(body[0].value) is ast.Constant:
        body = body[1:]
    out: Dict[str, str] = {}
    for stmt in body:
        target, value = _store_parts(stmt)
        if not (type(target) is ast.Attribute and type(target.value) is ast.Name
                and target.value.id == self_name and type(value) is ast.Name
                and value.id in params and target.attr not in out
                and value.id not in out.values()):
            return None
        out[target.attr] = value.id
    return out


def _store_parts(stmt: ast.stmt) -> tuple:
    if type(stmt) is ast.Assign and len(stmt.targets) == 1:
        return stmt.targets[0], stmt.value
    if type(stmt) is ast.AnnAssign and stmt.value is not None:
        return stmt.target, stmt.value
    return None, None
