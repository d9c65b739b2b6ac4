"""One array passed as two arguments (fwdad/aliased_arguments.py): jvp gives both one
tangent, so that a write into one in place reaches the other's derivative as it
reaches its value (checked against central differences of the aliased call); arrays
that share memory otherwise are copied (checked against central differences of f on
copies, and against vjp)."""
import copy

import numpy as np
import pytest

import fwdad
from tests.util import assert_close


def update_both(a, b):
    a[0] = a[0] * b[1]
    b[1] = b[1] + a[0]
    return a.sum() * b.sum()


def read_both(a, b):
    return (a * b).sum()


X = np.array([0.3, -0.7, 1.1])
T = np.array([1.0, 0.5, -0.3])


def _aliased_central(f, x, t, h=1e-6):
    plus, minus = x + h * t, x - h * t
    return (f(plus, plus) - f(minus, minus)) / (2 * h)


@pytest.mark.parametrize("f", [update_both, read_both], ids=lambda f: f.__name__)
def test_the_same_array_twice_has_one_tangent(f):
    want = _aliased_central(f, X.copy(), T)
    x = X.copy()
    value, tangent = fwdad.jvp(f, (x, x), (T, T.copy()))
    assert_close(tangent, want)
    y = X.copy()
    assert value == f(y, y) and np.array_equal(x, y)  # the call as Python makes it


def _separate_central(f, a, b, s, t, h=1e-6):
    return (f(a + h * s, b + h * t) - f(a - h * s, b - h * t)) / (2 * h)


@pytest.mark.parametrize("f", [update_both, read_both], ids=lambda f: f.__name__)
def test_two_tangents_for_one_array_make_a_copy(f):
    """The second argument is a copy, as vjp and jacfwd take every argument: the
    derivative of f on separate arrays (the dot-product test holds)."""
    x, s = X.copy(), 2.0 * T
    want = _separate_central(f, X.copy(), X.copy(), T, s)
    assert_close(fwdad.jvp(f, (x, x), (T, s))[1], want)
    x = X.copy()
    _, pullback = fwdad.vjp(f, x, x)
    ct_a, ct_b = pullback(1.0)
    assert_close(ct_a @ T + ct_b @ s, want)


@pytest.mark.parametrize("args", [lambda x: (x, x[::-1]), lambda x: ([x], x)],
                             ids=["view", "inside a list"])
def test_arguments_that_share_memory_are_copied(args):
    def f(a, b):
        a = a[0] if isinstance(a, list) else a
        a[1] = a[1] * b[0]
        return np.sum(a) * np.sum(b)

    def separate(z, w):
        return f(copy.deepcopy(z), copy.deepcopy(w))

    a, b = args(X.copy())
    ta = [T] if isinstance(a, list) else T
    tb = -T[::-1].copy() if not isinstance(a, list) else -T
    h = 1e-6
    plus = separate(*_step(a, b, ta, tb, h))
    minus = separate(*_step(a, b, ta, tb, -h))
    want = (plus - minus) / (2 * h)
    assert_close(fwdad.jvp(f, args(X.copy()), (ta, tb))[1], want)
    assert_close(fwdad.linearize(f, *args(X.copy()))[1](ta, tb), want)
    assert_close(fwdad.batched_jvp(f, args(X.copy()), _batched(ta, tb))[1][0], want)


def _step(a, b, ta, tb, h):
    if isinstance(a, list):
        return [a[0] + h * ta[0]], b + h * tb
    return a + h * ta, b + h * tb


def _batched(ta, tb):
    return ([ta[0][None]] if isinstance(ta, list) else ta[None], tb[None])


# ---- one array twice inside one argument ---------------------------------------------
def update_pair(pair):
    a, b = pair[0], pair[1]
    a[0] = a[0] * b[1]
    b[1] = b[1] + a[0]
    return a.sum() * b.sum()


def _packed(kind, a, b):
    return {"list": lambda: [a, b], "tuple": lambda: (a, b),
            "dict": lambda: {0: a, 1: b}}[kind]()


@pytest.mark.parametrize("kind", ["list", "tuple", "dict"])
def test_the_same_array_twice_in_one_argument_has_one_tangent(kind):
    """As the call Python makes: the write through one item reaches the other."""
    h = 1e-6
    plus, minus = X + h * T, X - h * T
    want = (update_pair(_packed(kind, plus, plus))
            - update_pair(_packed(kind, minus, minus))) / (2 * h)
    x = X.copy()
    value, tangent = fwdad.jvp(update_pair, (_packed(kind, x, x),),
                               (_packed(kind, T, T.copy()),))
    assert_close(tangent, want)
    y = X.copy()
    assert value == update_pair(_packed(kind, y, y)) and np.array_equal(x, y)


@pytest.mark.parametrize("kind", ["list", "tuple", "dict"])
def test_two_tangents_for_one_array_in_one_argument_make_a_copy(kind):
    """Against f on separate arrays, and the dot-product test with vjp, linearize and
    batched_jvp (which take every array as its own)."""
    s = 2.0 * T
    h = 1e-6
    want = (update_pair(_packed(kind, X + h * T, X + h * s))
            - update_pair(_packed(kind, X - h * T, X - h * s))) / (2 * h)
    x = X.copy()
    assert_close(fwdad.jvp(update_pair, (_packed(kind, x, x),), (_packed(kind, T, s),))[1],
                 want)
    x = X.copy()
    _, pullback = fwdad.vjp(update_pair, _packed(kind, x, x))
    (ct,) = pullback(1.0)
    assert_close(ct[0] @ T + ct[1] @ s, want)
    x = X.copy()
    assert_close(fwdad.linearize(update_pair, _packed(kind, x, x))[1](_packed(kind, T, s)),
                 want)
    x = X.copy()
    batched = _packed(kind, T[None], s[None])
    assert_close(fwdad.batched_jvp(update_pair, (_packed(kind, x, x),), (batched,))[1][0],
                 want)
