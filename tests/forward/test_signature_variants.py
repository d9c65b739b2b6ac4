"""The one-tangent optimized rule keyed on its arguments' signature (forward/routes.py:
which parameters have no tangent, and the kind of each positional argument,
forward/optimizer/kinds.py): a call of other kinds than the ones seen first runs the
variant for its own kinds, whose derivative is right (against central differences and
the plain rule), never the variant built for the first."""
import math
import types

import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.forward import float_calls, routes
from fwdad.forward.derive import build_rule
from fwdad.forward.optimizer.kinds import FLOAT, OTHER, kind_of
from fwdad.forward.routes import KINDS, unkinded_key
from fwdad.tangents import NoTangent
from tests.util import assert_close, assert_same, fd_jvp, run_rule

F64 = np.dtype("float64")


class Sub(np.ndarray):
    """A subclass of ndarray: its operators may be its own, so its kind is OTHER."""


def mixed(x, s):
    y = np.sin(x) * s
    return np.sum(y + np.multiply(x, x))


def _as_float64(value):
    """The value as float64 (lists kept lists): the finite differences' point."""
    if isinstance(value, list):
        return [float(v) for v in value]
    return np.asarray(value, dtype=float) if isinstance(value, np.ndarray) else float(value)


X = np.array([0.3, -0.7, 1.1])
LATER = [
    (X, 3),                                       # an int where a float was seen
    (np.array([[0.3, -0.7], [1.1, 0.2]]), 2.0),   # another number of axes
    (X.astype(np.float32), 2.0),                  # float32
    (X.copy().view(Sub), 2.0),                    # an ndarray subclass
    ([0.3, -0.7, 1.1], 2.0),                      # a list where an array was seen
    ([0.3, -0.7], 2.0),                           # a list of another length
]


@pytest.mark.parametrize("x, s", LATER,
                         ids=["int", "rank", "float32", "subclass", "list", "list-length"])
def test_a_call_of_other_kinds_runs_a_variant_right_for_them(x, s):
    """First jvp along x with s a constant float and x a float64 vector, then one of
    other kinds of the same function: its derivative is the finite differences' and the
    plain rule's, and it ran the variant for its own signature."""
    f = _fresh(mixed)
    _, dy = fwdad.jvp(f, (X, 2.0), (np.ones(3), None))
    assert_close(dy, fd_jvp(mixed, (X, 2.0), (np.ones(3), 0.0)))
    dx = [0.5 * (i + 1) for i in range(len(x))] if isinstance(x, list) else \
        np.ones_like(x)
    _, dy = fwdad.jvp(f, (x, s), (dx, None))
    want = fd_jvp(mixed, (_as_float64(x), float(s)), (_as_float64(dx), 0.0))
    assert_close(dy, want, rtol=1e-4 if np.asarray(x).dtype == np.float32 else 1e-6)
    rule = _routes_of(f)
    assert {unkinded_key(key)[1] for key in rule.variants} == \
        {(kind_of(X), FLOAT), (kind_of(x), kind_of(s))}
    variant = rule.variant(rule.key((Dual(x, dx), Dual(s, NoTangent)), {}) + (
        (KINDS, (kind_of(x), kind_of(s))),))
    assert_same(run_rule(variant, (x, s), (dx, NoTangent)),
                run_rule(build_rule(mixed, optimized=False), (x, s), (dx, NoTangent)))


def test_jvp_with_a_constant_argument_is_keyed_on_kinds():
    """jvp given None for s goes to the variant for s constant and these kinds: x known
    to be a float array, the NumPy templates on it are inlined with no test of lists."""
    _, dy = fwdad.jvp(mixed, (X, 2.0), (np.ones(3), None))
    assert_close(dy, fd_jvp(mixed, (X, 2.0), (np.ones(3), 0.0)))
    variants = _routes_of(mixed).variants
    (key, variant), = [(k, v) for k, v in variants.items() if k[0] == ("s", routes.FLOAT)]
    assert unkinded_key(key)[1] == (("array", 1, F64), FLOAT)
    assert "_fw_np_sin(" in variant.source and "_fw_sequences" not in variant.source, \
        variant.source


def pair_sum(p, w):
    return p[0] * np.sin(w) + p[1] * w


