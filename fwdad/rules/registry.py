"""The rule table: is_primitive, frule and its two shorthands. Holds no rules itself.

A rule takes Duals and returns a Dual. Parameters annotated `Dual` receive Duals; any
other parameter (an axis, a dtype, a flag) receives the plain primal value, so rules
read like the math. The registered callable is what generated code binds directly.
"""
from __future__ import annotations

import contextlib
import inspect
import types
from dataclasses import dataclass
from typing import AbstractSet, Any, Callable, Dict, Iterator, Optional, Set, Tuple

from fwdad.dual import Dual
from fwdad.errors import FwdadError, a_type, describe
from fwdad.tangents import NoTangent

# What a rule takes as Duals: (positions, whether *args are, keyword names).
Spec = Tuple[AbstractSet[int], bool, AbstractSet[str]]


@dataclass
class RuleEntry:
    """One registered rule: the primal callable, the rule as written, and what
    generated code calls (the rule itself, or an adapter that unwraps plain params)."""

    primal: Any
    rule: Callable[..., Any]
    callable: Callable[..., Any]
    kind: str  # "frule", "linear" or "nondiff"


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
    return getattr(fn, "__func__", fn)


def is_primitive(fn: Any) -> bool:
    """True when calls of `fn` use a registered frule instead of a derived one."""
    try:
        return _key(fn) in _RULES
    except TypeError:  # unhashable callables cannot be registered
        return False


def get_frule(fn: Any) -> Optional[Callable[..., Any]]:
    """The callable that differentiates calls of `fn`, or None."""
    try:
        entry = _RULES.get(_key(fn))
    except TypeError:
        return None
    return bound(entry) if entry is not None else None


def entry_of(fn: Any) -> Optional[RuleEntry]:
    """The registered entry of `fn` (what `get_frule(fn)` binds comes from it), or None."""
    try:
        return _RULES.get(_key(fn))
    except TypeError:
        return None


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
    try:
        entry = _RULES.get(_key(fn))
    except TypeError:
        return None
    return entry.kind if entry is not None else None


def entries() -> Iterator[RuleEntry]:
    """Every registered rule (the meta-test walks these)."""
    return iter(list(_RULES.values()))


