"""Rules for calls of fwdad's own transformations inside a differentiated function.

    jvp(lambda a: a * grad(lambda b: a * b * b)(1.0), (3.0,), (1.0,))   ->  (18.0, 12.0)

Forward mode over an inner `grad`, `value_and_grad`, `jacfwd` or `jacrev` (the functions
they return are `Transformed` objects, fwdad/transformed.py): the inner derivative is taken
at level 2 (fwdad/higher.py), one directional derivative per float entry of the
arguments (floats, arrays, or tuples, lists and dicts of them; the blocks nested as the
top-level jacfwd nests them: fwdad/level2_blocks.py), so the inner gradient carries the
outer tangent and the two never mix. Inner `jvp` has its
own rule in fwdad/higher.py.
Reverse mode over any of them: the rrules here raise `NestedTransformation`; `grad`,
`value_and_grad` and `jacrev` catch it and take the outer derivative in forward mode,
`vjp` refuses.
Combinations that need a third level of these (only jvp nests deeper: fwdad/higher.py;
hessian and hvp inside) or a pullback as a value
(vjp, linearize inside), or batched inner tangents (batched_jvp), are refused with a
FwdadError naming the inner transformation. See docs/higher_order.md.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, List, Tuple

import numpy as np

from fwdad import api, api_checks, higher, jacobians, level2_blocks, over_reverse, seeds
from fwdad.argnums import check_argnums
from fwdad.dual import Dual
from fwdad.errors import FwdadError, InternalErrorWarning, a_type, describe
from fwdad.jacrev import jacrev
from fwdad.linearize import linearize
from fwdad.reverse import api as reverse_api
from fwdad.reverse.registry import raw_rrule
from fwdad.rules.registry import frule
from fwdad.run_copies import RunCopies
from fwdad.tangents import NoTangent, Tangent, has_fields, zero_tangent
from fwdad.transformed import NestedTransformation, Transformed


# ---- forward mode: the functions the transformations return --------------------------
@frule(reverse_api.grad)
def _grad(f: Dual, argnums=0, holomorphic=False) -> Dual:
    if holomorphic:
        raise _refused("grad", f.primal, ", holomorphic=True")
    return _transformed(reverse_api.grad(f.primal, argnums), f)


@frule(reverse_api.value_and_grad)
def _value_and_grad(f: Dual, argnums=0, holomorphic=False) -> Dual:
    if holomorphic:
        raise _refused("value_and_grad", f.primal, ", holomorphic=True")
    return _transformed(reverse_api.value_and_grad(f.primal, argnums), f)


@frule(jacobians.jacfwd)
def _jacfwd(f: Dual, argnums=0, chunk_size=None, progress=False, memory_budget=None,
            executor=None) -> Dual:
    return _transformed(jacobians.jacfwd(f.primal, argnums, chunk_size, progress,
                                         memory_budget, executor), f)


@frule(jacrev)
def _jacrev(f: Dual, argnums=0, progress=False) -> Dual:
    return _transformed(jacrev(f.primal, argnums, progress), f)


@frule(higher.hessian)
def _hessian(f: Dual, argnums=0, progress=False, chunk_size=None, memory_budget=None
             ) -> Dual:
    return _transformed(higher.hessian(f.primal, argnums, progress, chunk_size,
                                       memory_budget), f)


def _transformed(made: Transformed, f: Dual) -> Dual:
    """The Transformed `made` of f, whose tangent is f's (a closure over outer values)."""
    tangent = zero_tangent(made)
    tangent.f = f.tangent
    return Dual(made, tangent)


