"""Instantiate a template at one line of Dual code, and plain calls of nondiff rules.

    _fw_mul1 = _fw_mul(k, x)    ->    _fw_mul1 = k * x
                                      _fw_dmul1 = dk * x + k * dx
Operands with no tangent contribute a symbolic zero, which `simplify` folds away (so a
constant weight costs no tangent product); names the template reads become constants.
"""
from __future__ import annotations

import ast
import keyword
import math
import operator
from typing import Any, Dict, List, Optional

import numpy as np

from fwdad import lang
from fwdad.astwalk import walk
from fwdad.forward.optimizer.activity import BOXED, PLAIN
from fwdad.forward.optimizer.builders import builder
from fwdad.forward.optimizer.kinds import is_value, kind_of
from fwdad.forward.optimizer.lines import Line
from fwdad.forward.optimizer.records import MOVE, PRIMAL, TANGENT, Assign, Expr
from fwdad.forward.optimizer.templates import Template, pow_literal, pow_two
from fwdad.forward.optimizer.vanishing import ALWAYS
from fwdad.forward.optimizer.zeros import ZERO, is_zero, simplify, zeroed
from fwdad.forward.transform.astbuild import LOAD, literal
from fwdad.rules.operators import summed
from fwdad.tangents import NoTangent

_COMPARE = {operator.lt: ast.Lt, operator.le: ast.LtE, operator.eq: ast.Eq,
            operator.ne: ast.NotEq, operator.gt: ast.Gt, operator.ge: ast.GtE,
            operator.is_: ast.Is, operator.is_not: ast.IsNot}
_POW = (operator.pow, np.power)


def instantiate(rw: Any, line: Line, target: Any) -> Optional[list]:
    """The records computing `target` (primal, then tangent) from the template, or
    None where the template is not its rule's math (the caller calls the rule). Each
    assignment (optimizer/records.py) holds the names it reads (optimizer/cleanup.py
    counts them from there instead of walking the new expressions)."""
    tpl, subst, zeros = _template_for(rw, line)
    shaped = False  # (the tangent must be broadcast to the result's shape)
    if zeros and target is not None and not _keeps_shape(rw, line, tpl, zeros):
        if rw.batched or not _all_values(rw, line):
            return None
        shaped = True  # (`y + b`, b a constant vector: summed(dy, out, dy) shapes dy)
    care = target is not None and rw.kinds[target] != PLAIN and (shaped or any(
        ALWAYS in rw.vanish.get(a.name, ()) for a in passes_through(rw, line)))
    uses_out = tpl.uses_out or care
    bound: List[str] = []
    bind_constant = rw.k.bind

    def bind(value: Any, hint: str) -> ast.Name:
        name = bind_constant(value, hint)
        bound.append(name.id)
        return name
    primal = _build(tpl, tpl.primal, (), subst, bind, bound)
    if target is None:
        return [Expr(primal)]
    if rw.kinds[target] == PLAIN:
        return [Assign([target], primal, PRIMAL, bound)]
    primal_reads, bound = bound, []
    self_update = any(a.name == target and a.kind == "local" for a in line.operands)
    # (where a try may catch what the primal raises, the handler must find the local
    # and its tangent as they were, as the plain rule leaves them: the primal runs
    # first, and its new value is kept aside while the tangent reads the old one)
    protected = rw.protected > 0
    out = rw.temp(target) if self_update and (uses_out or protected) else target
    subst["out"] = ast.Name(out, LOAD)
    tangent = _build(tpl, tpl.tangent, zeros, subst, bind, bound)
    if care:  # an operand's tangent may be NoTangent at run time: keep shape and object
        tangent = _summed(tpl, tangent, subst, zeros, bind, bound)
    if is_zero(tangent):
        tangents = [rw.zero(target)]
    elif isinstance(tangent, ast.Name) and tangent.id == rw.dnames[target] and \
            tangent.id in rw.fresh:
        tangents = []  # dy = dy, and no other name holds dy
    else:
        passed = _passed_through(tangent, rw)
        if passed:  # `x + 0.0` is a new value: it gets a tangent of its own
            tangent = ast.UnaryOp(op=ast.UAdd(), operand=tangent)
        record = Assign([rw.dnames[target]], tangent, TANGENT, bound)
        tangents = [record]
        if passed in rw.fresh:  # cleanup drops the copy if nothing else reads it
            record.copy_of = passed
    if out != target:
        return [Assign([out], primal, MOVE, primal_reads)] + tangents + [
            Assign([target], ast.Name(out, LOAD), MOVE, [out])]
    first = Assign([target], primal, PRIMAL, primal_reads)
    if not protected and (self_update or (tpl.tangent_first and not uses_out)):
        return tangents + [first]
    return [first] + tangents


