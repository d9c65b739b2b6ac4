"""sparse_jacfwd, sparse_jacrev and sparse_hessian: equal to the dense jacfwd, jacrev
and hessian, and to central finite differences (float64) or a closed form; a pattern of
the wrong shape, or one that misses a nonzero, is an error that says so."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import fwdad
from fwdad.coloring import ORDERS
from fwdad.errors import ColoringError, FwdadError, SparsityPatternError
from tests.util import fd_jvp


# ---- problems ------------------------------------------------------------------------
def reaction_diffusion_1d(u, k=0.8):
    """Residual of u'' + k u (1 - u) = 0 on a grid, u = 0 outside."""
    lap = -2.0 * u
    lap[1:] += u[:-1]
    lap[:-1] += u[1:]
    return lap + k * u * (1.0 - u)


def tridiagonal(n):
    return sp.diags_array([np.ones(n - 1), np.ones(n), np.ones(n - 1)],
                          offsets=[-1, 0, 1]).astype(bool).tocsr()


def five_point_2d(u):
    """Residual of the 2-D five-point Laplacian plus a cubic reaction, on a square
    grid given as a flat vector (u = 0 outside)."""
    m = int(round(np.sqrt(u.size)))
    grid = u.reshape(m, m)
    lap = -4.0 * grid
    lap[1:, :] += grid[:-1, :]
    lap[:-1, :] += grid[1:, :]
    lap[:, 1:] += grid[:, :-1]
    lap[:, :-1] += grid[:, 1:]
    return (lap + grid - grid ** 3).reshape(-1)


def five_point_pattern(m):
    line, eye = tridiagonal(m).astype(int), sp.eye_array(m, dtype=int)
    return (sp.kron(line, eye) + sp.kron(eye, line)).astype(bool)


def chain_energy(x):
    return np.sum((x[1:] - x[:-1]) ** 2 * (1.0 + x[1:] ** 2)) + np.sum(np.cos(x))


def fd_jacobian(f, x, h=1e-6):
    """Central differences, column by column: the independent reference."""
    columns = [fd_jvp(f, (x,), (e,), h=h) for e in np.eye(x.size)]
    return np.stack([np.ravel(c) for c in columns], axis=1)


U1 = np.linspace(0.1, 0.9, 12)
U2 = np.random.default_rng(1).uniform(0.0, 1.0, 25)


# ---- sparse_jacfwd -------------------------------------------------------------------
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("chunk_size", [None, 1, 2])
def test_sparse_jacfwd_of_reaction_diffusion(order, chunk_size):
    jac = fwdad.sparse_jacfwd(reaction_diffusion_1d, sparsity=tridiagonal(12),
                              coloring=order, chunk_size=chunk_size)(U1)
    assert isinstance(jac, sp.csr_array) and jac.shape == (12, 12) and jac.nnz == 34
    np.testing.assert_allclose(jac.toarray(), fwdad.jacfwd(reaction_diffusion_1d)(U1),
                               rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(jac.toarray(), fd_jacobian(reaction_diffusion_1d, U1),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("order", ORDERS)
def test_sparse_jacfwd_of_a_five_point_stencil(order):
    jac = fwdad.sparse_jacfwd(five_point_2d, sparsity=five_point_pattern(5),
                              coloring=order)(U2)
    np.testing.assert_allclose(jac.toarray(), fwdad.jacfwd(five_point_2d)(U2), rtol=1e-14)
    np.testing.assert_allclose(jac.toarray(), fd_jacobian(five_point_2d, U2),
                               rtol=1e-6, atol=1e-8)


@settings(max_examples=20)
@given(rows=st.integers(1, 9), cols=st.integers(1, 9), density=st.sampled_from([0.1, 0.4]),
       seed=st.integers(0, 1000))
def test_sparse_jacfwd_of_random_sparse_linear_maps(rows, cols, density, seed):
    rng = np.random.default_rng(seed)
    matrix = np.where(rng.random((rows, cols)) < density,
                      rng.standard_normal((rows, cols)), 0.0)
    x = rng.standard_normal(cols)

    def linear_map(v):
        return matrix @ v
    jac = fwdad.sparse_jacfwd(linear_map, sparsity=matrix != 0)(x)
    np.testing.assert_array_equal(jac.toarray(), matrix)  # the closed form
    np.testing.assert_array_equal(jac.toarray(), fwdad.jacfwd(linear_map)(x))


def test_sparse_jacfwd_called_from_several_threads_at_once():
    # the probe's work array is kept between calls and lent to one call at a time
    from concurrent.futures import ThreadPoolExecutor
    jac = fwdad.sparse_jacfwd(reaction_diffusion_1d, sparsity=tridiagonal(12))
    points = [U1 * (1.0 + 0.1 * k) for k in range(24)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(jac, points))
    for u, got in zip(points, results):
        np.testing.assert_allclose(got.toarray(), fd_jacobian(reaction_diffusion_1d, u),
                                   rtol=1e-6, atol=1e-8)


def test_sparse_jacfwd_takes_dense_patterns_other_arguments_and_keywords():
    def scaled(k, u, power=2):
        return k * reaction_diffusion_1d(u) ** power
    dense_pattern = tridiagonal(12).toarray()
    jac = fwdad.sparse_jacfwd(scaled, argnums=1, sparsity=dense_pattern)(1.5, U1, power=3)
    want = fwdad.jacfwd(scaled, argnums=1)(1.5, U1, power=3)
    np.testing.assert_allclose(jac.toarray(), want, rtol=1e-14)


def test_sparse_jacfwd_over_a_matrix_argument_flattens_it():
    def rowwise(a):
        return np.sin(a) * np.cumsum(a, axis=1)
    a = np.arange(1.0, 7.0).reshape(2, 3) / 7
    pattern = np.kron(np.eye(2), np.tril(np.ones((3, 3)))) != 0
    jac = fwdad.sparse_jacfwd(rowwise, sparsity=pattern)(a)
    np.testing.assert_allclose(jac.toarray(), fwdad.jacfwd(rowwise)(a).reshape(6, 6),
                               rtol=1e-14)


def test_sparse_jacfwd_leaves_updated_arguments_as_they_were():
    def in_place(u):
        u *= 2.0
        return u * u
    u = U1.copy()
    jac = fwdad.sparse_jacfwd(in_place, sparsity=sp.eye_array(12).astype(bool))(u)
    np.testing.assert_array_equal(u, U1)
    np.testing.assert_allclose(jac.diagonal(), 8 * U1, rtol=1e-14)


def test_sparse_jacfwd_with_updates_in_place_is_right_at_every_call():
    # the passes write into their copy of the seeds (the plan's workspace, refilled at
    # each call); the plan's own seeds, and so the next call, are untouched
    def in_place(u):
        u *= 2.0
        u[1:] += u[:-1]
        return u * u
    jac = fwdad.sparse_jacfwd(in_place, sparsity=np.tril(np.ones((12, 12))) != 0)
    for u in (U1, 1.5 * U1, U1):
        np.testing.assert_allclose(jac(u).toarray(), fd_jacobian(in_place, u),
                                   rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("probe", [True, False])
def test_each_call_returns_a_matrix_of_its_own(probe):
    # the output's tangent may be a view of the plan's workspace (f returns a view of
    # its argument): each result is read out of it into arrays of its own
    def view_of_argument(u):
        return u[::-1]
    jac = fwdad.sparse_jacfwd(view_of_argument, sparsity=np.eye(12)[::-1] != 0,
                              probe=probe)
    first = jac(U1)
    kept = first.toarray()
    first.data *= 3.0  # the caller's to change
    second = jac(U1)
    np.testing.assert_array_equal(second.toarray(), np.eye(12)[::-1])
    np.testing.assert_array_equal(kept, np.eye(12)[::-1])
    for a, b in ((first.data, second.data), (first.indices, second.indices),
                 (first.indptr, second.indptr)):
        assert not np.shares_memory(a, b)


def test_the_memory_estimate_is_made_once_for_calls_with_keywords(monkeypatch):
    # the passes' memory is measured (traced, slow) at the first call only, keyword
    # arguments or not: the estimate is kept on f, not on a partial made per call
    from fwdad import budget
    measured = []
    traced = budget.measured
    monkeypatch.setattr(budget, "measured", lambda run: measured.append(1) or traced(run))

    def powered(u, power=2):
        return reaction_diffusion_1d(u) ** power
    jac = fwdad.sparse_jacfwd(powered, sparsity=tridiagonal(12))
    for u in (U1, 1.1 * U1, 1.2 * U1):
        np.testing.assert_allclose(jac(u, power=3).toarray(),
                                   fd_jacobian(lambda v: powered(v, power=3), u),
                                   rtol=1e-6, atol=1e-8)
    assert len(measured) == 1


def test_sparse_jacfwd_splits_its_directions_by_the_memory_budget(monkeypatch):
    # a budget smaller than one pass of every colour: several passes, each filling its
    # own rows of the plan's copy of the seeds, give the same Jacobian
    from fwdad import compressed_passes
    passes = []
    seeded_pass = compressed_passes.seeded_pass
    monkeypatch.setattr(compressed_passes, "seeded_pass",
                        lambda *a, **k: passes.append(1) or seeded_pass(*a, **k))
    u = np.linspace(0.1, 0.9, 1000)
    fwdad.set_memory_budget(60_000)
    try:
        jac = fwdad.sparse_jacfwd(reaction_diffusion_1d, sparsity=tridiagonal(1000),
                                  coloring=np.arange(1000) % 3)
        first, second = jac(u), jac(1.1 * u)
    finally:
        fwdad.set_memory_budget(None)
    assert len(passes) > 2  # (4 directions with the probe: more than one pass a call)
    for point, got in ((u, first), (1.1 * u, second)):
        want = fwdad.sparse_jacfwd(reaction_diffusion_1d, sparsity=tridiagonal(1000),
                                   chunk_size=4)(point)
        np.testing.assert_allclose(got.toarray(), want.toarray(), rtol=1e-15)
        # (and the closed form of the tridiagonal part)
        np.testing.assert_array_equal(got.diagonal(1), np.ones(999))


def test_later_calls_run_their_passes_as_the_first_call_split_them(monkeypatch):
    # a call like the first (arrays of the same shapes and dtypes, the same budget)
    # runs the chunks the first call's estimate sized, without the budget's
    # bookkeeping; a new budget sizes them again
    from fwdad import chunked, compressed_passes
    planned, passes = [], []
    run_chunks, seeded_pass = chunked.run_chunks, compressed_passes.seeded_pass
    monkeypatch.setattr(chunked, "run_chunks",
                        lambda *a, **k: planned.append(1) or run_chunks(*a, **k))
    monkeypatch.setattr(compressed_passes, "seeded_pass",
                        lambda *a, **k: passes.append(1) or seeded_pass(*a, **k))
    def residual(u):  # (a function of its own: estimates and chunks are kept per function)
        return reaction_diffusion_1d(u)
    u = np.linspace(0.1, 0.9, 1000)
    jac = fwdad.sparse_jacfwd(residual, sparsity=tridiagonal(1000),
                              coloring=np.arange(1000) % 3)
    per_call = []
    for budget in (60_000, None):
        fwdad.set_memory_budget(budget)
        try:
            for point in (u, 1.1 * u, 1.2 * u):
                del passes[:]
                got = jac(point)
                per_call.append(len(passes))
                np.testing.assert_allclose(got.diagonal(), -2.0 + 0.8 * (1.0 - 2.0 * point),
                                           rtol=1e-14)
                np.testing.assert_array_equal(got.diagonal(-1), np.ones(999))
        finally:
            fwdad.set_memory_budget(None)
    assert len(planned) == 2  # (the first call under each budget)
    assert per_call[1] == per_call[2] > 1 and per_call[4] == per_call[5] == 1, per_call


def test_sparse_jacfwd_with_a_given_coloring():
    colors = np.arange(12) % 3
    jac = fwdad.sparse_jacfwd(reaction_diffusion_1d, sparsity=tridiagonal(12),
                              coloring=colors)(U1)
    np.testing.assert_allclose(jac.toarray(), fwdad.jacfwd(reaction_diffusion_1d)(U1))
    with pytest.raises(ColoringError, match="share a row"):
        fwdad.sparse_jacfwd(reaction_diffusion_1d, sparsity=tridiagonal(12),
                            coloring=np.arange(12) % 2)


# ---- sparse_jacrev -------------------------------------------------------------------
@pytest.mark.parametrize("order", ORDERS)
def test_sparse_jacrev_equals_jacrev(order):
    for f, x, pattern in ((reaction_diffusion_1d, U1, tridiagonal(12)),
                          (five_point_2d, U2, five_point_pattern(5))):
        jac = fwdad.sparse_jacrev(f, sparsity=pattern, coloring=order)(x)
        np.testing.assert_allclose(jac.toarray(), fwdad.jacrev(f)(x), rtol=1e-14)
        np.testing.assert_allclose(jac.toarray(), fd_jacobian(f, x), rtol=1e-6, atol=1e-8)


def test_sparse_jacrev_of_a_few_dense_rows():
    def moments(x):
        return np.array([np.sum(x), np.sum(x[:5] ** 2), np.sum(np.sin(x[5:]))])
    pattern = np.ones((3, 10), dtype=bool)
    pattern[1, 5:] = pattern[2, :5] = False
    x = np.linspace(-1.0, 1.0, 10)
    jac = fwdad.sparse_jacrev(moments, sparsity=pattern)(x)
    np.testing.assert_allclose(jac.toarray(), fwdad.jacrev(moments)(x), rtol=1e-14)
    np.testing.assert_allclose(jac.toarray(), fd_jacobian(moments, x), rtol=1e-6, atol=1e-8)


# ---- sparse_hessian ------------------------------------------------------------------
@pytest.mark.parametrize("order", ORDERS)
def test_sparse_hessian_equals_hessian(order):
    x = np.linspace(-0.7, 0.9, 14)
    hess = fwdad.sparse_hessian(chain_energy, sparsity=tridiagonal(14), coloring=order)(x)
    assert isinstance(hess, sp.csr_array)
    want = fwdad.hessian(chain_energy)(x)
    np.testing.assert_allclose(hess.toarray(), want, rtol=1e-13, atol=1e-14)
    reference = fd_jacobian(fwdad.grad(chain_energy), x)  # forward differences of grad
    np.testing.assert_allclose(hess.toarray(), reference, rtol=1e-6, atol=1e-7)


def test_sparse_hessian_of_a_quadratic_on_a_grid():
    pattern = five_point_pattern(4)
    values = np.random.default_rng(3).standard_normal((16, 16))
    matrix = np.where(pattern.toarray(), values, 0.0)

    def quadratic(x):
        return 0.5 * x @ (matrix @ x)
    x = np.linspace(0.0, 1.0, 16)
    hess = fwdad.sparse_hessian(quadratic, sparsity=sp.tril(pattern))(x)  # made symmetric
    np.testing.assert_allclose(hess.toarray(), 0.5 * (matrix + matrix.T), rtol=1e-14)


def test_sparse_hessian_needs_a_square_pattern():
    with pytest.raises(SparsityPatternError, match="needs the Hessian's pattern"):
        fwdad.sparse_hessian(chain_energy)
    with pytest.raises(SparsityPatternError, match="square"):
        fwdad.sparse_hessian(chain_energy, sparsity=np.ones((3, 4), dtype=bool))


# ---- wrong patterns ------------------------------------------------------------------
def test_a_pattern_of_the_wrong_shape_is_an_error():
    wrong_columns, wrong_rows = tridiagonal(12)[:, :10], tridiagonal(12)[:10, :]
    for make in (fwdad.sparse_jacfwd, fwdad.sparse_jacrev):
        with pytest.raises(SparsityPatternError, match=r"has 12 columns \(the size of arg"):
            make(reaction_diffusion_1d, sparsity=wrong_columns)(U1)
        with pytest.raises(SparsityPatternError, match=r"has 12 rows \(the output's size"):
            make(reaction_diffusion_1d, sparsity=wrong_rows)(U1)
    with pytest.raises(SparsityPatternError, match="has 14 columns"):
        fwdad.sparse_hessian(chain_energy, sparsity=tridiagonal(12))(np.ones(14))


@pytest.mark.parametrize("make", [fwdad.sparse_jacfwd, fwdad.sparse_jacrev])
def test_a_pattern_that_misses_a_nonzero_is_found_by_the_probe(make):
    diagonal = sp.eye_array(12).astype(bool)  # one colour: no entry looks out of place
    with pytest.raises(SparsityPatternError, match="misses a nonzero in (row|column)"):
        make(reaction_diffusion_1d, sparsity=diagonal)(U1)


def test_a_pattern_found_in_global_mode_is_probed_too():
    """Global mode's pattern holds for every value of the argument, with everything
    else f reads as detection saw it. An index array f reads from outside (here a
    closure's; a global or another argument alike), changed in place afterwards,
    moves the nonzeros: the probe reports it, where the Jacobian without the probe is
    wrong with no sign. So the probe runs for such patterns as for any other."""
    index = np.array([1, 2, 3, 0])

    def shifted_product(u):
        return u * u[index]
    u = np.linspace(0.5, 1.5, 4)
    pattern = fwdad.jacobian_sparsity(shifted_product, u, mode="global")
    probed = fwdad.sparse_jacfwd(shifted_product, sparsity=pattern)
    unprobed = fwdad.sparse_jacfwd(shifted_product, sparsity=pattern, probe=False)
    np.testing.assert_allclose(probed(u).toarray(), fd_jacobian(shifted_product, u),
                               rtol=1e-7, atol=1e-9)
    index[:] = [3, 0, 1, 2]
    with pytest.raises(SparsityPatternError, match="misses a nonzero in row"):
        probed(u)
    assert not np.allclose(unprobed(u).toarray(), fd_jacobian(shifted_product, u))


def test_the_probe_compares_row_by_row():
    """The probe's check holds each row to its own rounding bound: a missed entry of
    1e-9 in a row of entries near 1 is found beside rows of entries near 1e8, whose
    bounds (about 1e-5) would hide it in one sum over the rows (a random linear
    functional of the residual, a cheaper and weaker check)."""
    def small_coupling(u):
        out = 1e8 * u
        out[0] = u[0] + 1e-9 * u[5]
        return out
    u = np.linspace(0.5, 1.5, 10)
    dense = fwdad.jacfwd(small_coupling)(u)
    closed_form = np.diag(np.r_[1.0, np.full(9, 1e8)])
    closed_form[0, 5] = 1e-9
    np.testing.assert_allclose(dense, closed_form, rtol=1e-15, atol=0)
    with pytest.raises(SparsityPatternError, match="misses a nonzero in row 0"):
        fwdad.sparse_jacfwd(small_coupling, sparsity=sp.eye_array(10))(u)


@pytest.mark.parametrize("off, exceeds", [(0.0, False), (1e-17, False), (1e-9, True)])
def test_a_row_that_cancels_is_held_to_its_terms_bound(off, exceeds):
    """Row 0 sums two entries of opposite sign along the probe (about 1 and -1, to
    nearly 0): 256 eps |expected| is far below its rounding, so the row is doubtful,
    and its bound comes from the terms (256 eps (|J| @ |v| + |expected|), about 1e-13):
    a difference of 1e-17 is rounding, one of 1e-9 a missed entry. Row 1 is exact."""
    from fwdad.compression import Compression
    from fwdad.scratch import FRESH
    plan = Compression(np.array([[True, True], [False, True]]), np.array([0, 1]), "column")
    along = plan.directions(np.float64, True)[-1]
    weights = plan._weights[along.dtype]
    jac = np.array([[1.0, -along[0] / along[1]], [0.0, 2.0]])
    product = jac @ along
    compressed = np.array([[jac[0, 0], 0.0], [jac[0, 1], jac[1, 1]], product + [off, 0.0]])
    assert abs(product[0]) < 1e-15  # (cancels)
    assert plan._exceeds_rounding(compressed, weights, FRESH) is exceeds


def test_the_probe_finds_a_missed_hessian_entry():
    with pytest.raises(SparsityPatternError, match="misses a nonzero in row"):
        fwdad.sparse_hessian(chain_energy, sparsity=sp.eye_array(14))(np.linspace(0, 1, 14))


def test_a_missed_nonzero_in_an_uncovered_colour_is_found_without_the_probe():
    pattern = tridiagonal(12).tolil()
    pattern[1, 2] = False
    jac = fwdad.sparse_jacfwd(reaction_diffusion_1d, sparsity=pattern,
                              coloring=np.arange(12) % 3, probe=False)
    with pytest.raises(SparsityPatternError, match="in row 1, the derivative along the "
                                                   "columns of colour 2"):
        jac(U1)


@pytest.mark.parametrize("make", [fwdad.sparse_jacfwd, fwdad.sparse_jacrev])
def test_check_names_the_missed_entry(make):
    diagonal = sp.eye_array(12).astype(bool)
    with pytest.raises(SparsityPatternError, match=r"misses the nonzero \(0, 1\) = 1"):
        make(reaction_diffusion_1d, sparsity=diagonal, probe=False, check=True)(U1)
    jac = make(reaction_diffusion_1d, sparsity=tridiagonal(12), check=True)(U1)
    np.testing.assert_allclose(jac.toarray(), fd_jacobian(reaction_diffusion_1d, U1),
                               rtol=1e-6, atol=1e-8)


# ---- detection and misuse ------------------------------------------------------------
def test_detect_uses_jacobian_sparsity_or_says_to_pass_a_pattern():
    jac = fwdad.sparse_jacfwd(reaction_diffusion_1d)  # sparsity="detect"
    if not hasattr(fwdad, "jacobian_sparsity"):
        with pytest.raises(FwdadError, match="pass the pattern as sparsity="):
            jac(U1)
        return
    np.testing.assert_allclose(jac(U1).toarray(), fd_jacobian(reaction_diffusion_1d, U1),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("call, match", [
    (lambda: fwdad.sparse_jacfwd(reaction_diffusion_1d, argnums=(0,)),
     "takes one argument number"),
    (lambda: fwdad.sparse_jacfwd(reaction_diffusion_1d, sparsity="auto"),
     "pass a pattern or \"detect\""),
    (lambda: fwdad.sparse_jacfwd(reaction_diffusion_1d, sparsity=tridiagonal(3))(
        np.arange(3)), "real float or float array, and argument 0 is an ndarray"),
    (lambda: fwdad.sparse_jacfwd(lambda u: (u, u), sparsity=tridiagonal(3))(np.ones(3)),
     "returns a tuple"),
    (lambda: fwdad.sparse_jacfwd(reaction_diffusion_1d, coloring="random",
                                 sparsity=tridiagonal(3)), "unknown colouring order"),
])
def test_misuse_is_an_error_that_says_what_to_do(call, match):
    with pytest.raises(FwdadError, match=match):
        call()


def test_sparse_hessian_goes_forward_over_forward_where_reverse_mode_refuses(monkeypatch):
    from fwdad.reverse import api as reverse_api

    def refuse(*args, **kwargs):
        raise FwdadError("reverse mode refuses this function (a stand-in)")
    monkeypatch.setattr(reverse_api, "grad", refuse)  # hvp falls back the same way
    x = np.linspace(-0.7, 0.9, 8)
    hess = fwdad.sparse_hessian(chain_energy, sparsity=tridiagonal(8))(x)
    monkeypatch.undo()
    reference = fd_jacobian(fwdad.grad(chain_energy), x)
    np.testing.assert_allclose(hess.toarray(), reference, rtol=1e-6, atol=1e-7)
