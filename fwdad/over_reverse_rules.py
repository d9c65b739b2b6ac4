"""The forward rules that let forward mode run reverse-mode code on Dual values
(fwdad/over_reverse.py): everything else in fwdad/reverse is derived like user code.

    tape.Tape.push(region, callback, out)   the Dual callback is kept as it is, on the
                                            region of the pass (over_reverse.DualRegion)
    reverse.rule_for(f), attributes.*      decided on plain values: constants (and so
    specialize.rule_for(site, args, kw)     is which specialized rule a call runs, and
    registry.get_rrule(fn)                  which rrule another rrule calls: a read of
                                            the rrule table, never differentiated)
    complexes.refuse_complex                always refused (its test needs the plain tape)
    ieee.selected(mask, ct)                 the tangent selected as ct is (never mixed)
"""
from __future__ import annotations

import numpy as np

from fwdad import attributes, construction, source
from fwdad.core import duals
from fwdad.dual import Dual
from fwdad.errors import FwdadError, NonDifferentiableError, describe
from fwdad.forward.defaults import FreshDefault
from fwdad.reverse import (
    complexes,
    instances,
    registry,
    rule_calls,
    rules_python,
    specialize,
    tape,
    tracked,
    var,
)
from fwdad.reverse import dispatch as reverse
from fwdad.rules import ieee, objects
from fwdad.rules.batching import fit, lift, ndim
from fwdad.rules.registry import def_nondiff, frule
from fwdad.tangents import NoTangent, Tangent, rebuild, zero_tangent


@frule(tape.regions)
def _regions() -> Dual:
    return duals.fresh(tape.regions())


@frule(tape.Tape.push)
def _push(region: Dual, callback: Dual, output: Dual = None) -> Dual:
    region.primal.chain.append((callback, output))
    return duals.NONE


@frule(complexes.refuse_complex)
def _complex(fn: Dual, inputs: Dual) -> Dual:
    """Plain reverse mode keeps a complex value as a constant when a backward pass of
    the tape so far shows it does not depend on the arguments; that test needs the
    plain tape, so here any complex value from a variable is refused (the caller
    falls back to forward over forward, which differentiates complex code)."""
    raise NonDifferentiableError(f"{describe(fn.primal)} made a complex value in a "
                                 f"reverse pass run on Dual values.")


@frule(ieee.selected)
def _selected(mask, ct: Dual) -> Dual:
    """A selection's cotangent on Dual values: its tangent selected with np.where too,
    where `ct * mask` would give an inf or NaN tangent of an element not taken (that of
    x ** 1.5 at 0, 0.75 / sqrt(0) * 0) inf * 0 = NaN (tests/test_select_pullbacks.py)."""
    out = ieee.selected(mask, ct.primal)
    if ct.tangent is NoTangent:
        return Dual(out, NoTangent)
    tangent = np.where(mask, lift(ct.primal, ct.tangent, ndim(out)), 0.0)
    return Dual(out, fit(tangent, out))


def_nondiff(ieee.holds_nan)


@frule(tape.Tape.keep)
def _keep(region: Dual, var: Dual, argument: Dual = None) -> Dual:
    return duals.NONE


# Which rrule a call runs, and how an attribute is read, is decided on plain values and
# types: the rule, hook or answer is a constant.
def_nondiff(reverse.rule_for, reverse.static_rrule, reverse.derived_rrule,
            rule_calls.layout_of, instances.user_method, source.python_function,
            source.is_foreign, attributes.getattribute_override,
            attributes.setattr_override, attributes.python_method, attributes.reader,
            attributes.writer, construction.how_built, construction.is_user_class,
            tracked.is_tracked, rule_calls.holds_complex, var.is_matvar,
            tape.current, tape.current_layout, tape.recording, specialize.rule_for,
            registry.get_rrule, registry.rrule_entry)


@frule(FreshDefault.dual)
def fresh_default_rule(default: Dual) -> Dual:
    """A mutable default of a rule that is itself differentiated: zeros at both levels
    (a NoTangent outer tangent dropped what was written into the default)."""
    return default.primal.at_level(2)


@frule(rules_python.unpack_rule)  # (lang.unpack itself stays what forward mode inlines)
def _unpack(value: Dual, count: int, star: int = -1) -> Dual:
    return duals.pack(duals.unpack(value, count, star))


@frule(construction.blank)
def _blank(cls: type) -> Dual:
    return Dual(construction.blank(cls), Tangent())


@frule(attributes.read_field)
def _read_field(obj: Dual, name: str) -> Dual:
    return objects.get_attribute(obj, name)


@frule(attributes.write_field)
def _write_field(obj: Dual, name: str, value: Dual) -> Dual:
    if not isinstance(obj.tangent, Tangent):
        raise FwdadError(f"a derivative was written into the field {name!r} of a "
                         f"{type(obj.primal).__name__} that carries none: it would be "
                         f"lost. Create the object inside the differentiated function.")
    attributes.write_field(obj.primal, name, value.primal)
    setattr(obj.tangent, name, value.tangent)
    return duals.NONE


@frule(rebuild)
def _rebuild(like: Dual, items: Dual) -> Dual:
    """A tuple (named tuples too) or list like `like`, holding `items`."""
    tangents = items.tangent if items.tangent is not NoTangent else \
        [zero_tangent(i) for i in items.primal]
    return Dual(rebuild(like.primal, items.primal), rebuild(like.primal, tangents))
