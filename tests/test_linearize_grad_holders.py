"""linearize(grad(f)) and batched_jvp(grad(f)) where f writes into an array that a list,
a dict, a tuple or an object's field holds (`holder = [m]; holder[0][0] = v`): the write
needs the first-order tangent of m widened to hold the recorded (or batched) second-order
one, in every place that holds it (fwdad/rules/tangent_holders.py). They were refused
with a SharedTangentError. The same array held twice, or beside a view of it, must come
out right too: a new tangent that reached one holder and not the other would be a silent
wrong derivative. References: central differences of fwdad.grad, and fwdad.hessian."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import SharedTangentError


class Box:
    def __init__(self, m):
        self.m = m


def set_through_a_list(x):
    m = x * 1.0
    holder = [m]
    holder[0][0] = np.tanh(m[1])
    return np.sum(m ** 2)


def set_through_a_dict(x):
    m = x * 1.0
    holder = {"a": m}
    holder["a"][0] = np.tanh(m[1]) * x[2]
    return np.sum(m ** 2)


def set_through_a_field(x):
    m = x * 1.0
    box = Box(m)
    box.m[0] = np.tanh(m[1])
    return np.sum(np.sin(m))


def set_through_a_tuple(x):
    m = x * 2.0
    pair = (m, 3)
    pair[0][1] = np.cos(m[0]) * x[2]
    return np.sum(m ** 3)


def set_through_a_list_in_a_dict(x):
    m = np.exp(x)
    holder = {"k": [x, m]}
    holder["k"][1][2] = m[0] * m[1]
    return np.sum(np.sin(m))


def set_through_a_list_of_boxes(x):
    m = x * 1.0
    boxes = [Box(m)]
    boxes[0].m[1] = x[0] * x[2]
    return np.sum(m ** 2) * x[1]


def out_into_a_list_item(x):
    m = x * 1.0
    holder = [m]
    np.tanh(m, out=holder[0])
    return np.sum(m ** 2)


def add_into_a_list_item(x):
    m = x * 1.0
    holder = [m]
    item = holder[0]
    item += np.tanh(m[1])
    return np.sum(m ** 2)


def add_at_into_a_list_item(x):
    m = x * 1.0
    holder = [m]
    np.add.at(holder[0], [0, 0], np.tanh(m[1]))
    return np.sum(m ** 2)


def a_list_holding_it_twice(x):
    m = x * 1.0
    holder = [m, m]
    holder[0][0] = np.tanh(m[1])
    return np.sum(holder[1] ** 2) * x[2]


def a_list_holding_it_and_a_view(x):
    m = x * 1.0
    holder = [m, m[1:]]
    holder[0][1] = np.tanh(m[0]) * x[2]
    return np.sum(holder[1] ** 3) + np.sum(m ** 2)


def two_lists_and_a_dict(x):
    m = x * 1.0
    first, second, named = [m], [x, m], {"m": m}
    first[0][2] = np.sin(x[0])
    second[1][0] = named["m"][2] * x[1]
    return np.sum(named["m"] ** 2)


X = np.array([0.3, 0.7, -0.2])
HELD = [set_through_a_list, set_through_a_dict, set_through_a_field, set_through_a_tuple,
        set_through_a_list_in_a_dict, set_through_a_list_of_boxes, out_into_a_list_item,
        add_into_a_list_item, add_at_into_a_list_item, a_list_holding_it_twice,
        a_list_holding_it_and_a_view, two_lists_and_a_dict]


def _reference(fn, x):
    """The Hessian by central differences of the gradient, column by column."""
    grad = fwdad.grad(fn)
    h = 1e-6
    return np.array([(grad(x + h * e) - grad(x - h * e)) / (2 * h)
                     for e in np.eye(x.size)]).T


def _by_linearize(fn, x):
    _, lin = fwdad.linearize(fwdad.grad(fn), x)
    columns = np.array([lin(e) for e in np.eye(x.size)]).T
    rows = np.array([lin.T(e)[0] for e in np.eye(x.size)])  # (the other way: lin.T)
    np.testing.assert_allclose(rows, columns, rtol=1e-10, atol=1e-12)
    return columns


def _by_batched_jvp(fn, x):
    return fwdad.batched_jvp(fwdad.grad(fn), (x,), (np.eye(x.size),))[1].T


@pytest.mark.parametrize("fn", HELD, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", [_by_linearize, _by_batched_jvp],
                         ids=["linearize", "batched_jvp"])
def test_second_derivative_through_a_write_into_a_held_array(fn, mode):
    want = _reference(fn, X.copy())
    np.testing.assert_allclose(fwdad.hessian(fn)(X.copy()), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(mode(fn, X.copy()), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn", [set_through_a_list, a_list_holding_it_and_a_view],
                         ids=lambda f: f.__name__)
def test_dot_product_of_lin_and_lin_T(fn):
    _, lin = fwdad.linearize(fwdad.grad(fn), X.copy())
    rng = np.random.default_rng(5)
    t, ct = rng.normal(size=3), rng.normal(size=3)
    assert np.isclose(np.dot(lin.T(ct)[0], t), np.dot(ct, lin(t)), rtol=1e-12)


def a_closure_holding_the_list(x):
    m = x * 1.0
    holder = [m]

    def first():
        return holder[0]
    first()[0] = np.tanh(m[1])
    return np.sum(m ** 2)


def test_a_write_still_refused_names_the_line_not_a_global():
    """Where a holder stays out of reach, the refusal says what holds the array, at the
    user's line, and no longer blames a global or a function with no derivative."""
    try:
        got = _by_linearize(a_closure_holding_the_list, X.copy())
    except SharedTangentError as err:
        message = str(err)
        assert "holds it too" in message and __file__ in message
        assert "global" not in message
        return
    np.testing.assert_allclose(got, _reference(a_closure_holding_the_list, X.copy()),
                               rtol=1e-6, atol=1e-6)
