"""Memory-bounded chunks: jacfwd, hessian and batched_jvp with chunk_size=None split
their tangents so that a pass stays under the memory budget, and give the same
derivatives (against closed forms) whatever the split."""
import tracemalloc

import numpy as np
import pytest

import fwdad
from fwdad import budget
from tests.closed_forms import f, jacobian_of_f, total


def hessian_of_total(x):
    hess = np.diag(-np.sin(x) * x[0])
    hess[0, :] += np.cos(x)
    hess[:, 0] += np.cos(x)
    return hess


def wide(x):  # large intermediates: 40 x 2,000 floats a direction each
    y = np.outer(x, np.linspace(0.0, 1.0, 2_000))
    return np.sum(np.tanh(y) * y, axis=1)


def jacobian_of_wide(x):
    s = np.linspace(0.0, 1.0, 2_000)
    y = np.outer(x, s)
    return np.diag(np.sum((np.tanh(y) + y / np.cosh(y) ** 2) * s, axis=1))


X = np.linspace(-1.0, 1.5, 40)


@pytest.fixture
def counted(monkeypatch):
    """The directions of each pass that fwdad.chunked runs here."""
    from fwdad import chunk_tasks
    sizes = []
    run = chunk_tasks.JacobianChunk.run

    def counting(self, fn):
        sizes.append(self.stop - self.start)
        return run(self, fn)
    monkeypatch.setattr(chunk_tasks.JacobianChunk, "run", counting)
    return sizes


def test_a_small_budget_splits_the_passes_and_keeps_the_derivative(counted):
    budget._known.clear()
    jac = fwdad.jacfwd(wide, memory_budget=16 * 2**20)(X)
    np.testing.assert_allclose(jac, jacobian_of_wide(X), rtol=1e-10, atol=1e-12)
    assert counted[0] == 1 and len(counted) > 3, counted  # a probe, then more passes
    assert sum(counted) == X.size


def test_the_measure_is_kept_for_the_next_call_with_the_same_shapes(counted):
    budget._known.clear()
    jac = fwdad.jacfwd(wide, memory_budget=16 * 2**20)
    first = jac(X)
    probes = len(counted)
    counted.clear()
    np.testing.assert_allclose(jac(X * 0.5), jacobian_of_wide(X * 0.5), rtol=1e-10,
                               atol=1e-12)
    assert counted[0] > 1 and len(counted) < probes, counted  # no probes this time
    np.testing.assert_allclose(first, jacobian_of_wide(X), rtol=1e-10, atol=1e-12)


def test_peak_memory_stays_under_the_budget():
    budget._known.clear()
    limit = 24 * 2**20
    whole = budget.measured(lambda: fwdad.jacfwd(wide, chunk_size=X.size)(X))[1]
    assert whole > 2 * limit  # (all in one pass would not fit)
    jac, peak = budget.measured(lambda: fwdad.jacfwd(wide, memory_budget=limit)(X))
    assert peak <= limit, (peak, limit)
    np.testing.assert_allclose(jac, jacobian_of_wide(X), rtol=1e-10, atol=1e-12)


def test_an_explicit_chunk_size_wins(counted):
    fwdad.jacfwd(wide, chunk_size=7, memory_budget=1)(X)
    assert counted == [7] * 5 + [5]
    counted.clear()
    fwdad.jacfwd(wide, chunk_size=np.int64(20))(X)  # (a NumPy int is an int)
    assert counted == [20, 20]


@pytest.mark.parametrize("bad", [0, -1, 2.5, "4"])
def test_a_chunk_size_that_is_not_a_positive_int_is_refused(bad):
    with pytest.raises(fwdad.FwdadError, match="chunk_size is a positive int"):
        fwdad.jacfwd(f, chunk_size=bad)


def test_everything_in_one_pass_after_the_probe_when_it_fits(counted):
    """A first pass builds the rules untraced, a second of one direction is measured,
    and the rest fits in one pass."""
    budget._known.clear()
    np.testing.assert_allclose(fwdad.jacfwd(f)(X), jacobian_of_f(X), rtol=1e-12)
    assert counted == [1, 1, X.size - 2]


def test_the_global_budget_is_settable_and_restorable(counted):
    budget._known.clear()
    try:
        fwdad.set_memory_budget(16 * 2**20)
        assert fwdad.get_memory_budget() == 16 * 2**20
        np.testing.assert_allclose(fwdad.jacfwd(wide)(X), jacobian_of_wide(X), rtol=1e-10,
                                   atol=1e-12)
        assert len(counted) > 3
    finally:
        fwdad.set_memory_budget(None)
    assert fwdad.get_memory_budget() == budget.DEFAULT_MEMORY_BUDGET == 2**30


@pytest.mark.parametrize("bad", [0, -5, "1GB", True])
def test_a_budget_that_is_not_a_positive_number_is_refused(bad):
    with pytest.raises(fwdad.FwdadError, match="positive number of bytes"):
        fwdad.jacfwd(f, memory_budget=bad)
    with pytest.raises(fwdad.FwdadError, match="positive number of bytes"):
        fwdad.set_memory_budget(bad)


def test_hessian_under_a_small_budget():
    budget._known.clear()
    np.testing.assert_allclose(fwdad.hessian(total, memory_budget=2**14)(X),
                               hessian_of_total(X), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fwdad.hessian(total, chunk_size=3)(X),
                               hessian_of_total(X), rtol=1e-10, atol=1e-12)


def test_batched_jvp_in_chunks_equals_one_jvp_per_tangent():
    rng = np.random.default_rng(0)
    tangents = rng.standard_normal((30, X.size))
    budget._known.clear()
    out, batched = fwdad.batched_jvp(wide, (X,), (tangents,), memory_budget=16 * 2**20)
    fixed = fwdad.batched_jvp(wide, (X,), (tangents,), chunk_size=4)[1]
    np.testing.assert_allclose(out, wide(X), rtol=1e-12)
    expected = tangents @ jacobian_of_wide(X).T
    np.testing.assert_allclose(batched, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fixed, expected, rtol=1e-10, atol=1e-12)


def test_batched_jvp_joins_structured_outputs():
    def pair(x, n):
        return (np.sin(x), n), {"sum": np.sum(x ** 2)}
    rng = np.random.default_rng(1)
    tangents = rng.standard_normal((5, 4))
    x = rng.standard_normal(4)
    (_, (tangent_pair, tangent_dict)) = fwdad.batched_jvp(pair, (x, 3), (tangents, None),
                                                          chunk_size=2)
    np.testing.assert_allclose(tangent_pair[0], tangents * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(tangent_dict["sum"], tangents @ (2 * x), rtol=1e-12)


def test_an_outer_tracemalloc_measurement_still_sees_its_peak():
    tracemalloc.start()
    try:
        big = np.ones(2**21)  # 16 MiB, freed before the jacfwd
        del big
        budget._known.clear()
        fwdad.jacfwd(f)(X)
        assert tracemalloc.get_traced_memory()[1] >= 2**24
    finally:
        tracemalloc.stop()
