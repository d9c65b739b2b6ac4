"""Batched tangents: B tangents in one pass give what B one-at-a-time passes give,
including arrays created inside the function and updated in place with batched values
(see the Note in fwdad/rules/batching.py)."""
import copy

import numpy as np
import pytest

import fwdad
from fwdad.api import batched_jvp
from fwdad.errors import TangentError
from fwdad.rules.batching import batch, created_tangent, running_batch_size
from fwdad.tangents import random_tangent, stack, unstack
from tests.corpus import CORPUS, Example
from tests.util import assert_close

BATCH = 3


def setitem_into_zeros(x):
    a = np.zeros(3)
    a[1] = x[0] * 2.0
    return a


def augmented_zeros(x):
    a = np.zeros(3)
    a += x
    a *= x
    return a


def view_before_update(x):
    a = np.zeros(4)
    v = a[1:3]
    a[1] = x[0]
    v *= x[2]
    return a, v


def transposed_view(x):
    a = np.ones((2, 2))
    t = a.T
    a[0, 1] = x[1]
    return t * 1.0


def array_of_constants(x):
    a = np.array([1.0, 2.0, 3.0])
    a[0] = x[1] ** 2
    return a.sum() + a[0]


def list_setitem(x):
    values = [0.0, 1.0, 2.0]
    values[1] = x[0] * x[1]
    return np.array(values) + values[1]


def created_helpers(x):
    a = np.full(3, 2.0) + np.arange(3.0) + np.linspace(0.0, 1.0, 3)
    b = np.ones_like(x)
    b[2] = a[1] * x[2]
    e = np.eye(3)
    e[0] = x
    return b + e.sum(axis=0)


def nondiff_output_updated(x):
    a = np.floor(x)
    a[0] = x[1]
    return a


def scalar_accumulator(x):
    total = 0.0
    for i in range(3):
        total += x[i] * i
    return total


def out_into_array_of_constants(x):
    z = np.array([0.25, 0.5, 1.0])
    np.add(0.5, x * np.ones(3), out=z)
    return z * x[0]


IN_PLACE = [Example(f, (np.array([0.3, -1.2, 0.7]),)) for f in (
    setitem_into_zeros, augmented_zeros, view_before_update, transposed_view,
    array_of_constants, list_setitem, created_helpers, nondiff_output_updated,
    scalar_accumulator, out_into_array_of_constants)]


def _one_by_one(example, directions):
    return [fwdad.jvp(example.fn, copy.deepcopy(example.args), d)[1] for d in directions]


@pytest.mark.parametrize("example", CORPUS + IN_PLACE, ids=str)
def test_batched_jvp_equals_one_at_a_time(example):
    rng = np.random.default_rng(7)
    directions = [[random_tangent(a, rng) for a in example.args] for _ in range(BATCH)]
    stacked = [stack([d[i] for d in directions]) for i in range(len(example.args))]
    out, tangents = batched_jvp(example.fn, copy.deepcopy(example.args), stacked)
    assert_close(out, example.fn(*copy.deepcopy(example.args)), rtol=1e-12)
    for b, single in enumerate(_one_by_one(example, directions)):
        assert_close(unstack(tangents, b), single, rtol=1e-12, atol=1e-14)


def test_created_tangent_is_batched_only_inside_a_batched_call():
    assert np.shape(created_tangent(np.zeros(2))) == (2,)
    with batch(5):
        assert running_batch_size() == 5
        assert np.shape(created_tangent(np.zeros(2))) == (5, 2)
        assert created_tangent(1.0) == 0.0  # floats are immutable: no batch needed
    assert running_batch_size() is None


# ---- widening: a new array owns its tangent (tests/fuzz seeds 100003, 100004, ...) ------
# Each function differentiates x (argnums 0) and holds y constant; an array made inside
# it, or y itself, has an unbatched zero tangent until a batched value is written into
# it. Its tangent is then widened (fwdad/rules/widening.py) where nothing else shares it.
def linspace_then_setitem(x, y):
    z = np.linspace(-1.0, 1.0, 3)
    z[(1,)] = (x[0] * x[0]) / (1.0 + x[1] ** 4)
    z += -(0.5 * z)
    return np.sin(z)


def copy_of_constant_then_setitem(x, y):
    c = np.array(y)
    c[(0,)] = np.sin(x[0]) * x[1]
    d = np.copy(y)
    d[1] = x[1] ** 2
    e = y.copy()
    e[2:] = x[0]
    return c * d + e


def sums_of_constants_then_updated(x, y):
    a = y + 0.0
    a[0] = x[0] * x[1]
    b = np.arange(3) * 1.0
    b -= x[1]
    f = np.full(3, 2.0)
    f *= x[0]
    g = np.array([1.0, 2.0, 3.0])
    np.add(g, x[1], out=g)
    return a * b + f * g


def written_into_the_constant_argument(x, y):
    y[1] = np.cos(x[0]) * x[1]
    y += x[0]
    return y * x[1]