# ---- forward mode: calling them --------------------------------------------------------
@frule(Transformed.__call__)
def _call(made: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """grad(f)(*args) and kin inside a differentiated function: the inner Jacobian at
    level 2, with the outer tangent of each of its entries."""
    kind, fn = made.primal.kind, made.primal.f
    if kind == "hessian":
        raise _refused(kind, fn)
    f = Dual(fn, made.tangent.f if isinstance(made.tangent, Tangent) else NoTangent)
    wrt = check_argnums(kind, fn, made.primal.argnums, len(args))
    many = isinstance(made.primal.argnums, (tuple, list))
    value, jacobian = _over_reverse(kind, f, args, wrt, kwargs, many)
    if value is None:
        value, jacobian = _level2_jacobians(kind, f, args, wrt, kwargs, many)
    if kind in ("grad", "value_and_grad"):
        reverse_api.check_real_scalar(fn, value.primal)
    if kind == "value_and_grad":
        return Dual((value.primal, jacobian.primal), (value.tangent, jacobian.tangent))
    return jacobian


def _over_reverse(kind: str, f: Dual, args: Tuple[Dual, ...], wrt: Tuple[int, ...],
                  kwargs: dict, many: bool):
    """An inner gradient by one reverse pass on Dual values (fwdad/over_reverse.py), or
    (None, None) when that refuses: then by level-2 jvps. An error that is no refusal
    is the program's own where level-2 jvps raise it too, else a bug of ours: an
    InternalErrorWarning, and the level-2 jvps' answer."""
    if kind not in ("grad", "value_and_grad") or not over_reverse.applies(f):
        return None, None
    for at in wrt:  # (a tree of floats too: the pass boxes its leaves, as grad's does)
        _checked_argument(kind, f.primal, args[at].primal, at)
    try:
        value, grads = over_reverse.value_and_grad(f, args, wrt, kwargs)
    except over_reverse.NotOverReverse as exc:
        if exc.unexpected is None:  # a refusal: level-2 jvps instead
            return None, None
        unexpected = exc.unexpected
    else:
        return value, Dual(tuple(g.primal for g in grads), tuple(g.tangent for g in grads)) \
            if many else grads[0]
    found = _level2_jacobians(kind, f, args, wrt, kwargs, many)
    # a bug of ours in the pass on Duals: said, and the level-2 jvps' exact answer kept
    # (they raise the program's own error)
    warnings.warn(f"{kind} of {describe(f.primal)} inside a differentiated function: its "
                  f"reverse pass on Dual values raised {type(unexpected).__name__}: "
                  f"{unexpected}, so forward over forward took the derivative (exact, "
                  f"slower); please report it.", InternalErrorWarning, stacklevel=2)
    return found


def _level2_jacobians(kind: str, f: Dual, args: Tuple[Dual, ...], wrt: Tuple[int, ...],
                      kwargs: dict, many: bool) -> Tuple[Dual, Dual]:
    """f's value and its Jacobian with respect to the arguments in `wrt` (each a float,
    a float array, or a tuple, list or dict of them), as level-1 values: one level-2
    jvp (fwdad/higher.py) along each float entry of the arguments, the blocks nested as
    jacfwd nests them (fwdad/level2_blocks.py). The keyword arguments are constants of
    the inner derivative that keep their outer tangents."""
    leaves, spans = _leaves(kind, f.primal, args, wrt, many)
    value, columns, given, run = None, [], args, RunCopies()
    # (no float entry has no direction: one run along zeros gives the value, and the
    # blocks are empty)
    for direction in list(_basis(args, wrt, spans)) or [_zeros(args)]:
        run = RunCopies()  # f may write into them (their instances too): each
        given = [run.dual(a) for a in args]  # run starts from the call's values
        primals = Dual(tuple(a.primal for a in given), tuple(a.tangent for a in given))
        out = higher.jvp_with_keywords(f, primals, Dual(direction, NoTangent), kwargs)
        value = Dual(out.primal[0], out.tangent[0])
        columns.append((out.primal[1], out.tangent[1]))
    if kind in ("grad", "value_and_grad"):  # as grad's, the arguments end as one call
        for arg, final in zip(args, given):  # leaves them, once every run has gone
            over_reverse.write_final(arg, final)  # through (jacfwd and jacrev leave
        run.give_back()  # them as they were: test_jacobians_leave_the_arguments)
    xs = tuple(args[at].primal for at in wrt)
    return value, level2_blocks.jacobian(kind, columns, value.primal,
                                         tuple(leaves) if many else leaves[0],
                                         xs if many else xs[0],
                                         f"{kind}({describe(f.primal)})")


def _leaves(kind: str, fn: Callable, args: Tuple[Dual, ...], wrt: Tuple[int, ...],
            many: bool) -> Tuple[List[Any], List[Tuple[int, int]]]:
    """The float leaves (seeds.leaves_of) of each argument in `wrt`, numbered in one
    flat index, and the span of that index each argument takes.

    Raises:
        FwdadError: an argument is not a float, an array or a tree of them (a class's
            instance); NonDifferentiableError: the arguments hold no float."""
    leaves, spans, start = [], [], 0
    for at in wrt:
        _checked_argument(kind, fn, args[at].primal, at)
        found, stop = seeds.leaves_of(args[at].primal, start)
        leaves.append(found)
        spans.append((start, stop))
        start = stop
    if not seeds.holds_a_leaf(tuple(leaves)):
        argnums = tuple(wrt) if many else wrt[0]
        raise api_checks.no_floats_error(kind, fn, argnums, tuple(args[at].primal for at in wrt))
    return leaves, spans


def _checked_argument(kind: str, fn: Callable, x: Any, at: int) -> None:
    """Refuse an argument that is not a float, a float array, or a tuple, list or dict
    whose leaves are floats, float arrays or values with no tangent (ints, strings)."""
    if _is_real(x):
        return
    if isinstance(x, (tuple, list, dict)):
        for leaf in seeds.leaf_list(x):  # (an instance is a leaf here)
            if has_fields(leaf):
                raise _refused_argument(kind, fn, at, f"holds {a_type(leaf)}", "fields")
            if not _is_real(leaf) and zero_tangent(leaf) is not NoTangent:
                raise _refused_argument(kind, fn, at, f"holds {a_type(leaf)}", "leaves")
        return
    if has_fields(x):
        raise _refused_argument(kind, fn, at, f"is {a_type(x)}", "fields")
    raise _refused_argument(kind, fn, at, f"is {a_type(x)}", "leaves")


def _is_real(x: Any) -> bool:
    return isinstance(x, (float, np.floating)) or (
        isinstance(x, np.ndarray) and x.dtype.kind == "f")


def _refused_argument(kind: str, fn: Callable, at: int, what: str, parts: str) -> FwdadError:
    return FwdadError(
        f"{kind}({describe(fn)}) inside a differentiated function differentiates with "
        f"respect to a float, a float array, or a tuple, list or dict of them, but "
        f"argument {at} {what}: pass its float {parts} as separate arguments (or in a "
        f"dict).")


def _basis(args: Tuple[Dual, ...], wrt: Tuple[int, ...], spans: List[Tuple[int, int]]):
    """The tangents of all arguments for each unit direction of the flat index."""
    for k in range(spans[-1][1]):
        direction = [zero_tangent(a.primal) for a in args]
        for at, (start, stop) in zip(wrt, spans):
            if start <= k < stop:  # (argnums may name one argument twice)
                direction[at] = seeds.unit_tangent(args[at].primal, k - start)
        yield tuple(direction)


def _zeros(args: Tuple[Dual, ...]) -> tuple:
    return tuple(zero_tangent(a.primal) for a in args)


# ---- refused: a third level, a pullback as a value, batched inner tangents ------------
def _refused(inner: str, fn: Any, options: str = "") -> FwdadError:
    why = {"hessian": "that is a third derivative, which fwdad takes only as jvp of jvp",
           "hvp": "that is a third derivative, which fwdad takes only as jvp of jvp",
           "vjp": "its pullback is not differentiable yet",
           "linearize": "its linear map is not differentiable yet",
           "batched_jvp": "inner tangents are one at a time at level 2"}.get(
        inner, "it is not supported yet")
    if options:  # (holomorphic=True: docs/complex.md)
        why = "an inner complex derivative is not differentiated again yet"
    return FwdadError(
        f"a derivative of a function that calls fwdad.{inner}({describe(fn)}{options}) is not "
        f"supported: {why}. Inside a differentiated function, use fwdad.jvp, fwdad.grad, "
        f"fwdad.value_and_grad, fwdad.jacfwd or fwdad.jacrev (docs/higher_order.md).")


@frule(higher.hvp)
def _hvp(f: Dual, primals: Dual, tangents: Dual) -> Dual:
    raise _refused("hvp", f.primal)


@frule(reverse_api.vjp)
def _vjp(f: Dual, *primals: Dual) -> Dual:
    raise _refused("vjp", f.primal)


@frule(linearize)
def _linearize(f: Dual, *primals: Dual) -> Dual:
    raise _refused("linearize", f.primal)


@frule(api.batched_jvp)
def _batched_jvp(f: Dual, primals: Dual, tangents: Dual) -> Dual:
    raise _refused("batched_jvp", f.primal)


# ---- reverse mode: the outer derivative is taken in forward mode ------------------------
@raw_rrule(Transformed.__call__)
def _call_in_reverse(made: Transformed, *args: Any, **kwargs: Any) -> Any:
    raise NestedTransformation(made.kind)


def _signal(inner: str) -> Callable:
    def rule(*args: Any, **kwargs: Any) -> Any:
        raise NestedTransformation(inner)
    rule.__name__ = f"_{inner}_in_reverse"
    return rule


for _fn in (api.jvp, api.batched_jvp, reverse_api.vjp, higher.hvp, linearize):
    raw_rrule(_fn)(_signal(_fn.__name__))


# ---- a third level: refused ---------------------------------------------------------------
def _third_level(rule: Callable) -> None:
    """The level-2 rule of one of the rules above: a transformation inside a function
    that is itself differentiated at second order (under hessian, hvp, or a jvp inside
    a derivative) would need a third level."""
    inner = rule.__name__.strip("_")

    def refuse(*args: Dual, **kwargs: Dual) -> Dual:
        raise FwdadError(
            f"fwdad.{inner.replace('call', 'grad/jacfwd/jacrev')} is nested more than two deep: "
            f"it is called inside a function that is differentiated at second order "
            f"(by hessian or hvp, or inside a jvp or grad that is itself differentiated), "
            f"and fwdad nests only jvp deeper than two levels. Write the inner derivative "
            f"with fwdad.jvp (one jvp per direction), or differentiate the inner function "
            f"by hand once.")
    refuse.__name__ = f"_{inner}_at_level_three"
    frule(rule)(refuse)


for _rule in (_grad, _value_and_grad, _jacfwd, _jacrev, _hessian, _call, _hvp, _vjp, _linearize,
              _batched_jvp):
    _third_level(_rule)
