"""Sparsity patterns through what the fuzzer's callbacks and habits constructs draw
(seeds 100,159,160, 100,159,250 and 100,159,292): a np.vectorize object that closes over
an input, a loop over np.ndenumerate, and an operator of a user class (`Vec(x) * 2.0`,
its __mul__ Python code). The dense fallback could not make their results (an object,
an iterator, an instance) depend on every input, and jacobian_sparsity refused; each is
a move of tangents, and its pattern is the exact one."""
import numpy as np
import pytest

import fwdad
from tests.sparsity.reference import pattern_and_nonzeros


def vectorized_closure(x):
    scale = x[0]
    return np.vectorize(lambda a: np.sin(a) * scale + a)(x[1:]) * 2.0


def enumerated(x):
    out = np.zeros(x.shape)
    for index, v in np.ndenumerate(x):
        out[index] = np.sin(v) * (index[0] + 1.0)
    return out


class Vec:
    def __init__(self, a):
        self.a = a

    def __mul__(self, k):
        return Vec(self.a * k)

    def __add__(self, other):
        return Vec(self.a + other.a)


def through_operators(x):
    return (Vec(x[:2]) * 2.0 + Vec(np.cos(x[2:]))).a


EXPECTED = {
    vectorized_closure: np.array([[1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 0, 1]]),
    enumerated: np.eye(4),
    through_operators: np.array([[1, 0, 1, 0], [0, 1, 0, 1]]),
}


@pytest.mark.parametrize("mode", ["local", "global"])
@pytest.mark.parametrize("f", list(EXPECTED), ids=lambda f: f.__name__)
def test_the_pattern_is_exact(f, mode):
    x = np.array([0.3, -0.7, 1.1, 0.5])
    pattern, nonzeros = pattern_and_nonzeros(f, x, mode=mode)
    np.testing.assert_array_equal(pattern, EXPECTED[f] > 0)
    assert not (nonzeros & ~pattern).any()
    np.testing.assert_allclose(fwdad.sparse_jacfwd(f, sparsity="detect")(x).toarray(),
                               fwdad.jacfwd(f)(x), rtol=1e-14)
