"""Arithmetic of the batched variant written into an operand that is never read again.

    _fw_dadd2 = dlap / h2 + _fw_dmul2
        ->  dlap = _fw_into_left(_fw_np_true_divide, dlap, h2)
            _fw_dadd2 = _fw_into_left(_fw_np_add, dlap, _fw_dmul2)

Each `a <op> b` (+, -, *, /) of a batch of tangents makes a new array as large as the
batch; where an operand is a local that the rule does not read after the statement, the
result may go into it instead (bench/sparse.py's 1-D residual: two of its four arrays
of the batch's size a call). That takes two facts. That the name is dead, decided
here, from the rule's code: the statement reads it once, no later statement reads it
(a statement in a loop: the loop binds it afresh, by a plain assignment before the
statement in the same block, before any other read in the loop), the rule has no
nested scope that reads it, and the statement is not in a `try` or `with` (whose
handler or manager may go on after an exception, with the operand written). And that
the array is the rule's alone, decided at each call (optimizer/owned_operands.py): its
reference count, ownership of its memory, shape and dtype; otherwise the operator runs
as written. An operand whose name is dead may still be held elsewhere (a list, an
instance, a Dual the rule returned, a view: `v = t[1:]` keeps t alive as v's base),
which is what the count sees.

A chain along its first operands (`(t / h2) + m`) becomes one statement per operator,
in the order Python evaluates them, each into the same name. Only locals whose kinds
(kinds.py) are arrays, or the tangents of such, are tried: for numbers and small
values the call costs more than the new array.
"""
from __future__ import annotations

import ast
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

import numpy as np

from fwdad.forward.optimizer.owned_operands import into_left, into_right
from fwdad.forward.transform.astbuild import LOAD

_UFUNCS = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
           ast.Div: np.true_divide}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.While, ast.AsyncFor)
_FRAME_READERS = {"locals", "vars", "eval", "exec"}
Step = Tuple[type, ast.expr, bool]  # (operator, other operand, whether t is the left)
Bind = Callable[[object, str], ast.Name]


def reused(body: List[ast.stmt], candidates: Set[str], bind: Bind) -> List[ast.stmt]:
    """`body` (a rule's statements) with each `name = <arithmetic>` whose chain of first
    operands ends at a dead local of `candidates` written into it (the module
    docstring). `bind(value, hint)` names a constant of the rule."""
    names = {n.id for n in ast.walk(ast.Module(body=body, type_ignores=[]))
             if isinstance(n, ast.Name)}
    if names & _FRAME_READERS:
        return body
    # (a name the rule never binds is a global or a closure's: held there, but counted
    # as the rule's local would be)
    candidates = (candidates & _bound_names(body)) - _scoped_names(body)
    if not candidates:
        return body
    return _Rewriter(candidates, bind).block(body, [], None)


def _scoped_names(body: List[ast.stmt]) -> Set[str]:
    """Names that a nested scope of the rule reads (it may run later)."""
    out: Set[str] = set()
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, _SCOPES):
            out |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return out


def _bound_names(body: List[ast.stmt]) -> Set[str]:
    return {n.id for n in ast.walk(ast.Module(body=body, type_ignores=[]))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _reads(node: ast.AST, name: str) -> int:
    """How many times `node` reads `name` (an augmented assignment's target counts)."""
    count = 0
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load):
            count += 1
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name) and \
                sub.target.id == name:
            count += 1
    return count


def _read_names(node: ast.AST) -> Set[str]:
    """The names `node` reads (an augmented assignment's target too)."""
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and
            isinstance(sub.ctx, ast.Load)} | {
        sub.target.id for sub in ast.walk(node)
        if isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name)}


def _reads_in(nodes: Iterable[ast.AST], name: str) -> int:
    return sum(_reads(node, name) for node in nodes)


# (a statement's block, its index there, and the compound statement that owns the
# block, None for the rule's body), from the statement out to the rule's body
Where = List[Tuple[List[ast.stmt], int, Optional[ast.stmt]]]
# (not `with` nor `try`: a context manager may suppress an exception raised between two
# statements of a chain, or after a ufunc wrote into an operand that is read again)
_COMPOUND = (ast.If, ast.For, ast.While)


