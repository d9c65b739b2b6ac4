"""Level-2 rules of calls (code differentiated again): dynamic dispatch (`call_rule`),
the rule objects generated code holds (partials, plain-parameter adapters, lazy rules,
static callers, rules bound to a class, rules of functions with no rule), and the
methods collections.namedtuple generates. fwdad/forward/nested/rules.py has the rules of
the other pieces generated code calls.
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable, Tuple

from fwdad import callables, construction
from fwdad.callables import is_bound_c_method
from fwdad.core import closures, duals
from fwdad.core.lazy_rule import LazyRule
from fwdad.core.missing_rules import missing_rule_error
from fwdad.dual import Dual
from fwdad.errors import FwdadError, describe, in_user_code
from fwdad.forward import callables as forward_callables
from fwdad.forward import constructors, dispatch, records
from fwdad.forward.constant_calls import constant_primals, is_zero_tangent
from fwdad.forward.nested import constructors as nested_constructors
from fwdad.forward.nested import partials
from fwdad.forward.nested.closures import call_closure
from fwdad.forward.nested.levels import outer_of, rule_call
from fwdad.forward.nested.rules import level_two_items
from fwdad.rules import iteration, plain_params
from fwdad.rules.registry import def_nondiff, frule, get_frule
from fwdad.tangents import NoTangent, Tangent


@frule(dispatch.call)
def call_rule(f: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """`dispatch.call(f, ...)` of level-1 code, at level 2: find the callee's level-1
    rule as dispatch does, and call that rule's level-2 rule."""
    rule, first = _level2_rule_of_callee(f)
    return rule(*first, *args, **kwargs)


def _level2_rule_of_callee(f: Dual) -> Tuple[Callable, tuple]:
    """The level-2 rule for the callee in `f`, and the arguments that go first (the
    level-1 rule when the level-2 rule is `rule_call` of it; the object a method is
    bound to). No functools.partial: this code is differentiated again at a third
    level, where calling a partial needs a rule of its own (forward/nested/partials.py)."""
    callee = f.primal
    fn = callee.primal
    if isinstance(fn, closures.DerivedClosure):  # a def inside differentiated code
        return call_closure, (2, fn)
    if isinstance(fn, types.MethodType) or is_bound_c_method(fn):
        method = dispatch.method_of(dispatch._callee_key(fn))
        bound = Dual(Dual(fn.__self__, callee.tangent), f.tangent)
        return rule_call, (dispatch.static_rule(method, ""), bound)
    call = getattr(type(fn), "__call__", None)
    if get_frule(fn) is None and get_frule(call) is not None:  # e.g. grad(f), Directional
        bound = Dual(Dual(fn, callee.tangent), f.tangent)
        return rule_call, (get_frule(call), bound)
    if (construction.is_user_class(fn) or records.is_namedtuple_class(fn)) \
            and get_frule(fn) is None:
        return nested_constructors.class_rule_of_rule(fn), ()
    kind = callables.kind_of(fn) if get_frule(fn) is None else None
    if kind == "object":  # an instance with a Python __call__: that method, bound to it
        bound = Dual(Dual(fn, callee.tangent), f.tangent)
        method = dispatch.static_rule(type(fn).__call__, "")
        return rule_call, (method, bound)
    if kind == "partial":
        return _call_partial, (f,)
    if kind is not None:
        raise FwdadError(
            f"second derivatives through calling a {kind} object ({describe(fn)})"
            f"{in_user_code()} are not supported yet: call the function it wraps "
            f"directly, or take the second derivative by finite differences of "
            f"fwdad.jacfwd.")
    return rule_call, (dispatch.static_rule(fn, ""),)


