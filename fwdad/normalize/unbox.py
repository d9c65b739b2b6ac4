"""Instances of plain classes made in the function become one local per field.

    s = State(0.0, p)                ->  s_t = 0.0
                                         s_pos = p
    _fw_pos1 = getattr(s, 'pos')     ->  _fw_pos1 = s_pos
    setattr(s, 't', _fw_iadd1)       ->  s_t = _fw_iadd1
    return s                         ->  s = State(t=s_t, pos=s_pos)
                                         return s
    step(s, h)                       ->  _fw_step1 = step__s_fields(s_t, s_pos, h)
                                         _fw_result1, s_t, s_pos = fwdad.unpack(_fw_step1, 3)

Runs on flattened code (one operation a line). A local is unboxed when every value it
holds is made in the function by a call of a plain class (normalize/plain_classes.py,
one class for the local), and each use of it is a read or a write of a field, or an
*escape*: any other use in a plain statement (passed to a call, put in a container,
copied, returned). At an escape the instance is made again from its fields, and the
escape must be its last use: no use may follow it (so an escape is never inside a loop
that repeats it, nor inside a try whose handlers might run after it); a `return` may
be anywhere. The first use is a making, and every other use comes after it in the same
block (or below): the local always holds an instance when it is used. Anything else
(`is`, `id`, `type`, methods, other attributes, closures, `del`, a test of it, another
value) leaves the local as it is.

A call that gives the instance, once, to a Python function that only reads and writes
its fields is no escape: it calls the variant of that function that takes the fields and
gives them back with its result (normalize/field_calls.py), anywhere in the function but
in a try (whose handlers would see the instance as the call left it when it raised).

After this pass the unboxed locals are gone from the code but at their escapes, and
every field is a local: the optimizer sees plain values (forward/optimizer/optimize.py leaves
rules that make instances of other classes).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

from fwdad.astwalk import copy_location, copy_locations, walk
from fwdad.normalize import field_calls, uses
from fwdad.normalize.names import Namer, is_generated
from fwdad.normalize.plain_classes import Layout
from fwdad.normalize.uses import Use

Path = Tuple[Tuple[List[ast.stmt], int], ...]


def run(tree: ast.FunctionDef, names: Namer) -> ast.FunctionDef:
    found = uses.collect(tree)
    if found is None:
        return tree
    params = {a.arg for a in walk(tree.args) if type(a) is ast.arg}
    # (planned in the order of the code, not of a set of names, so that the fields'
    # locals are numbered alike under any hash seed: tests/normalize/test_hash_seed.py)
    order = [name for name, its in found.items() if its[0].kind == "make" and name not in params]
    made = set(order)
    plans = [plan for name in order for plan in [_plan(name, found[name], made)]
             if plan is not None]
    if not plans:
        return tree
    taken = _bound_or_read(tree)
    edits: Dict[int, _Edit] = {}
    for plan in plans:
        plan.locals = _field_locals(plan, taken, names)
        _edit(plan, edits, found, names)
    tree.body = _apply(tree.body, edits)
    return tree


def _bound_or_read(tree: ast.FunctionDef) -> Set[str]:
    """Every name the function (nested defs included) reads, binds or declares: a field's
    local takes none of them."""
    out: Set[str] = set()
    for node in walk(tree):
        kind = type(node)
        if kind is ast.Name:
            out.add(node.id)
        elif kind is ast.arg:
            out.add(node.arg)
        elif kind in (ast.FunctionDef, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif kind in (ast.Global, ast.Nonlocal):
            out.update(node.names)
        elif kind is ast.alias:
            out.add((node.asname or node.name).split(".")[0])
    return out


@dataclass
class _Plan:
    name: str
    layout: Layout
    uses: List[Use]
    dotted: ast.expr  # the callee of a making, to make the instance again
    locals: Dict[str, str] = field(default_factory=dict)  # field -> its local
    # statement -> the variant of the function it passes the instance to, which takes
    # and gives back the fields (normalize/field_calls.py)
    passes: Dict[int, Any] = field(default_factory=dict)


def _plan(name: str, its: List[Use], made: Set[str]) -> Optional[_Plan]:
    """The plan to unbox `name`, or None when it must stay (see the module docstring).
    `made`: the locals that may be unboxed too."""
    first = its[0]
    if first.kind != "make" or any(u.kind == "refuse" for u in its):
        return None
    layout = first.layout
    if any(u.kind == "make" and (u.layout.cls is not layout.cls or u.bound is None)
           for u in its):
        return None
    home, start = first.path[:-1], first.path[-1][1]
    for use in its:
        if not _inside(use.path, home, first.path[-1][0], start):
            return None
        if use.kind in ("read", "write") and use.attr not in layout.fields:
            return None
        if use.kind == "write" and layout.frozen:
            return None
    passes = {}
    for use in its:
        if use.kind != "escape":
            continue
        variant = field_calls.passed_to(use, name, layout, len(home), made)
        if variant is not None:
            passes[id(use.stmt)] = variant
        elif not _last_use(use, name, len(home)):
            return None
    return _Plan(name, layout, its, first.stmt.value.func, passes=passes)


def _inside(path: Path, home: Path, block: List[ast.stmt], start: int) -> bool:
    """`path` is at or after `block[start]`, where `home` leads to `block`."""
    depth = len(home)
    if len(path) <= depth or path[depth][0] is not block or path[depth][1] < start:
        return False
    return all(a[0] is b[0] and a[1] == b[1] for a, b in zip(path, home))


def _last_use(use: Use, name: str, depth: int) -> bool:
    """No use of `name` can follow this escape: no loop between the home block and it
    repeats it, no try around it catches it, and nothing after it names the local."""
    owners = [block[i] for block, i in use.path[depth:-1]]
    if any(type(s) is ast.Try for s in owners):
        return False
    if type(use.stmt) is ast.Return:
        return True
    if any(type(s) in (ast.For, ast.While) for s in owners):
        return False
    for block, i in reversed(use.path[depth:]):  # the rest of its block, then outward
        for later in block[i + 1:]:
            if any(type(n) is ast.Name and n.id == name for n in walk(later)):
                return False
        if any(type(s) in (ast.Return, ast.Raise) for s in block[i + 1:]):
            return True  # (what follows the block does not run after the escape)
    return True


def _field_locals(plan: _Plan, taken: Set[str], names: Namer) -> Dict[str, str]:
    """`s_pos` for field `pos` of local `s` when no name in the function is that already;
    a fresh temporary otherwise (and for the fields of a temporary)."""
    out = {}
    for name in plan.layout.fields:
        wanted = f"{plan.name}_{name}"
        if is_generated(plan.name) or wanted in taken:
            wanted = names.fresh(name if is_generated(plan.name) else wanted)
        taken.add(wanted)
        out[name] = wanted
    return out


# ---- rewriting ----------------------------------------------------------------------
@dataclass
class _Edit:
    """What becomes of one statement: lines before it, and what replaces it (None:
    itself)."""

    before: List[ast.stmt] = field(default_factory=list)
    instead: Optional[List[ast.stmt]] = None


def _edit(plan: _Plan, edits: Dict[int, _Edit], found: Dict[str, List[Use]],
          names: Namer) -> None:
    for use in plan.uses:
        stmt = use.stmt
        edit = edits.setdefault(id(stmt), _Edit())
        if use.kind == "make":
            edit.instead = [_assign(plan.locals[f], copy_location(value, stmt), stmt)
                            for f, value in use.bound.items()]
        elif use.kind == "read":
            edit.instead = [] if type(stmt) is ast.Expr or _forwarded(plan, use, found) \
                else [_assign(stmt.targets[0].id, _load(plan.locals[use.attr], stmt), stmt)]
        elif use.kind == "write":
            edit.instead = [_assign(plan.locals[use.attr], stmt.value.args[2], stmt)]
        elif id(stmt) in plan.passes:
            edit.instead = field_calls.call_with_fields(
                plan.passes[id(stmt)], plan.name,
                [plan.locals[f] for f in plan.layout.fields], stmt, names)
        else:
            edit.before.append(_remake(plan, stmt))


def _forwarded(plan: _Plan, read: Use, found: Dict[str, List[Use]]) -> bool:
    """Whether the temporary of `t = getattr(s, 'f')` is replaced by the field's local
    where it is used (`y = f(s_f)`, not `t = s_f; y = f(t)`, so that the code reads as
    if written with locals): when that is its one use, in a later statement of the same
    block, with no write of the field and no making of `s` from there to the read."""
    temporary = read.stmt.targets[0].id
    its = found.get(temporary, [])
    if not is_generated(temporary) or len(its) != 2 or its[0].stmt is not read.stmt \
            or its[1].kind not in ("escape", "read", "write"):
        return False
    use, (block, i) = its[1], read.path[-1]
    if len(use.path) != len(read.path) or not _inside(use.path, read.path[:-1], block, i):
        return False
    makings = {id(u.stmt) for u in plan.uses if u.kind == "make"}
    changes = makings | set(plan.passes) | {id(u.stmt) for u in plan.uses
                                            if u.kind == "write" and u.attr == read.attr}
    between = block[i + 1:use.path[-1][1]]
    if id(use.stmt) in makings or \
            any(id(node) in changes for stmt in between for node in walk(stmt)):
        return False  # (`s = State(s.pos, s.t)` must read both before it writes)
    for node in walk(use.stmt):
        if type(node) is ast.Name and node.id == temporary:
            node.id = plan.locals[read.attr]
    return True


def _apply(block: List[ast.stmt], edits: Dict[int, _Edit]) -> List[ast.stmt]:
    out: List[ast.stmt] = []
    for stmt in block:
        for part in ("body", "orelse", "finalbody"):
            if getattr(stmt, part, None):
                setattr(stmt, part, _apply(getattr(stmt, part), edits))
        for handler in getattr(stmt, "handlers", ()):
            handler.body = _apply(handler.body, edits)
        edit = edits.get(id(stmt))
        if edit is None:
            out.append(stmt)
            continue
        out.extend(edit.before)
        out.extend([stmt] if edit.instead is None else edit.instead)
    return out or [copy_location(ast.Pass(), block[-1])]


def _remake(plan: _Plan, like: ast.stmt) -> ast.stmt:
    """`s = State(t=s_t, pos=s_pos)`: the instance made again from its fields."""
    keywords = [ast.keyword(arg=param, value=_load(plan.locals[name], like))
                for name, param in zip(plan.layout.fields, plan.layout.params)]
    copy_locations(keywords, like)
    make = copy_location(ast.Call(func=_static(plan.dotted, like), args=[],
                                  keywords=keywords), like)
    return _assign(plan.name, make, like)


def _static(callee: ast.expr, like: ast.AST) -> ast.expr:
    """A copy of the static reference `callee` (a Name, or Attributes down to one)."""
    if type(callee) is ast.Attribute:
        out: ast.expr = ast.Attribute(value=_static(callee.value, like), attr=callee.attr,
                                      ctx=ast.Load())
    else:
        out = ast.Name(id=callee.id, ctx=ast.Load())
    if "fw_value" in callee.__dict__:
        out.fw_value = callee.fw_value  # type: ignore[attr-defined]
    return copy_location(out, like)


def _assign(target: str, value: ast.expr, like: ast.AST) -> ast.Assign:
    stored = copy_location(ast.Name(id=target, ctx=ast.Store()), like)
    return copy_location(ast.Assign(targets=[stored], value=value), like)


def _load(name: str, like: ast.AST) -> ast.Name:
    return copy_location(ast.Name(id=name, ctx=ast.Load()), like)