def frule(*fns: Any, nondiff: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the forward rule of each of `fns`.

    With `nondiff=True` the rule declares that its output's tangent is always zero (it
    only decides how that zero is made, e.g. with a batch axis): the optimizer then
    treats the output as a constant, as it does for `def_nondiff`.

    Example:
        @fwdad.frule(np.sin)
        def _sin(x: Dual) -> Dual:
            return Dual(np.sin(x.primal), np.cos(x.primal) * x.tangent)

    Returns:
        The decorator; it returns the rule unchanged.
    """
    def register(rule: Callable[..., Any]) -> Callable[..., Any]:
        for fn in fns:
            _register(fn, rule, "nondiff" if nondiff else "frule")
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
    """Put the rule table back as it was on exit (for tests that register rules)."""
    saved = dict(_RULES)
    try:
        yield
    finally:
        _RULES.clear()
        _RULES.update(saved)
        _notify(None)


def _register(fn: Any, rule: Callable[..., Any], kind: str, spec: Optional[Spec] = None
              ) -> None:
    try:
        key = _key(fn)
        hash(key)
    except TypeError as err:
        raise FwdadError(f"cannot register a rule for {describe(fn)}: it is not "
                         f"hashable. Register the function it calls instead.") from err
    _RULES[key] = RuleEntry(fn, rule, with_plain_params(rule, spec), kind)
    _notify(fn)


# ---- plain (non-Dual) parameters ----------------------------------------------------
def _is_dual_annotation(annotation: Any) -> bool:
    if annotation is inspect.Parameter.empty:
        return False
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return "Dual" in text


def with_plain_params(rule: Callable[..., Any], spec: Optional[Spec] = None
                      ) -> Callable[..., Any]:
    """The rule, wrapped so that parameters not annotated `Dual` get primal values, and
    a `Dual` parameter whose default is None gets None when the call passes None.

    `spec` = (dual positions, *args are Duals, Dual keyword names) overrides what the
    annotations say (the shorthands use it).
    """
    params = inspect.signature(rule).parameters.values()
    optional = _optional_params(rule)
    if spec is None and not optional and all(_is_dual_annotation(p.annotation)
                                              for p in params):
        return rule
    dual_at, dual_star, dual_kw = spec if spec is not None else _dual_params(rule)
    return _Adapter(rule, dual_at, dual_star, dual_kw, optional)


def _optional_params(rule: Callable[..., Any]) -> dict[Any, Any]:
    """{position or name: name} of the `Dual` parameters whose default is None. A call
    that passes None (`np.average(a, None, None)`, or rule code run again at second
    order) gives them a Dual of None, which the rule must see as its default."""
    optional: dict[Any, str] = {}
    for i, p in enumerate(inspect.signature(rule).parameters.values()):
        if p.default is None and _is_dual_annotation(p.annotation):
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                optional[i] = p.name
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                optional[p.name] = p.name
    return optional


def _dual_params(rule: Callable[..., Any]) -> Spec:
    params = list(inspect.signature(rule).parameters.values())
    dual_at: Set[int] = set()
    dual_kw: AbstractSet[str] = set()
    dual_star = False
    for i, p in enumerate(params):
        is_dual = _is_dual_annotation(p.annotation)
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and is_dual:
            dual_at.add(i)
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and is_dual:
            dual_kw = dual_kw | {p.name}
        if p.kind == p.VAR_POSITIONAL and is_dual:
            dual_star = True
        if p.kind == p.VAR_KEYWORD and is_dual:  # any other keyword is a Dual too
            dual_kw = _AllBut({q.name for q in params if not _is_dual_annotation(
                q.annotation)})
    return dual_at, dual_star, dual_kw


class _AllBut(frozenset[Any]):
    """The Dual keyword names of a rule with `**kwargs: Dual`: all but these."""

    def __contains__(self, name: object) -> bool:
        return not super().__contains__(name)


class _Adapter:
    """Calls a rule with Duals where it asks for them and primals elsewhere."""

    __slots__ = ("rule", "dual_at", "dual_star", "dual_kw", "first_star", "wants_dual",
                 "optional", "__name__", "__wrapped__")

    def __init__(self, rule: Callable[..., Any], dual_at: AbstractSet[int], dual_star: bool,
                 dual_kw: AbstractSet[str], optional: Optional[dict[Any, Any]] = None) -> None:
        self.rule, self.dual_at, self.dual_star, self.dual_kw = \
            rule, dual_at, dual_star, dual_kw
        self.optional = optional or {}
        params = list(inspect.signature(rule).parameters.values())
        kinds = [p.kind for p in params]
        star = [i for i, k in enumerate(kinds) if k == inspect.Parameter.VAR_POSITIONAL]
        self.first_star = star[0] if star else len(params)
        self.wants_dual = tuple(i in dual_at for i in range(self.first_star))
        self.__name__ = getattr(rule, "__name__", "rule")
        self.__wrapped__ = rule

    def __call__(self, *duals: Any, **kwargs: Any) -> Dual:
        if len(duals) <= self.first_star:  # (every call of most rules: the fast path)
            args = [a if dual else a.primal for a, dual in zip(duals, self.wants_dual)]
        else:
            args = [a if (i in self.dual_at if i < self.first_star else self.dual_star)
                    else a.primal for i, a in enumerate(duals)]
        if kwargs:
            kwargs = {k: v if k in self.dual_kw else v.primal for k, v in kwargs.items()}
        if self.optional:
            args, kwargs = self._nones_given(args, kwargs)
        try:
            out: Dual = self.rule(*args, **kwargs)
            return out
        except AttributeError as err:
            if err.name in ("primal", "tangent") and not isinstance(err.obj, Dual):
                raise _unannotated(self.rule, err) from err
            raise

    def _nones_given(self, args: list[Any], kwargs: dict[Any, Any]
                     ) -> Tuple[list[Any], dict[Any, Any]]:
        none = [i for i in range(len(args)) if i in self.optional and _is_none(args[i])]
        for i in none:
            args[i] = None
        return args, {k: None if k in self.optional and _is_none(v) else v
                      for k, v in kwargs.items()}


def _unannotated(rule: Callable[..., Any], err: AttributeError) -> FwdadError:
    """A rule read `.primal` or `.tangent` of a plain value: a parameter it meant to be
    a Dual lacks the annotation (test_a_rule_without_dual_annotations_says_to_annotate)."""
    plain = [p.name for p in inspect.signature(rule).parameters.values()
             if not _is_dual_annotation(p.annotation)]
    return FwdadError(
        f"the rule {describe(rule)} read .{err.name} of {a_type(err.obj)}: its "
        f"parameters {', '.join(plain)} are not annotated `Dual`, so they receive plain "
        f"values. Annotate the ones that take Duals, e.g. `def rule(x: fwdad.Dual) -> "
        f"fwdad.Dual:` (parameters without the annotation get the primal only).")


def _is_none(value: Any) -> bool:
    return isinstance(value, Dual) and value.primal is None