def _build(tpl: Template, expr: ast.expr, zeros: tuple, subst: Dict[str, ast.expr],
           bind: Any, reads: List[str]) -> ast.expr:
    """A fresh copy of a template expression with the operands substituted and the names
    the template reads bound as constants; for a tangent, simplified as if the tangents
    `zeros` were zero (which is what simplifying the copy would give). The names it
    reads go to `reads` (bind adds the constants')."""
    key = (id(expr), zeros)
    known = _BUILDERS.get(key)
    if known is None or known[0] is not expr:
        operands = tpl.params + tpl.tangents + ["out"]
        kept = expr if expr is tpl.primal else simplify(zeroed(expr, zeros))
        build = builder(kept, operands, tpl.globals, _hint, binds=None if kept is expr
                        else expr)
        names = [n.id for n in walk(kept) if type(n) is ast.Name]
        uses = [n for n in names if n in operands]
        others = [n for n in names if n not in operands and n not in tpl.globals]
        known = _BUILDERS[key] = expr, build, uses, others
    start = len(reads)
    out = known[1](subst, bind)
    del reads[start:start + known[1].prebound]  # bound, but left out of the tree
    reads.extend(known[3])
    for operand in known[2]:
        node = subst[operand]
        kind = type(node)
        if kind is ast.Name:
            reads.append(node.id)
        elif kind is ast.Attribute:  # x.primal, x.tangent
            reads.append(node.value.id)
    return out


# (id(template expression), its zero tangents) -> (that expression, its builder, the
# operands the built tree reads, and the other names it reads)
_BUILDERS: Dict[tuple, tuple] = {}


def _chosen(rw: Any, line: Line) -> tuple:
    """The template of the line and the operands it takes: `x ** 2` is pow_two of x."""
    tpl: Template = line.template
    atoms = line.operands
    exponent = _literal_exponent(line)
    if exponent is not None:
        return (pow_two if exponent == 2 else pow_literal).template, atoms[:1]
    return tpl, atoms


def _literal_exponent(line: Line) -> Any:
    atoms = line.operands
    if atoms[-1].kind == "const" and line.entry.primal in _POW:
        exponent = getattr(atoms[-1].value, "primal", None)
        if type(exponent) in (int, float) and exponent != 0 and math.isfinite(exponent):
            return exponent
    return None


def _template_for(rw: Any, line: Line) -> tuple:
    tpl, atoms = _chosen(rw, line)
    subst: Dict[str, ast.expr] = {}
    if len(atoms) < len(line.operands):
        exponent = _literal_exponent(line)
        subst["c"], subst["c1"] = literal(exponent), literal(exponent - 1)
    primal, tangent, zeros = rw.primal, rw.tangent, []
    for atom, p, dp in zip(atoms, tpl.params, tpl.tangents):
        subst[p] = primal(atom)
        subst[dp] = dt = tangent(atom)
        if type(dt) is ast.Name and dt.id == ZERO:
            zeros.append(dp)
    for dp in tpl.tangents[len(atoms):]:
        subst[dp] = ast.Name(ZERO, LOAD)
        zeros.append(dp)
    return tpl, subst, tuple(zeros)


def _hint(value: Any) -> str:
    if value is NoTangent:
        return "NoTangent"
    prefix = {"math": "math_", "numpy": "np_"}.get(getattr(value, "__module__", ""), "")
    return prefix + getattr(value, "__name__", type(value).__name__.strip("_"))


def _passed_through(node: ast.expr, rw: Any) -> Optional[str]:
    """The name of the operand's tangent that `node` is alone (`dx` of `x + 0.0`, or
    `x.tangent` of a boxed local), else None. Every template makes a new value, so
    that tangent object must not become the new value's: a later in-place update of
    either, or of what it views (`c = a[:] + 0.0; a[0] = 7.0`), would change both."""
    if type(node) is ast.Name and node.id != ZERO:
        return node.id
    if isinstance(node, ast.Attribute) and node.attr == "tangent" and \
            isinstance(node.value, ast.Name) and rw.kinds.get(node.value.id) == BOXED:
        return node.value.id + ".tangent"
    return None


# ---- broadcasting ---------------------------------------------------------------------
def _keeps_shape(rw: Any, line: Line, tpl: Template, zeros: tuple) -> bool:
    """Whether dropping the terms of the operands with no tangent keeps the tangent's
    shape: `x + np.zeros(3)` is an array, but its tangent without the zero term is
    dx, a float. It does when the tangent still reads each such operand (or `out`),
    or the operand is a number, which broadcasts to no new shape."""
    reads = _tangent_reads(tpl, zeros)
    if reads is None or "out" in reads:
        return True
    atoms = line.operands
    for i, (p, dp) in enumerate(zip(tpl.params, tpl.tangents)):
        if dp in zeros and p not in reads and i < len(atoms) and \
                not rw.is_number(atoms[i]):
            return False
    return True


def _all_values(rw: Any, line: Line) -> bool:
    """Whether every operand of `line` is known to be a float64 array or a number (never
    a list, whose `+` concatenates; no float32, whose tangent the rule promotes), by the
    kinds of a variant built for them."""
    kinds = rw.value_kinds
    return bool(kinds) and all(_float64_value(
        kinds.get(a.name) if a.kind == "local" else
        kind_of(getattr(a.value, "primal", a.value)) if a.kind == "const" else None)
        for a in line.operands)


