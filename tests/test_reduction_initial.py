"""A reduction's `initial=` that carries a derivative (`np.sum(x, initial=c)`, prod, max,
min, their ndarray methods and `ufunc.reduce`), found by the fuzzer's array-calls
construct (tests/fuzz/array_calls.py): forward mode took `initial` for a constant and
gave its derivative as 0, reverse mode refused with a message that said to pass it by
position (it is keyword-only), and `ufunc.reduce` with `initial=` or `where=` crashed
(a TypeError) in both modes. Table-driven through fwdad.testing.test_rule (finite
differences), the reverse modes against the forward ones (dot-product test), second
order against differences of the gradient."""
import numpy as np
import pytest

import fwdad
from fwdad.testing import test_rule as check_rule
from tests.util import assert_close

M = np.array([[0.3, -0.7, 1.1], [0.5, 0.9, -0.4]])
MASK = np.array([[True, False, True], [False, True, True]])


def sum_from(x, c):
    return np.sum(x, axis=0, initial=c)


def sum_all_from(x, c):
    return np.sum(x, initial=c * c)


def masked_sum_from(x, c):
    return x.sum(axis=1, where=MASK, initial=np.sin(c), keepdims=True)


def prod_from(x, c):
    return np.prod(x + 2.0, axis=1, initial=c)


def method_prod_from(x, c):
    return (x + 2.0).prod(initial=np.cos(c))


def max_from(x, c):  # column 1 has its max below c + 1.0, the others above: both kinds
    return np.max(x * np.array([1.0, 0.1, 1.0]) + np.array([3.0, 0.0, 3.0]), axis=0,
                  initial=c + 1.0)


def min_from(x, c):
    return np.min(x, axis=1, where=MASK, initial=c - 5.0) + x.min(initial=c + 5.0)


def masked_max_from(x, c):  # the mask leaves row 0 one entry, below c + 2.0 (which wins)
    return np.max(x + 3.0, axis=1, where=np.array([[False, True, False], [True, True, True]]),
                  initial=c + 2.0)


def add_reduce_from(x, c):
    return np.add.reduce(x, axis=1, initial=c) * np.multiply.reduce(x + 2.0, axis=1,
                                                                     initial=c)


def ufunc_reduce_masked(x, c):
    return np.add.reduce(x, axis=0, where=MASK, initial=c) @ np.ones(3) + \
        np.maximum.reduce(x + c, axis=1, where=MASK, initial=-10.0) @ np.ones(2)


def extreme_reduce_from(x, c):  # initial wins in column 0 only
    return np.maximum.reduce(x, axis=0, initial=c + 0.2) + \
        np.minimum.reduce(x, initial=c - 5.0)


FUNCTIONS = [sum_from, sum_all_from, masked_sum_from, prod_from, method_prod_from, max_from,
             min_from, masked_max_from, add_reduce_from, ufunc_reduce_masked,
             extreme_reduce_from]
C = 0.6


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_forward_rule(f):
    check_rule(f, M, C)


def _scalar(f):
    def g(x, c):
        return np.sum(np.sin(f(x, c)))
    return g


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_reverse_against_forward(f):
    rng = np.random.default_rng(3)
    t = (rng.standard_normal(M.shape), 0.7)
    out, tangent = fwdad.jvp(f, (M.copy(), C), t)
    ct = rng.standard_normal(np.shape(out))
    value, pullback = fwdad.vjp(f, M.copy(), C)
    assert_close(value, out)
    dx, dc = pullback(ct)
    assert_close(np.sum(dx * t[0]) + dc * t[1], np.sum(ct * tangent))


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_second_order_along_initial(f):
    g = _scalar(f)
    grad = fwdad.grad(g, (0, 1))
    h = 1e-5
    plus, minus = grad(M.copy(), C + h), grad(M.copy(), C - h)
    want = [(p - m) / (2 * h) for p, m in zip(plus, minus)]
    got = fwdad.hvp(g, (M.copy(), C), (np.zeros_like(M), 1.0))
    assert_close(got[0], want[0], rtol=1e-5, atol=1e-7)
    assert_close(got[1], want[1], rtol=1e-5, atol=1e-7)


def clipped(x):
    return np.sum(np.clip(x, a_min=x - 1.0, a_max=2.0))


def test_a_keyword_reverse_mode_does_not_follow_is_refused_at_the_users_line():
    """A keyword argument that carries a derivative where reverse mode has no
    composition for it: refused, naming the function, the keyword and the line."""
    with pytest.raises(fwdad.FwdadError, match=r"numpy\.clip in clipped at .*"
                       r"test_reduction_initial\.py:\d+: its keyword argument a_min "
                       r"carries a derivative"):
        fwdad.grad(clipped)(M.copy())
