"""Colourings of sparsity patterns: which Jacobian columns (or rows) one tangent
(or cotangent) direction can carry together.

    pattern = tridiagonal n x n          ->  column_coloring(pattern) == [0, 1, 2, 0, 1, 2, ...]
    compressed J @ S (S[j, color[j]] = 1) ->  3 directions instead of n

Two columns may share a colour when no row has a nonzero in both (a distance-2
colouring of the bipartite graph rows-columns): each row of J @ S then holds each of
its nonzeros alone in one column, and decompression reads them back. Rows alike, for
reverse mode (S.T @ J). For a symmetric Hessian a star colouring (no path on four
vertices in two colours) needs fewer colours: each off-diagonal entry is read from
one of its two sides (`star_sources`).

Note: written here rather than taken from a library. networkx's `greedy_color` (and
gcol, built on it) colours a graph's vertices at distance 1: it would need the
column-intersection graph built first and a dependency fwdad does not have, and offers
no star colouring; SciPy has no public colouring (`scipy.sparse.csgraph` has none;
`scipy.optimize._numdiff.group_columns` is private and natural order only).
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence

import numpy as np

from fwdad.errors import ColoringError, SparsityPatternError, a_type

ORDERS = ("largest_first", "smallest_last", "natural")
KINDS = ("column", "row", "star")


# ---- patterns ------------------------------------------------------------------------
def as_pattern(sparsity: Any, what: str = "sparsity") -> Any:
    """`sparsity` (a scipy.sparse matrix or array, or a dense array) as a
    `scipy.sparse.csr_array` of bools with sorted indices and no stored zeros."""
    import scipy.sparse as sp  # (scipy is optional: imported where a pattern is read)
    if sp.issparse(sparsity):
        pattern = sp.csr_array(sparsity, copy=True)
    elif isinstance(sparsity, (np.ndarray, list, tuple)) and np.ndim(sparsity) == 2:
        pattern = sp.csr_array(np.asarray(sparsity) != 0)
    else:
        raise SparsityPatternError(
            f"{what} must be a 2-D pattern (a scipy.sparse matrix or a dense bool array "
            f"of shape (output size, input size)), not {a_type(sparsity)} of "
            f"{np.ndim(sparsity)} dimensions.")
    pattern.sum_duplicates()
    pattern.data = pattern.data != 0
    pattern.eliminate_zeros()
    return pattern.astype(bool)


def _adjacency(pattern: Any) -> List[List[int]]:
    """Each vertex's neighbours (itself excluded), from a square symmetric pattern."""
    indptr, indices = pattern.indptr.tolist(), pattern.indices.tolist()
    return [[j for j in indices[indptr[v]:indptr[v + 1]] if j != v]
            for v in range(pattern.shape[0])]


def _column_graph(pattern: Any) -> List[List[int]]:
    """Columns that share a row with each column (the column-intersection graph)."""
    ones = pattern.astype(np.int32)
    return _adjacency((ones.T @ ones).tocsr())


def _symmetric_graph(pattern: Any) -> List[List[int]]:
    return _adjacency(symmetrized(pattern))


def _check_square(pattern: Any) -> None:
    if pattern.shape[0] != pattern.shape[1]:
        raise SparsityPatternError(
            f"a Hessian's pattern is square, but this one has shape {pattern.shape}.")


# ---- orderings -----------------------------------------------------------------------
def vertex_order(graph: Sequence[Sequence[int]], order: str) -> List[int]:
    """The order in which greedy colouring visits the vertices of `graph`.

    "natural": 0, 1, 2, ...; "largest_first": by degree, largest first (ties in natural
    order); "smallest_last": repeatedly set aside a vertex of smallest degree in what
    is left, and colour in the reverse order (often the fewest colours)."""
    if order == "natural":
        return list(range(len(graph)))
    if order == "largest_first":
        return sorted(range(len(graph)), key=lambda v: -len(graph[v]))
    if order == "smallest_last":
        return _smallest_last(graph)
    raise ColoringError(f"unknown colouring order {order!r}: use one of {', '.join(ORDERS)}.")


