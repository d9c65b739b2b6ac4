"""The FIELDS variant keyed on the kinds of the fields it keeps in locals
(forward/routes.py, plain_instances.fields_kind, kind_flow: a field read of an instance
of kinds.fields_kind).

Each call runs the rule on Duals and compares the result and the instance after the
call, primal and tangent, with the plain rule's (the reference the optimized rule must
match), and the derivative with central finite differences (fwdad.testing.test_rule);
then checks which variant the call took: the one for its fields' kinds, another for
other kinds, or the general rule where the fields may not stay in locals.
"""
import copy

import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.forward import routes as routes_module
from fwdad.forward.derive import build_rule
from fwdad.forward.optimizer import kinds
from fwdad.forward.routes import FIELDS, unkinded_key
from fwdad.tangents import NoTangent, Tangent, random_tangent
from fwdad.testing import test_rule as check_rule

R = np.random.default_rng(5)


class Body:
    def __init__(self, a, n, t):
        self.a = a
        self.n = n
        self.t = t


def relax(s, k):
    """Writes its fields: a NumPy function, a reduction and operators on each."""
    s.a = s.a * k - np.sin(s.a) * s.n
    s.t = s.t + np.sum(np.cos(s.a)) * k
    return np.sum(s.a * s.a) + s.t * s.n


def spread(s, k):
    """Writes a field from another that NumPy reads as an array (a list too)."""
    s.t = s.t + k * np.sum(np.sin(s.a))
    return s.t * s.n


def energy(s, k):
    """Reads its fields only."""
    return k * np.sum(np.exp(-s.a)) + s.t * s.n


def duals(args, seed=0):
    rng = np.random.default_rng(seed)
    return [Dual(a, random_tangent(a, rng)) for a in copy.deepcopy(args)]


def assert_same(got, want):
    """Two results or two arguments after the call, primal and tangent alike."""
    for a, b in [(got.primal, want.primal), (got.tangent, want.tangent)]:
        if isinstance(a, (Tangent, Body)):
            assert type(a) is type(b) and vars(a).keys() == vars(b).keys()
            for key in vars(a):
                assert_equal(getattr(a, key), getattr(b, key))
        else:
            assert_equal(a, b)


def assert_equal(a, b):
    assert type(a) is type(b), (a, b)
    if a is None or a is NoTangent or isinstance(a, list):
        assert a == b
    else:
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def run_both(rule, args, seed=0):
    """The rule against the plain rule on the same Duals: results and the arguments."""
    given, reference = duals(args, seed), duals(args, seed)
    got, want = rule(*given), rule.unoptimized(*reference)
    assert_same(got, want)
    for a, b in zip(given, reference):
        assert_same(a, b)


def assert_differences(fn, fields, step, rtol):
    """The jvp of `fn` at Body(*fields) and k = 0.8, along a random direction of the
    float fields and k, against central differences of `fn` in float64 along it."""
    rng = np.random.default_rng(1)
    directions = [random_tangent(v, rng) for v in fields]
    dk = 1.0

    def at(h):
        moved = [v if d is NoTangent else _moved(v, d, h) for v, d in zip(fields, directions)]
        return fn(Body(*moved), 0.8 + h * dk)
    out = build_rule(fn)(Dual(Body(*copy.deepcopy(fields)), Tangent(**dict(zip(
        "ant", directions)))), Dual(0.8, dk))
    want = (np.float64(at(step)) - np.float64(at(-step))) / (2 * step)
    np.testing.assert_allclose(out.tangent, want, rtol=rtol)


def _moved(value, direction, h):
    if isinstance(value, list):
        return [v + h * d for v, d in zip(value, direction)]
    return (value + h * np.asarray(direction, np.float64)).astype(np.asarray(value).dtype) \
        if isinstance(value, np.ndarray) else type(value)(value + h * direction)


