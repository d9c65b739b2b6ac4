"""The optimized rule for batched tangents: which template lines it may inline, and its
guard.

    if not _fw_batch_ready(x, k) or k.tangent is _fw_NoTangent:
        return _fw_plain(x, k)
    _fw_sin1 = np.sin(x)                         # a unary template: inlined
    _fw_dsin1 = np.cos(x) * dx                   # dx: (B, *x.shape), right as it is
    _fw_mul1 = _fw_mul(_fw_Dual(x, dx), k)       # two arrays: the rule aligns them

A template line is inlined when its template is elementwise (BATCH_SAFE) and the line's
operands keep the batch axis where NumPy puts it: the tangent of an array of shape s
has shape (B, *s) or s, and broadcasts against primals of shape s or numbers, never
against a primal of another shape (`x * w` with x of shape (n,) and w of shape (m, n):
dx * w would align B with m). So: a unary template; or a binary one whose other
operands are numbers with no tangent (literals, constants of the caller); or, in the
variant built for the arguments' kinds (forward/optimizer/kinds.py), a template whose
operands all have the same known number of axes (SAME_RANK_SAFE: then every batch
axis comes first, before axes that NumPy aligns from the last). Every other line calls
its frule, which aligns batch axes itself. A rule that updates values in
place gets no variant (see may_widen). Routes (forward/routes.py) sends
batched calls here under the key BATCHED and the arguments' kinds, built on first use.
"""
from __future__ import annotations

import ast
from typing import Any, Callable, Iterable, List

import numpy as np

from fwdad.dual import Dual
from fwdad.forward.optimizer import kinds
from fwdad.forward.optimizer.activity import PLAIN
from fwdad.forward.optimizer.guard import fallback, passed_on
from fwdad.forward.optimizer.inline import passes_through
from fwdad.forward.optimizer.kind_flow import operand_kind
from fwdad.forward.optimizer.lines import Line
from fwdad.forward.optimizer.records import Record
from fwdad.forward.optimizer.templates import Template
from fwdad.forward.optimizer.unboxed import every_leaf
from fwdad.forward.optimizer.vanishing import ALWAYS
from fwdad.forward.transform.astbuild import call

# Templates whose tangent expressions are elementwise in their operands: each is right
# for a tangent with a leading batch axis when the operands are as the module docstring
# says (tests/forward/test_batched_variant.py runs each one against its frule). Not the
# reductions (np.sum(dx) would sum the batch axis too) nor the matrix products.
BATCH_SAFE = frozenset({
    "_add", "_sub", "_mul", "_truediv", "_np_add", "_np_sub", "_np_mul", "_np_truediv",
    "_neg", "_pos", "_pow", "pow_literal", "pow_two",
    # the derivative table's (rules/derivatives.py: a NumPy function and its math twin)
    "_sin", "_cos", "_tan", "_exp", "_log", "_tanh", "_sqrt", "_log1p", "_sinh", "_cosh",
    "_square",
    "_lgamma"})  # (math.lgamma's: digamma(x) * dx, x a number)


# Templates right for batched tangents of any of their operands when all have the same
# number of axes (at least MIN_SAME_RANK of them): the elementwise binary ones, whose
# tangents broadcast (B, *s) against (B, *t) or s as the primals do; and the matrix
# products, whose stacks of matrices take a batch axis as one more leading axis (not
# for vectors: x @ dy with x of shape (k,) and dy of shape (B, k) contracts B).
SAME_RANK_SAFE = frozenset({
    "_add", "_sub", "_mul", "_truediv", "_np_add", "_np_sub", "_np_mul", "_np_truediv",
    "_pow", "_matmul", "_np_matmul"})
MIN_SAME_RANK = {"_matmul": 2, "_np_matmul": 2}


def may_widen(lines: Iterable[Line]) -> bool:
    """Whether the rule has a call that may update an argument in place, or a statement
    the optimizer does not know: such an update may widen an unbatched tangent, which
    counts the references to it (rules/widening.py), and the split locals of an
    optimized rule hold references the plain rule does not. Those rules stay plain."""
    return any(line.kind == "unknown" or (line.kind in ("call", "template") and not line.pure)
               for line in lines)


def is_batch_safe(template: Template) -> bool:
    return template.name in BATCH_SAFE


def inlines(rw: Any, line: Line, template: Template) -> bool:
    """Whether the batched rule may inline `template` at `line` (see the docstring):
    elementwise, with at most one operand that is not an inactive number, and no
    operand whose tangent may be NoTangent at run time where the tangent would then be
    another operand's alone (the rules' shaping, which templates leave out); or with
    operands all of the same rank (see same_rank), where such a tangent gets the
    rules' shaping (`summed`: inline.instantiate), which is then the rules' whole
    alignment. A line with no tangent (its target plain) computes its primal alone,
    which has no batch axis."""
    target = line.targets[0] if line.targets else None
    if target is not None and rw.kinds[target] == PLAIN:
        return True  # (no tangent: the primal alone, as the plain rule computes it)
    if same_rank(rw, line, template):
        return True
    if not is_batch_safe(template) or len(
            [atom for atom in line.operands
             if not (rw.is_number(atom) and not rw.active(atom))]) > 1:
        return False
    return target is None or not any(
        ALWAYS in rw.vanish.get(a.name, ()) for a in passes_through(rw, line))


def same_rank(rw: Any, line: Line, template: Template) -> bool:
    """Whether `template` is SAME_RANK_SAFE and the operands of `line` all have the
    same known number of axes (the kinds of the variant's locals: rw.value_kinds)."""
    if not rw.value_kinds or template.name not in SAME_RANK_SAFE:
        return False
    ranks = {kinds.ndim(operand_kind(atom, rw.value_kinds)) for atom in line.operands}
    rank = ranks.pop() if len(ranks) == 1 else None
    return rank is not None and rank >= MIN_SAME_RANK.get(template.name, 0)


def guard(rw: Any, tree: ast.FunctionDef, plain: Callable) -> List[Record]:
    """`if not batch_ready(...) or p.tangent is NoTangent: return plain(...)`, for the
    parameters p whose having no tangent would change what a template line computes
    (forward/optimizer/guard.py)."""
    positional, keywords = passed_on(tree)
    test = ast.UnaryOp(op=ast.Not(), operand=call(
        rw.k.bind(batch_ready, "batch_ready"), *positional, keywords=keywords))
    return fallback(rw, tree, test, plain, "plain")


def batch_ready(*args: Dual, **kwargs: Dual) -> bool:
    """Whether the batched rule may run: every tangent is an array with the primal's
    axes, with or without a batch axis before them, a number's, or NoTangent for a
    value that is not an array; no instance of a user class (its operators are its
    own methods, which templates do not know)."""
    return all(every_leaf(d.primal, d.tangent, _with_axes) for d in args) and all(
        every_leaf(d.primal, d.tangent, _with_axes) for d in kwargs.values())


def _with_axes(primal: Any, tangent: np.ndarray) -> bool:
    """An array tangent with the primal's axes, a batch axis before them or not."""
    if isinstance(primal, np.ndarray):
        return tangent.shape[-primal.ndim:] == primal.shape if primal.ndim else \
            tangent.ndim <= 1
    return isinstance(primal, (float, complex, np.number)) and tangent.ndim <= 1
