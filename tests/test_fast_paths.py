"""What the per-call fast paths keep from one call to the next stays right: the
signatures check_call keeps (made again when a function's code or defaults change), and
the sparse Jacobians read back from a kept template (each with arrays of its own, the
probe's check leaving its values as they are)."""
import numpy as np
import pytest
import scipy.sparse as sp

import fwdad
from fwdad.errors import FwdadError
from fwdad.signatures import check_call


# ---- signatures ----------------------------------------------------------------------
def test_signature_follows_new_defaults():
    def f(x, y):
        return x * y
    with pytest.raises(FwdadError, match="f"):
        check_call("jvp", f, (1.0,))
    f.__defaults__ = (2.0,)
    check_call("jvp", f, (1.0,))  # y has a default now
    f.__defaults__ = None
    with pytest.raises(FwdadError):
        check_call("jvp", f, (1.0,))


def test_signature_follows_new_code():
    def f(x):
        return x

    def g(x, y):
        return x + y
    check_call("jvp", f, (1.0,))
    f.__code__ = g.__code__
    with pytest.raises(FwdadError):
        check_call("jvp", f, (1.0,))
    check_call("jvp", f, (1.0, 2.0))


class Unhashable:
    __hash__ = None  # type: ignore[assignment]

    def __call__(self, x):
        return x


def test_unhashable_callable_is_checked_each_time():
    with pytest.raises(FwdadError):
        check_call("jvp", Unhashable(), (1.0, 2.0))
    check_call("jvp", Unhashable(), (1.0,))


def test_jacfwd_names_a_wrong_call_after_right_ones():
    def f(x):
        return np.sin(x)
    jac = fwdad.jacfwd(f)
    np.testing.assert_allclose(jac(np.array([0.1, 0.2])), np.diag(np.cos([0.1, 0.2])))
    with pytest.raises(FwdadError, match="positional"):
        jac(np.array([0.1]), np.array([0.2]))


# ---- sparse Jacobians from a kept template --------------------------------------------
def residual(u):
    out = u * u - 2.0 * u
    out[1:] += np.sin(u[:-1])
    out[:-1] -= u[1:] ** 3
    return out


def tridiagonal(n):
    ones = np.ones(n)
    return sp.diags_array([ones[1:], ones, ones[1:]], offsets=[-1, 0, 1]).astype(bool).tocsr()


def dense_jacobian(u):
    return fwdad.jacfwd(residual)(u)


@pytest.mark.parametrize("probe", [True, False])
def test_each_sparse_jacobian_has_arrays_of_its_own(probe):
    jac = fwdad.sparse_jacfwd(residual, sparsity=tridiagonal(6), probe=probe)
    u = np.linspace(-1.0, 1.0, 6)
    first = jac(u)
    np.testing.assert_allclose(first.toarray(), dense_jacobian(u), rtol=1e-13)
    first.data[:] = 99.0  # a user may change what they were given
    first.indices[:] = 0
    first.indptr[:] = 0
    second = jac(u + 0.5)
    np.testing.assert_allclose(second.toarray(), dense_jacobian(u + 0.5), rtol=1e-13)
    assert not np.shares_memory(second.data, first.data)


def test_probe_leaves_the_jacobian_signs():
    """The probe's check takes |J| for a moment on the very matrix it returns."""
    jac = fwdad.sparse_jacfwd(residual, sparsity=tridiagonal(5))
    u = np.linspace(0.2, 1.4, 5)
    got = jac(u)
    assert (got.data < 0).any()
    np.testing.assert_allclose(got.toarray(), dense_jacobian(u), rtol=1e-13)
