"""Compress a sparse derivative into one direction per colour, and read it back.

    Compression(pattern, colors, "column")   # J (m x n) with a column colouring
    seeds = plan.seeds(np.float64)           # (ncolors, n): seeds[c, j] = colors[j] == c
    compressed = [J @ s for s in seeds]      # (ncolors, m), by batched forward mode
    plan.decompress(compressed)              # J as a scipy.sparse.csr_array

"row" compresses rows (S.T @ J, one cotangent per colour, for reverse mode); "star"
compresses a symmetric matrix by a star colouring (fwdad/coloring.py). Where the
pattern says a compressed entry is a sum of no nonzeros, it must be zero:
`misses_at` finds one that is not, a cheap sign that the pattern misses a nonzero.
"""
from __future__ import annotations

import copy
from typing import Any, Dict, Optional, Tuple

import numpy as np

from fwdad.coloring import as_pattern, check_coloring, coordinates, star_sources, symmetrized


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
        self._directions: Dict[Any, np.ndarray] = {}

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
        return self._directions[key]

    def probe_mismatch(self, derivative: Any, along: np.ndarray, expected: np.ndarray
                       ) -> Optional[Tuple[int, Any, Any]]:
        """(index, sparse's value, expected value) of the largest disagreement between
        the sparse derivative times `along` (rows: `along` times it) and `expected`,
        when one exceeds rounding; else None."""
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
        if excess.size == 0 or not excess.max() > 0:
            return None
        index = int(np.argmax(excess))
        return index, product[index].item(), expected[index].item()

    def misses_at(self, compressed: np.ndarray) -> Optional[Tuple[int, int]]:
        """(colour, index) of a compressed entry that the pattern says is a sum of no
        nonzeros but is not zero; None when there is none."""
        flat = compressed.reshape(-1)[self.uncovered]
        bad = np.flatnonzero(flat != 0)
        if bad.size == 0:
            return None
        colour, index = divmod(int(self.uncovered[bad[0]]), self.width)
        return colour, index

    def decompress(self, compressed: np.ndarray) -> Any:
        """The derivative as a csr_array with the pattern's nonzeros, read from
        `compressed` (shape (ncolors, width))."""
        return self._with_data(np.ascontiguousarray(compressed).reshape(-1)
                               .take(self.flat_source))

    def _with_data(self, data: np.ndarray) -> Any:
        """A csr_array of the pattern's structure holding `data`: a shallow copy of a
        checked template with its own index arrays (building one from its arrays
        checks them again, at ten times the cost; `template.copy()` would copy the
        template's zeros too, a fresh array as large as `data`)."""
        matrix = copy.copy(self.template)
        matrix.indices, matrix.indptr = self.template.indices.copy(), \
            self.template.indptr.copy()
        matrix.data = data
        return matrix
