"""The reverse rule (rrule) table and the two ways to declare an rrule.

    @rrule(np.sin)                   a pure rule on plain values: returns the output and
    def _sin(x):                     its pullback, which maps the output's cotangent to
        return np.sin(x), lambda ct: (ct * np.cos(x),)    one cotangent per argument

    @raw_rrule(operator.setitem)     a rule on reverse values (Var, VarMat, matvar,
    def _setitem(x, key, v): ...     containers of them) that records on the tape itself

    @composed_rrule(np.cov)          plain NumPy computing what np.cov computes from
    def _cov(m, y=None, ...): ...    primitives with rrules: its derived reverse rule

A pullback may give a cotangent as a thunk (a function of no arguments), which is only
called when its argument is a variable: `lambda: ct * y` costs nothing for a constant y.
A pure rule serves both layouts: its wrapper (reverse/rule_calls.py's Pure) unpacks
VarMats and matvars into plain arrays, wraps the output in the layout of the inputs,
and pushes one callback that sums broadcast cotangents back to each input's shape.
Forward primitives marked non-differentiable (`def_nondiff`) need no row here: they run
on plain values.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, Optional

from fwdad.core.lazy_rule import LazyRule
from fwdad.reverse.complex_values import COMPLEX_READY, RefusingComplex
from fwdad.reverse.rule_calls import NonDiff, Pure, rrule_key
from fwdad.reverse.tracked import holds_variable
from fwdad.reverse.var import compared_value
from fwdad.rules import registry as forward_registry
from fwdad.rules import scipy_support


@dataclass
class RRuleEntry:
    primal: Any
    rule: Callable
    callable: Callable
    kind: str  # "rrule", "raw" or "nondiff"


_RRULES: Dict[Any, RRuleEntry] = {}


def rrule(*fns: Any) -> Callable[[Callable], Callable]:
    """Register a pure reverse rule for each of `fns` (see the module docstring)."""
    def register(rule: Callable) -> Callable:
        for fn in fns:
            _RRULES[rrule_key(fn)] = RRuleEntry(fn, rule, Pure(fn, rule), "rrule")
        return rule
    return register


def next_order_rrule(derivative: Callable[[int, Any], Any]) -> None:
    """Register the rrule of `derivative(n, x)`, the n-th derivative of a function
    (fwdad/rules/regions.py): its pullback in x is ct * derivative(n + 1, x), made only
    when asked for; n is an integer."""
    @rrule(derivative)
    def next_order(n: Any, x: Any) -> Any:
        out = derivative(n, x)
        return out, lambda ct: (None, lambda: ct * derivative(n + 1, x))


def raw_rrule(*fns: Any) -> Callable[[Callable], Callable]:
    """Register a rule that takes reverse values and records on the tape itself."""
    def register(rule: Callable) -> Callable:
        for fn in fns:
            key = rrule_key(fn)
            _RRULES[key] = RRuleEntry(fn, rule, RefusingComplex(key, rule), "raw")
        return rule
    return register


def complex_ready(*fns: Any) -> None:
    """Declare the (registered) rrules of `fns` right for complex values: a holomorphic
    rule written as ct * f'(x), with transposes and no conjugates, is; a rule that
    reads real and imaginary parts apart must say so in its own pullback."""
    for fn in fns:
        COMPLEX_READY.add(rrule_key(fn))
        entry = _RRULES[rrule_key(fn)]
        if entry.kind == "raw" and type(entry.callable) is RefusingComplex:
            entry.callable = entry.rule  # (nothing to check on the hot path)


def nondiff_rrule(*fns: Any, call: Optional[Callable] = None,
                  refuse: Optional[Callable[[Any], Callable[..., None]]] = None) -> None:
    """Declare forward primitives whose derivative is zero (piecewise constant, or not a
    float): they run on plain values, as `def_nondiff` primitives do. `call(fn)`, when
    given, is what runs instead of fn itself (on the values of lists and tuples too);
    `refuse(fn)(result, *args, **kwargs)` raises where variables among them carry a
    derivative the result does depend on."""
    for fn in fns:
        run = NonDiff(fn) if call is None else NonDiff(call(fn), compared_value)
        if refuse is not None:
            run.refuse = refuse(fn)
        _RRULES[rrule_key(fn)] = RRuleEntry(fn, fn, run, "nondiff")


def compare_rrule(*fns: Any) -> None:
    """Declare forward primitives without a derivative that compare items (`in`, ==,
    list.index): they compare values, inside lists and tuples too, as forward mode
    compares primals (a Var is only itself: `[x * 1.0] == [x * 1.0]` must be True)."""
    for fn in fns:
        _RRULES[rrule_key(fn)] = RRuleEntry(fn, fn, NonDiff(fn, compared_value), "nondiff")


def composed_rrule(*fns: Any, refuse: Optional[Callable[..., None]] = None
                   ) -> Callable[[Callable], Callable]:
    """Register, for each of `fns`, the derived reverse rule of the decorated function:
    plain NumPy that computes what fns[0] computes, from primitives with rrules. A call
    without variables runs fns[0] itself. `refuse(*args, **kwargs)`, given the values,
    raises where fns[0] has no derivative and the composition would fail otherwise."""
    def register(impl: Callable) -> Callable:
        from fwdad.reverse.boxing import unbox
        from fwdad.reverse.dispatch import derived_rrule
        derived = LazyRule(impl, derived_rrule)

        def rule(*args: Any, **kwargs: Any) -> Any:
            if any(holds_variable(a) for a in (*args, *kwargs.values())):
                if refuse is not None:
                    refuse(*map(unbox, args), **{k: unbox(v) for k, v in kwargs.items()})
                return derived(*args, **kwargs)
            return fns[0](*args, **kwargs)
        rule.__name__ = impl.__name__
        return raw_rrule(*fns)(rule)
    return register


@contextlib.contextmanager
def rrules_restored() -> Iterator[None]:
    """Put the rrule table back as it was on exit (for tests that register rules), but
    for SciPy's rules, if they were loaded meanwhile: they load once (on_demand)."""
    saved = dict(_RRULES)
    try:
        yield
    finally:
        _RRULES.clear()
        _RRULES.update({**_KEPT, **saved})


