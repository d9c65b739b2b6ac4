"""Per call site in reverse code: primitive (an rrule), static call (a derived reverse
rule, built on first use and cached), or dynamic call (resolved at run time, cached per
callee), as in forward mode.
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable, Dict

from fwdad import construction
from fwdad.callables import is_bound_c_method
from fwdad.core import rebinding
from fwdad.core.lazy_rule import LazyRule
from fwdad.core.rule_cache import RuleCache
from fwdad.errors import MissingRuleError, describe
from fwdad.reverse import callables, constructors
from fwdad.reverse.registry import get_rrule
from fwdad.reverse.rules_python import Method
from fwdad.reverse.specialize import SpecializedRule, specialized_rrules
from fwdad.reverse.tracked import holds_variable
from fwdad.rules.registry import is_primitive
from fwdad.source import is_foreign, python_function

derived_rrules = RuleCache(weak=True)  # Python function -> its derived reverse rule


def derived_rrule(fn: Callable) -> Callable:
    from fwdad.reverse.derive import build_rrule
    return derived_rrules.get(python_function(fn), build_rrule)


def _forget_derived_rrules() -> None:
    """A global that a rule resolved was rebound (core/rebinding.py): every reverse
    rule is built again on use."""
    derived_rrules.clear()
    specialized_rrules.clear()
    _RUNTIME.clear()
    for site in list(SpecializedRule.made):
        site.rules.clear()
    for lazy in list(LazyRule.made):
        lazy.rule = None


rebinding.on_forget(_forget_derived_rrules)


class Unruled:
    """A callee with no reverse rule: it runs on constants; with variables among its
    arguments it raises, naming the callee and saying how to register a rule."""

    __slots__ = ("fn", "location", "__name__")

    def __init__(self, fn: Any, location: str) -> None:
        self.fn, self.location = fn, location
        self.__name__ = getattr(fn, "__name__", "fn")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        rule = get_rrule(self.fn)  # registered since this call site was built?
        if rule is not None:
            return rule(*args, **kwargs)
        if not any(holds_variable(a) for a in (*args, *kwargs.values())):
            return self.fn(*args, **kwargs)
        raise missing_rrule_error(self.fn, args, self.location)


def missing_rrule_error(fn: Any, args: tuple, location: str) -> MissingRuleError:
    """`location`: ` in f at file.py:12` (errors.user_code's phrase), or empty."""
    kinds = ", ".join(type(a).__name__ for a in args)
    why = ("it has a forward rule but no reverse rule yet" if is_primitive(fn) else
           "it has no Python source (or is library code) and no rule")
    if describe(fn).startswith("fwdad."):
        why = ("fwdad's own transformations do not run on variables (reverse mode over "
               "reverse mode is not supported): take the inner gradient at constants")
    name = getattr(fn, "__name__", "f")
    return MissingRuleError(
        f"no reverse rule for {describe(fn)}({kinds}){location}: {why}. Register one:\n"
        f"    @fwdad.reverse.rrule({describe(fn)})\n"
        f"    def _{name}(x):\n"
        f"        return {name}(x), lambda ct: (ct * <derivative at x>,)\n"
        f"(docs/writing-rules.md, \"Reverse rules\")" + (
            ", or use forward mode (fwdad.jvp, fwdad.jacfwd), which has its frule."
            if is_primitive(fn) else "."))


# ---- when the rule is built: static calls --------------------------------------------
def static_rrule(fn: Any, location: str = "") -> Callable:
    """What reverse code calls for a callee known when the rule is built."""
    rule = get_rrule(fn)
    if rule is not None:
        return rule
    if is_bound_c_method(fn) and get_rrule(getattr(type(fn.__self__), fn.__name__,
                                                    None)) is not None:
        return functools.partial(get_rrule(getattr(type(fn.__self__), fn.__name__)),
                                 fn.__self__)  # np.add.at, np.random.normal, ...
    rule = constructors.namedtuple_method_rrule(fn)
    if rule is not None:
        return rule
    if construction.is_user_class(fn):
        return constructors.class_rrule(fn, location)
    caller = None if _is_function_like(fn) else callables.caller_of(fn)
    if caller is not None:  # a partial, an itemgetter, an object with __call__
        return caller
    if is_foreign(fn):
        return Unruled(fn, location)
    if isinstance(fn, types.MethodType):  # e.g. a classmethod reached through its class
        return functools.partial(SpecializedRule(fn.__func__), fn.__self__)
    return SpecializedRule(python_function(fn))


def _is_function_like(fn: Any) -> bool:
    return isinstance(fn, (types.FunctionType, types.MethodType, types.BuiltinFunctionType,
                           types.BuiltinMethodType, types.MethodWrapperType,
                           types.WrapperDescriptorType, types.MethodDescriptorType,
                           type, LazyRule, SpecializedRule, Unruled, ReverseClosure))


# ---- at run time: dynamic calls ------------------------------------------------------------
_RUNTIME: Dict[Any, Callable] = {}


def call(f: Any, *args: Any, **kwargs: Any) -> Any:
    """A dynamic call: the callee is only known now; resolved once per callee key."""
    t = type(f)
    if t is ReverseClosure:
        return f.rule(*args, **kwargs)
    if t is Method:
        return static_rrule(f.fn)(f.obj, *args, **kwargs)
    if t is types.MethodType:
        return rule_for(f.__func__)(f.__self__, *args, **kwargs)
    if is_bound_c_method(f):
        return rule_for(getattr(type(f.__self__), f.__name__))(f.__self__, *args, **kwargs)
    if t is types.MethodWrapperType:  # e.g. super().__setattr__
        return rule_for(getattr(f.__objclass__, f.__name__))(f.__self__, *args, **kwargs)
    if not callable(f):
        raise TypeError(f"'{t.__name__}' object is not callable")
    if not _is_function_like(f) and get_rrule(f) is None:
        caller = callables.caller_of(f)  # (not cached: one entry per partial made)
        if caller is not None:
            return caller(*args, **kwargs)
    return rule_for(f)(*args, **kwargs)


def rule_for(fn: Any) -> Callable:
    try:
        rule = _RUNTIME.get(fn)
    except TypeError:
        return static_rrule(fn)
    if rule is None:
        rule = _RUNTIME[fn] = static_rrule(fn)
    return rule


class ReverseClosure:
    """A function defined inside a differentiated function; `rule` is its reverse code,
    which also runs on plain values."""

    __slots__ = ("rule", "__name__", "__qualname__")

    def __init__(self, rule: Callable) -> None:
        self.rule = rule
        self.__name__ = self.__qualname__ = rule.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.rule(*args, **kwargs)


def closure(rule: Callable) -> ReverseClosure:
    return ReverseClosure(rule)
