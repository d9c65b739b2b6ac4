"""The unbox pass: instances of plain classes become locals where that cannot change
what the function does, and stay instances everywhere else.

Every row runs in both modes against the same function with the pass left out (a copy
of the function built with fwdad.normalize.UNBOX off) and against finite differences.
"""
import copy
import dataclasses
import re
import types

import numpy as np
import pytest

import fwdad
from fwdad.codegen import render
from fwdad.forward.derive import build_rule
from fwdad.normalize import normalize, plain_classes
from fwdad.source import get_source
from fwdad.tangents import inner, random_tangent
from fwdad.testing import test_rule as check_rule
from fwdad.testing.finite_differences import directional
from tests.normalize import unbox_cases as cases
from tests.normalize.unbox_cases import KEPT, UNBOXED


def normalized_text(fn, unboxed=True):
    return render(normalize(get_source(fn), unboxed=unboxed))


def boxed_copy(fn):
    """`fn` again as a new function object: the rule caches have no rule for it."""
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)


@pytest.fixture
def boxed(monkeypatch):
    """Runs `call(copy of fn)` with the unbox pass off while its rules are built."""
    def run(fn, call):
        monkeypatch.setattr(fwdad.normalize, "UNBOX", False)
        try:
            return call(boxed_copy(fn))
        finally:
            monkeypatch.setattr(fwdad.normalize, "UNBOX", True)
    return run


def tangents(row, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(random_tangent(a, rng) for a in row.args)


def fresh(row):
    """The row's arguments, copied (a row may update an argument in place)."""
    return copy.deepcopy(row.args)


@pytest.mark.parametrize("row", UNBOXED, ids=str)
def test_unboxed_code_has_the_fields_as_locals(row):
    text = normalized_text(row.fn)
    for name in row.fields:
        assert f"{name} = " in text, text
    for instance in {name.split("_")[0] for name in row.fields}:
        assert f"getattr({instance}, " not in text, text
        remade = re.search(rf"^ *{instance} = ", text, re.MULTILINE) is not None
        assert remade == row.escapes, text  # made again where it escapes
    assert (re.search(r"__\w+_fields\(", text) is not None) == row.passes, text
    assert text != normalized_text(row.fn, unboxed=False)


@pytest.mark.parametrize("row", KEPT, ids=str)
def test_kept_code_is_left_as_it_was(row):
    assert normalized_text(row.fn) == normalized_text(row.fn, unboxed=False)


@pytest.mark.parametrize("row", UNBOXED, ids=str)
def test_unboxed_rules_are_optimized(row):
    rule = build_rule(row.fn)
    assert rule.source.startswith("# optimized forward rule"), rule.source
    for name in row.fields:
        assert name in rule.source


@pytest.mark.parametrize("row", UNBOXED + KEPT, ids=str)
def test_forward_matches_the_boxed_rule_and_finite_differences(row, boxed):
    direction = tangents(row)
    want = boxed(row.fn, lambda f: fwdad.jvp(lambda *a: f(*a, **row.kwargs), fresh(row),
                                             direction))
    got = fwdad.jvp(lambda *a: row.fn(*a, **row.kwargs), fresh(row), direction)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-13)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-14)
    check_rule(row.fn, *row.args, **row.kwargs)  # finite differences, batches, primal


@pytest.mark.parametrize("row", UNBOXED + KEPT, ids=str)
def test_reverse_matches_the_boxed_rule_and_finite_differences(row, boxed):
    def f(*args):
        return row.fn(*args, **row.kwargs)
    direction = tangents(row)
    out, pullback = fwdad.vjp(f, *fresh(row))
    ct = random_tangent(out, np.random.default_rng(1))
    got = pullback(ct)
    want = boxed(row.fn, lambda g: fwdad.vjp(lambda *a: g(*a, **row.kwargs),
                                             *fresh(row))[1](ct))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    fd = directional(f, row.args, {}, direction, (ct, [0.0 * np.asarray(a) for a in
                                                       row.args]))
    np.testing.assert_allclose(inner(got, direction), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("row", [r for r in UNBOXED if len(r.args) == 2
                                 and all(type(a) is float for a in r.args)], ids=str)
def test_second_order_matches_the_boxed_rule(row, boxed):
    point = np.array(row.args)
    want = boxed(row.fn, lambda f: fwdad.hessian(lambda v: f(v[0], v[1]))(point))
    got = fwdad.hessian(lambda v: row.fn(v[0], v[1]))(point)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def write_frozen(a):
    f = cases.Frozen(a, a)
    f.a = 2.0
    return f.a


def test_a_frozen_instance_still_refuses_writes():
    assert normalized_text(write_frozen) == normalized_text(write_frozen, unboxed=False)
    with pytest.raises((dataclasses.FrozenInstanceError, fwdad.FwdadError)):
        fwdad.jvp(write_frozen, (0.5,), (1.0,))


PLAIN = [cases.State, cases.Point, cases.Frozen, cases.Slotted, cases.Pair,
         cases.PlainSlots]
NOT_PLAIN = [cases.PostInit, cases.Clamped, cases.Guarded, cases.NotInInit,
             cases.Overriding, int, np.ndarray, type("Meta", (type,), {})("M", (), {})]


@pytest.mark.parametrize("cls", PLAIN, ids=lambda c: c.__name__)
def test_plain_classes_have_a_layout(cls):
    layout = plain_classes.layout(cls)
    assert layout is not None and layout.cls is cls
    instance = cls(*[0.0] * (len(layout.params) - len(layout.keyword_only)))
    assert all(hasattr(instance, name) for name in layout.fields)


@pytest.mark.parametrize("cls", NOT_PLAIN, ids=lambda c: c.__name__)
def test_other_classes_have_none(cls):
    assert plain_classes.layout(cls) is None