def test_a_tuple_argument_has_its_items_kinds():
    f, w = _fresh(pair_sum), np.array([0.4, 0.9])
    for p, want in (((2.0, np.array([1.0, -1.0])), 2.0 * np.cos(w) + np.array([1.0, -1.0])),
                    ((2, 3.0), 2 * np.cos(w) + 3.0)):  # (other items: another variant)
        _, dy = fwdad.jvp(f, (p, w), (None, np.ones(2)))
        assert_close(dy, want)
    assert {unkinded_key(key)[1] for key in _routes_of(f).variants} == {
        (("tuple", (FLOAT, ("array", 1, F64))), ("array", 1, F64)),
        (("tuple", (("int",), FLOAT)), ("array", 1, F64))}


def test_kinds_of_sequences():
    assert kind_of([1.0, 2]) == ("list", (FLOAT, ("int",)))
    assert kind_of(([1.0],)) == ("tuple", (("list", (FLOAT,)),))
    assert kind_of([0.0] * 9) == OTHER  # (longer than MAX_ITEMS)
    assert kind_of([[[[1.0]]]]) == ("list", (("list", (("list", (OTHER,)),)),))
    looped = []
    looped.append(looped)
    assert kind_of(looped)[0] == "list"  # (a list that holds itself: depth-limited)
    assert kind_of({"a": 1.0}) == ("dict", (("a", FLOAT),))  # (string keys: its own)
    assert kind_of({1: 1.0}) == OTHER


def scaled(x, n):
    return x * n + np.sin(x)


def test_past_the_cap_calls_fall_back_to_the_variant_without_kinds(monkeypatch):
    """After _MAX_VARIANTS keys, a new signature runs the variant for its parameters
    with no tangent alone (built with no kinds), still right."""
    monkeypatch.setattr(routes, "_MAX_VARIANTS", 1)
    f = _fresh(scaled)
    for n in (2.0, 3, np.float32(1.5)):
        _, dy = fwdad.jvp(f, (np.full(2, 0.7), n), (np.ones(2), None))
        assert_close(dy, n + np.cos(np.full(2, 0.7)))
    kinds = [unkinded_key(key)[1] for key in _routes_of(f).variants]
    assert kinds == [(("array", 1, F64), FLOAT), None], kinds  # (3 and float32: one)


def test_float_calls_run_the_variant_for_floats_with_no_guard():
    """jvp of Python floats resolves the variant for float arguments once: the pattern
    is its guard, so its code tests nothing on entry."""
    def cubic(x, y):
        return x * x * y + math.cos(y)

    for tangents in ((1.0, 0.5), (1.0, 0.0)):
        _, got = fwdad.jvp(cubic, (0.5, 2.0), tangents)
        assert_close(got, fd_jvp(cubic, (0.5, 2.0), tangents))
        key = float_calls.pattern(cubic, (0.5, 2.0), tangents)
        resolved = float_calls._RESOLVED[key].rule
        assert "_fw_batched" not in resolved.source and "if " not in resolved.source, \
            resolved.source
    assert {unkinded_key(k)[1] for k in _routes_of(cubic).variants} == {(FLOAT, FLOAT)}


def _routes_of(fn):
    from fwdad.forward import dispatch
    return dispatch.derived_rule(fn).routes


def _fresh(fn):
    """A copy of `fn`: a function of its own, with a rule and variants of its own."""
    return types.FunctionType(fn.__code__, fn.__globals__)


def sine_weights(v, w):
    return np.sum(np.sin(v) * w)


def test_a_list_the_guard_turns_away_runs_the_variant_for_its_kinds():
    """A list where the general rule's NumPy template reads an array: the guard sends
    the call on, to the variant for a list of two floats (not the plain rule), which
    calls np.sin's rule on the list and inlines the rest."""
    rule = build_rule(sine_weights)
    v, dv, w = [0.2, 1.3], [1.0, -0.5], np.array([2.0, 3.0])
    out = rule(Dual(v, dv), Dual(w, np.ones(2)))
    assert_close(out.tangent, fd_jvp(sine_weights, (v, w), (dv, np.ones(2))))
    (key, variant), = rule.routes.variants.items()
    assert unkinded_key(key) == ((), (("list", (FLOAT, FLOAT)), ("array", 1, F64)))
    assert "_fw_sin(" in variant.source and "_fw_array_sum(" in variant.source, \
        variant.source