def written_into_field_of_constant(x, box):
    box.field[0] = x[0] * 2.0
    box.field += x[1]
    return box.field * x[0]


def written_into_list_argument(x, items):
    items[0][1] = x[0] * x[1]
    return items[0] * x[0]


def written_out_into_the_argument(x, y):
    np.add(0.5, x * x, out=x)  # (tests/fuzz seed 200484: the Hessian came out 0)
    return x * y[0]


class Box:
    def __init__(self, field):
        self.field = field


OWNED = [(f, lambda make=make: (np.array([0.3, -0.7]), make())) for f, make in [
    (linspace_then_setitem, lambda: np.array([1.0, 2.0, 3.0])),
    (copy_of_constant_then_setitem, lambda: np.array([1.0, 2.0, 3.0])),
    (sums_of_constants_then_updated, lambda: np.array([1.0, 2.0, 3.0])),
    (written_into_the_constant_argument, lambda: np.array([1.0, 2.0, 3.0])),
    (written_into_field_of_constant, lambda: Box(np.array([1.0, 2.0, 3.0]))),
    (written_into_list_argument, lambda: [np.array([1.0, 2.0, 3.0])]),
    (written_out_into_the_argument, lambda: np.array([1.0, 2.0, 3.0])),
]]
_NAME = dict(ids=lambda v: getattr(v, "__name__", ""))


def _stacked_jvps(f, make, directions):
    return np.stack([fwdad.jvp(f, make(), (d, fwdad.tangents.zero_tangent(make()[1])))[1]
                     for d in directions])


@pytest.mark.parametrize("f, make", OWNED, **_NAME)
def test_widened_tangents_match_stacked_jvps(f, make):
    directions = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, -2.0]])
    want = _stacked_jvps(f, make, directions)
    _, got = batched_jvp(f, make(), (directions, None))
    assert_close(got, want, rtol=1e-12, atol=1e-14)
    jac = fwdad.jacfwd(f)(*make())
    assert_close(np.moveaxis(jac, -1, 0), want[:2], rtol=1e-12, atol=1e-14)


def _summed_sine(f):
    def scalar(x, y):
        return np.sum(np.sin(f(x, y)))
    return scalar


SECOND_ORDER = [pytest.param(f, make, marks=pytest.mark.xfail(
    raises=TangentError, strict=True, reason="at level 2, the outer tangent of an "
    "object argument's inner tangent has no batch axis (higher._level2_argument sees "
    "no leaves in objects), and writing into its field cannot widen it"))
    if f is written_into_field_of_constant else (f, make) for f, make in OWNED]


@pytest.mark.parametrize("f, make", SECOND_ORDER, **_NAME)
def test_widened_tangents_at_second_order_match_differences_of_jacfwd(f, make):
    scalar = _summed_sine(f)
    x, h = make()[0], 1e-5
    hess = fwdad.hessian(scalar)(*make())
    for i in range(len(x)):
        step = np.eye(len(x))[i] * h
        plus, minus = (fwdad.jacfwd(scalar)(x + s, make()[1]) for s in (step, -step))
        assert_close(hess[:, i], (plus - minus) / (2 * h), rtol=1e-6, atol=1e-8)


# ---- refusals: something else holds the unbatched tangent, and would not follow -------
def two_names_for_a_field(x):
    box = Box(np.floor(x))  # its field's tangent: unbatched zeros
    first, second = box.field, box.field
    first[0] = x[0]  # `second` would keep the old tangent
    return second


def list_holding_the_array(x):
    a = np.floor(x)
    items = [a]  # the list's tangent holds a's: widening a's would leave it behind
    a[0] = x[1]
    return items[0]


SHARED = [two_names_for_a_field, list_holding_the_array]


def out_into_array_with_a_view(x):
    a = np.floor(x)
    t = a[:]  # (a's tangent is batched here: rules/widening.widen_before_view)
    np.add(a, x, out=a)  # (out= once replaced a's tangent whatever shared it: t got 0)
    return t


def test_a_view_by_index_of_a_nondiff_output_sees_a_later_update():
    """t = floor(x) + x through the view: its Jacobian is the identity."""
    x = np.array([0.5, 1.5])
    assert_close(batched_jvp(out_into_array_with_a_view, (x,), (np.eye(2),))[1], np.eye(2))
    assert_close(fwdad.jacfwd(out_into_array_with_a_view)(x), np.eye(2))


def view_of_nondiff_output_then_update(x):
    a = np.floor(x)
    t = a.T  # (a's tangent is batched here: rules/widening.widen_before_view_of; it was
    a[0] = x[1]  # refused, as a batched copy for `a` would leave t with the old one)
    return t


def test_a_transpose_of_a_nondiff_output_sees_a_later_update():
    """t[0] = x[1] through the view, t[1] = floor(x[1])."""
    x, want = np.array([0.5, 1.5]), np.array([[0.0, 1.0], [0.0, 0.0]])
    assert_close(batched_jvp(view_of_nondiff_output_then_update, (x,), (np.eye(2),))[1],
                 want.T)
    assert_close(fwdad.jacfwd(view_of_nondiff_output_then_update)(x), want)


