"""Knots and spacings built from constants inside a function that also writes into an
array (found by the fuzzer's array-calls construct, tests/fuzz/array_calls.py): reverse
mode makes such an array a variable, and `np.interp` and `np.gradient` refused it as
knots or spacing that carry a derivative, though forward mode differentiates the same
code. A variable that depends on no argument is now taken as its values; knots that do
depend on the arguments are still refused, at the user's line. Against forward mode
(jacfwd) and forward over forward."""
import numpy as np
import pytest

import fwdad
from tests.util import assert_close

X = np.array([0.3, -0.2, 0.5])
T = np.array([1.0, 0.5, -0.25])


def interp_then_write(x):
    v = np.interp(x * 0.1, np.array([-5.0, 0.03, 5.0]), np.array([1.0, 2.0, 0.5])) * x
    v[1] += 2.0
    return np.sum(v * v)


def gradient_then_write(x):
    spacing = np.array([0.0, 0.5, 1.5]) * 2.0
    g = np.gradient(np.sin(x) * x, spacing)
    g[0] *= 3.0
    return np.sum(g * g)


@pytest.mark.parametrize("f", [interp_then_write, gradient_then_write],
                         ids=lambda f: f.__name__)
def test_reverse_mode_against_forward_mode(f):
    assert_close(fwdad.grad(f)(X.copy()), fwdad.jacfwd(f)(X.copy()))
    want = fwdad.jacfwd(fwdad.jacfwd(f))(X.copy()) @ T
    assert_close(fwdad.hvp(f, (X.copy(),), (T,))[0], want)
    assert_close(fwdad.hessian(f)(X.copy()) @ T, want)


def knots_from_the_argument(x):
    knots = np.array([-5.0, 3.0, 5.0])
    knots[1] = x[0] + 3.0
    v = np.interp(x * 0.01, knots, np.array([1.0, 2.0, 0.5]))
    return np.sum(v)


def test_knots_that_depend_on_the_arguments_are_refused_at_the_users_line():
    with pytest.raises(fwdad.FwdadError, match=r"np\.interp in knots_from_the_argument at "
                       r".*test_constant_knots\.py:\d+: .* not in the knots xp: here they "
                       r"depend on the arguments"):
        fwdad.grad(knots_from_the_argument)(X.copy())
