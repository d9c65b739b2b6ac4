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


def written_through_view_of_global(x):
    v = GLOBAL[1:]
    v[0] = x[0]
    return v


GLOBAL = np.zeros(3)


def view_of_nondiff_output_then_update(x):
    a = np.floor(x)
    t = a.T
    a[0] = x[1]
    return t


class Box:
    def __init__(self, field):
        self.field = field


def written_into_field(box, x):
    box.field[0] = x * 2.0
    return box.field.sum()


def out_into_field(box, x):
    np.multiply(x, np.ones(3), out=box.field)
    return box.field.sum()


def added_at_into_field(box, x):
    np.add.at(box.field, [0, 0], x)
    return box.field.sum()


SHARED = [  # (function, primals, batched tangents): widening would split the sharing
    (written_through_view_of_global, (np.array([1.0, 2.0]),), (np.eye(2),)),
    (view_of_nondiff_output_then_update, (np.array([0.5, 1.5]),), (np.eye(2),)),
    (written_into_field, (Box(np.zeros(3)), 1.0), (fwdad.Tangent(), np.ones(2))),
    (out_into_field, (Box(np.zeros(3)), 1.0), (fwdad.Tangent(), np.ones(2))),  # (it gave 0)
    (added_at_into_field, (Box(np.zeros(3)), 1.0), (fwdad.Tangent(), np.ones(2))),
]


@pytest.mark.parametrize("f, primals, tangents", SHARED, ids=lambda v: getattr(
    v, "__name__", ""))
def test_widening_a_shared_tangent_is_refused_with_a_message(f, primals, tangents):
    with pytest.raises(TangentError, match="is shared"):
        batched_jvp(f, primals, tangents)


def test_a_field_with_a_batched_tangent_is_updated():
    box = Box(np.zeros(3))
    _, tangent = batched_jvp(written_into_field, (box, 1.0), (None, np.array([1.0, 3.0])))
    np.testing.assert_allclose(tangent, [2.0, 6.0])


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
