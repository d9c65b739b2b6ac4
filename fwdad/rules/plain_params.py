"""Rules with plain parameters: a registered rule receives Duals only where its
parameters are annotated `Dual` (or where a shorthand's spec says so), and the primal
value elsewhere; `with_plain_params` wraps it in an Adapter that does this per call.

    def _sum(x: Dual, axis=None) -> Dual    called as _sum(Dual(a, da), Dual(1, NoTangent))
                                           receives x = Dual(a, da), axis = 1

A plain parameter drops the tangent of its argument. Where the result does not depend
on it (an axis, a tolerance, a prototype's values), rules/dropped_tangents.py says so
for fwdad's rules; any other plain parameter (a user's rule, a shorthand's extra
arguments, a parameter the table refuses) is checked per call, and a non-zero tangent
there is refused at the user's line instead of being lost.
"""
from __future__ import annotations

import inspect
from typing import AbstractSet, Any, Callable, Optional, Set, Tuple

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import FwdadError, a_type, describe, in_user_code
from fwdad.rules.dropped_tangents import dropped_by
from fwdad.tangents import NoTangent

# What a rule takes as Duals: (positions, whether *args are, keyword names).
Spec = Tuple[AbstractSet[int], bool, AbstractSet[str]]


def _is_dual_annotation(annotation: Any) -> bool:
    if annotation is inspect.Parameter.empty:
        return False
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return "Dual" in text


def with_plain_params(rule: Callable[..., Any], spec: Optional[Spec] = None,
                      fn: Any = None, nondiff: bool = False) -> Callable[..., Any]:
    """The rule, wrapped so that parameters not annotated `Dual` get primal values, and
    a `Dual` parameter whose default is None gets None when the call passes None.

    `spec` = (dual positions, *args are Duals, Dual keyword names) overrides what the
    annotations say (the shorthands use it). `fn`: the function the rule is of (named
    when a tangent is refused); `nondiff`: the rule declares a result without a
    derivative, so every tangent may be dropped.
    """
    params = inspect.signature(rule).parameters.values()
    optional = _optional_params(rule)
    if spec is None and not optional and all(_is_dual_annotation(p.annotation)
                                              for p in params):
        return rule
    dual_at, dual_star, dual_kw = spec if spec is not None else _dual_params(rule)
    return Adapter(rule, dual_at, dual_star, dual_kw, optional, fn,
                   _EVERY if nondiff else dropped_by(rule))


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


