"""The rule table: is_primitive, frule and its two shorthands. Holds no rules itself.

A rule takes Duals and returns a Dual. Parameters annotated `Dual` receive Duals; any
other parameter (an axis, a dtype, a flag) receives the plain primal value, so rules
read like the math. The registered callable is what generated code binds directly.

An entry is the one record of a primitive: besides its rule it says whether the rule
mutates its arguments (`pure`), where the function takes `out=` (`out_at`) and the
template the optimizer inlines in its place (`template`, see rules/template.py):

    @frule(np.sum, np.ndarray.sum, pure=True)       a rule that mutates no argument
    def _sum(x: Dual, axis=None, ...) -> Dual: ...
    takes_out(3, np.sum, np.ndarray.sum)            np.sum(a, axis, dtype, out)
"""
from __future__ import annotations

import contextlib
import types
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, Optional, Union

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import FwdadError, describe
from fwdad.rules import scipy_support
from fwdad.rules.array_like import lists_as_arrays
from fwdad.rules.fresh_results import FRESH_RESULTS
from fwdad.rules.plain_params import Spec, with_plain_params
from fwdad.tangents import NoTangent


@dataclass
class RuleEntry:
    """One registered rule: the primal callable, the rule as written, and what
    generated code calls (the rule itself, or an adapter that unwraps plain params)."""

    primal: Any
    rule: Callable[..., Any]
    callable: Callable[..., Any]
    kind: str  # "frule", "linear" or "nondiff"
    pure: bool = False  # mutates none of its arguments (its result may alias them)
    # Where the function takes `out=`: its position among the positional parameters
    # (methods count `self`), KEYWORD_ONLY, or None when it takes none (ufuncs: after
    # their inputs, from the ufunc itself). A call that passes no `out` mutates nothing.
    out_at: Optional[Union[int, str]] = None
    template: Any = None  # the rules/template.Template the optimizer inlines, or None


KEYWORD_ONLY = "keyword only"  # an `out_at`: out= is only a keyword


_RULES: Dict[Any, RuleEntry] = {}
_LISTENERS: list[Any] = []  # called after each registration (dispatch drops stale rules)


def on_register(listener: Callable[[Any], None]) -> None:
    """Call `listener(fn)` whenever a rule for `fn` is registered."""
    _LISTENERS.append(listener)


def _key(fn: Any) -> Any:
    """Rules are keyed by the callable; bound methods by their function (`x.sum` by
    `np.ndarray.sum`, `[].append` by `list.append`)."""
    if isinstance(fn, types.BuiltinMethodType) and not isinstance(
            getattr(fn, "__self__", None), (types.ModuleType, type(None))):
        return getattr(type(fn.__self__), fn.__name__, fn)
    try:
        return getattr(fn, "__func__", fn)
    except Exception:  # noqa: BLE001 (a user's __getattr__ raising KeyError: no __func__)
        return fn


def is_primitive(fn: Any) -> bool:
    """True when calls of `fn` use a registered frule instead of a derived one."""
    return entry_of(fn) is not None


def entry_of(fn: Any) -> Optional[RuleEntry]:
    """The registered entry of `fn`, or None (an unhashable callable has none). Every
    lookup comes here: a miss on a SciPy function registers SciPy's rules first."""
    try:
        key = _key(fn)
        entry = _RULES.get(key)
    except TypeError:  # unhashable callables cannot be registered
        return None
    if entry is None and scipy_support.load_for(fn):
        entry = _RULES.get(key)
    return entry


def get_frule(fn: Any) -> Optional[Callable[..., Any]]:
    """The callable that differentiates calls of `fn`, or None."""
    entry = entry_of(fn)
    return bound(entry) if entry is not None else None


def bound(entry: RuleEntry) -> Callable[..., Any]:
    """What generated code binds for the rule of `entry` (see `call_hook`)."""
    return entry.callable if _CALL_HOOK is None else _CALL_HOOK(entry)


# What generated code binds instead of `entry.callable` while a hook is installed
# (sparsity detection runs each primitive's sparsity rule this way).
_CALL_HOOK: Optional[Callable[[RuleEntry], Callable[..., Any]]] = None


@contextlib.contextmanager
def call_hook(hook: Callable[[RuleEntry], Callable[..., Any]]) -> Iterator[None]:
    """While the body runs, rules built call `hook(entry)` instead of each registered
    rule. Rules derived before and after are dropped, so that neither kind leaks into
    the other (they are built again on their next use)."""
    global _CALL_HOOK
    saved, _CALL_HOOK = _CALL_HOOK, hook
    _notify(None)
    try:
        yield
    finally:
        _CALL_HOOK = saved
        _notify(None)


def _notify(fn: Any) -> None:
    for listener in _LISTENERS:
        listener(fn)


def kind_of(fn: Any) -> Optional[str]:
    """How the rule of `fn` was declared ("frule", "linear", "nondiff"), or None."""
    entry = entry_of(fn)
    return entry.kind if entry is not None else None


def entries() -> Iterator[RuleEntry]:
    """Every registered rule (the meta-test walks these; SciPy's once loaded:
    rules/scipy_support.load)."""
    return iter(list(_RULES.values()))


