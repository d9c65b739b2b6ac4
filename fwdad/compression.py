"""Compress a sparse derivative into one direction per colour, and read it back.

    Compression(pattern, colors, "column")   # J (m x n) with a column colouring
    seeds = plan.seeds(np.float64)           # (ncolors, n): seeds[c, j] = colors[j] == c
    compressed = [J @ s for s in seeds]      # (ncolors, m), by batched forward mode
    plan.decompress(compressed)              # J as a scipy.sparse.csr_array

"row" compresses rows (S.T @ J, one cotangent per colour, for reverse mode); "star"
compresses a symmetric matrix by a star colouring (fwdad/coloring.py). Where the
pattern says a compressed entry is a sum of no nonzeros, it must be zero:
`misses_at` finds one that is not, a cheap sign that the pattern misses a nonzero.
`probe_mismatch` checks the probe direction (the last one) against the rest.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

from fwdad.coloring import as_pattern, check_coloring, coordinates, star_sources, symmetrized
from fwdad.scratch import Fresh, Scratch


class Compression:
    """The seeds, and where each nonzero is read, for one pattern and colouring."""

    def __init__(self, pattern: Any, colors: np.ndarray, kind: str) -> None:
        pattern = symmetrized(as_pattern(pattern)) if kind == "star" else as_pattern(pattern)
        check_coloring(pattern, colors, kind)
        self.pattern, self.kind = pattern, kind
        self.colors = np.asarray(colors, dtype=np.intp)
        self.ncolors = int(self.colors.max(initial=-1)) + 1
        rows, cols = coordinates(pattern)
        # each entry adds into compressed[colors[seeded], other]; it is read back there,
        # or for "star" from whichever of its row and column holds it alone
        seeded, other = (rows, cols) if kind == "row" else (cols, rows)
        if kind == "star":
            read_rows, read_colors = star_sources(pattern, self.colors)
            self.source: Tuple[np.ndarray, np.ndarray] = (read_colors, read_rows)
        else:
            self.source = (self.colors[seeded], other)
        self.width = pattern.shape[1] if kind == "row" else pattern.shape[0]
        self.flat_source = np.ravel_multi_index(self.source, (self.ncolors, self.width))
        import scipy.sparse as sp  # (scipy is optional: imported where a pattern is read)
        self.template = sp.csr_array((np.zeros(pattern.nnz), pattern.indices.copy(),
                                      pattern.indptr.copy()), shape=pattern.shape)
        covered = np.zeros((self.ncolors, self.width), dtype=bool)
        covered[self.colors[seeded], other] = True
        self.uncovered = np.flatnonzero(~covered)
        # many uncovered entries (a stencil's boundary colours) are cheaper to check by
        # one compare over the whole layout than by gathering them
        self._uncovered_mask = ~covered if 8 * self.uncovered.size > covered.size else None
        self._directions: Dict[Any, np.ndarray] = {}
        self._weights: Dict[Any, np.ndarray] = {}
        self._scratch = Scratch()

    @property
    def seeded_size(self) -> int:
        """How many inputs (columns; rows for "row") the seeds span."""
        return int(self.pattern.shape[0 if self.kind == "row" else 1])

    def seeds(self, dtype: Any) -> np.ndarray:
        """(ncolors, seeded_size): direction c is 1 where the colour is c, else 0."""
        seeds = np.zeros((self.ncolors, self.seeded_size), dtype=dtype)
        seeds[self.colors, np.arange(self.seeded_size)] = 1
        return seeds

    def directions(self, dtype: Any, probe: bool) -> np.ndarray:
        """The seeds, then (when `probe`) a random direction, the same at every call, to
        check the pattern with: the sparse derivative times it must equal the
        derivative along it. Kept per dtype (read only: the passes copy tangents)."""
        key = (np.dtype(dtype), probe)
        if key not in self._directions:
            seeds = self.seeds(dtype)
            if probe:
                random = np.random.default_rng(0).uniform(0.5, 1.5, self.seeded_size)
                seeds = np.vstack([seeds, random.astype(dtype)])
            seeds.flags.writeable = False
            self._directions[key] = seeds
            if probe and self.kind != "star":
                self._weights[seeds.dtype] = self._probe_weights(seeds[-1])
        return self._directions[key]

    def _probe_weights(self, along: np.ndarray) -> np.ndarray:
        """(ncolors, width): along[j] where compressed entry (c, i) is read as entry
        (i, j) (rows: (j, i)), and 0 where it holds no entry. Then
        (weights * compressed[:ncolors]).sum(0) is the sparse derivative times `along`,
        read in the compressed layout (each compressed entry holds one entry of the
        pattern, by the colouring), to compare with the probe's row, compressed[-1]."""
        weights = np.zeros((self.ncolors, self.width), dtype=along.dtype)
        rows, cols = coordinates(self.pattern)
        weights[self.source] = along[rows if self.kind == "row" else cols]
        weights.flags.writeable = False
        return weights

    def probe_mismatch(self, derivative: Any, along: np.ndarray, compressed: np.ndarray,
                       work: Fresh = Fresh()) -> Optional[Tuple[int, Any, Any]]:
        """(index, sparse's value, expected value) of the largest disagreement between
        the sparse derivative times `along` (rows: `along` times it) and the derivative
        along it, `compressed[-1]`, when one exceeds rounding; else None.

        Note: the sparse product and its bound are read from `compressed` (dense, the
        size of the passes' output) rather than from `derivative` (two sparse products,
        each gathering `along`): the same sums (the order of their terms aside), at
        about two thirds of the cost (bench/sparse.py's residuals). Only a disagreement
        found there is located by the products. A complex derivative, and "star" (an
        entry is read from its row or its column), take the products. `work`: where
        the check's temporaries go (the plan's kept arrays, `lend()`; default new)."""
        weights = self._weights.get(along.dtype)
        if weights is not None and compressed.dtype.kind == "f" and \
                compressed.shape == (len(weights) + 1, weights.shape[1]) and \
                not self._exceeds_rounding(compressed, weights, work):
            return None
        return self._located_mismatch(derivative, along, compressed[-1])

    def _exceeds_rounding(self, compressed: np.ndarray, weights: np.ndarray,
                          work: Fresh) -> bool:
        """Whether some |sparse product - expected| > 256 eps (|derivative| @ |along|
        + |expected|), each side summed over the compressed column.

        The sparse product is one fused product-sum over the colours' rows (einsum: no
        temporary the size of `compressed`); the probe's row is subtracted after it, so
        that no row of -1 weights is read. The bound, which is at least |expected|, is
        summed only in the columns where 256 eps |expected| does not already hold the
        difference: the few where the product cancels, found by any() before
        nonzero() (which costs twenty times more over a row of False). Two of the
        arrays the size of a row are `work`'s (kept between calls: fwdad/scratch.py)."""
        eps = _epsilon(compressed.dtype)
        expected, width = compressed[-1], compressed.shape[1]
        # (einsum's result is its own: with out= it takes a loop four times slower)
        difference = np.einsum("ci,ci->i", weights, compressed[:-1])
        np.subtract(difference, expected, out=difference)
        np.abs(difference, out=difference)
        smaller = np.abs(expected, out=work.array("probe bound", (width,), difference.dtype))
        smaller *= 256 * eps
        exceeds = np.greater(difference, smaller,
                             out=work.array("probe exceeds", (width,), np.bool_))
        if not exceeds.any():
            return False
        # (a few columns: in the arrays take() makes, without einsum's or flatnonzero's
        # Python wrappers, a third of this branch's time)
        doubtful = exceeds.nonzero()[0]
        columns = compressed.take(doubtful, axis=1)
        np.abs(columns, out=columns)
        terms = weights.take(doubtful, axis=1)
        bound = (np.abs(terms, out=terms) * columns[:-1]).sum(axis=0)  # (promotes)
        bound += columns[-1]
        bound *= 256 * eps
        return bool((difference.take(doubtful) > bound).any())

    def _located_mismatch(self, derivative: Any, along: np.ndarray, expected: np.ndarray
                          ) -> Optional[Tuple[int, Any, Any]]:
        product = along @ derivative if self.kind == "row" else derivative @ along
        # |derivative| @ |along| on the same matrix with its data swapped for a moment
        # (a copy of the matrix, as abs() makes, costs more than the two products)
        data = derivative.data
        derivative.data = np.abs(data)
        try:
            bound = abs(along) @ derivative if self.kind == "row" else \
                derivative @ abs(along)
        finally:
            derivative.data = data
        eps = np.finfo(np.result_type(expected, np.float32)).eps
        excess = np.abs(product - expected) - 256 * eps * (bound + np.abs(expected))
        # (NaN where the derivative is NaN: skipped, so that it hides no other row)
        if not np.nanmax(excess, initial=-np.inf) > 0:
            return None
        index = int(np.nanargmax(excess))
        return index, product[index].item(), expected[index].item()

    def misses_at(self, compressed: np.ndarray, work: Fresh = Fresh()
                  ) -> Optional[Tuple[int, int]]:
        """(colour, index) of a compressed entry that the pattern says is a sum of no
        nonzeros but is not zero; None when there is none. (`work` as probe_mismatch's.)"""
        mask = self._uncovered_mask
        if mask is not None:
            nonzero = np.not_equal(compressed, 0, out=work.array("misses", mask.shape, bool))
            if not np.logical_and(nonzero, mask, out=nonzero).any():
                return None
        flat = compressed.reshape(-1).take(self.uncovered)
        if not flat.any():  # (NaN counts as nonzero, as below)
            return None
        bad = np.flatnonzero(flat != 0)
        colour, index = divmod(int(self.uncovered[bad[0]]), self.width)
        return colour, index

    def decompress(self, compressed: np.ndarray) -> Any:
        """The derivative as a csr_array with the pattern's nonzeros, read from
        `compressed` (shape (ncolors, width)) by one gather into a new data array."""
        # (without out=, "raise" gathers straight into the array it returns: 12 us for
        # the 1-D residual's 3 x 10^4 entries, against 16 us with out= and mode="wrap")
        data = np.ascontiguousarray(compressed).reshape(-1).take(self.flat_source)
        return self._with_data(data)

    def lend(self) -> Any:
        """The plan's work arrays, kept between calls (fwdad/scratch.py), for one call:
        `with plan.lend() as work: work.array(name, shape, dtype)`. What a call
        computes from them must be read out before it gives them back."""
        return self._scratch.lend()

    def _with_data(self, data: np.ndarray) -> Any:
        """A csr_array of the pattern's structure holding `data`: a shallow copy of a
        checked template with its own index arrays (building one from its arrays
        checks them again, at ten times the cost; `template.copy()` would copy the
        template's zeros too, a fresh array as large as `data`)."""
        template, kind = self.template, type(self.template)
        matrix = kind.__new__(kind)  # (what copy.copy does, in a fifth of the time)
        matrix.__dict__.update(template.__dict__)
        matrix.indices, matrix.indptr = template.indices.copy(), template.indptr.copy()
        matrix.data = data
        return matrix


_EPSILONS: Dict[Any, Any] = {}


def _epsilon(dtype: np.dtype) -> Any:
    """The machine epsilon of a float or complex dtype's real part, at least float32's
    (np.finfo costs a microsecond a call)."""
    eps = _EPSILONS.get(dtype)
    if eps is None:
        eps = _EPSILONS[dtype] = np.finfo(np.result_type(dtype, np.float32)).eps
    return eps
