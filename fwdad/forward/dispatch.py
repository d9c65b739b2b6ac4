"""Per call site: primitive, static call (a lazily derived rule) or dynamic call.

`static_rule` decides when the rule is built, for a callee known then; `call` decides
at run time, per callee, for a callee held in a variable, and caches the decision.
"""
from __future__ import annotations

import types
from typing import Any, Callable, Dict, FrozenSet, Optional

from fwdad import construction
from fwdad.callables import is_bound_c_method
from fwdad.core import entry_points, rebinding
from fwdad.core.closures import DerivedClosure
from fwdad.core.lazy_rule import LazyRule
from fwdad.dual import Dual
from fwdad.forward import callables, constructors, fixed_calls, records
from fwdad.forward.cache import derived_rules
from fwdad.forward.constant_calls import MissingRule
from fwdad.forward.routes import Specialized
from fwdad.probe import probe
from fwdad.rules.registry import get_frule, on_register
from fwdad.source import is_foreign, is_generated, python_function, required_python_function


def _forget_derived_rules(fn: Any) -> None:
    """A new frule may replace a callee that derived rules call through a rule derived
    before: drop them all, so that each is built again, with the new rule, on use."""
    derived_rules.clear()
    _RUNTIME.clear()
    _SPECIALIZED.clear()
    for lazy in list(LazyRule.made):
        lazy.rule = None


on_register(_forget_derived_rules)
rebinding.on_forget(lambda: _forget_derived_rules(None))  # (a global rebound)


def derived_rule(fn: Callable) -> Callable:
    """The derived rule of a Python function, built on first use and cached."""
    if is_generated(fn):  # higher order: the rule of a generated rule
        from fwdad.forward.nested.levels import build_rule_of_rule as build
    else:
        from fwdad.forward.derive import build_rule as build
    return derived_rules.get(required_python_function(fn), build)


# ---- when the rule is built: static calls -------------------------------------------
def static_rule(fn: Any, location: str) -> Callable:
    """What generated code should call for a callee known when the rule is built."""
    rule = get_frule(fn) or records.rule_for(fn)
    if rule is not None and is_bound_c_method(fn):  # (`PUT = STORE.append`: the rule
        return constructors.bound_rule(rule, fn.__self__)  # of list.append, and STORE)
    if rule is not None:
        return rule
    if construction.is_user_class(fn) or records.is_namedtuple_class(fn):
        return constructors.class_rule(fn, location)  # (a library's NamedTuple, too:
        # np.linalg's results, which rules build, and second order builds again)
    creates = probe(fn, "_fw_creates", None)
    if creates is not None:  # a constructor's rule, differentiated again (second order)
        from fwdad.forward.nested.constructors import class_rule_of_rule  # (imports us)
        return class_rule_of_rule(creates)
    caller = None if _is_function_like(fn) else callables.caller_of(fn)
    if caller is not None:  # a partial, an itemgetter, an object with __call__
        return callables.static_caller(fn, caller)
    if is_foreign(fn) and not is_generated(fn):  # (a rule derived from a library's
        return MissingRule(fn, location)  # code, np.r_'s __getitem__: second order)
    if isinstance(fn, types.MethodType):  # e.g. a classmethod reached through its class
        return constructors.bound_rule(LazyRule(fn.__func__), fn.__self__)
    return LazyRule(python_function(fn))  # get_source says why if there is no source


def specialized_rule(fn: Callable, constants: FrozenSet[int]) -> Optional[Callable]:
    """The rule of the Python function `fn` for calls whose arguments at the positions
    `constants` have zero tangents (forward/routes.Specialized), or None when `fn` has
    no derived rule (a registered one, a class, a record). Cached per call pattern."""
    key = (fn, constants)
    rule = _SPECIALIZED.get(key, _UNKNOWN)
    if rule is _UNKNOWN:
        if len(_SPECIALIZED) > _MAX_SPECIALIZED:  # (lambdas made anew on each call)
            _SPECIALIZED.clear()
        lazy = static_rule(fn, "")
        rule = _SPECIALIZED[key] = \
            Specialized(lazy, constants) if type(lazy) is LazyRule else None
    return rule


