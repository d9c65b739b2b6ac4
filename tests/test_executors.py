"""executor=: jacfwd, batched_jvp, map_jvp and map_grad on a ProcessPoolExecutor give
what they give in process (itself checked against closed forms); functions travel by
reference or by value; an error in a chunk comes back as the user's error."""
import concurrent.futures
import sys

import numpy as np
import pytest

import fwdad
from fwdad import shipping


def f(x):
    return np.sin(x) * x[0]


def jacobian_of_f(x):  # closed form: d(sin(x_i) x_0)/dx_j
    jac = np.diag(np.cos(x) * x[0])
    jac[:, 0] += np.sin(x)
    return jac


def total(x, scale):
    return scale * np.sum(np.sin(x) * x[0])


def gradient_of_total(x, scale):
    return scale * (np.cos(x) * x[0] + np.eye(x.size)[0] * np.sum(np.sin(x)))


def fails_on_negative_first(x):
    if x[0] < 0:
        raise ValueError("a negative first entry")  # the user's line
    return np.sin(x)


X = np.linspace(-0.5, 1.5, 30)


@pytest.fixture(scope="module")
def pool():
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as executor:
        yield executor


def test_jacfwd_on_a_process_pool_equals_the_closed_form(pool):
    for chunk_size in (None, 4):
        jac = fwdad.jacfwd(f, chunk_size=chunk_size, executor=pool)(X)
        np.testing.assert_allclose(jac, jacobian_of_f(X), rtol=1e-12, atol=1e-14)


def test_a_closure_goes_by_value(pool):
    shift = 0.25

    def shifted(x):
        return np.sin(x + shift) * x[0]
    assert not shipping.importable(shifted)
    expected = fwdad.jacfwd(shifted)(X)
    got = fwdad.jacfwd(shifted, chunk_size=7, executor=pool)(X)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(np.diag(expected)[1:],
                               (np.cos(X + shift) * X[0])[1:], rtol=1e-12)


def test_batched_jvp_on_a_process_pool(pool):
    tangents = np.random.default_rng(0).standard_normal((9, X.size))
    out, batched = fwdad.batched_jvp(f, (X,), (tangents,), chunk_size=2, executor=pool)
    np.testing.assert_allclose(out, f(X), rtol=1e-14)
    np.testing.assert_allclose(batched, tangents @ jacobian_of_f(X).T, rtol=1e-12,
                               atol=1e-14)


def test_map_grad_and_map_jvp_on_a_process_pool(pool):
    points = [(X * s, 2.0) for s in (0.5, 1.0, -1.5)]
    for executor in (None, pool):
        grads = fwdad.map_grad(f=total, points=points, executor=executor)
        for g, (x, scale) in zip(grads, points):
            np.testing.assert_allclose(g, gradient_of_total(x, scale), rtol=1e-12)
        pairs = fwdad.map_jvp(f, [(x,) for x, _ in points], [(np.ones_like(x),)
                                                            for x, _ in points],
                              executor=executor, chunk_size=2)
        for (out, tangent), (x, _) in zip(pairs, points):
            np.testing.assert_allclose(out, f(x), rtol=1e-14)
            np.testing.assert_allclose(tangent, jacobian_of_f(x).sum(axis=1), rtol=1e-12)


def test_an_error_in_a_chunk_is_the_users_error_with_the_workers_traceback(pool):
    points = [(X + 1.0,), (-X - 1.0,)]
    with pytest.raises(ValueError, match="a negative first entry") as info:
        fwdad.map_jvp(fails_on_negative_first, points, [(np.ones_like(X),)] * 2,
                      executor=pool, chunk_size=1)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "raised on a worker of the executor, in the chunk of points 1:2" in notes
    assert "test_executors.py" in notes  # fwdad's note: the user's line
    assert isinstance(info.value.__cause__, fwdad.FwdadError)
    cause = str(info.value.__cause__)  # the worker's traceback, ending at the user's line
    assert "ValueError: a negative first entry" in cause and "test_executors.py:" in cause


def test_a_fwdad_error_in_a_chunk_names_the_users_line(pool):
    def quotient_of(x):
        return np.histogram(x[:3], bins=2)[1] * x[0]  # no rule for np.histogram
    with pytest.raises(fwdad.FwdadError) as info:
        fwdad.jacfwd(quotient_of, chunk_size=10, executor=pool)(X)
    with pytest.raises(type(info.value)) as here:
        fwdad.jacfwd(quotient_of)(X)
    assert str(info.value) == str(here.value)
    assert "histogram" in str(info.value)


