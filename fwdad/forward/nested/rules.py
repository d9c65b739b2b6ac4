"""Level-2 rules (see fwdad/forward/nested/levels.py) of the parts of fwdad that generated code
and frules call but that fwdad cannot, or should not, transform: dynamic dispatch, the
rule objects generated code holds, iteration helpers, closures, and rule code with an
import inside; plus rules for the builtins that rule code uses (tuple, list, zip,
enumerate, dict).
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable, Tuple

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from fwdad import callables, construction
from fwdad.callables import is_bound_c_method
from fwdad.core import closures, duals, rebinding
from fwdad.core.lazy_rule import LazyRule
from fwdad.core.missing_rules import missing_rule_error
from fwdad.core.read_only import refuse_unless_zero
from fwdad.dual import Dual
from fwdad.errors import FwdadError, a_type, current_user_location, describe, in_user_code
from fwdad.forward import callables as forward_callables
from fwdad.forward import constructors, dispatch, records
from fwdad.forward.constant_calls import constant_primals, is_zero_tangent
from fwdad.forward.nested import constructors as nested_constructors
from fwdad.forward.nested.closures import NestedClosure, call_closure, closure_level
from fwdad.forward.nested.levels import outer_of, rule_call
from fwdad.forward.nested.streams import stream_items
from fwdad.rules import batching, classes, iteration, linalg, operators, plain_params, widening
from fwdad.rules.registry import def_nondiff, frule, get_frule
from fwdad.tangents import NoTangent, Tangent, zero_tangent


# ---- level-2 rules of the pieces generated code calls --------------------------------
@frule(Dual)
def _new_dual(primal: Dual, tangent: Dual) -> Dual:
    """Dual(p, t) at level 2: its outer tangent holds the outer tangents of p and t."""
    inner = Dual(primal.primal, tangent.primal)
    return Dual(inner, Tangent(primal=primal.tangent, tangent=tangent.tangent))


@frule(batching.created_tangent)
def _created_tangent(primal: Dual) -> Dual:
    """The inner tangent of a new array is a plain zero (nested calls are unbatched
    inside); its outer tangent comes from the running context."""
    zero = zero_tangent(primal.primal)
    return Dual(zero, batching.created_tangent(zero))


@frule(batching.running_batch_size)
def _running_batch_size() -> Dual:
    """Inside a nested call the inner tangents are unbatched, whatever the outer
    computation's batch is."""
    return Dual(None, NoTangent)


@frule(widening.widen_before_view)
def _widen_before_view(x: Dual, view: Dual) -> Dual:
    """Nothing at level 2: the inner tangents stay unbatched (nested calls are), and the
    outer ones are widened at the write where they can be (widen_for), else refused."""
    return Dual(None, NoTangent)


def_nondiff(zero_tangent, widening.widen_for, classes.opaque_with_dunder, batching.holds_sets,
            batching.in_a_context)
# what rule code looks up: the rule of a method (a constant of level-1 code; calling it
# at level 2 runs its level-2 rule), and which Python method a class defines
def_nondiff(dispatch.derived_rule, classes.python_method_of)
# axis bookkeeping that rule bodies call: ints in, ints out
def_nondiff(normalize_axis_tuple, normalize_axis_index)
# the user's line that a rule's error names, found while the error is made: a string
# (a refusal raised by a level-1 rule met no rule for it at level 2 and said so instead)
def_nondiff(current_user_location, in_user_code)


@frule(operators.pow_exponent_term)
def _pow_exponent_term(x: Dual, out: Dual, dy: Dual) -> Dual:
    """log|x| * out * dy (0 where out is 0) is linear in dy: its tangent is the same
    term of dy's outer tangent, plus the tangent of the coefficient times dy."""
    term = operators.pow_exponent_term
    value = term(x.primal, out.primal, dy.primal)
    if dy.primal is NoTangent:
        return Dual(value, NoTangent)
    return Dual(value, term(x.primal, out.primal, dy.tangent)
                + _coefficient_tangent(x, out) * dy.primal)


def _coefficient_tangent(x: Dual, out: Dual):
    """d(log|x| * out) = dx / x * out + log|x| * dout, 0 where out is 0."""
    if x.tangent is NoTangent and out.tangent is NoTangent:
        return NoTangent
    with np.errstate(divide="ignore", invalid="ignore"):
        d = x.tangent / x.primal * out.primal + np.log(np.abs(x.primal)) * out.tangent
    return np.where(np.asarray(out.primal) == 0, 0.0, d)