def frule(*fns: Any, nondiff: bool = False, pure: Optional[bool] = None,
          out_at: Optional[Union[int, str]] = None, template: Any = None
          ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the forward rule of each of `fns`.

    With `nondiff=True` the rule declares that its output's tangent is always zero (it
    only decides how that zero is made, e.g. with a batch axis): the optimizer then
    treats the output as a constant, as it does for `def_nondiff`. `pure`, `out_at` and
    `template` go on the entry (see RuleEntry); `pure` defaults to True for ufuncs and
    `math` functions, False for other frules. A rule given `out_at` handles `out=`
    itself (fwdad's own rules declare it with `takes_out`, and rules/outputs.py adds
    the handling).

    Example:
        @fwdad.frule(np.sin)
        def _sin(x: Dual) -> Dual:
            return Dual(np.sin(x.primal), np.cos(x.primal) * x.tangent)

    Returns:
        The decorator; it returns the rule unchanged.
    """
    def register(rule: Callable[..., Any]) -> Callable[..., Any]:
        for fn in fns:
            _register(fn, rule, "nondiff" if nondiff else "frule", pure=pure,
                      out_at=out_at, template=template)
        return rule
    return register


def def_linear(*fns: Callable[..., Any]) -> None:
    """Shorthand for functions linear in their first argument: the tangent goes
    through `f` itself (`np.negative`, `np.real`, `np.transpose` ...)."""
    for fn in fns:
        _register(fn, _linear_rule(fn), "linear", spec=({0}, False, set()))


def def_nondiff(*fns: Callable[..., Any]) -> None:
    """Shorthand for functions whose output has no derivative (`np.floor`,
    `np.argmax`, `len`): the primal runs, the tangent is zero."""
    for fn in fns:
        _register(fn, _nondiff_rule(fn), "nondiff", spec=(set(), False, set()))


def takes_out(position: Union[int, str], *fns: Any) -> None:
    """Declare that each of `fns` (registered already) takes `out=` at `position` among
    its positional parameters (methods count `self`), or KEYWORD_ONLY: rules/outputs.py
    gives their rules `out=`, and a call that passes no `out` mutates nothing."""
    for fn in fns:
        entry = entry_of(fn)
        if entry is None:
            raise FwdadError(f"out= of {describe(fn)}, which has no rule: register its "
                             f"rule first.")
        entry.out_at = position
        _notify(fn)


def attach_template(fn: Any, template: Any) -> None:
    """Give the registered rule of `fn` the template the optimizer inlines for it."""
    entry = entry_of(fn)
    if entry is None:
        raise FwdadError(f"a template for {describe(fn)}, which has no rule: register "
                         f"its rule first.")
    entry.template = template
    _notify(fn)


def _linear_rule(fn: Callable[..., Any]) -> Callable[..., Any]:
    def linear(x: Dual, *args: Any, **kwargs: Any) -> Dual:
        tangent = NoTangent if x.tangent is NoTangent else fn(x.tangent, *args, **kwargs)
        return Dual(fn(x.primal, *args, **kwargs), tangent)
    linear.__name__ = f"linear_{getattr(fn, '__name__', 'fn')}"
    return linear


def _nondiff_rule(fn: Callable[..., Any]) -> Callable[..., Any]:
    def nondiff(*args: Any, **kwargs: Any) -> Dual:
        return Dual(fn(*args, **kwargs), NoTangent)
    nondiff.__name__ = f"nondiff_{getattr(fn, '__name__', 'fn')}"
    return nondiff


@contextlib.contextmanager
def rules_restored() -> Iterator[None]:
    """Put the rule table back as it was on exit (for tests that register rules), but
    for SciPy's rules, if they were loaded meanwhile: they load once (on_demand)."""
    saved = dict(_RULES)
    try:
        yield
    finally:
        _RULES.clear()
        _RULES.update({**_KEPT, **saved})
        _notify(None)


_KEPT: Dict[Any, RuleEntry] = {}  # rules loaded on demand (SciPy's): rules_restored keeps


@contextlib.contextmanager
def on_demand() -> Iterator[None]:
    """Register rules loaded when first needed (SciPy's, once): they stay through
    rules_restored, and a rule registered before them (the user's own) stays theirs,
    as when fwdad registered SciPy's rules at import."""
    before = dict(_RULES)
    yield
    for key, entry in list(_RULES.items()):
        if key in before and before[key] is not entry:
            _RULES[key] = before[key]
            _notify(before[key].primal)
        elif key not in before:
            _KEPT[key] = entry


def _register(fn: Any, rule: Callable[..., Any], kind: str, spec: Optional[Spec] = None,
              pure: Optional[bool] = None, out_at: Optional[Union[int, str]] = None,
              template: Any = None) -> None:
    try:
        key = _key(fn)
        hash(key)
    except TypeError as err:
        raise FwdadError(f"cannot register a rule for {describe(fn)}: it is not "
                         f"hashable. Register the function it calls instead.") from err
    if pure is None:
        pure = _pure_by_default(fn, kind)
    callable_ = lists_as_arrays(fn, with_plain_params(rule, spec, fn, kind == "nondiff"),
                                out_at if isinstance(out_at, int) else None)
    _RULES[key] = RuleEntry(fn, rule, callable_, kind, pure, out_at, template)
    _notify(fn)


def _pure_by_default(fn: Any, kind: str) -> bool:
    """Shorthands, ufuncs, `math` functions and the NumPy functions of
    rules/fresh_results.py mutate no argument (`out` is the call's matter:
    rules/purity.py); other rules say so themselves."""
    return kind != "frule" or isinstance(fn, np.ufunc) or \
        getattr(fn, "__module__", None) == "math" or _fresh(fn)


def _fresh(fn: Any) -> bool:
    try:
        return fn in FRESH_RESULTS
    except TypeError:  # (an unhashable callable: refused by _register's own check)
        return False