def _smallest_last(graph: Sequence[Sequence[int]]) -> List[int]:
    """Matula and Beck's smallest-last order, with buckets of vertices by degree."""
    degree = [len(neighbours) for neighbours in graph]
    buckets: Dict[int, set[int]] = {}
    for v, d in enumerate(degree):
        buckets.setdefault(d, set()).add(v)
    removed, last_first, low = [False] * len(graph), [], 0
    for _ in range(len(graph)):
        low = max(0, low - 1)  # removing a vertex lowers its neighbours' degree by one
        while not buckets.get(low):
            low += 1
        v = min(buckets[low])  # (deterministic: the smallest index of least degree)
        buckets[low].discard(v)
        removed[v] = True
        last_first.append(v)
        for w in graph[v]:
            if not removed[w]:
                buckets[degree[w]].discard(w)
                degree[w] -= 1
                buckets.setdefault(degree[w], set()).add(w)
    return last_first[::-1]


# ---- greedy colourings ---------------------------------------------------------------
def _greedy(graph: Sequence[Sequence[int]], order: str) -> np.ndarray:
    """Each vertex gets the smallest colour none of its neighbours has."""
    colors = [-1] * len(graph)
    for v in vertex_order(graph, order):
        taken = {colors[w] for w in graph[v]}
        colors[v] = next(c for c in range(len(taken) + 1) if c not in taken)
    return np.asarray(colors, dtype=np.intp)


def column_coloring(sparsity: Any, order: str = "largest_first") -> np.ndarray:
    """A colour for every column of `sparsity`; two columns that have a nonzero in the
    same row get different colours (a greedy distance-2 colouring).

    Args:
        sparsity: the Jacobian's pattern (scipy.sparse or a dense array), shape
            (output size, input size).
        order: "largest_first", "smallest_last" or "natural": the order greedy
            colouring visits the columns in.

    Returns:
        An int array, `colors[j]` for column j, from 0 to `ncolors - 1`.
    """
    return _greedy(_column_graph(as_pattern(sparsity)), order)


def row_coloring(sparsity: Any, order: str = "largest_first") -> np.ndarray:
    """A colour for every row of `sparsity` (for reverse mode); two rows that have a
    nonzero in the same column get different colours. Arguments as column_coloring."""
    return _greedy(_column_graph(as_pattern(sparsity).T.tocsr()), order)


def symmetric_coloring(sparsity: Any, order: str = "largest_first") -> np.ndarray:
    """A star colouring of a symmetric pattern (a Hessian's; `sparsity | sparsity.T` is
    used): neighbours get different colours, and no path on four vertices has only two
    colours, so that each entry H[i, j] is alone in row i of H @ S or in row j.

    Greedy: a vertex takes the smallest colour that makes no two-coloured path of four
    vertices among the coloured ones; a path is checked when its last vertex is
    coloured, in whichever place it stands. Arguments as column_coloring."""
    graph = _symmetric_graph(as_pattern(sparsity))
    colors = [-1] * len(graph)
    counts: List[Dict[int, int]] = [{} for _ in graph]  # colour -> coloured neighbours
    for v in vertex_order(graph, order):
        forbidden = _star_forbidden(graph, colors, counts, v)
        colors[v] = next(c for c in range(len(forbidden) + 1) if c not in forbidden)
        for w in graph[v]:
            counts[w][colors[v]] = counts[w].get(colors[v], 0) + 1
    return np.asarray(colors, dtype=np.intp)


def _star_forbidden(graph: Sequence[Sequence[int]], colors: List[int],
                    counts: List[Dict[int, int]], v: int) -> set[int]:
    """The colours v may not take: a neighbour's, and for a coloured path v-w-x-y (v at
    its end) or u-v-w-x (v inside) whose other three vertices use two colours, x's."""
    forbidden = set()
    for w in graph[v]:
        a = colors[w]
        if a < 0:
            continue
        forbidden.add(a)
        repeated = counts[v].get(a, 0) >= 2  # u-v-w-x: u and w both coloured a
        for x in graph[w]:
            if x != v and colors[x] >= 0 and (repeated or counts[x].get(a, 0) >= 2):
                forbidden.add(colors[x])  # v-w-x-y: y, besides w, has colour a
    return forbidden


