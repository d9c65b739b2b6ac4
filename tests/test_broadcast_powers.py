"""Powers whose base and exponent broadcast (`(k + 3.0) ** x`, `np.float_power(x, k)`,
a scalar against an array), at second order with a batch of outer tangents (jacfwd of
a jvp, hvp, hessian): the level-2 rule of the exponent's term met the scalar's batch of
outer tangents unlifted, and crashed (operands could not be broadcast). Found by the
fuzzer's numerics construct (tests/fuzz/array_calls.py). Against the closed forms."""
import numpy as np
import pytest

import fwdad
from fwdad.higher import Directional
from tests.util import assert_close

X = np.array([0.3, -0.2, 0.5])
T = np.array([1.0, 0.5, -0.25])
K = 0.4


def scalar_base(x, k):
    return np.sum((k + 3.0) ** x)


def scalar_exponent(x, k):
    return np.sum(np.float_power(x + 3.0, k))


def _hessian_blocks(name, x, k):
    """[[d2/dx2 (diagonal), d2/dxdk], d2/dk2] of the two functions."""
    if name == "scalar_base":
        b = k + 3.0
        p = b ** x
        return (np.log(b) ** 2 * p, p * (1.0 + x * np.log(b)) / b,
                np.sum(x * (x - 1.0) * b ** (x - 2.0)))
    b = x + 3.0
    p = b ** k
    return (k * (k - 1.0) * b ** (k - 2.0), b ** (k - 1.0) * (1.0 + k * np.log(b)),
            np.sum(np.log(b) ** 2 * p))


FUNCTIONS = {"scalar_base": scalar_base, "scalar_exponent": scalar_exponent}


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("mode", ["jacfwd of jvp", "hvp", "jvp of grad"])
def test_second_order_along_each_argument(name, mode):
    f = FUNCTIONS[name]
    xx, xk, kk = _hessian_blocks(name, X, K)
    for along, want in (((T, 0.0), (xx * T, np.sum(xk * T))),
                        ((np.zeros(3), 1.0), (xk, kk))):
        if mode == "jacfwd of jvp":
            got = fwdad.jacfwd(Directional(f, along), argnums=(0, 1))(X.copy(), K)
        elif mode == "hvp":
            got = fwdad.hvp(f, (X.copy(), K), along)
        else:
            got = fwdad.jvp(fwdad.grad(f, (0, 1)), (X.copy(), K), along)[1]
        assert_close(got[0], want[0])
        assert_close(got[1], want[1])


@pytest.mark.parametrize("name", FUNCTIONS)
def test_hessian_of_the_scalar(name):
    assert_close(fwdad.hessian(FUNCTIONS[name], 1)(X.copy(), K), _hessian_blocks(name, X, K)[2])