def field_kinds(rule):
    """The fields' kinds of each FIELDS variant of `rule` (None: built without kinds)."""
    out = []
    for key in rule.routes.variants:
        if ("s", FIELDS) in key:
            signature = unkinded_key(key)[1]
            out.append(None if signature is None else dict(
                zip(signature[0][1], signature[0][2])))
    return out


VECTOR, MATRIX = R.standard_normal(4), R.standard_normal((3, 2))
FIELD_KINDS = [  # (a, n, t): the fields' values, and what kind the variant has for a
    ("float-int-vector", (VECTOR, 2, 0.3), ("array", 1, np.dtype("float64"))),
    ("float-float-matrix", (MATRIX, 1.5, 0.3), ("array", 2, np.dtype("float64"))),
    ("float32-vector", (VECTOR.astype(np.float32), 2, 0.3),
     ("array", 1, np.dtype("float32"))),
    ("float-scalar", (0.7, 1.5, 0.3), kinds.FLOAT),
    ("numpy-scalar", (np.float64(0.7), 2, np.float64(0.3)), ("npfloat", np.dtype("float64"))),
    ("int-written-float", (VECTOR, 2.0, 3), ("array", 1, np.dtype("float64"))),  # t: 3
]


@pytest.mark.parametrize("fn", [relax, energy])
@pytest.mark.parametrize("name, fields, a_kind", FIELD_KINDS, ids=[r[0] for r in FIELD_KINDS])
def test_fields_of_each_kind_take_the_variant_for_their_kinds(fn, name, fields, a_kind):
    rule = build_rule(fn)
    run_both(rule, (Body(*fields), 0.8))
    (found,) = field_kinds(rule)
    assert found["a"] == a_kind
    assert found["n"] == kinds.kind_of(fields[1]) and found["t"] == kinds.kind_of(fields[2])
    if "float32" in name:  # (test_rule's step is below float32's resolution)
        assert_differences(fn, fields, step=1e-3, rtol=1e-3)
    else:
        check_rule(fn, Body(*copy.deepcopy(fields)), 0.8)  # differences, and batches


def test_the_variant_inlines_the_fields_numpy_arithmetic():
    rule = build_rule(relax)
    run_both(rule, (Body(VECTOR, 2.0, 0.3), 0.8))
    (key,) = [key for key in rule.routes.variants if ("s", FIELDS) in key]
    source = rule.routes.variants[key].source
    assert "arguments of these kinds" in source.splitlines()[0]
    assert "_fw_np_sin(_fw_a" in source and "_fw_np_cos(_fw_a" in source  # sin, its rule
    assert "_fw_sin(" not in source and "_fw_cos(" not in source  # no rule called
    assert "_fw_setattr(" not in source and source.count("_fw_getattr(") == 3


@pytest.mark.parametrize("first, then", [
    ((VECTOR, 2, 0.3), (VECTOR, 2.5, 0.3)),  # an int field, then a float
    ((VECTOR, 2.0, 0.3), (MATRIX, 2.0, 0.3)),  # a vector, then a matrix
    ((VECTOR, 2.0, 0.3), (VECTOR.astype(np.float32), 2.0, 0.3)),  # float64, float32
    ((0.7, 2.0, 0.3), (VECTOR, 2.0, 0.3)),  # a float, then an array
])
def test_a_field_of_another_kind_takes_another_variant(first, then):
    rule = build_rule(relax)
    for fields in (first, then, first):
        run_both(rule, (Body(*fields), 0.8))
    assert [kinds_["a"] for kinds_ in field_kinds(rule)] == [
        kinds.kind_of(first[0]), kinds.kind_of(then[0])]
    assert [kinds_["n"] for kinds_ in field_kinds(rule)] == [
        kinds.kind_of(first[1]), kinds.kind_of(then[1])]