_SPECIALIZED: Dict[tuple, Optional[Callable]] = {}
_MAX_SPECIALIZED = 4096
_UNKNOWN = object()


# ---- at run time: dynamic calls -------------------------------------------------------
Caller = Callable[[Dual, tuple, dict], Dual]
_RUNTIME: Dict[Any, Caller] = {}


def call(f: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """A dynamic call: `f` is only known now. The callee is resolved once per key
    (a function, a method of a type, a class) and the decision cached."""
    fn = f.primal
    key = _callee_key(fn)
    try:
        caller = _RUNTIME[key]
    except KeyError:
        caller = _RUNTIME[key] = _runtime_caller(key, fn)
    except TypeError:  # an unhashable callable
        caller = _runtime_caller(key, fn)
    return caller(f, args, kwargs)


def _callee_key(fn: Any) -> Any:
    if isinstance(fn, types.MethodType):  # (not the key of the function met unbound:
        return (_BOUND, fn.__func__)       # `m = s.apply; m(x)`, then `Scale.apply(s, x)`)
    if isinstance(fn, types.MethodWrapperType):  # e.g. super().__setattr__
        return (fn.__objclass__, fn.__name__)
    if is_bound_c_method(fn):
        return (type(fn.__self__), fn.__name__)
    if isinstance(fn, (types.FunctionType, type, types.BuiltinFunctionType)):
        return fn
    # Partials, callable objects, ufuncs: one entry per type, which must not be the
    # entry of the class itself (`cls(...)` builds; `instance(...)` calls).
    return (_INSTANCE_OF, type(fn))


_INSTANCE_OF = "instance of"
_BOUND = "bound"


def method_of(key: tuple) -> Any:
    """The function whose rule a bound method's call runs, from its `_callee_key`: a
    Python method's function, or a C method looked up on its type."""
    return key[1] if key[0] is _BOUND else getattr(*key)


def _is_function_like(fn: Any) -> bool:
    return isinstance(fn, (types.FunctionType, types.MethodType, types.BuiltinFunctionType,
                           types.BuiltinMethodType, types.MethodWrapperType,
                           types.WrapperDescriptorType, types.MethodDescriptorType,
                           type, LazyRule, MissingRule))


def _runtime_caller(key: Any, fn: Any) -> Caller:
    """How to call what a dynamic call site met."""
    if isinstance(fn, (types.MethodType, types.MethodWrapperType)) or \
            is_bound_c_method(fn):
        return _with_self(static_rule(method_of(key), ""))
    if isinstance(fn, DerivedClosure):
        return lambda f, args, kwargs: f.primal.call_rule(args, kwargs)
    if not callable(fn):
        return _not_callable
    caller = None if get_frule(fn) is not None else callables.caller_of(fn)
    return caller if caller is not None else _direct()


def _direct() -> Caller:
    """Calls the callee's own rule (registered, derived or a constructor), found once
    per callee (a key like `np.ufunc` covers many callees)."""
    rules: Dict[Any, Callable] = {}

    def direct(f: Dual, args: tuple, kwargs: dict) -> Dual:
        fn = f.primal
        try:
            rule = rules.get(fn)
        except TypeError:  # an unhashable callee (a weakref to an array hashes as it)
            return static_rule(fn, "")(*args, **kwargs)
        if rule is None:
            rule = rules[fn] = static_rule(fn, "")
        return rule(*args, **kwargs)
    return direct


def _with_self(rule: Callable) -> Caller:
    """A bound method: its tangent is the tangent of the object it is bound to."""
    def bound(f: Dual, args: tuple, kwargs: dict) -> Dual:
        return rule(Dual(f.primal.__self__, f.tangent), *args, **kwargs)
    return bound


def _not_callable(f: Dual, args: tuple, kwargs: dict) -> Dual:
    raise TypeError(f"'{type(f.primal).__name__}' object is not callable")


entry_points.install(dynamic_call=call, derived=derived_rule,  # (for rules: core/entry_points)
                     static=static_rule, fixed=fixed_calls.fixed_rule)