def _call_partial(f: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """functools.partial(fn, a, k=b)(x) at level 2: fn's level-2 rule, with each bound
    argument a level-2 value of its value, its tangent and its outer tangents (a
    partial's tangent holds its bound arguments' tangents as (args, keywords):
    rules/iteration.py)."""
    p, inner = f.primal.primal, f.primal.tangent
    outer_p, outer_t = outer_of(f)
    bound = [_bound_part(v, (0, i), inner, outer_p, outer_t) for i, v in enumerate(p.args)]
    named = {k: _bound_part(v, (1, k), inner, outer_p, outer_t) for k, v in p.keywords.items()}
    named.update(kwargs)  # (as a call of the partial does: the call's keywords win)
    return call_rule(duals.const(duals.const(p.func)), *bound, *args, **named)


@frule(iteration._partial)
def _partial_of_rule(fn: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """functools.partial(fn, a, k=b) at level 2: the partial, whose tangent holds its
    bound arguments' tangents and whose outer tangents hold theirs, each as (args,
    keywords); a partial of a partial is flattened, as Python does."""
    func = fn.primal.primal
    primal = functools.partial(func, *(a.primal.primal for a in args),
                               **{k: v.primal.primal for k, v in kwargs.items()})
    if primal.func is not func:  # flattened: fn's bound arguments come first
        inner, (outer_p, outer_t) = fn.primal.tangent, outer_of(fn)
        named = {k: _bound_part(v, (1, k), inner, outer_p, outer_t)
                 for k, v in func.keywords.items()}
        named.update(kwargs)
        args = tuple(_bound_part(v, (0, i), inner, outer_p, outer_t)
                     for i, v in enumerate(func.args)) + args
        kwargs = named
    outers = [outer_of(a) for a in args]
    named_outers = {k: outer_of(v) for k, v in kwargs.items()}
    return Dual(Dual(primal, (tuple(a.primal.tangent for a in args),
                              {k: v.primal.tangent for k, v in kwargs.items()})),
                Tangent(primal=(tuple(o[0] for o in outers),
                                {k: o[0] for k, o in named_outers.items()}),
                        tangent=(tuple(o[1] for o in outers),
                                 {k: o[1] for k, o in named_outers.items()})))


def _bound_part(value: Any, at: tuple, inner: Any, outer_p: Any, outer_t: Any) -> Dual:
    def part(tangents: Any) -> Any:  # (a constant partial's: NoTangent, or an empty Tangent)
        # (isinstance, not type(...) is: this code is differentiated again at third
        # order, where type() would see a Dual)
        return tangents[at[0]][at[1]] if isinstance(tangents, tuple) else NoTangent
    level1 = Dual(value, part(inner))
    if outer_p is NoTangent and outer_t is NoTangent:
        return Dual(level1, NoTangent)
    return Dual(level1, Tangent(primal=part(outer_p), tangent=part(outer_t)))


# (a third level: forward/nested/partials.py)
frule(_call_partial)(partials.call_partial_at_three)
frule(_partial_of_rule)(partials.partial_at_three)


@frule(plain_params.Adapter.__call__)
def _adapter(adapter: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """A registered rule that takes some parameters as plain values: at level 2 those
    are the primal fields of the level-2 arguments."""
    adapter = adapter.primal  # (annotated Dual so that **kwargs stay Duals)
    args = [a if (i in adapter.dual_at if i < adapter.first_star else adapter.dual_star)
            else _primal_field(a) for i, a in enumerate(args)]
    kwargs = {k: v if k in adapter.dual_kw else _primal_field(v) for k, v in kwargs.items()}
    args = [_NONE if i in adapter.optional and _is_none(a) else a
            for i, a in enumerate(args)]
    kwargs = {k: _NONE if k in adapter.optional and _is_none(v) else v
              for k, v in kwargs.items()}
    return rule_call(adapter.rule, *args, **kwargs)


_NONE = Dual(None, NoTangent)  # the plain None the level-1 rule gets, as a level-2 value


def _is_none(value: Dual) -> bool:
    """A level-2 value of a Dual of None (see plain_params._optional_params)."""
    return isinstance(value.primal, Dual) and value.primal.primal is None


def _primal_field(value: Dual) -> Dual:
    return Dual(value.primal.primal, outer_of(value)[0])


@frule(LazyRule.__call__)
def _lazy(lazy: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """The forward rule of what the LazyRule runs: a forward rule differentiated again,
    or a reverse rule run on Dual values (fwdad/over_reverse.py)."""
    lazy = lazy.primal
    rule = lazy.derive(lazy.fn)
    return dispatch.derived_rule(rule)(*args, **kwargs)


# ---- the methods collections.namedtuple generates (forward/records.py) -----------------
@frule(records._replace)
def _replace(record: Dual, **changes: Dual) -> Dual:
    """t._replace(b=v) at level 2: the record built again from its level-2 fields."""
    cls = type(record.primal.primal)
    unknown = set(changes) - set(cls._fields)
    if unknown:
        raise ValueError(f"Got unexpected field names: {sorted(unknown)!r}")
    items = [changes.get(name, item) for name, item in zip(cls._fields, level_two_items(record))]
    return nested_constructors.class_rule_of_rule(cls)(*items)


@frule(records._make)
def _make(cls: Dual, iterable: Dual) -> Dual:
    if not records.is_namedtuple_class(cls.primal.primal):
        raise missing_rule_error(tuple.__new__, (cls.primal, iterable.primal))
    return nested_constructors.class_rule_of_rule(cls.primal.primal)(*level_two_items(iterable))


@frule(forward_callables.StaticCaller.__call__)
def _static_caller(caller: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """Calling a callable object known when the rule was built (a constant), at level 2:
    as a dynamic call of it."""
    return call_rule(duals.const(duals.const(caller.primal.fn)), *args, **kwargs)


@frule(constructors.BoundRule.__call__)
def _bound(bound: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """A method bound to a constant owner (a classmethod through its class): the
    level-2 rule of its rule, with the owner a level-2 constant."""
    bound = bound.primal
    return rule_call(bound.rule, duals.const(bound.self), *args, **kwargs)


@frule(dispatch.MissingRule.__call__)
def _missing(missing: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    missing = missing.primal
    rule = get_frule(missing.fn)
    if rule is not None:
        return rule_call(rule, *args, **kwargs)
    constant = constant_arguments(args, kwargs)
    if constant is not None:  # data with zero tangents at both levels: the plain call
        return duals.const(duals.const(missing.fn(*constant[0], **constant[1])))
    raise missing_rule_error(missing.fn, tuple(a.primal for a in args), missing.location)


def constant_arguments(args: tuple, kwargs: dict) -> Any:
    """As constant_calls.constant_primals, for level-2 values: their primals when every
    one is data whose tangent and outer tangents are zero, else None. (A constant
    itself where it is differentiated again: it takes the level-2 values as they are.)"""
    inner = constant_primals(tuple(a.primal for a in args),
                             {k: v.primal for k, v in kwargs.items()})
    if inner is None or not all(is_zero_tangent(t) for a in (*args, *kwargs.values())
                                for t in outer_of(a)):
        return None
    return inner


def_nondiff(constant_arguments, missing_rule_error)