_KEPT: Dict[Any, RRuleEntry] = {}  # rrules loaded on demand (SciPy's): restores keep them


@contextlib.contextmanager
def on_demand() -> Iterator[None]:
    """Register rrules loaded when first needed (SciPy's, once): they stay through
    rrules_restored, and an rrule registered before them (the user's own) stays theirs."""
    before = dict(_RRULES)
    yield
    for key, entry in list(_RRULES.items()):
        if key in before and before[key] is not entry:
            _RRULES[key] = before[key]
        elif key not in before:
            _KEPT[key] = entry


def get_rrule(fn: Any) -> Optional[Callable]:
    """What reverse code calls for `fn`: its rrule, or a plain call on values for a
    forward primitive with no derivative; None when there is neither."""
    try:
        entry = _RRULES.get(rrule_key(fn))
    except TypeError:
        return None
    if entry is None and scipy_support.load_for(fn):  # (SciPy's rules: loaded now)
        entry = _RRULES.get(rrule_key(fn))
    if entry is not None:
        return entry.callable
    forward = forward_registry.entry_of(fn)
    if forward is not None and forward.kind == "nondiff":
        _RRULES[rrule_key(fn)] = entry = RRuleEntry(fn, fn, NonDiff(fn), "nondiff")
        return entry.callable
    return None


def rrule_entry(fn: Any) -> RRuleEntry:
    """The registered entry of `fn` (a KeyError when there is none): rules that wrap
    another's rule read and replace its `callable`."""
    if rrule_key(fn) not in _RRULES:
        scipy_support.load_for(fn)
    return _RRULES[rrule_key(fn)]


def entries() -> Iterator[RRuleEntry]:
    return iter(list(_RRULES.values()))


def forward_primitives_without_rrule() -> list:
    """Forward primitives fwdad ships with a derivative but no reverse rule yet (the
    known gaps; rules registered by users and tests are theirs to pair)."""
    return [e.primal for e in forward_registry.entries()
            if e.kind != "nondiff" and get_rrule(e.primal) is None
            and (getattr(e.rule, "__module__", None) or "").startswith("fwdad.")]
