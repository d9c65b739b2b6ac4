"""The three kinds of call, read from the generated code itself (the plain rule: the
optimized one inlines what it can), and rules built once."""
import math

import numpy as np

import fwdad
from fwdad.core.duals import const
from fwdad.core.lazy_rule import LazyRule
from fwdad.dual import Dual
from fwdad.forward import dispatch
from fwdad.forward.cache import derived_rules
from fwdad.forward.derive import build_rule
from fwdad.rules import registry
from fwdad.rules.registry import get_frule


def helper(v):
    return v * 2.0


def uses_all_three(x, fn):
    a = math.sin(x)          # primitive
    b = helper(a)            # static call
    c = fn(b)                # dynamic call
    return c


def bound_constants(rule):
    """The closure constants of a generated rule, by name."""
    return {name: cell.cell_contents
            for name, cell in zip(rule.__code__.co_freevars, rule.__closure__)}


def plain_rule(fn):
    return build_rule(fn, optimized=False)


def test_primitive_call_binds_the_registered_frule():
    rule = plain_rule(uses_all_three)
    assert "a = _fw_sin(x)" in rule.source
    assert bound_constants(rule)["_fw_sin"] is get_frule(math.sin)


def test_static_call_goes_through_the_derived_rule():
    rule = plain_rule(uses_all_three)
    assert "b = _fw_helper(a)" in rule.source
    lazy = bound_constants(rule)["_fw_helper"]
    assert isinstance(lazy, LazyRule) and lazy.fn is helper
    rule(Dual(0.3, 1.0), const(math.cos))
    assert lazy.rule is dispatch.derived_rule(helper)


def test_dynamic_call_goes_through_the_runtime_cache():
    rule = plain_rule(uses_all_three)
    assert "c = _fw_call(fn, b)" in rule.source
    assert bound_constants(rule)["_fw_call"] is dispatch.call
    _, dx = fwdad.jvp(uses_all_three, (0.3, math.cos), (1.0, None))
    assert math.isclose(dx, -math.sin(2 * math.sin(0.3)) * 2 * math.cos(0.3))
    assert math.cos in dispatch._RUNTIME


def test_methods_dispatch_on_the_type_of_self():
    def total(a):
        return a.sum()
    _, da = fwdad.jvp(total, (np.ones(3),), (np.arange(3.0),))
    assert da == 3.0
    assert (np.ndarray, "sum") in dispatch._RUNTIME


def fresh_function(x):
    return math.exp(x) * x


def test_repeated_jvp_transforms_the_function_once():
    before = derived_rules.counters.misses
    for _ in range(3):
        fwdad.jvp(fresh_function, (0.5,), (1.0,))
    assert derived_rules.counters.misses == before + 1
    assert fresh_function in derived_rules


def test_derive_frule_keeps_plain_calls_and_exposes_the_rule():
    @fwdad.derive_frule
    def f(x, k):
        return x * math.sin(k * x)
    assert f(0.5, 2.0) == 0.5 * math.sin(1.0)
    out = f.frule(fwdad.Dual(0.5, 1.0), fwdad.Dual(2.0, 0.0))
    assert math.isclose(out.tangent, math.sin(1.0) + 0.5 * math.cos(1.0) * 2.0)
    assert f.frule is f.frule
    assert "def f_frule(x, k):" in f.frule.source
    assert fwdad.jvp(f, (0.5, 2.0), (1.0, 0.0))[1] == out.tangent


def test_frule_registers_a_hand_written_rule(restore_rules):
    def cube(x):
        return x ** 3

    @fwdad.frule(cube)
    def _cube(x: fwdad.Dual) -> fwdad.Dual:
        return fwdad.Dual(cube(x.primal), 3 * x.primal ** 2 * x.tangent * 10)  # marked

    assert fwdad.is_primitive(cube)

    def g(x):
        return cube(x) + 1.0
    _, dx = fwdad.jvp(g, (2.0,), (1.0,))
    assert dx == 120.0  # the hand-written rule ran, not a derived one


def test_is_primitive():
    assert fwdad.is_primitive(math.sin) and fwdad.is_primitive(np.sin)
    assert not fwdad.is_primitive(helper)


def inner_step(x):
    return x * 3.0


def outer_step(x):
    return inner_step(x) + 1.0


def test_a_rule_registered_later_replaces_the_derived_one(restore_rules):
    assert fwdad.jvp(outer_step, (1.0,), (1.0,)) == (4.0, 3.0)

    @fwdad.frule(inner_step)
    def _inner_step(x: fwdad.Dual) -> fwdad.Dual:  # deliberately not the derivative
        return fwdad.Dual(inner_step(x.primal), 100.0 * x.tangent)

    assert fwdad.jvp(outer_step, (1.0,), (1.0,)) == (4.0, 100.0)


def test_rules_registered_by_a_test_are_gone_after_it():
    assert not any(getattr(e.primal, "__name__", "") in ("cube", "inner_step")
                   for e in registry.entries())


def scale(x, k):
    return x * k


def test_jvp_of_a_partial():
    import functools
    assert fwdad.jvp(functools.partial(scale, k=2.0), (1.5,), (1.0,)) == (3.0, 2.0)


class Scale:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return self.k * x


SCALE = Scale(2.0)


def call_bound(x, method):
    return method(x)


def call_unbound(x, function):
    return function(SCALE, x) * x


def test_a_method_met_bound_and_then_unbound_at_one_call_site_kind():
    """`m = s.apply; m(x)` and `Scale.apply(s, x)` are different calls of one function:
    the first passes the instance itself."""
    assert fwdad.jvp(lambda x: call_bound(x, SCALE.apply), (1.5,), (1.0,)) == (3.0, 2.0)
    assert fwdad.jvp(lambda x: call_unbound(x, Scale.apply), (1.5,), (1.0,)) == (4.5, 6.0)
    assert fwdad.hessian(lambda x: call_unbound(x, Scale.apply))(1.5) == 4.0
    assert fwdad.hessian(lambda x: call_bound(x, SCALE.apply) ** 2)(1.5) == 8.0
