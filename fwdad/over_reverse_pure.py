"""The common case of reverse mode on Dual values, written out.

    rule_calls.Pure.__call__(rule, *args)   on Duals: the rrule's derived forward rule
                                            gives (out, pullback) with tangents; the
                                            callback is a `DualChain`, not a closure
    reverse.call, NonDiff.__call__, value_of, getitem of a VarMat view, accumulating
    into an adjoint, wrapping a result       the same, each for its common case

Deriving Pure.__call__ and Chain.__call__ like user code (fwdad/over_reverse.py) is
right but runs their bookkeeping (which arguments are variables, the layout, the
snapshot of the inputs) as Dual code, about half of an hvp's time. Here that
bookkeeping runs on the primals, which is what the derived code computes too; only the
rule's arithmetic and the accumulation into adjoints are differentiated. Anything
outside the common case (keyword arguments that are variables, `out=`, lists of
variables, a user's operator, matvars) takes the derived rule.
"""
from __future__ import annotations

import operator
import types
from typing import Any, List, Tuple

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, describe
from fwdad.forward import dispatch as forward
from fwdad.reverse import adjoints, rule_calls, rules_arrays, tape, tracked, var
from fwdad.reverse import dispatch as reverse
from fwdad.reverse.instances import user_method
from fwdad.reverse.var import Var, VarMat
from fwdad.rules import objects
from fwdad.rules.batching import running_batch_size
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent, Tangent