# dict, tuple, list, zip and enumerate, which rule code calls too, have their rules in
# rules/iteration.py (one rule per function).


@frule(duals.const)
def _const(value: Dual) -> Dual:
    return Dual(duals.const(value.primal), NoTangent)


@frule(duals.read_global)
def _read_global(value: Dual) -> Dual:
    shared = duals.shared_default(value.primal, 2)  # (a mutable default: core/duals.py)
    return shared if shared is not None else Dual(duals.read_global(value.primal), NoTangent)


@frule(duals.shared_default)
def _shared_default_deeper(value: Dual, level: Dual) -> Dual:
    """A third derivative (or higher) through a read of a global: fine unless the
    global is a mutable default, whose Duals are kept at levels 1 and 2 only."""
    return _no_default_deeper(duals.shared_default(value.primal, level.primal))


@frule(duals.defaults_at_level_two)
def _defaults_deeper(value: Dual) -> Dual:
    return _no_default_deeper(duals.defaults_at_level_two(value.primal))


def _no_default_deeper(kept: Any) -> Dual:
    if kept is not None:
        line = in_user_code()
        value = kept.primal.primal
        raise FwdadError(
            f"{duals.MUTABLE_DEFAULTS[id(value)].what} ({a_type(value)}) is read "
            f"through a global, a closure variable or f.__defaults__"
            f"{line} in a third derivative (or higher): fwdad "
            f"keeps the derivatives of such an object to second order only. Pass the "
            f"list, dict or array as an argument instead.")
    return duals.NONE


def_nondiff(rebinding.forget_rules)  # (a rule's check of its globals, at level 2)


@frule(duals.store_global)
def _store_global(value: Dual) -> Dual:
    """What goes into a global must be a constant at this level too; unless it is the
    object the global holds, updated in place, with the Duals the derivative keeps for
    it at both levels (core/duals.store_global)."""
    inner = value.primal
    kept = duals.shared_default(getattr(inner, "primal", None), 2)
    if kept is not None and kept.tangent is value.tangent and \
            kept.primal.tangent is getattr(inner, "tangent", None):
        return Dual(inner.primal, NoTangent)
    refuse_unless_zero(outer_of(value), stored=True)
    return Dual(duals.store_global(inner), NoTangent)


@frule(closures.closure)
def _closure(rule: Dual) -> Dual:
    """A def inside code running at level 2 (or deeper: closure_level counts): its rule,
    of that level, marked as such (fwdad/forward/nested/closures.py)."""
    return Dual(Dual(NestedClosure(rule.primal.rule, closure_level(2)), NoTangent),
                NoTangent)


def _own_iterator(value: Dual) -> Dual:
    """What the level-2 rule of an instance's own __iter__ gives (duals.iterate runs
    its level-1 rule)."""
    return rule_call(dispatch.derived_rule(type(value.primal.primal).__iter__), value)


def _items(value: Dual) -> list:
    """The level-2 items of a level-2 container (what `for v in value` gives)."""
    if isinstance(value.primal.tangent, Tangent):  # an instance: the list of what its
        value = call_rule(duals.const(duals.const(list)), _own_iterator(value))  # __iter__ gives
    inner = value.primal
    items = list(duals.iterate(inner))
    outer_p, outer_t = outer_of(value)
    if outer_p is NoTangent and outer_t is NoTangent:
        return [Dual(item, NoTangent) for item in items]
    ps = _iterate_outer(inner.primal, outer_p, len(items))
    ts = _iterate_outer(inner.tangent, outer_t, len(items))
    return [Dual(item, Tangent(primal=p, tangent=t)) for item, p, t in zip(items, ps, ts)]


def _iterate_outer(inner: Any, outer: Any, count: int) -> list:
    if outer is NoTangent or inner is NoTangent:
        return [NoTangent] * count
    if isinstance(inner, dict):
        return [NoTangent] * count  # iterating a dict gives its keys
    return list(batching.iterate_tangent(inner, outer)) if hasattr(inner, "shape") \
        else list(outer)


def _as_container(items: list, kind: type) -> Dual:
    return Dual(kind(i.primal for i in items), kind(i.tangent for i in items))


@frule(duals.iterate)
def _iterate(value: Dual) -> Dual:
    if isinstance(value.primal.tangent, Tangent):  # an instance: its own __iter__
        return _iterate(_own_iterator(value))
    if type(getattr(value.primal, "tangent", None)) is duals.TangentStream:
        return duals.stream(stream_items(value))  # lazy, as on level 1: a list would
        # consume the iterator at once (zip(it, it) would pair it with nothing left)
    return _as_container(_items(value), list)


