"""Level-2 rules (see fwdad/forward/nested/levels.py) of the parts of fwdad that generated code
and frules call but that fwdad cannot, or should not, transform: iteration helpers,
closures, defaults and globals, and rule code with an import inside; plus rules for the
builtins that rule code uses (tuple, list, zip, enumerate, dict). Dynamic dispatch and
the rule objects generated code holds are in fwdad/forward/nested/calls.py.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from fwdad import construction
from fwdad.core import closures, duals, numpy_binops, rebinding
from fwdad.core.read_only import refuse_unless_zero
from fwdad.dual import Dual
from fwdad.errors import FwdadError, current_user_location, in_user_code
from fwdad.forward import defaults, dispatch
from fwdad.forward.nested.closures import NestedClosure, closure_level, unwrapped, wrapped
from fwdad.forward.nested.levels import outer_of, rule_call
from fwdad.forward.nested.streams import stream_items
from fwdad.rules import array_protocol, batching, classes, linalg, operators, widening
from fwdad.rules.registry import def_nondiff, frule
from fwdad.source import is_foreign
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
# how NumPy reads an instance as an array (rules/array_protocol.py): lookups on its class
def_nondiff(array_protocol.defines_array, array_protocol.array_method,
            array_protocol.takes_copy, array_protocol.refusal, array_protocol.check_array)
# axis bookkeeping that rule bodies call: ints in, ints out
def_nondiff(normalize_axis_tuple, normalize_axis_index)
# the user's line that a rule's error names, found while the error is made: a string
# (a refusal raised by a level-1 rule met no rule for it at level 2 and said so instead)
def_nondiff(current_user_location, in_user_code)
# whether NumPy hands a user class's reflected operator the whole array (rules/classes
# .call_dunder asks, on plain values and types, before running the method): None, or a
# refusal (its level-1 check met no rule at level 2: a MissingRuleError naming fwdad)
def_nondiff(numpy_binops.refuse_reflected)
# the message of a class fwdad does not build (a refusal raised at level 2, met again
# when that code is differentiated at level 3): a string
def_nondiff(construction.refusal)


@frule(operators.pow_exponent_term)
def _pow_exponent_term(x: Dual, out: Dual, dy: Dual) -> Dual:
    """log|x| * out * dy (0 where out is 0) is linear in dy: its tangent is the same
    term of dy's outer tangent, plus the tangent of the coefficient times dy."""
    term = operators.pow_exponent_term
    value = term(x.primal, out.primal, dy.primal)
    if dy.primal is NoTangent:
        return Dual(value, NoTangent)
    # (a batch of outer tangents broadcasts as its value does: a scalar exponent's
    # against an array power, `(x1 + 3.0) ** x0` under jacfwd of a jvp)
    n = batching.ndim(value)
    return Dual(value, _plus(term(x.primal, out.primal, _lifted(dy, n)),
                             _times(_lifted_coefficient(x, out, n), dy.primal)))


def _lifted(d: Dual, n: int):
    return d.tangent if d.tangent is NoTangent else batching.lift(d.primal, d.tangent, n)


def _plus(a, b):
    return b if a is NoTangent else a if b is NoTangent else a + b


def _times(a, b):
    return NoTangent if a is NoTangent else a * b


def _lifted_coefficient(x: Dual, out: Dual, n: int):
    """d(log|x| * out) = dx / x * out + log|x| * dout, 0 where out is 0, with its
    batch axis lifted to broadcast against a result of `n` axes."""
    if x.tangent is NoTangent and out.tangent is NoTangent:
        return NoTangent
    m = batching.ndim(out.primal)
    dx, dout = (0.0 if d.tangent is NoTangent else batching.lift(d.primal, d.tangent, m)
                for d in (x, out))
    with np.errstate(divide="ignore", invalid="ignore"):
        d = dx / x.primal * out.primal + np.log(np.abs(x.primal)) * dout
    return batching.lift(out.primal, np.where(np.asarray(out.primal) == 0, 0.0, d), n)


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
    """A read of a global in a rule differentiated again (a third derivative or
    higher): the Dual that the derivative keeps one level deeper for a mutable default
    or a global written into, as `shared_default` at level 1 and 2; else None. This is
    its own rule, for every level further (level and value come wrapped once more
    each time: their depth counts the levels)."""
    depth, plain_level = unwrapped(level)
    kept = duals.shared_default(unwrapped(value)[1], plain_level + depth)
    return wrapped(None, depth) if kept is None else kept


frule(_shared_default_deeper)(_shared_default_deeper)


