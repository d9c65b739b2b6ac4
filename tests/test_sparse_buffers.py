"""The sparse derivatives keep work arrays between calls (fwdad/scratch.py): what a call
returns is the caller's, never changed by a later call, and calls on several threads at
once are each right. Every Jacobian is checked against its closed form."""
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp

import fwdad

N = 3000  # (rows past malloc's mmap threshold with four directions: kept arrays matter)


def residual(u, k=0.8):
    lap = -2.0 * u
    lap[1:] += u[:-1]
    lap[:-1] += u[1:]
    return lap + k * u * (1.0 - u)


def residual_jacobian(u, k=0.8):
    """The closed form: 1 off the diagonal, -2 + k (1 - 2u) on it."""
    off = np.ones(u.size - 1)
    return sp.diags_array([off, -2.0 + k * (1.0 - 2.0 * u), off], offsets=[-1, 0, 1])


def stretched(u):
    u *= 1.5  # (writes into its tangent: the plan's kept copy of the seeds)
    return residual(u)


def stretched_jacobian(u):
    return 1.5 * residual_jacobian(1.5 * u)


def energy(u):
    return np.sum(u ** 4) / 4.0 + np.sum(u[:-1] * u[1:])


def energy_hessian(u):
    off = np.ones(u.size - 1)
    return sp.diags_array([off, 3.0 * u ** 2, off], offsets=[-1, 0, 1])


def tridiagonal(n):
    return residual_jacobian(np.zeros(n)).astype(bool).tocsr()


def points(count, n=N):
    return [np.linspace(0.1, 0.9, n) * (1.0 + 0.05 * k) for k in range(count)]


def assert_equal_to(got, want):
    """Equal to rounding, compared without a dense N x N matrix."""
    assert isinstance(got, sp.csr_array) and got.shape == want.shape
    want = sp.csr_array(want)
    assert abs(got - want).max() <= 1e-13 * abs(want).max()


MAKERS = [
    pytest.param(lambda: fwdad.sparse_jacfwd(residual, sparsity=tridiagonal(N)),
                 residual_jacobian, id="jacfwd"),
    pytest.param(lambda: fwdad.sparse_jacfwd(residual, sparsity=tridiagonal(N), probe=False),
                 residual_jacobian, id="jacfwd-no-probe"),
    pytest.param(lambda: fwdad.sparse_jacfwd(stretched, sparsity=tridiagonal(N)),
                 stretched_jacobian, id="jacfwd-in-place"),
    pytest.param(lambda: fwdad.sparse_jacrev(residual, sparsity=tridiagonal(N)),
                 residual_jacobian, id="jacrev"),
    pytest.param(lambda: fwdad.sparse_hessian(energy, sparsity=tridiagonal(N)),
                 energy_hessian, id="hessian"),
]


@pytest.mark.parametrize("make, closed_form", MAKERS)
def test_a_result_kept_by_the_caller_is_not_changed_by_later_calls(make, closed_form):
    derivative = make()
    first_point, *later = points(3)
    first = derivative(first_point)
    arrays = (first.data.copy(), first.indices.copy(), first.indptr.copy())
    for u in later:
        assert_equal_to(derivative(u), closed_form(u))
    assert_equal_to(first, closed_form(first_point))
    for kept, now in zip(arrays, (first.data, first.indices, first.indptr)):
        np.testing.assert_array_equal(now, kept)


@pytest.mark.parametrize("make, closed_form", MAKERS)
def test_calls_on_several_threads_at_once_are_each_right(make, closed_form):
    derivative = make()
    derivative(points(1)[0])  # (the plan and the rules made: the calls overlap below)
    at = points(64)
    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (threads switch inside a pass, not between calls)
    try:
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(derivative, at))
    finally:
        sys.setswitchinterval(switching)
    for u, got in zip(at, results):
        assert_equal_to(got, closed_form(u))


@pytest.mark.parametrize("probe", [True, False])
def test_a_function_that_returns_a_view_of_its_argument(probe):
    # its output's tangent is a view of the plan's kept copy of the seeds, and the
    # output is held until the next call: each result is still read into its own arrays
    def reversed_scaled(u):
        u *= 2.0
        return u[::-1]
    rows = np.arange(N)
    want = sp.csr_array((np.full(N, 2.0), (rows, rows[::-1])), shape=(N, N))
    jac = fwdad.sparse_jacfwd(reversed_scaled, sparsity=want != 0, probe=probe)
    first = jac(points(1)[0])
    second = jac(points(2)[1])
    assert_equal_to(first, want)
    assert_equal_to(second, want)
    assert not np.shares_memory(first.data, second.data)