@frule(duals.unbox)
def _unbox(value: Dual) -> Dual:
    return _as_container(_items(value), tuple)


@frule(duals.unpack)
def _unpack(value: Dual, count: Dual, star: Dual = None) -> Dual:
    """`a, *b, c = value` at level 2 (duals.unpack checks the count first)."""
    items, star = _items(value), -1 if star is None else star.primal
    duals.unpack(value.primal, count.primal, star)
    if star < 0:
        return _as_container(items, tuple)
    after = len(items) - (count.primal - star - 1)
    return _as_container(items[:star] + [_starred(items[star:after])] + items[after:],
                         tuple)


def _starred(items: list) -> Dual:
    """The list a starred target gets, as a level-2 value."""
    return Dual(Dual([i.primal.primal for i in items], [i.primal.tangent for i in items]),
                Tangent(primal=[outer_of(i)[0] for i in items],
                        tangent=[outer_of(i)[1] for i in items]))


def _outer_fields(outers: Any, kind: type) -> Tangent:
    """Tangent(primal=..., tangent=...) of a container, from its items' outer tangents."""
    fields = [outer_of(Dual(None, o)) if o is not NoTangent else (NoTangent, NoTangent)
              for o in outers]
    return Tangent(primal=kind(p for p, _ in fields), tangent=kind(t for _, t in fields))


@frule(duals.pack)
def _pack(items: Dual) -> Dual:
    outers = items.tangent if items.tangent is not NoTangent else [NoTangent] * len(
        items.primal)
    return Dual(duals.pack(items.primal), _outer_fields(outers, tuple))


@frule(duals.pack_kw)
def _pack_kw(items: Dual) -> Dual:
    keys = list(items.primal)
    outers = [NoTangent if items.tangent is NoTangent else items.tangent[k] for k in keys]
    fields = _outer_fields(outers, list)
    return Dual(duals.pack_kw(items.primal),
                Tangent(primal=dict(zip(keys, fields.primal)),
                        tangent=dict(zip(keys, fields.tangent))))


@frule(duals.unbox_kw)
def _unbox_kw(value: Dual) -> Dual:
    inner = duals.unbox_kw(value.primal)
    outer_p, outer_t = outer_of(value)
    return Dual(inner, {k: Tangent(primal=_at(outer_p, k), tangent=_at(outer_t, k))
                        for k in inner})


def _at(container: Any, key: Any) -> Any:
    return NoTangent if container is NoTangent else container[key]


# ---- rules whose own code fwdad cannot transform (an import inside the function) -----
@frule(operators.matmul_rule)
def _matmul_of_rule(x: Dual, y: Dual) -> Dual:
    return rule_call(linalg.np_matmul_rule, x, y)  # the same rule as np.matmul's


# ---- calls: dynamic dispatch and the rule objects generated code holds ----------------
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
    level, where calling a partial would need a level-2 rule of its own."""
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


def _third_order_partial(what: str) -> Callable:
    """The rule of a partial's level-2 rule, at a third level: refused. (Differentiated
    from its source, it read the bound arguments as fields of the partial, whose
    tangent is not a structure of fields: it dropped their third-order terms.)"""
    def refused(*args: Dual, **kwargs: Dual) -> Dual:
        raise FwdadError(
            f"third derivatives through {what} a functools.partial{in_user_code()} are "
            f"not supported yet (second derivatives are): call the function it wraps "
            f"directly, or take the third derivative by finite differences of "
            f"fwdad.hessian.")
    return refused


frule(_call_partial)(_third_order_partial("calling"))
frule(_partial_of_rule)(_third_order_partial("making"))


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
    items = [changes.get(name, item) for name, item in zip(cls._fields, _items(record))]
    return nested_constructors.class_rule_of_rule(cls)(*items)


@frule(records._make)
def _make(cls: Dual, iterable: Dual) -> Dual:
    if not records.is_namedtuple_class(cls.primal.primal):
        raise missing_rule_error(tuple.__new__, (cls.primal, iterable.primal))
    return nested_constructors.class_rule_of_rule(cls.primal.primal)(*_items(iterable))


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


from fwdad.forward.nested import attributes, contexts, deeper, streams  # noqa: E402,F401 (their rules)
