"""vjp, grad and value_and_grad leave each argument as one plain call leaves it
(docs/reverse-mode.md), also where f changes a list, dict or instance it was given: an
item appended or rebound, a key added or deleted, a field rebound, swapped or deleted.
Reverse mode runs f on boxes of the arguments (variables, new containers, copies of
instances), so each change must be carried back to the user's objects, which stay the
same objects where f kept them (a write into an array held by a list lands in the
user's array). The gradients are checked against central differences too."""
from dataclasses import dataclass

import numpy as np
import pytest

import fwdad
from tests.util import central_gradient


class Params:
    def __init__(self):
        self.c = np.array([1.0, 2.0])
        self.k = 2.0
        self.items = [np.array([0.5, -1.0])]


@dataclass
class Box:
    a: np.ndarray
    b: np.ndarray


def appends(x, lst):
    lst.append(x * 2.0)
    lst[0] = lst[0] * x
    return np.sum(lst[0]) + np.sum(lst[-1])


def writes_in_place_through_a_list(x, lst):
    lst[0][1] = x[0] * x[1]
    return np.sum(lst[0] ** 2)


def rebinds_fields(x, p):
    p.c = p.c * x[0]
    p.k = p.k + 1.0
    p.c[1] = x[1]
    return np.sum(p.c) * p.k


def grows_a_field_list(x, p):
    p.items.append(np.sin(x))
    p.items[0][0] = x[0] * p.k
    p.extra = x[1] * 3.0
    return sum(np.sum(v) for v in p.items) + p.extra


def changes_a_dict(x, d):
    d["new"] = x * 3.0
    d["w"] = d["w"] * x[1]
    del d["gone"]
    return np.sum(d["new"] * d["w"])


def swaps_fields(x, box):
    box.a, box.b = box.b, box.a
    box.a[0] = x[0] ** 2
    return np.sum(box.a * x) + np.sum(box.b)


def deletes_a_field(x, p):
    del p.items
    p.c = p.c + x
    return np.sum(p.c ** 2)


def mutates_a_list_in_a_tuple(x, pair):
    pair[0].append(x[0] * 4.0)
    return pair[0][-1] + np.sum(pair[1] * x)


def x0():
    return np.array([0.7, -1.3])


CASES = [
    (appends, lambda: [np.array([3.0, 4.0])]),
    (writes_in_place_through_a_list, lambda: [np.array([3.0, 4.0])]),
    (rebinds_fields, Params),
    (grows_a_field_list, Params),
    (changes_a_dict, lambda: {"w": np.array([1.5, 2.5]), "gone": 1.0}),
    (swaps_fields, lambda: Box(np.array([1.0, 2.0]), np.array([3.0, 4.0]))),
    (deletes_a_field, Params),
    (mutates_a_list_in_a_tuple, lambda: ([1.0], np.array([2.0, -0.5]))),
]

RUNS = {
    "vjp": lambda f, x, arg: fwdad.vjp(f, x, arg)[1](1.0),
    "grad of both": lambda f, x, arg: fwdad.grad(f, argnums=(0, 1))(x, arg),
    "value_and_grad": lambda f, x, arg: fwdad.value_and_grad(f, argnums=(0, 1))(x, arg),
}


def state(value):
    """A value's plain contents, for comparing two calls' arguments."""
    if isinstance(value, np.ndarray):
        return ("array", value.tolist())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [state(v) for v in value])
    if isinstance(value, dict):
        return ("dict", [(k, state(v)) for k, v in value.items()])
    if hasattr(value, "__dict__"):
        return (type(value).__name__, sorted((k, state(v)) for k, v in vars(value).items()))
    return ("value", value)


def held_arrays(value):
    """The ids of the arrays an argument holds, by where they are held."""
    if isinstance(value, np.ndarray):
        return id(value)
    if isinstance(value, (list, tuple)):
        return [held_arrays(v) for v in value]
    if isinstance(value, dict):
        return {k: held_arrays(v) for k, v in value.items()}
    if hasattr(value, "__dict__"):
        return {k: held_arrays(v) for k, v in vars(value).items()}
    return None


@pytest.mark.parametrize("run", RUNS, ids=list(RUNS))
@pytest.mark.parametrize("f, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_the_argument_ends_as_a_plain_call_leaves_it(f, make, run):
    plain = make()
    f(x0(), plain)
    arg = make()
    before = held_arrays(arg)
    RUNS[run](f, x0(), arg)
    assert state(arg) == state(plain)
    if f is writes_in_place_through_a_list:  # (the user's own array was written)
        assert held_arrays(arg) == before


@pytest.mark.parametrize("f, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_the_gradient_is_right(f, make):
    got = fwdad.grad(f, argnums=(0, 1))(x0(), make())[0]  # (the argument written: a variable)
    want = central_gradient(lambda x: f(x, make()), x0())
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_an_instance_at_two_places_is_written_back_once_as_one_object():
    p = Params()
    holder = [p, p]

    def f(x, holder):
        holder[0].c = holder[1].c * x[0]
        return np.sum(holder[0].c)
    fwdad.grad(f, argnums=(0, 1))(x0(), holder)
    assert holder[0] is p and holder[1] is p
    np.testing.assert_array_equal(p.c, np.array([1.0, 2.0]) * 0.7)


def test_an_argument_not_differentiated_is_the_users_object_as_before():
    lst = [np.array([3.0, 4.0])]
    first = lst[0]
    fwdad.grad(appends)(x0(), lst)
    assert len(lst) == 2 and lst[0] is not first  # (f rebound item 0, as a plain call)
    np.testing.assert_array_equal(lst[1], x0() * 2.0)