class _Rewriter:
    def __init__(self, candidates: Set[str], bind: Bind) -> None:
        self.candidates, self.bind = candidates, bind
        # id(block) -> (the block, the names each of its statements reads): a rule's
        # statements are read once, not once for each statement before them
        self._reads: Dict[int, Tuple[List[ast.stmt], List[Set[str]]]] = {}

    def block(self, stmts: List[ast.stmt], outer: Where, owner: Optional[ast.stmt]
              ) -> List[ast.stmt]:
        out: List[ast.stmt] = []
        for index, stmt in enumerate(stmts):
            out.extend(self.statement(stmt, [(stmts, index, owner)] + outer))
        return out

    def statement(self, stmt: ast.stmt, where: Where) -> List[ast.stmt]:
        if isinstance(stmt, _COMPOUND):
            for field in ("body", "orelse"):
                inner = getattr(stmt, field)
                if inner:
                    setattr(stmt, field, self.block(inner, where, stmt))
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.BinOp):
            found = self.chain(stmt, where)
            if found is not None:
                return self.written(stmt, *found)
        return [stmt]

    def chain(self, stmt: ast.Assign, where: Where) -> Optional[Tuple[str, List[Step]]]:
        """(t, the operators from t outwards) for a statement whose chain ends at a dead
        candidate t read once; else None."""
        steps: List[Step] = []
        node: ast.expr = stmt.value
        while isinstance(node, ast.BinOp) and type(node.op) in _UFUNCS:
            if isinstance(node.left, ast.BinOp):
                steps.append((type(node.op), node.right, True))
                node = node.left
                continue
            for operand, other, left in ((node.left, node.right, True),
                                         (node.right, node.left, False)):
                if isinstance(operand, ast.Name) and operand.id in self.candidates and \
                        _reads(stmt, operand.id) == 1 and (
                            operand.id == stmt.targets[0].id  # (bound again here)
                            or self.dead_after(operand.id, where)):
                    steps.append((type(node.op), other, left))
                    return operand.id, steps[::-1]
            return None
        return None

    def dead_after(self, name: str, where: Where) -> bool:
        """Whether no statement after where[0]'s reads `name` before binding it again
        (the module docstring); `where` runs from the statement out to the rule's body."""
        for stmts, index, owner in where:
            if any(name in read for read in self.read_sets(stmts)[index + 1:]):
                return False
            if owner is None or isinstance(owner, ast.If):
                continue
            if not (isinstance(owner, _LOOPS) and _bound_first(name, owner, stmts, index)):
                return False
        return True

    def read_sets(self, stmts: List[ast.stmt]) -> List[Set[str]]:
        known = self._reads.get(id(stmts))
        if known is None:
            known = self._reads[id(stmts)] = (stmts, [_read_names(s) for s in stmts])
        return known[1]

    def written(self, stmt: ast.Assign, t: str, steps: List[Step]) -> List[ast.stmt]:
        out = []
        for k, (op, other, left) in enumerate(steps):
            ufunc = self.bind(_UFUNCS[op], f"np_{_UFUNCS[op].__name__}")
            helper = self.bind(into_left, "into_left") if left else \
                self.bind(into_right, "into_right")
            operands = [ast.Name(t, LOAD), other] if left else [other, ast.Name(t, LOAD)]
            target = stmt.targets[0] if k == len(steps) - 1 else ast.Name(t, ast.Store())
            value = ast.Call(func=helper, args=[ufunc] + operands, keywords=[])
            out.append(ast.copy_location(ast.Assign(targets=[target], value=value), stmt))
        return out


def _bound_first(name: str, loop: ast.stmt, stmts: List[ast.stmt], index: int) -> bool:
    """Whether, in `loop`, stmts[index] comes after a plain `name = value` (value not
    reading it) in the same block, and every read of name in the loop lies between."""
    for start in range(index - 1, -1, -1):
        stmt = stmts[start]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name:
            if _reads(stmt.value, name):
                return False
            return _reads(loop, name) == _reads_in(stmts[start + 1:index + 1], name)
    return False


def owned_candidates(value_kinds: Dict[str, object], dnames: Dict[str, str],
                     params: Iterable[str]) -> Set[str]:
    """The locals of array kinds and their tangents' names, but for the parameters (the
    caller holds their values: the call would cost and never write)."""
    arrays = {name for name, kind in value_kinds.items()
              if isinstance(kind, tuple) and kind and kind[0] == "array"} - set(params)
    return arrays | {dnames[name] for name in arrays if name in dnames}
