"""Sparsity rules of the primitives that mix items (fwdad/sparsity/mixing.py) and of the
elementwise functions and reductions that are not ufuncs: detected patterns against
the nonzeros of dense jacfwd, with no dense fallback (its warning is an error here)."""
import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.special

import fwdad
from fwdad import DenseFallbackWarning
from tests.sparsity.reference import pattern_and_nonzeros
from tests.sparsity.test_patterns import Case
from tests.util import fd_jvp

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
    """The same point for a shape whichever tests ran before in this process (a shared
    generator made it depend on how pytest-xdist spread the tests)."""
    rng = np.random.default_rng(3)
    return rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)


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


def test_a_solve_with_options_falls_back_to_dense():
    x = _random_input((12,))
    with pytest.warns(DenseFallbackWarning, match="solve"):
        pattern, nonzeros = pattern_and_nonzeros(
            lambda x: scipy.linalg.solve(x[:9].reshape(3, 3) + EYE, x[9:], assume_a="gen"),
            x)
    assert pattern.all() and not (nonzeros & ~pattern).any()


# ---- stacks of matrices and decompositions: one dense block per matrix -----------------
def _stack(x, k, m, n):
    """k matrices m x n from x, each made well conditioned (and the same for all)."""
    return x.reshape(k, m, n) + 3.0 * np.eye(m, n)


def _symmetric(x, k, n):
    a = x.reshape(k, n, n)
    return a + np.swapaxes(a, -1, -2) + 6.0 * np.eye(n)


def _flat(*parts):
    return np.concatenate([np.ravel(p) for p in parts])


def _blocks(k, outs, size):
    """The pattern of k independent matrices of `size` items each, read into outputs of
    `outs` items per matrix (one after another, output by output): block diagonal."""
    return np.vstack([np.kron(np.eye(k, dtype=bool), np.ones((out, size), dtype=bool))
                      for out in outs])


# (name, fn, input size, matrices, items of each output per matrix, exact): the pattern
# is the blocks; `exact`: the Jacobian fills them (cholesky and qr leave triangles of
# zeros, cholesky reads one triangle of its matrix, the slogdet's sign is constant)
STACKED = [
    ("inv", lambda x: np.linalg.inv(_stack(x, 3, 2, 2)).ravel(), 12, 3, [4], True),
    ("det", lambda x: np.linalg.det(_stack(x, 3, 2, 2)), 12, 3, [1], True),
    ("slogdet", lambda x: _flat(*np.linalg.slogdet(_stack(x, 3, 2, 2))), 12, 3, [1, 1],
     False),
    ("cholesky", lambda x: np.linalg.cholesky(_symmetric(x, 2, 3)).ravel(), 18, 2, [9],
     False),
    ("scipy_cholesky", lambda x: scipy.linalg.cholesky(_symmetric(x, 1, 3)[0]).ravel(),
     9, 1, [9], False),
    ("qr", lambda x: _flat(*np.linalg.qr(_stack(x, 2, 3, 2))), 12, 2, [6, 4], False),
    ("qr_r", lambda x: np.linalg.qr(_stack(x, 2, 3, 2), mode="r").ravel(), 12, 2, [4],
     False),
    ("eigh", lambda x: _flat(*np.linalg.eigh(_symmetric(x, 2, 3))), 18, 2, [3, 9], True),
    ("eigvalsh_upper", lambda x: np.linalg.eigvalsh(_symmetric(x, 2, 3), UPLO="U"), 18, 2,
     [3], True),
    ("svd", lambda x: _flat(*np.linalg.svd(_stack(x, 2, 3, 2), full_matrices=False)), 12,
     2, [6, 2, 4], True),
    ("svd_values", lambda x: np.linalg.svd(_stack(x, 2, 3, 2), compute_uv=False), 12, 2,
     [2], True),
    ("one_matrix_qr", lambda x: _flat(*np.linalg.qr(_stack(x, 1, 3, 3)[0])), 9, 1, [9, 9],
     False),
]
if hasattr(np.linalg, "svdvals"):
    STACKED.append(("svdvals", lambda x: np.linalg.svdvals(_stack(x, 2, 3, 2)), 12, 2, [2],
                    True))


@pytest.mark.parametrize("mode", ["local", "global"])
@pytest.mark.parametrize("name, fn, size, k, outs, exact", STACKED,
                         ids=[c[0] for c in STACKED])
def test_each_matrix_of_a_stack_is_its_own_dense_block(name, fn, size, k, outs, exact,
                                                        mode):
    x = _random_input((size,))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DenseFallbackWarning)
        pattern, nonzeros = pattern_and_nonzeros(fn, x, mode=mode)
    assert not (nonzeros & ~pattern).any(), "a nonzero of the Jacobian is missing"
    np.testing.assert_array_equal(pattern, _blocks(k, outs, size // k))
    if exact:
        np.testing.assert_array_equal(pattern, nonzeros)


@pytest.mark.parametrize("mode", ["local", "global"])
@pytest.mark.parametrize("b_shape", [(3, 2, 1), (3, 2, 2)])
def test_a_stack_of_solves_reads_its_own_matrix_and_right_hand_side(b_shape, mode):
    def solve(x):
        return np.linalg.solve(_stack(x[:12], 3, 2, 2), x[12:].reshape(b_shape)).ravel()
    x = _random_input((12 + int(np.prod(b_shape)),))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DenseFallbackWarning)
        pattern, nonzeros = pattern_and_nonzeros(solve, x, mode=mode)
    assert not (nonzeros & ~pattern).any(), "a nonzero of the Jacobian is missing"
    np.testing.assert_array_equal(pattern, nonzeros)
    # x[k, i, j] reads all of A[k] and b[k, :, j]
    k, i, j = np.indices(b_shape).reshape(3, -1)
    reads_a = k[:, None] == np.repeat(np.arange(3), 4)[None, :]
    reads_b = (k[:, None] == k[None, :]) & (j[:, None] == j[None, :])
    np.testing.assert_array_equal(pattern, np.hstack([reads_a, reads_b]))


@pytest.mark.parametrize("mode", ["local", "global"])
def test_a_stack_of_solves_of_one_vector_reads_its_own_matrix_and_all_of_it(mode):
    # (the reference is central differences: batched jacfwd of a stack of solves with a
    # vector b is not available)
    def solve(x):
        return np.linalg.solve(_stack(x[:12], 3, 2, 2), x[12:]).ravel()
    x = _random_input((14,))
    pattern = fwdad.jacobian_sparsity(solve, x, mode=mode).toarray()
    nonzeros = np.stack([fd_jvp(solve, (x,), (e,)) for e in np.eye(14)], axis=1) != 0
    assert not (nonzeros & ~pattern).any(), "a nonzero of the Jacobian is missing"
    reads_a = np.kron(np.eye(3, dtype=bool), np.ones((2, 4), dtype=bool))
    np.testing.assert_array_equal(pattern, np.hstack([reads_a, np.ones((6, 2), bool)]))
    np.testing.assert_array_equal(pattern, nonzeros)


def _cholesky_of(x):
    return np.linalg.cholesky(x.reshape(2, 2)).ravel()


@pytest.mark.parametrize("mode", ["local", "global"])
def test_a_call_that_fails_raises_its_own_error_and_warns_of_no_fallback(mode):
    not_positive_definite = np.array([1.0, 2.0, 2.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DenseFallbackWarning)
        with pytest.raises(np.linalg.LinAlgError):
            fwdad.jacobian_sparsity(_cholesky_of, not_positive_definite, mode=mode)
