"""fwdad.coloring and fwdad.compression: colourings are valid on random patterns (checked
here by brute force over dense arrays, not by fwdad's own check), banded patterns need
few colours, and compressing a random sparse matrix and reading it back gives it again."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fwdad.coloring import (
    ORDERS,
    as_pattern,
    check_coloring,
    column_coloring,
    row_coloring,
    symmetric_coloring,
)
from fwdad.compression import Compression
from fwdad.errors import ColoringError, SparsityPatternError


def banded(n, half_width):
    return np.abs(np.subtract.outer(np.arange(n), np.arange(n))) <= half_width


def five_point(m):
    line = banded(m, 1).astype(int)
    eye = np.eye(m, dtype=int)
    return (np.kron(line, eye) + np.kron(eye, line)) != 0


def is_column_coloring(dense, colors):
    """No two columns of one colour have a nonzero in the same row (brute force)."""
    for row in dense:
        used = colors[np.flatnonzero(row)]
        if len(np.unique(used)) != len(used):
            return False
    return True


def is_star_coloring(dense, colors):
    """Neighbours differ, and no path a-b-c-d uses two colours (brute force)."""
    adjacent = (dense | dense.T) & ~np.eye(len(dense), dtype=bool)
    n = len(dense)
    if any(colors[i] == colors[j] for i in range(n) for j in np.flatnonzero(adjacent[i])):
        return False
    for b in range(n):
        for c in np.flatnonzero(adjacent[b]):
            for a in np.flatnonzero(adjacent[b]):
                for d in np.flatnonzero(adjacent[c]):
                    if len({a, b, c, d}) == 4 and colors[a] == colors[c] and \
                            colors[b] == colors[d]:
                        return False
    return True


@st.composite
def patterns(draw, square=False):
    rows = draw(st.integers(1, 12))
    cols = rows if square else draw(st.integers(1, 12))
    density = draw(st.sampled_from([0.05, 0.2, 0.5, 0.9]))
    seed = draw(st.integers(0, 2**16))
    return np.random.default_rng(seed).random((rows, cols)) < density


# ---- valid colourings ----------------------------------------------------------------
@pytest.mark.parametrize("order", ORDERS)
@settings(max_examples=60)
@given(dense=patterns())
def test_column_and_row_colorings_are_valid(order, dense):
    columns = column_coloring(dense, order)
    rows = row_coloring(sp.csr_array(dense), order)
    assert columns.shape == (dense.shape[1],) and rows.shape == (dense.shape[0],)
    assert is_column_coloring(dense, columns)
    assert is_column_coloring(dense.T, rows)
    check_coloring(dense, columns)
    check_coloring(dense, rows, kind="row")


@pytest.mark.parametrize("order", ORDERS)
@settings(max_examples=60)
@given(dense=patterns(square=True))
def test_star_colorings_are_valid(order, dense):
    colors = symmetric_coloring(dense, order)
    assert is_star_coloring(dense, colors)
    check_coloring(dense, colors, kind="star")


@pytest.mark.parametrize("order", ORDERS)
def test_a_tridiagonal_pattern_needs_three_colors(order):
    assert column_coloring(banded(50, 1), order).max() + 1 == 3
    assert row_coloring(banded(50, 1), order).max() + 1 == 3
    assert symmetric_coloring(banded(50, 1), order).max() + 1 <= 3


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("half_width", [2, 3])
def test_banded_patterns_need_few_colors(order, half_width):
    colors = column_coloring(banded(60, half_width), order)
    assert 2 * half_width + 1 <= colors.max() + 1 <= 2 * (2 * half_width + 1)
    assert colors.max() + 1 == 2 * half_width + 1 or order != "natural"


@pytest.mark.parametrize("order", ORDERS)
def test_five_point_stencil_colorings(order):
    pattern = five_point(12)
    columns, star = column_coloring(pattern, order), symmetric_coloring(pattern, order)
    assert is_column_coloring(pattern, columns)
    assert 5 <= columns.max() + 1 <= 8
    assert star.max() + 1 <= columns.max() + 1


# ---- invalid colourings and patterns -------------------------------------------------
def test_check_coloring_names_the_clash():
    with pytest.raises(ColoringError, match="0 and 1 share a row but both have colour 0"):
        check_coloring(banded(5, 1), np.zeros(5, dtype=int))


def test_check_coloring_refuses_a_two_colored_path_for_a_hessian():
    path = banded(4, 1)  # 0-1-2-3: neighbours differ, but the path has two colours
    with pytest.raises(ColoringError, match="path of four vertices"):
        check_coloring(path, np.array([0, 1, 0, 1]), kind="star")


@pytest.mark.parametrize("colors, match", [(np.zeros(4, dtype=int), "5 non-negative"),
                                           (np.arange(5.0), "dtype float64"),
                                           (-np.ones(5, dtype=int), "non-negative")])
def test_check_coloring_refuses_malformed_colors(colors, match):
    with pytest.raises(ColoringError, match=match):
        check_coloring(banded(5, 1), colors)


def test_unknown_order_and_kind_are_refused():
    with pytest.raises(ColoringError, match="largest_first, smallest_last, natural"):
        column_coloring(banded(5, 1), "random")
    with pytest.raises(ColoringError, match="column, row, star"):
        check_coloring(banded(5, 1), np.arange(5), kind="diagonal")


def test_patterns_must_be_two_dimensional_and_hessians_square():
    with pytest.raises(SparsityPatternError, match="2-D pattern"):
        as_pattern(np.ones(4, dtype=bool))
    with pytest.raises(SparsityPatternError, match="square"):
        symmetric_coloring(np.ones((3, 4), dtype=bool))


# ---- compressing and reading back ----------------------------------------------------
def random_matrix(dense_pattern, seed):
    values = np.random.default_rng(seed).standard_normal(dense_pattern.shape)
    return np.where(dense_pattern, values, 0.0)


@pytest.mark.parametrize("order", ORDERS)
@settings(max_examples=40)
@given(dense=patterns(), seed=st.integers(0, 100))
def test_columns_and_rows_are_read_back(order, dense, seed):
    matrix = random_matrix(dense, seed)
    by_columns = Compression(dense, column_coloring(dense, order), "column")
    compressed = by_columns.seeds(np.float64) @ matrix.T  # one J @ s per colour
    assert by_columns.misses_at(compressed) is None
    np.testing.assert_array_equal(by_columns.decompress(compressed).toarray(), matrix)
    by_rows = Compression(dense, row_coloring(dense, order), "row")
    compressed = by_rows.seeds(np.float64) @ matrix  # one s @ J per colour
    np.testing.assert_array_equal(by_rows.decompress(compressed).toarray(), matrix)


@pytest.mark.parametrize("order", ORDERS)
@settings(max_examples=40)
@given(dense=patterns(square=True), seed=st.integers(0, 100))
def test_symmetric_matrices_are_read_back_from_a_star_coloring(order, dense, seed):
    half = random_matrix(dense, seed)
    matrix = half + half.T
    plan = Compression(dense, symmetric_coloring(dense, order), "star")
    compressed = plan.seeds(np.float64) @ matrix
    np.testing.assert_allclose(plan.decompress(compressed).toarray(), matrix, rtol=1e-15)


def test_a_compressed_entry_the_pattern_cannot_explain_is_found():
    matrix = random_matrix(banded(6, 1), 0)
    pattern = banded(6, 1)
    pattern[1, 2] = False  # row 1 has no column of colour 2 now
    plan = Compression(pattern, np.arange(6) % 3, "column")
    assert plan.misses_at(plan.seeds(np.float64) @ matrix.T) == (2, 1)


# ---- the probe ------------------------------------------------------------------------
def probe_reference(derivative, along, expected):
    """Whether the sparse derivative times `along` misses `expected` by more than
    rounding: dense products, independent of the compressed layout."""
    dense = derivative.toarray()
    eps = np.finfo(np.float64).eps
    excess = np.abs(dense @ along - expected) - 256 * eps * (np.abs(dense) @ along
                                                              + np.abs(expected))
    return bool((excess > 0).any())


@pytest.mark.parametrize("kind", ["column", "row"])
@settings(max_examples=60)
@given(dense=patterns(), seed=st.integers(0, 100), drop=st.booleans())
def test_the_probe_finds_a_dropped_entry_as_the_dense_products_do(kind, dense, seed, drop):
    matrix = random_matrix(dense, seed)
    pattern = dense.copy()
    if drop and dense.any():
        i, j = np.argwhere(dense)[seed % int(dense.sum())]
        pattern[i, j] = False  # the Jacobian has a nonzero the pattern misses
    coloring = column_coloring if kind == "column" else row_coloring
    plan = Compression(pattern, coloring(pattern), kind)
    directions = plan.directions(np.float64, probe=True)
    compressed = directions @ (matrix.T if kind == "column" else matrix)
    derivative = plan.decompress(compressed[:plan.ncolors])
    flagged = plan.probe_mismatch(derivative, directions[-1], compressed)
    transposed = derivative.T.tocsr() if kind == "row" else derivative
    assert (flagged is not None) == probe_reference(transposed, directions[-1],
                                                    compressed[-1])
    assert (flagged is not None) == (drop and dense.any())


def test_the_probe_holds_rows_whose_product_cancels():
    # the rows of J @ v are ~0 (rounding) for the fixed random probe direction v: the
    # check needs the full bound |J| @ |v| there, not |J @ v| + |expected|
    plan = Compression(banded(6, 1), np.arange(6) % 3, "column")
    directions = plan.directions(np.float64, probe=True)
    v = directions[-1]
    matrix = np.zeros((6, 6))
    for i in range(5):
        matrix[i, i], matrix[i, i + 1] = 1e8 * v[i + 1], -1e8 * v[i]
    matrix[5, 5] = 1.0
    compressed = directions @ matrix.T
    assert np.abs(compressed[-1, :5]).max() < 1e-6
    derivative = plan.decompress(compressed[:plan.ncolors])
    assert plan.probe_mismatch(derivative, v, compressed) is None
    compressed[-1, 2] += 1e-3  # a nonzero the pattern misses, tiny beside 1e8
    assert plan.probe_mismatch(derivative, v, compressed)[0] == 2


def test_a_nan_row_hides_no_missed_entry_from_the_probe():
    plan = Compression(banded(6, 1), np.arange(6) % 3, "column")
    directions = plan.directions(np.float64, probe=True)
    matrix = random_matrix(banded(6, 1), 3)
    matrix[0, 0] = np.nan  # a NaN derivative: stored, not a miss
    compressed = directions @ matrix.T
    derivative = plan.decompress(compressed[:plan.ncolors])
    assert plan.probe_mismatch(derivative, directions[-1], compressed) is None
    compressed[-1, 4] += 1.0  # a nonzero the pattern misses, in another row
    assert plan.probe_mismatch(derivative, directions[-1], compressed)[0] == 4