def star_sources(sparsity: Any, colors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each entry of a symmetric matrix is read from its compression B = H @ S.

    For the k-th stored entry (i, j) of `sparsity | sparsity.T` (csr order), returns
    `(rows[k], columns[k])` with H[i, j] = B[rows[k], columns[k]]: row i when j is the
    only neighbour of i of its colour, else row j (a star colouring makes one of the
    two hold). Raises ColoringError when `colors` is not a star colouring."""
    pattern = symmetrized(as_pattern(sparsity))
    rows, cols = coordinates(pattern)
    counts = _color_counts(pattern, colors)
    alone_in_row = counts[rows, colors[cols]] == 1
    alone_in_col = counts[cols, colors[rows]] == 1
    diagonal = rows == cols
    clash = (colors[rows] == colors[cols]) & ~diagonal
    if clash.any():
        raise ColoringError("the colouring is not a star colouring of the Hessian's "
                            "pattern: " + _first_conflict(pattern, colors, "star"))
    unreadable = ~(alone_in_row | alone_in_col | diagonal)
    if unreadable.any():
        i, j = rows[unreadable][0], cols[unreadable][0]
        raise ColoringError(
            f"the colouring is not a star colouring of the Hessian's pattern: vertex {i} "
            f"has another neighbour of colour {colors[j]} besides {j}, and {j} another "
            f"of colour {colors[i]} besides {i}, so a path of four vertices through "
            f"them has two colours and entry ({i}, {j}) cannot be read back.")
    use_row = alone_in_row | diagonal
    return np.where(use_row, rows, cols), colors[np.where(use_row, cols, rows)]


def symmetrized(pattern: Any) -> Any:
    """`pattern | pattern.T`, for a square pattern."""
    _check_square(pattern)
    return as_pattern(pattern + pattern.T)


def coordinates(pattern: Any) -> tuple[np.ndarray, np.ndarray]:
    """The (row, column) of each stored entry of a csr pattern, in its order."""
    rows = np.repeat(np.arange(pattern.shape[0]), np.diff(pattern.indptr))
    return rows, pattern.indices.astype(np.intp)


def _color_counts(pattern: Any, colors: np.ndarray) -> np.ndarray:
    """counts[i, c]: how many off-diagonal entries of row i have a column of colour c
    (dense: rows x ncolors, small)."""
    rows, cols = coordinates(pattern)
    keep = rows != cols
    counts = np.zeros((pattern.shape[0], int(colors.max(initial=-1)) + 1), dtype=np.intp)
    np.add.at(counts, (rows[keep], colors[cols[keep]]), 1)
    return counts


# ---- checking ------------------------------------------------------------------------
def check_coloring(sparsity: Any, colors: Any, kind: str = "column") -> None:
    """Raise ColoringError unless `colors` is a valid colouring of `sparsity`.

    Args:
        sparsity: the pattern (scipy.sparse or dense), shape (rows, columns).
        colors: one non-negative int per column ("column"), per row ("row"), or per
            row of a square symmetric pattern ("star").
        kind: "column": no two columns of one colour share a row; "row": no two rows
            of one colour share a column; "star": a star colouring of
            `sparsity | sparsity.T` (neighbours differ, no two-coloured path on four
            vertices).

    Raises:
        ColoringError: the colouring is invalid (the message names the first clash) or
            has the wrong length; SparsityPatternError: the pattern is not 2-D.
    """
    if kind not in KINDS:
        raise ColoringError(f"unknown kind {kind!r}: use one of {', '.join(KINDS)}.")
    pattern = as_pattern(sparsity)
    if kind == "row":
        pattern, kind = pattern.T.tocsr(), "column"
    if kind == "star":
        pattern = symmetrized(pattern)
    colors = _checked_colors(colors, pattern.shape[1], kind)
    if kind == "star":
        star_sources(pattern, colors)
        return
    clash = _first_conflict(pattern, colors, "column")
    if clash:
        raise ColoringError(f"the colouring is not a valid {kind} colouring: {clash}")


def _checked_colors(colors: Any, count: int, kind: str) -> np.ndarray:
    colors = np.asarray(colors)
    if colors.shape != (count,) or colors.dtype.kind not in "iu" or (colors < 0).any():
        raise ColoringError(
            f"a {kind} colouring of this pattern is {count} non-negative ints (one per "
            f"{'row' if kind != 'column' else 'column'}), not an array of shape "
            f"{colors.shape} and dtype {colors.dtype}.")
    checked: np.ndarray = colors.astype(np.intp)
    return checked


def _first_conflict(pattern: Any, colors: np.ndarray, kind: str) -> str:
    """A sentence naming the first clash of the colouring ("" when there is none)."""
    graph = _column_graph(pattern) if kind == "column" else _adjacency(pattern)
    for v, neighbours in enumerate(graph):
        for w in neighbours:
            if colors[v] == colors[w]:
                why = "share a row" if kind == "column" else "are neighbours"
                return f"{v} and {w} {why} but both have colour {colors[v]}."
    return ""
