"""Calls with every argument active, keyed on kinds inline (forward/keyed.py): the first
such call builds the variant for its signature, later calls of that signature run it
after an inline test, and calls of other kinds run the general body. Every derivative
is checked against the plain rule and central differences."""
import math

import numpy as np
import pytest

from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.forward.optimizer.kind_tests import MISS
from fwdad.tangents import NoTangent
from tests.util import assert_close, assert_same, fd_jvp, run_rule


def energy(x, a):
    b = a[1:] - a[:-1]
    return x * np.sum(b * b)


def tiny(x, y):
    return math.sin(x) * y + x


A = np.array([0.3, -0.7, 1.1, 0.4])


def _keyed(rule):
    """What the general rule's `_fw_keyed` cell holds (a KeyedCall before the first
    call, then a variant or None); the rule has no such cell where nothing is left
    to key."""
    code = rule.__code__
    return rule.__closure__[code.co_freevars.index("_fw_keyed")].cell_contents


def _checked(rule, args, tangents, fd=True):
    """The rule's result equals the plain rule's, and its tangent central differences."""
    got = run_rule(rule, args, tangents)
    assert_same(got, run_rule(build_rule(energy, optimized=False), args, tangents))
    if fd:
        want = fd_jvp(energy, args, [0.0 if t is NoTangent else t for t in tangents])
        assert_close(got[0][1], want)


def test_the_first_call_with_every_argument_active_builds_the_keyed_variant():
    """The general rule leaves the slices of `a` to rule calls (it may be a list); the
    variant for a float and a float64 vector inlines them, and tests its kinds first."""
    rule = build_rule(energy)
    assert "_fw_getitem(" in rule.source and "_fw_keyed" in rule.source
    _checked(rule, (0.5, A), (1.0, np.ones(4)))
    variant = _keyed(rule)
    assert callable(variant) and "_fw_getitem(" not in variant.source
    assert "a.primal.ndim == 1" in variant.source.splitlines()[3]
    _checked(rule, (-1.5, 2.0 * A), (0.5, A))  # the same kinds again: the variant
    assert _keyed(rule) is variant


LATER = [
    ((0.5, A.reshape(2, 2)), (1.0, np.ones((2, 2)))),            # another rank
    ((0.5, A.astype(np.float32)), (1.0, np.ones(4, np.float32))),  # float32
    ((np.float64(0.5), A), (1.0, np.ones(4))),                   # a NumPy float for x
    ((0.5, [0.3, -0.7, 1.1]), (1.0, [1.0, 2.0, 0.5])),           # a list
    ((2, A), (NoTangent, np.ones(4))),                           # an int for x
]


@pytest.mark.parametrize("args, tangents", LATER,
                         ids=["rank", "float32", "npfloat", "list", "int"])
def test_calls_of_other_kinds_run_the_general_body(args, tangents):
    rule = build_rule(energy)
    _checked(rule, (0.5, A), (1.0, np.ones(4)))
    variant = _keyed(rule)
    assert variant(*[Dual(a, t) for a, t in zip(args, tangents)]) is MISS
    fd = not isinstance(args[1], list) and args[1].dtype == np.float64 and \
        tangents[0] is not NoTangent
    _checked(rule, args, tangents, fd=fd)


def test_a_first_call_of_kinds_no_inline_test_decides_keeps_the_general_body():
    rule = build_rule(energy)
    _checked(rule, (0.5, [0.3, -0.7, 1.1]), (1.0, [1.0, 2.0, 0.5]), fd=False)
    assert _keyed(rule) is None
    _checked(rule, (0.5, A), (1.0, np.ones(4)))


def test_a_rule_with_every_line_inlined_has_nothing_to_key():
    """tiny's general rule makes no rule call: no keyed lines (its guard is all)."""
    rule = build_rule(tiny)
    assert "_fw_keyed" not in rule.source


def test_no_variant_past_the_cap():
    rule = build_rule(energy)
    routes = rule.routes
    routes.variants.update({("full", i): None for i in range(64)})
    _checked(rule, (0.5, A), (1.0, np.ones(4)))
    assert _keyed(rule) is None


def _helper(x, y):
    return x * y


def calls_a_helper(x, y):
    return _helper(x, y) + np.sin(x)


def test_a_rule_whose_calls_no_kind_inlines_has_nothing_to_key():
    """The call of a derived rule, and `+` on its result (whose tangent may hold a batch
    axis the inputs do not show), stay calls whatever the kinds: no keyed lines."""
    rule = build_rule(calls_a_helper)
    assert "_fw_keyed" not in rule.source
    got = run_rule(rule, (0.5, 1.5), (1.0, 0.5))
    assert_same(got, run_rule(build_rule(calls_a_helper, optimized=False),
                              (0.5, 1.5), (1.0, 0.5)))