@frule(defaults.close_nested)
def _close_nested_deeper(level: Dual) -> Dual:
    """A jvp nested one level deeper returns (its rule differentiated again: a jvp in
    a jvp in a differentiated function): the state's Duals from its level on settle.
    Its own rule for every level further, as _shared_default_deeper."""
    depth, plain_level = unwrapped(level)
    defaults.close_nested(plain_level + depth)
    return wrapped(None, depth)


frule(_close_nested_deeper)(_close_nested_deeper)


@frule(duals.defaults_at_level)
def _defaults_deeper(value: Dual, level: Dual) -> Dual:
    """`f.__defaults__` holding a mutable default, read by a rule differentiated again
    (a third derivative or higher): the tuple of the Duals the derivative keeps one
    level deeper. Its own rule for every level further, as _shared_default_deeper."""
    depth, plain_level = unwrapped(level)
    kept = duals.defaults_at_level(unwrapped(value)[1], plain_level + depth)
    return wrapped(None, depth) if kept is None else kept


frule(_defaults_deeper)(_defaults_deeper)


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


@frule(_store_global)
def _store_global_deeper(value: Dual) -> Dual:
    """`G = v` (`G += w`) in code differentiated three times or more: as at level 2, v
    must be the Dual the derivative keeps for G at this level, updated in place (the
    same tangents at every level), or a constant at every level. This is its own rule,
    for every level further (the depth of `value` counts the levels)."""
    depth, plain = unwrapped(value)
    kept = duals.shared_default(plain, depth)
    if kept is None or not _same_tangents(kept, value):
        refuse_unless_zero(_tangents(value), stored=True)
    return wrapped(plain, depth - 1)


frule(_store_global_deeper)(_store_global_deeper)


def _same_tangents(kept: Any, value: Any) -> bool:
    while isinstance(kept, Dual) and isinstance(value, Dual):
        if kept.tangent is not value.tangent:
            return False
        kept, value = kept.primal, value.primal
    return kept is value


def _tangents(value: Any) -> list:
    """The tangents of a value at every level, outermost first."""
    found = []
    while isinstance(value, Dual):
        found.append(value.tangent)
        value = value.primal
    return found


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


def level_two_items(value: Dual) -> list:
    """The level-2 items of a level-2 container (what `for v in value` gives)."""
    if isinstance(value.primal.tangent, Tangent):  # an instance: the list of what its
        from fwdad.forward.nested.calls import call_rule  # (calls imports this module)
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


def _next_items(iterator: Dual) -> Iterator[Dual]:
    """The level-2 items of an instance whose __iter__ returns itself: what the level-2
    rule of its __next__ gives, until that raises StopIteration (duals.iterate)."""
    step = dispatch.derived_rule(type(iterator.primal.primal).__next__)
    while True:
        try:
            item = rule_call(step, iterator)
        except StopIteration:
            return
        yield item


@frule(_next_items)
def _next_items_at_level_three(iterator: Dual) -> Dual:
    """Third derivatives (or higher) through a loop over an iterator class: refused, where
    the rule of the rule above would be asked to differentiate a generator."""
    raise FwdadError(
        f"third and higher derivatives through a for loop over an instance whose "
        f"__iter__ returns itself (an iterator class){in_user_code()} are not supported: "
        f"give the class an __iter__ that returns iter(a list of the items), or make the "
        f"list in the loop's place.")


@frule(duals.iterate)
def _iterate(value: Dual) -> Dual:
    if isinstance(value.primal.tangent, Tangent):  # an instance: its own __iter__
        if is_foreign(type(value.primal.primal)):  # (a library's: items are constants)
            return _as_container([Dual(item, NoTangent)
                                  for item in duals.iterate(value.primal)], list)
        iterator = _own_iterator(value)
        if iterator.primal.primal is value.primal.primal:  # (`return self`: __next__)
            return duals.stream(_next_items(iterator))
        return _iterate(iterator)
    if type(getattr(value.primal, "tangent", None)) is duals.TangentStream:
        return duals.stream(stream_items(value))  # lazy, as on level 1: a list would
        # consume the iterator at once (zip(it, it) would pair it with nothing left)
    return _as_container(level_two_items(value), list)


@frule(duals.unbox)
def _unbox(value: Dual) -> Dual:
    return _as_container(level_two_items(value), tuple)


@frule(duals.unpack)
def _unpack(value: Dual, count: Dual, star: Dual = None) -> Dual:
    """`a, *b, c = value` at level 2 (duals.unpack checks the count first)."""
    items, star = level_two_items(value), -1 if star is None else star.primal
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


from fwdad.forward.nested import attributes, calls, contexts, deeper, streams  # noqa: E402,F401 (their rules)
