"""Sparsity rules of the primitives that mix items (fwdad/sparsity/mixing.py) and of the
elementwise functions and reductions that are not ufuncs: detected patterns against
the nonzeros of dense jacfwd, with no dense fallback (its warning is an error here)."""
import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.special

from fwdad import DenseFallbackWarning
from tests.sparsity.reference import pattern_and_nonzeros
from tests.sparsity.test_patterns import Case

RNG = np.random.default_rng(3)
M = RNG.standard_normal((3, 3)) + 3.0 * np.eye(3)
EYE = 3.0 * np.eye(3)

CASES = [
    Case("solve", lambda x: np.linalg.solve(x[:9].reshape(3, 3) + EYE, x[9:]), (12,)),
    Case("solve_columns", lambda x: np.linalg.solve(M, x.reshape(3, 2)).ravel(), (6,)),
    Case("solve_b_only", lambda x: np.linalg.solve(M, x[1:] * x[0]), (4,)),
    Case("scipy_solve", lambda x: scipy.linalg.solve(x[:9].reshape(3, 3) + EYE, x[9:]),
         (12,)),
    Case("inv", lambda x: np.linalg.inv(x[:9].reshape(3, 3) + EYE).ravel() * x[9], (10,)),
    Case("scipy_inv", lambda x: scipy.linalg.inv(x.reshape(3, 3) + EYE).ravel(), (9,)),
    Case("det", lambda x: np.linalg.det(x[:4].reshape(2, 2)) * x[4:], (6,)),
    Case("fft_rows", lambda x: np.abs(np.fft.fft(x.reshape(3, 5), axis=1)).ravel(), (15,)),
    Case("fft_columns", lambda x: np.abs(np.fft.fft(x.reshape(3, 5), axis=0)).ravel(),
         (15,)),
    Case("rfft_cropped", lambda x: np.abs(np.fft.rfft(x, n=4)) * x[5], (6,)),
    Case("ifft_padded", lambda x: np.abs(np.fft.ifft(x, n=7)), (5,)),
    Case("fft2", lambda x: np.abs(np.fft.fft2(x.reshape(3, 5))).ravel(), (15,)),
    Case("rfftn_axes", lambda x: np.abs(np.fft.rfftn(x.reshape(3, 5), axes=(1,))).ravel(),
         (15,)),
    Case("irfft_real_spectrum", lambda x: np.fft.irfft(x, n=7), (4,)),
    Case("fftshift", lambda x: np.fft.fftshift(x) * x, (5,)),
    Case("softmax_rows", lambda x: scipy.special.softmax(x.reshape(2, 3), axis=1).ravel(),
         (6,)),
    Case("log_softmax_all", lambda x: scipy.special.log_softmax(x.reshape(2, 3)).ravel(),
         (6,)),
    Case("logsumexp_rows", lambda x: scipy.special.logsumexp(x.reshape(2, 3), axis=1), (6,)),
    Case("polygamma_zeta", lambda x: scipy.special.polygamma(1, x + 2.0) +
         scipy.special.zeta(3.0, x + 2.5), (4,)),
    Case("sinc_angle", lambda x: np.sinc(x) * x[::-1] + np.angle(x + 1j * x[::-1]), (5,)),
]


def _random_input(shape):
    return RNG.uniform(0.5, 1.5, shape) * RNG.choice([-1.0, 1.0], shape)


LOCAL_ONLY = {"logsumexp_rows"}  # scipy's logsumexp indexes by its values


@pytest.mark.parametrize("mode", ["local", "global"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_pattern_equals_the_nonzeros_of_jacfwd(case, mode):
    if mode == "global" and case.name in LOCAL_ONLY:
        pytest.skip("the dense fallback in global mode")
    x = _random_input(case.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DenseFallbackWarning)
        pattern, nonzeros = pattern_and_nonzeros(case.fn, x, mode=mode)
    assert not (nonzeros & ~pattern).any(), "a nonzero of the Jacobian is missing"
    np.testing.assert_array_equal(pattern, nonzeros)


def test_stacked_matrices_fall_back_to_dense():
    x = _random_input((8,))
    with pytest.warns(DenseFallbackWarning, match="inv"):
        pattern, nonzeros = pattern_and_nonzeros(
            lambda x: np.linalg.inv(x.reshape(2, 2, 2) + 3.0 * np.eye(2)).ravel(), x)
    assert pattern.all() and not (nonzeros & ~pattern).any()