class Adapter:
    """Calls a rule with Duals where it asks for them and primals elsewhere."""

    __slots__ = ("rule", "dual_at", "dual_star", "dual_kw", "first_star", "wants_dual",
                 "optional", "fn", "names", "checks", "check_at", "check_star",
                 "check_kw", "check_extra_kw", "__name__", "__wrapped__")

    def __init__(self, rule: Callable[..., Any], dual_at: AbstractSet[int], dual_star: bool,
                 dual_kw: AbstractSet[str], optional: Optional[dict[Any, Any]] = None,
                 fn: Any = None, dropped: AbstractSet[str] = frozenset()) -> None:
        self.rule, self.dual_at, self.dual_star, self.dual_kw = \
            rule, dual_at, dual_star, dual_kw
        self.optional = optional or {}
        params = list(inspect.signature(rule).parameters.values())
        kinds = [p.kind for p in params]
        star = [i for i, k in enumerate(kinds) if k == inspect.Parameter.VAR_POSITIONAL]
        self.first_star = star[0] if star else len(params)
        self.wants_dual = tuple(i in dual_at for i in range(self.first_star))
        self.fn = fn
        self._plan_checks(params, dropped)
        self.__name__ = getattr(rule, "__name__", "rule")
        self.__wrapped__ = rule

    def _plan_checks(self, params: list[inspect.Parameter], dropped: AbstractSet[str]
                     ) -> None:
        """Which plain parameters a call checks for a tangent (those whose tangent may
        not be dropped), computed once so that most rules check nothing per call."""
        self.names = [p.name for p in params[:self.first_star]]
        positional = (inspect.Parameter.POSITIONAL_ONLY,
                      inspect.Parameter.POSITIONAL_OR_KEYWORD)
        self.check_at = tuple(i for i in range(self.first_star)
                              if params[i].kind in positional and i not in self.dual_at
                              and self.names[i] not in dropped)
        star = self.first_star < len(params) and \
            params[self.first_star].kind == inspect.Parameter.VAR_POSITIONAL
        self.check_star = star and not self.dual_star and "*" not in dropped
        keywords = {p.name for p in params if p.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)}
        self.check_kw = frozenset(k for k in keywords
                                  if k not in self.dual_kw and k not in dropped)
        extra = any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params) and \
            not isinstance(self.dual_kw, _AllBut) and "**" not in dropped
        # keywords that **kwargs takes (None: it takes none, or drops them all)
        self.check_extra_kw = frozenset(keywords) | dropped if extra else None
        self.checks = bool(self.check_at or self.check_star or self.check_kw or extra)

    def __call__(self, *duals: Any, **kwargs: Any) -> Dual:
        if len(duals) <= self.first_star:  # (every call of most rules: the fast path)
            args = [a if dual else a.primal for a, dual in zip(duals, self.wants_dual)]
        else:
            args = [a if (i in self.dual_at if i < self.first_star else self.dual_star)
                    else a.primal for i, a in enumerate(duals)]
        if self.checks:
            self._refuse_dropped(duals, kwargs)
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

    def _refuse_dropped(self, duals: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Raise where a plain parameter whose tangent may not be dropped gets one."""
        for i in self.check_at:
            if i < len(duals) and carries(duals[i].tangent):
                raise _dropped(self, f"its argument {self.names[i]}")
        if self.check_star:
            for i in range(self.first_star, len(duals)):
                if carries(duals[i].tangent):
                    raise _dropped(self, f"its argument at position {i + 1}")
        for k, v in kwargs.items():
            if (k in self.check_kw or self.check_extra_kw is not None and
                    k not in self.check_extra_kw and k not in self.dual_kw) and \
                    carries(v.tangent):
                raise _dropped(self, f"its argument {k}=")

    def _nones_given(self, args: list[Any], kwargs: dict[Any, Any]
                     ) -> Tuple[list[Any], dict[Any, Any]]:
        none = [i for i in range(len(args)) if i in self.optional and _is_none(args[i])]
        for i in none:
            args[i] = None
        return args, {k: None if k in self.optional and _is_none(v) else v
                      for k, v in kwargs.items()}


class _Everything(frozenset[str]):
    """The parameters a rule without a derivative drops: all of them."""

    def __contains__(self, name: object) -> bool:
        return True


_EVERY = _Everything()


def carries(tangent: Any) -> bool:
    """Whether a tangent is not zero (NoTangent, and zeros, are zero)."""
    if tangent is NoTangent:
        return False
    if isinstance(tangent, Dual):  # (a rule of a rule: both orders count)
        return carries(tangent.primal) or carries(tangent.tangent)
    if isinstance(tangent, (list, tuple)):
        return any(carries(t) for t in tangent)
    if isinstance(tangent, dict):
        return any(carries(t) for t in tangent.values())
    try:
        return bool(np.any(tangent != 0))
    except (TypeError, ValueError):  # (an instance's Tangent, an object array)
        return True


def _dropped(adapter: Adapter, what: str) -> FwdadError:
    name = describe(adapter.fn) if adapter.fn is not None else describe(adapter.rule)
    if not (adapter.dual_at or adapter.dual_star or adapter.dual_kw):
        plain = [p.name for p in inspect.signature(adapter.rule).parameters.values()]
        return FwdadError(
            f"{name}{in_user_code()}: {what} has a derivative, and the rule "
            f"{describe(adapter.rule)} would lose it: its parameters {', '.join(plain)} are "
            f"not annotated `Dual`, so they receive plain values. Annotate the ones that "
            f"take Duals, e.g. `def rule(x: fwdad.Dual) -> fwdad.Dual:` (parameters "
            f"without the annotation get the primal only).")
    return FwdadError(
        f"{name}{in_user_code()}: {what} has a derivative (it depends on the "
        f"differentiated inputs), and the rule of {name} takes it as a constant, so its "
        f"derivative would be lost. Pass a value that does not depend on the inputs "
        f"there; or, in a rule of your own, annotate that parameter `Dual` and "
        f"differentiate it.")


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