@pytest.mark.parametrize("f", SHARED, **_NAME)
def test_widening_a_shared_tangent_is_refused_with_a_message(f):
    with pytest.raises(TangentError, match="is shared"):
        batched_jvp(f, (np.array([0.5, 1.5]),), (np.eye(2),))
    with pytest.raises(TangentError, match="is shared"):
        fwdad.jacfwd(f)(np.array([0.5, 1.5]))


def written_into_field(box, x):
    box.field[0] = x * 2.0
    return box.field.sum()


def test_a_field_with_a_batched_tangent_is_updated():
    box = Box(np.zeros(3))
    _, tangent = batched_jvp(written_into_field, (box, 1.0), (None, np.array([1.0, 3.0])))
    np.testing.assert_allclose(tangent, [2.0, 6.0])


def sines_of_a_list_field(box):
    return np.sin(box.field) * 2.0


def test_a_batch_of_a_list_fields_tangents_equals_one_at_a_time():
    """The batch is found in an instance's tangent alone, and a list field read as an
    array carries its batch of tangents (it was read as a list of twice the items)."""
    directions = [np.array([1.0, 0.0, 2.0]), np.array([0.0, 1.0, -1.0])]
    _, batched = batched_jvp(sines_of_a_list_field, (Box([0.5, 1.5]),),
                             (fwdad.Tangent(field=directions),))
    for b in range(3):
        _, one = fwdad.jvp(sines_of_a_list_field, (Box([0.5, 1.5]),),
                           (fwdad.Tangent(field=[d[b] for d in directions]),))
        np.testing.assert_allclose(batched[b], one)
        np.testing.assert_allclose(one, 2.0 * np.cos([0.5, 1.5]) * [d[b] for d in directions])


def test_batched_jvp_needs_a_batch_axis():
    with pytest.raises(fwdad.FwdadError, match="leading batch axis"):
        batched_jvp(np.sin, (1.0,), (None,))


def test_batched_tangent_of_wrong_size_is_reported():
    with pytest.raises(TangentError, match="batch axis"):
        batched_jvp(setitem_into_zeros, (np.ones(3), np.ones(2)), (np.ones((2, 3)),
                                                                   np.ones((3, 2))))


def test_the_batch_context_belongs_to_its_thread():
    import threading
    seen = []
    with batch(4):
        worker = threading.Thread(target=lambda: seen.append(running_batch_size()))
        worker.start()
        worker.join()
    assert seen == [None]


# ---- every float output of a batched call carries the batch axis ------------------------
def square_and_constant(x):
    return x * x, 1.5


def nested_constants(x):
    return {"y": x * np.ones(2), "zeros": np.zeros((2, 2)), "pair": [x, (2.0, np.float64(1.0))]}


def scaled_linspace(x):
    p = np.linspace(0, 1, 3)  # nothing shares p's tangent: scaling it in place is fine
    p *= x
    return p


@pytest.mark.parametrize("f", [square_and_constant, nested_constants, scaled_linspace])
def test_every_output_of_a_batched_call_has_the_batch_axis(f):
    directions = np.array([1.0, 2.0, -0.5])
    _, tangents = batched_jvp(f, (2.0,), (directions,))
    for b, d in enumerate(directions):
        single = fwdad.jvp(f, (2.0,), (d,))[1]
        assert_close(unstack(tangents, b), single, rtol=1e-12)
        for got, want in zip(fwdad.tangents.leaves(tangents), fwdad.tangents.leaves(single)):
            assert np.shape(got) == (len(directions),) + np.shape(want)


def test_jacfwd_of_an_in_place_scaled_linspace():
    assert_close(fwdad.jacfwd(scaled_linspace)(0.5), np.linspace(0, 1, 3))


def out_into_field(box, x):
    np.multiply(x, np.ones(3), out=box.field)
    return box.field.sum()


def added_at_into_field(box, x):
    np.add.at(box.field, [0, 0], x)
    return box.field.sum()


@pytest.mark.parametrize("f", [out_into_field, added_at_into_field])
def test_out_and_at_into_a_field_match_stacked_jvps(f):
    """out= and ufunc.at replaced a field's tangent without telling the field (the
    Jacobian was 0); they widen it as x[i] = v does, and the field follows."""
    _, batched = batched_jvp(f, (Box(np.zeros(3)), 1.0),
                             (fwdad.Tangent(), np.array([1.0, 2.0])))
    single = [fwdad.jvp(f, (Box(np.zeros(3)), 1.0), (fwdad.Tangent(), t))[1]
              for t in (1.0, 2.0)]
    np.testing.assert_allclose(batched, single)
    np.testing.assert_allclose(single, [3.0, 6.0] if f is out_into_field else [2.0, 4.0])
