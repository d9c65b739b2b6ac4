"""bench/sparse.py's workloads, small: their patterns hold every nonzero of the dense
Jacobian (check=True), sparse_jacfwd matches central differences, and the coloured
central differences the benchmark shows beside it are right. No timings."""
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # bench/ is not an installed package
    sys.path.insert(0, str(ROOT))

import fwdad  # noqa: E402
from bench.sparse import (  # noqa: E402
    HAND,
    checked_hand_jacobian,
    colored_central_differences,
    five_point,
    residual_1d,
    residual_2d,
    tridiagonal,
)
from fwdad.coloring import column_coloring  # noqa: E402
from tests.test_sparse import fd_jacobian  # noqa: E402

SMALL = [(residual_1d, np.linspace(0.1, 0.9, 30), tridiagonal(30)),
         (residual_2d, np.random.default_rng(0).uniform(0, 1, 36), five_point(6))]


@pytest.mark.parametrize("f, x, pattern", SMALL, ids=["1-D", "2-D"])
def test_bench_workloads_and_their_references(f, x, pattern):
    jac = fwdad.sparse_jacfwd(f, sparsity=pattern, check=True)(x)
    reference = fd_jacobian(f, x)
    scale = np.abs(reference).max()
    np.testing.assert_allclose(jac.toarray(), reference, rtol=1e-6, atol=1e-7 * scale)
    differences = colored_central_differences(f, pattern, column_coloring(pattern))(x)
    np.testing.assert_allclose(differences.toarray(), reference, rtol=1e-6,
                               atol=1e-7 * scale)


@pytest.mark.parametrize("f, x, pattern", SMALL, ids=["1-D", "2-D"])
def test_hand_written_batched_tangents(f, x, pattern):
    """The bench's hand-written batched NumPy against central differences."""
    directions = np.random.default_rng(1).standard_normal((3, x.size))
    out, tangents = HAND[f](x.copy(), directions)
    np.testing.assert_allclose(out, f(x.copy()), rtol=1e-14)
    want = fd_jacobian(f, x) @ directions.T
    np.testing.assert_allclose(tangents.T, want, rtol=1e-6, atol=1e-7 * np.abs(want).max())


@pytest.mark.parametrize("f, x, pattern", SMALL, ids=["1-D", "2-D"])
def test_the_floor_is_the_jacobian(f, x, pattern):
    """The bench's floor row (the hand-written pass, read back and checked by
    sparse_jacfwd's Compression) against central differences, at two calls (its kept
    arrays reused)."""
    floor = checked_hand_jacobian(f, pattern, column_coloring(pattern))
    reference = fd_jacobian(f, x)
    for _ in range(2):
        np.testing.assert_allclose(floor(x).toarray(), reference, rtol=1e-6,
                                   atol=1e-7 * np.abs(reference).max())


def test_median_times_starts_each_repeat_one_run_further_on(monkeypatch):
    """No run is always sampled after the same one (bench/jvp_overhead.median_times)."""
    from bench import jvp_overhead
    monkeypatch.setattr(jvp_overhead, "MIN_SAMPLE_SECONDS", 0.0)  # (one call a sample)
    order = []
    runs = {name: (lambda name=name: order.append(name)) for name in "abc"}
    times = jvp_overhead.median_times(runs, 3)
    assert set(times) == {"a", "b", "c"}
    assert "".join(order[3:]) == "abc" "bca" "cab"  # (after the three warm-up calls)
