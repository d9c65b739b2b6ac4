"""det's second derivative at singular matrices. det is a polynomial, so it has one
everywhere; fwdad took it through the derivative of det(a) a^-1 or an SVD, and refused
at a singular matrix with svd's message. The adjugate's derivative is exact there now
(fwdad/rules/adjugates.py). References: central differences of the cofactor matrix
(det's gradient) computed from minors, independently of fwdad; and forward mode
against reverse mode for the adjugate's rules (tests/rules, tests/reverse)."""
import itertools

import numpy as np
import pytest
import scipy.linalg as sl

import fwdad


def det(a):
    return np.linalg.det(a)


def weighted_det(a):
    return np.linalg.det(a) * np.sum(a) + sl.det(a * 2.0)


def cofactors(a):
    """The gradient of det: C_ij = (-1)^(i+j) det(a without row i and column j)."""
    n = a.shape[0]
    out = np.zeros_like(a)
    for i, j in itertools.product(range(n), range(n)):
        minor = np.delete(np.delete(a, i, 0), j, 1)
        out[i, j] = (-1) ** (i + j) * (np.linalg.det(minor) if n > 1 else 1.0)
    return out


def central_hessian(gradient, a, h=1e-4):
    """d gradient / da by central differences (exact up to rounding for det of n <= 3,
    whose gradient is of degree n - 1 <= 2)."""
    out = np.zeros(a.shape * 2)
    for k, m in itertools.product(*map(range, a.shape)):
        step = np.zeros_like(a)
        step[k, m] = h
        out[..., k, m] = (gradient(a + step) - gradient(a - step)) / (2 * h)
    return out


def _weighted_gradient(a):
    """The gradient of weighted_det by the product rule, from cofactors."""
    return cofactors(a) * np.sum(a) + np.linalg.det(a) + 2.0 * cofactors(a * 2.0)


def _low_rank(n, rank, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, rank)) @ rng.normal(size=(rank, n))


POINTS = {f"{n}x{n} rank {rank}": _low_rank(n, rank, 10 * n + rank)
          for n, rank in [(2, 1), (2, 0), (3, 2), (3, 1), (4, 3), (4, 2)]}
POINTS["3x3 rank 2, exact"] = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])
POINTS["3x3 rank 1, diagonal"] = np.diag([2.0, 0.0, 0.0])
POINTS["3x3 near rank 2"] = POINTS["3x3 rank 2, exact"] + 1e-9 * np.eye(3)
POINTS["3x3 invertible"] = _low_rank(3, 3, 5)
MODES = {
    "hessian": lambda f, a: fwdad.hessian(f)(a),
    "jacfwd(grad)": lambda f, a: fwdad.jacfwd(fwdad.grad(f))(a),
    "jacrev(grad)": lambda f, a: fwdad.jacrev(fwdad.grad(f))(a),
    "linearize(grad)": lambda f, a: np.moveaxis(np.array(
        [fwdad.linearize(fwdad.grad(f), a)[1](e.reshape(a.shape))
         for e in np.eye(a.size)]).reshape(a.shape * 2), (0, 1), (2, 3)),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", POINTS)
def test_second_derivative_of_det(name, mode):
    a = POINTS[name]
    scale = max(1.0, np.max(np.abs(a))) ** (a.shape[0] - 2)
    want = central_hessian(cofactors, a)
    np.testing.assert_allclose(MODES[mode](det, a.copy()), want, rtol=0,
                               atol=1e-7 * scale)


@pytest.mark.parametrize("name", ["3x3 rank 2, exact", "3x3 rank 1, diagonal", "2x2 rank 1"])
def test_second_derivative_of_scipy_and_numpy_det_together(name):
    a = POINTS[name]
    want = central_hessian(_weighted_gradient, a)
    np.testing.assert_allclose(fwdad.hessian(weighted_det)(a.copy()), want, rtol=1e-7,
                               atol=1e-7)


def test_hvp_of_det_over_a_stack_with_one_singular_matrix():
    stack = np.stack([POINTS["3x3 rank 2, exact"], POINTS["3x3 invertible"]])
    direction = np.random.default_rng(3).normal(size=stack.shape)

    def total(a):
        return np.sum(np.linalg.det(a))

    def gradient(a):
        return np.stack([cofactors(m) for m in a])

    h = 1e-4
    want = (gradient(stack + h * direction) - gradient(stack - h * direction)) / (2 * h)
    got = fwdad.hvp(total, (stack,), (direction,))
    got = got[0] if isinstance(got, tuple) else got
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)