def test_past_the_variant_cap_the_fields_variant_has_no_kinds(monkeypatch):
    monkeypatch.setattr(routes_module, "_MAX_VARIANTS", 2)
    rule = build_rule(relax)
    for a in (VECTOR, MATRIX, VECTOR.astype(np.float32), 0.7):
        run_both(rule, (Body(a, 2.0, 0.3), 0.8))
    found = field_kinds(rule)
    assert found[:2] == [{"a": kinds.kind_of(a), "n": kinds.FLOAT, "t": kinds.FLOAT}
                         for a in (VECTOR, MATRIX)]
    assert found[2:] == [None]  # every later call: the variant for no kinds


class Marked(np.ndarray):
    """An ndarray subclass, whose operators may be its own."""


@pytest.mark.parametrize("a", [
    VECTOR.view(Marked),  # a subclass of ndarray
    [0.5, 1.5],  # a list
    np.arange(3),  # an int array (a kind of its own: OTHER)
])
def test_a_field_the_variant_cannot_hold_takes_the_general_rule(a):
    rule = build_rule(spread)
    run_both(rule, (Body(VECTOR, 2.0, 0.3), 0.8))  # the variant for float fields first
    run_both(rule, (Body(copy.deepcopy(a), 2.0, 0.3), 0.8))
    (found,) = field_kinds(rule)  # not a plain instance's field, or one with no tangent
    assert found["a"] == ("array", 1, np.dtype("float64"))
    if type(a) is list:  # (test_rule's batches of a list field's tangents: see below)
        assert_differences(spread, (a, 2.0, 0.3), step=1e-6, rtol=1e-6)
    else:
        check_rule(spread, Body(copy.deepcopy(a), 2.0, 0.3), 0.8)


def test_a_batch_of_a_list_fields_tangents():
    """A list field read as an array (np.sin(s.a)) is made an array with its batch of
    tangents, as a list argument is: its FieldDual was passed on as a list."""
    da = [np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])]
    _, tangent = fwdad.batched_jvp(spread, (Body([0.5, 1.5], 2.0, 0.3), 0.8),
                                   (Tangent(a=da, t=np.zeros(3)), np.zeros(3)))
    np.testing.assert_allclose(tangent, 2.0 * 0.8 * np.cos([0.5, 1.5, 0.0]) * [1, 1, 0])


def test_a_field_kind_is_read_from_the_values_the_check_read():
    own = {"a": MATRIX, "n": 2, "t": 0.3}
    from fwdad.forward.plain_instances import fields_kind
    assert fields_kind(own, ("a", "n", "t")) == kinds.fields_kind(
        ("a", "n", "t"), (("array", 2, np.dtype("float64")), kinds.INT, kinds.FLOAT))


def test_a_scalar_tangent_of_an_array_field_takes_the_general_rule():
    """The variant's NumPy code reads an array field's tangent as an array."""
    rule = build_rule(relax)
    results = []
    for r in (rule, rule.unoptimized):
        s, d = Body(VECTOR.copy(), 2.0, 0.3), Tangent(a=0.0, n=1.0, t=1.0)
        results.append((r(Dual(s, d), Dual(0.8, 1.0)), Dual(s, d)))
    assert_same(results[0][0], results[1][0])
    assert_same(results[0][1], results[1][1])
    assert field_kinds(rule) == []


def weighted(s, k):
    """Float fields summed with another float: a + b of floats needs no shaping."""
    return s.a * k + s.t + s.n


def test_sums_of_float_fields_are_plain_sums():
    """A field read into a local of a float kind holds a real tangent (a Dual of a float
    has one), so `x + s.t` is `dx + dt`, not the rules' shaping (rules/operators.summed);
    right against the plain rule and central differences."""
    rule = build_rule(weighted)
    run_both(rule, (Body(0.7, 1.5, 0.3), 0.8))
    (key,) = [key for key in rule.routes.variants if ("s", FIELDS) in key]
    source = rule.routes.variants[key].source
    assert "_fw_summed" not in source, source
    assert_differences(weighted, (0.7, 1.5, 0.3), 1e-6, 1e-7)