def test_without_cloudpickle_a_closure_cannot_travel(monkeypatch, pool):
    monkeypatch.setitem(sys.modules, "cloudpickle", None)  # (import fails)
    with pytest.raises(fwdad.ShippingError, match="cloudpickle is not installed"):
        fwdad.jacfwd(lambda x: np.sin(x), chunk_size=10, executor=pool)(X)


def test_something_that_is_not_an_executor_is_refused():
    with pytest.raises(fwdad.FwdadError, match="concurrent.futures.Executor"):
        fwdad.jacfwd(f, executor="dask")


def test_progress_counts_directions_on_an_executor(pool, capsys, monkeypatch):
    from fwdad import progress
    monkeypatch.setattr(progress, "_tqdm", None)
    jac = fwdad.jacfwd(f, chunk_size=4, executor=pool, progress=True)(X)
    np.testing.assert_allclose(jac, jacobian_of_f(X), rtol=1e-12, atol=1e-14)
    assert f"{X.size}/{X.size} directions" in capsys.readouterr().err


def stencil(u):
    out = np.sin(u) * 2.0
    out[1:] += u[:-1] ** 2
    out[:-1] -= u[1:]
    return out


def test_sparse_jacfwd_on_a_process_pool_equals_in_process(pool):
    import scipy.sparse as sp
    n = 12
    ones = np.ones(n)
    pattern = sp.diags_array([ones[1:], ones, ones[1:]], offsets=[-1, 0, 1]) != 0
    u = np.linspace(0.1, 1.2, n)
    want = fwdad.jacfwd(stencil)(u)
    for chunk_size, probe in ((None, True), (2, False)):
        jac = fwdad.sparse_jacfwd(stencil, sparsity=pattern, chunk_size=chunk_size,
                                  probe=probe, executor=pool)(u)
        np.testing.assert_allclose(jac.toarray(), want, rtol=1e-13)


def test_sparse_jacfwd_refuses_what_is_not_an_executor():
    with pytest.raises(fwdad.FwdadError, match="sparse_jacfwd: executor"):
        fwdad.sparse_jacfwd(stencil, sparsity=np.eye(3, dtype=bool), executor=4)


def chain_energy(x):
    return np.sum((x[1:] - x[:-1]) ** 2) + np.sum(np.cos(x))


def hessian_of_chain_energy(x):  # closed form: a tridiagonal Laplacian, minus cos on it
    n = x.size
    hess = np.diag(np.r_[2.0, np.full(n - 2, 4.0), 2.0] - np.cos(x))
    hess[np.arange(n - 1), np.arange(1, n)] = hess[np.arange(1, n), np.arange(n - 1)] = -2.0
    return hess


class Counting(concurrent.futures.Executor):
    """An executor that hands its tasks to another and counts them."""

    def __init__(self, inner):
        self.inner, self.submitted = inner, 0

    def submit(self, fn, /, *args, **kwargs):
        self.submitted += 1
        return self.inner.submit(fn, *args, **kwargs)


def test_sparse_hessian_on_a_process_pool_equals_the_closed_form(pool):
    import scipy.sparse as sp
    n = 12
    ones = np.ones(n)
    pattern = sp.diags_array([ones[1:], ones, ones[1:]], offsets=[-1, 0, 1]) != 0
    x = np.linspace(-0.4, 1.1, n)
    here = fwdad.sparse_hessian(chain_energy, sparsity=pattern)(x)
    counting = Counting(pool)
    for chunk_size in (None, 2):
        hess = fwdad.sparse_hessian(chain_energy, sparsity=pattern, chunk_size=chunk_size,
                                    executor=counting)(x)
        np.testing.assert_allclose(hess.toarray(), hessian_of_chain_energy(x), rtol=1e-13,
                                   atol=1e-13)
        np.testing.assert_allclose(hess.toarray(), here.toarray(), rtol=1e-14, atol=1e-14)
    assert counting.submitted >= 2  # (the passes ran on the pool's workers)
    with pytest.raises(fwdad.FwdadError, match="sparse_hessian: executor"):
        fwdad.sparse_hessian(chain_energy, sparsity=pattern, executor="a pool")


def test_sparse_hessian_says_when_f_cannot_reach_the_workers(monkeypatch, pool):
    # (not a quiet fall back to Hessian-vector products in this process)
    monkeypatch.setitem(sys.modules, "cloudpickle", None)  # (import fails)
    hess = fwdad.sparse_hessian(lambda x: chain_energy(x), sparsity=np.ones((4, 4), bool),
                                chunk_size=1, executor=pool)
    with pytest.raises(fwdad.ShippingError, match="cloudpickle is not installed"):
        hess(np.linspace(0.0, 1.0, 4))
