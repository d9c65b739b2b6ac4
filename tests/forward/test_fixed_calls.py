"""The rule chosen once for many calls of arguments of fixed kinds (forward/fixed_calls.py,
what an ODE right-hand side runs at every step): the variant for the constant positions,
no guard, the same Dual as the rule through dispatch; the rule itself where a variant
would not be right for every such call."""
import numpy as np
import pytest

from fwdad.core import entry_points
from fwdad.dual import Dual
from fwdad.forward import dispatch
from fwdad.forward.fixed_calls import fixed_rule
from tests.util import assert_close


def forced(t, y, k):
    a, b = y
    return [b, -k * a + np.cos(t) * b]


def line(t, y, k):
    return k * (np.roll(y, 1) - 2.0 * y) + np.sin(t) * y


def spread(t, *ys):
    return [y * t for y in ys]


def test_installed_as_an_entry_point_for_rules():
    assert entry_points.fixed_rule is fixed_rule


@pytest.mark.parametrize("f, y, dy", [(forced, np.array([0.3, -1.2]), np.array([1.0, 0.5])),
                                      (line, np.linspace(0.1, 0.9, 5), np.ones(5))],
                         ids=["numbers", "arrays"])
def test_the_variant_for_a_constant_time_gives_what_the_rule_gives(f, y, dy):
    args = (Dual(0.7, 0.0), Dual(y, dy), Dual(np.float64(1.3), np.float64(-0.4)))
    chosen = fixed_rule(dispatch.static_rule(f, ""), args, frozenset((0,)))
    assert "for t with no tangent" in chosen.source  # (the variant, with no guard)
    assert "_fw_batched" not in chosen.source
    for t in (0.7, 2.5):  # (called again with other values of the same kinds)
        args = (Dual(t, 0.0),) + args[1:]
        want, got = dispatch.call(Dual(f, None), *args), chosen(*args)
        assert_close(np.asarray(got.primal), np.asarray(want.primal))
        assert_close(np.asarray(got.tangent), np.asarray(want.tangent))


def test_batched_tangents_get_the_variant_for_their_kinds():
    lazy = dispatch.static_rule(line, "")
    y, dy = np.linspace(0.1, 0.9, 4), np.arange(12.0).reshape(3, 4)
    args = (Dual(0.7, 0.0), Dual(y, dy), Dual(1.0, np.array([1.0, -1.0, 0.5])))
    chosen = fixed_rule(lazy, args, frozenset((0,)))
    assert "for batched tangents" in chosen.source
    want, got = dispatch.call(Dual(line, None), *args), chosen(*args)
    assert_close(got.primal, want.primal)
    assert_close(got.tangent, want.tangent)
    assert got.tangent.shape == (3, 4)


def test_a_constant_with_no_named_parameter_keeps_the_guarded_rule():
    lazy = dispatch.static_rule(spread, "")
    args = (Dual(0.5, 1.0), Dual(2.0, 1.0), Dual(3.0, 0.0))
    chosen = fixed_rule(lazy, args, frozenset((2,)))  # (*ys: no key entry for it)
    assert chosen is lazy.rule
    assert chosen(*args).tangent == [2.5, 3.0]