@frule(rule_calls.Pure.__call__)
def _pure(rule: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    pure = rule.primal
    primals = [a.primal for a in args]
    if not _common(pure, primals, kwargs):
        return forward.derived_rule(rule_calls.Pure.__call__)(rule, *args, **kwargs)
    at = [i for i, p in enumerate(primals) if type(p) is Var or type(p) is VarMat]
    if not at:
        return forward.call(Dual(pure.fn, NoTangent), *args, **kwargs)
    values = [objects.get_attribute(a, "value") if i in at else a
              for i, a in enumerate(args)]
    pair = forward.call(Dual(pure.rule, NoTangent), *values, **kwargs)
    out, pullback = (Dual(pair.primal[k], _part(pair.tangent, k)) for k in (0, 1))
    if rule_calls.holds_complex(out.primal):
        raise NonDifferentiableError(f"{describe(pure.fn)} made a complex value in a "
                                     f"reverse pass run on Dual values.")
    result = _wrap(out, rule_calls.layout_of(pure.fn, primals, at))
    if result.primal is not out.primal:
        tape.current().chain.append((DualChain(pullback, [(i, args[i]) for i in at],
                                               result), result))
    return result


@frule(reverse.call)
def _reverse_call(f: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """reverse.call of a plain function: its rrule, found on plain values, on Duals."""
    if type(f.primal) is types.FunctionType and f.tangent is NoTangent:
        rule = reverse.rule_for(f.primal)
        return forward.call(Dual(rule, NoTangent), *args, **kwargs)
    return forward.derived_rule(reverse.call)(f, *args, **kwargs)


@frule(var.value_of)
def _value_of(x: Dual) -> Dual:
    kind = type(x.primal)
    if kind is Var or kind is VarMat:
        return objects.get_attribute(x, "value")
    if not tracked.is_tracked(x.primal):
        return x
    return forward.derived_rule(var.value_of)(x)


@frule(rule_calls.NonDiff.__call__)
def _nondiff(rule: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """A primitive without a derivative runs on plain values: its output is a constant
    (unless a user's class defines the operator: then its derived rule)."""
    nondiff = rule.primal
    primals = [a.primal for a in args]
    if user_method(nondiff.fn, primals) is not None:
        return forward.derived_rule(rule_calls.NonDiff.__call__)(rule, *args, **kwargs)
    plain = nondiff.plain
    out = nondiff.fn(*map(plain, primals), **{k: plain(v.primal) for k, v in kwargs.items()})
    return Dual(out, NoTangent)


@frule(rules_arrays.getitem)
def _getitem(x: Dual, key: Dual) -> Dual:
    """x[key] of a VarMat that is a view (a basic index): a VarMat sharing the value and
    the adjoint, on both parts; other indexing takes the derived rule."""
    if type(x.primal) is VarMat and running_batch_size() is None and \
            isinstance(x.tangent, Tangent):
        value = forward.call(_GETITEM, objects.get_attribute(x, "value"), key)
        if type(value.primal) is np.ndarray and np.may_share_memory(value.primal,
                                                                    x.primal.value):
            adjoint = forward.call(_GETITEM, _adjoint_made(x), key)
            return Dual(VarMat(value.primal, adjoint.primal),
                        Tangent(value=value.tangent, _adjoint=adjoint.tangent))
    return forward.derived_rule(rules_arrays.getitem)(x, key)


_GETITEM = Dual(operator.getitem, NoTangent)


def _adjoint_made(x: Dual) -> Dual:
    """VarMat.adjoint on Duals (unbatched): made as zeros on both parts when missing."""
    if x.primal._adjoint is None:  # (VarMat.adjoint: laid out as the value)
        x.primal._adjoint = np.zeros_like(x.primal.value, dtype=float)
        x.tangent._adjoint = np.zeros_like(x.primal.value, dtype=float)
    return objects.get_attribute(x, "_adjoint")


def _common(pure: Any, primals: List[Any], kwargs: dict) -> bool:
    """Only variables (Var, VarMat) and plain values as arguments, constant keywords,
    no `out=`, and no operator of a user's class."""
    if "out" in kwargs or any(tracked.is_tracked(v.primal) for v in kwargs.values()):
        return False
    for p in primals:
        if var.is_matvar(p) or (pure.numpy and type(p) in (list, tuple)):
            return False
    return user_method(pure.fn, primals) is None


def _wrap(out: Dual, layout: str) -> Dual:
    """rule_calls.wrap on Duals: a float becomes a Var, a float array a VarMat, with the
    tangents the derived constructors give them (value's tangent, a zero adjoint)."""
    p = out.primal
    if type(p) is float or isinstance(p, np.floating):
        return Dual(Var(p), Tangent(value=out.tangent, adjoint=0.0))
    if type(p) is np.ndarray and p.dtype.kind == "f" and layout == "varmat":
        return Dual(VarMat(p), Tangent(value=out.tangent, _adjoint=NoTangent))
    return forward.call(Dual(rule_calls.wrap, NoTangent), out, Dual(layout, NoTangent))


def _accumulate(x: Dual, ct: Dual) -> None:
    """adjoints.accumulate on Duals, for a Var or a VarMat and unbatched tangents (what
    VarMat.add_adjoint does, on both parts); else its derived rule."""
    kind = type(x.primal)
    if ct.primal is None:
        return
    if running_batch_size() is not None or kind not in (Var, VarMat) or \
            not isinstance(x.tangent, Tangent) or not _is_plain(ct) or \
            np.iscomplexobj(x.primal.value):  # (the fast path is for real variables)
        forward.call(Dual(adjoints.accumulate, NoTangent), x, ct)
        return
    dct = np.zeros(np.shape(ct.primal)) if ct.tangent is NoTangent else ct.tangent
    if kind is Var:
        x.primal.adjoint += ct.primal if type(ct.primal) is float else float(np.sum(ct.primal))
        x.tangent.adjoint = x.tangent.adjoint + float(np.sum(dct))
        return
    shape = x.primal.value.shape
    ct_p, ct_t = adjoints.unbroadcast(ct.primal, shape), adjoints.unbroadcast(dct, shape)
    if np.iscomplexobj(ct_p) or np.iscomplexobj(ct_t):  # a real variable keeps the real
        ct_p, ct_t = np.real(ct_p), np.real(ct_t)         # part (docs/complex.md)
    if x.primal._adjoint is None:  # laid out as the value (VarMat.add_adjoint)
        x.primal._adjoint = np.empty_like(x.primal.value, dtype=float)
        x.primal._adjoint[...] = ct_p
        x.tangent._adjoint = np.empty_like(x.primal.value, dtype=float)
        x.tangent._adjoint[...] = ct_t
    else:
        x.primal._adjoint += ct_p
        x.tangent._adjoint += ct_t


def _is_plain(ct: Dual) -> bool:
    """A float or a float array cotangent with a tangent of its own shape."""
    p, t = ct.primal, ct.tangent
    if not isinstance(p, (float, np.floating, np.ndarray)):
        return False
    return t is NoTangent or np.shape(t) == np.shape(p)


def _adjoint_of(out: Dual) -> Dual:
    kind = type(out.primal)
    if kind is VarMat:
        return objects.get_attribute(out, "_adjoint")
    if kind is Var:
        return objects.get_attribute(out, "adjoint")
    return forward.call(Dual(adjoints.adjoint_of, NoTangent), out)  # (a tuple of them)


def _part(tangent: Any, k: int) -> Any:
    return NoTangent if tangent is NoTangent else tangent[k]


class DualChain:
    """The callback of a pure rrule on Duals: what Chain.__call__ does, the pullback and
    the accumulation run as Dual code."""

    __slots__ = ("pullback", "inputs", "out")

    def __init__(self, pullback: Dual, inputs: List[Tuple[int, Dual]], out: Dual) -> None:
        self.pullback, self.inputs, self.out = pullback, inputs, out

    def run(self) -> None:
        out = self.out
        if type(out.primal) is VarMat and not out.primal.has_adjoint:
            return  # nothing read this output
        cts = forward.call(self.pullback, _adjoint_of(out))
        for i, x in self.inputs:
            ct = Dual(cts.primal[i], _part(cts.tangent, i))
            if callable(ct.primal):  # a thunk: the cotangent, computed when needed
                ct = forward.call(ct)
            _accumulate(x, ct)