def _float64_value(kind: Any) -> bool:
    return is_value(kind) and (kind[0] in ("float", "int", "bool") or kind[-1] == np.float64)


def _tangent_reads(tpl: Template, zeros: tuple) -> Optional[frozenset]:
    """The names the tangent of `tpl` reads once `zeros` are zero; None if it is zero."""
    key = (id(tpl.tangent), zeros)
    known = _READS.get(key)
    if known is None or known[0] is not tpl.tangent:
        kept = simplify(zeroed(tpl.tangent, zeros))
        names = None if is_zero(kept) else frozenset(
            n.id for n in walk(kept) if type(n) is ast.Name)
        known = _READS[key] = tpl.tangent, names
    return known[1]


_READS: Dict[tuple, tuple] = {}  # (id(tangent expression), zeros) -> (it, its names)


# ---- tangents that are NoTangent at run time ------------------------------------------
def passes_through(rw: Any, line: Line) -> List[Any]:
    """The active operands whose tangent, were it NoTangent at run time (an int), would
    leave the line's tangent that of another operand alone: `dx + dk` is then dx, of
    x's shape rather than the result's, and the very object dx."""
    tpl, atoms = _chosen(rw, line)
    zeros = tuple(dp for i, dp in enumerate(tpl.tangents)
                  if i >= len(atoms) or not rw.active(atoms[i]))
    out = []
    for atom, p, dp in zip(atoms, tpl.params, tpl.tangents):
        if dp not in zeros:
            reads = _tangent_reads(tpl, zeros + (dp,))
            if reads is not None and p not in reads and "out" not in reads:
                out.append(atom)
    return out


def _summed(tpl: Template, tangent: ast.expr, subst: Dict[str, ast.expr], zeros: tuple,
            bind: Any, reads: List[str]) -> ast.expr:
    """`summed(dx + dy, out, dx, dy)`: the rules' own shaping and copy (rules/operators)."""
    terms = [subst[dp] for dp in tpl.tangents if dp not in zeros]
    out = subst["out"]
    call = ast.Call(func=bind(summed, "summed"), args=[tangent, out] + terms, keywords=[])
    reads.append(out.id)
    for node in terms:
        reads.append(node.id if type(node) is ast.Name else node.value.id)
    return call


# ---- nondiff rules: the primal call alone ----------------------------------------------
def nondiff_call(rw: Any, line: Line, fn: Any = None) -> ast.expr:
    """`fn(x.primal, ...)`, as the nondiff rule computes it (comparisons as operators);
    `fn` is the entry's function unless given."""
    fn = line.entry.primal if fn is None else fn
    args = [ast.Starred(value=rw.primal(a), ctx=ast.Load()) if starred else rw.primal(a)
            for a, starred in line.args]
    keywords = [ast.keyword(arg=n, value=rw.primal(a)) for n, a in line.keywords]
    plain = len(args) == 2 and not keywords and not any(s for _, s in line.args)
    if fn in _COMPARE and plain:
        return ast.Compare(left=args[0], ops=[_COMPARE[fn]()], comparators=[args[1]])
    if fn is operator.floordiv and plain:
        return ast.BinOp(left=args[0], op=ast.FloorDiv(), right=args[1])
    if fn is operator.getitem and plain:  # (x.shape[0]: kind_flow.reads_metadata)
        return ast.Subscript(value=args[0], slice=args[1], ctx=ast.Load())
    if fn is getattr and plain and type(args[1]) is ast.Constant and \
            type(args[1].value) is str and args[1].value.isidentifier() and \
            not keyword.iskeyword(args[1].value):
        return ast.Attribute(value=args[0], attr=args[1].value, ctx=ast.Load())
    if fn is operator.not_ and len(args) == 1 and not keywords:
        return ast.UnaryOp(op=ast.Not(), operand=args[0])
    return ast.Call(func=rw.k.bind(fn, _hint(fn)), args=args, keywords=keywords)


def built_plainly(rw: Any, line: Line) -> Optional[ast.expr]:
    """`slice(1, -1, None)` (a constant when its bounds are) and `(a, b)` for a slice or
    tuple with no tangent (built of values that have none: no bound that moves, which
    the rule would refuse); None for other lines."""
    fn = getattr(line.entry, "primal", None)
    if fn not in (lang.build_slice, lang.build_tuple) or line.keywords or \
            any(starred for _, starred in line.args):
        return None
    atoms = [a for a, _ in line.args]
    if fn is lang.build_tuple:
        return ast.Tuple(elts=[rw.primal(a) for a in atoms], ctx=ast.Load())
    if len(atoms) == 3 and all(a.kind == "const" for a in atoms):
        bounds = [getattr(a.value, "primal", a.value) for a in atoms]
        if all(b is None or type(b) is int for b in bounds):
            return rw.k.bind(slice(*bounds), "slice")
    return ast.Call(func=rw.k.bind(slice, "slice"), args=[rw.primal(a) for a in atoms],
                    keywords=[])
