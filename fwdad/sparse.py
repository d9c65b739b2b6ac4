"""Sparse Jacobians and Hessians by colouring: one compressed direction per colour
instead of one per input (Curtis, Powell and Reid; Gebremedhin, Manne and Pothen).

    jac = sparse_jacfwd(residual, sparsity=pattern)   # pattern: (output size, input size)
    jac(u)   ->  scipy.sparse.csr_array equal to jacfwd(residual)(u).reshape(m, n)

sparse_jacfwd seeds one tangent per column colour (fwdad/coloring.py) in one batched
forward pass; sparse_jacrev one cotangent per row colour, each a pullback of one
recorded pass; sparse_hessian one tangent per colour of a star colouring, forward over
reverse. fwdad/compression.py makes the seeds and reads the nonzeros back.
"""
from __future__ import annotations

from concurrent.futures import Executor
from typing import Any, Callable, Optional, Tuple

import numpy as np

from fwdad import api_checks
from fwdad import compressed_passes as passes
from fwdad.argnums import check_argnums_type, positions
from fwdad.chunked import check_executor
from fwdad.coloring import column_coloring, row_coloring, symmetric_coloring
from fwdad.compression import Compression
from fwdad.errors import FwdadError, SparsityPatternError, a_type, describe
from fwdad.probe import probe as probe_attribute
from fwdad.scratch import Fresh
from fwdad.signatures import check_call

_COLORINGS = {"column": column_coloring, "row": row_coloring, "star": symmetric_coloring}


def sparse_jacfwd(f: Callable[..., Any], argnums: int = 0, sparsity: Any = "detect",
                  coloring: Any = None, chunk_size: Optional[int] = None,
                  probe: bool = True, check: bool = False,
                  executor: Optional[Executor] = None) -> Callable[..., Any]:
    """The function that computes the sparse Jacobian of `f` by forward mode: the
    columns are coloured so that no two of one colour share a row, and one batched
    pass pushes one tangent per colour (the sum of its columns' unit vectors).

    Args:
        f: a function of a float or float array (argument `argnums`) that returns a
            float or float array; other arguments and keyword arguments are constants.
        argnums: the argument to differentiate with respect to (an int).
        sparsity: the Jacobian's pattern, shape (output size, input size), as a
            scipy.sparse matrix or a dense bool array: every nonzero of the Jacobian
            must be in it. "detect": found by `fwdad.jacobian_sparsity` at the first
            call's arguments (local mode) and reused at later calls, so pass a pattern
            when the sparsity of f depends on the values of its arguments.
        coloring: None (greedy, largest first), an order ("largest_first",
            "smallest_last", "natural"), or one colour per column (checked).
        chunk_size: at most this many tangents per pass (None: all colours in one).
        probe: push one more tangent, a random direction v, and compare the sparse
            Jacobian times v with it: a pattern that misses a nonzero of this call's
            Jacobian is then found with probability one, for one more direction than
            there are colours. False saves that direction when the pattern is right.
            It runs whatever the pattern's origin: a pattern from
            `jacobian_sparsity(mode="global")` holds for every value of the argument,
            but not once an index array, another argument or other state that f
            reads has changed, which fwdad cannot see.
        check: compare the pattern with a dense `fwdad.jacfwd` of this call and raise
            naming an entry it misses. That costs a dense Jacobian: for small problems
            and tests.
        executor: a `concurrent.futures.Executor` (a `ProcessPoolExecutor`, or Dask's
            `client.get_executor()`) to run the passes on, in chunks of `chunk_size`
            directions (None: spread over at least 16 chunks), as `jacfwd` does; None
            runs them here.

    Returns:
        `jac(*args, **kwargs)`: the Jacobian as a `scipy.sparse.csr_array` of shape
        (output size, input size), over the flattened (C order) output and argument,
        holding the pattern's entries (an entry that is zero at this point is stored).

    Raises:
        SparsityPatternError: the pattern's shape is not the Jacobian's, or a compressed
            direction shows a nonzero that the pattern misses (checked where it costs
            nothing, by `probe`, and entry by entry with `check=True`).
            ColoringError: `coloring` is not a valid column colouring. FwdadError: "detect" without
            `fwdad.jacobian_sparsity`, or f's argument or output is not a float array.
    """
    planner = _Planner("sparse_jacfwd", f, argnums, sparsity, coloring, "column")
    check_executor("sparse_jacfwd", executor)

    def jacobian(*args: Any, **kwargs: Any) -> Any:
        at, plan = planner.plan(args, kwargs)
        seeds = passes.directions(plan, args[at], probe)
        with plan.lend() as work:  # (compressed may be a view of the seeds' copy)
            out, compressed = passes.forward(f, args, kwargs, at, seeds, chunk_size,
                                             executor, _seeds_copy(work, seeds))
            planner.check_rows(plan, int(np.size(out)))
            jac = _finish(planner, plan, seeds, compressed, args, kwargs, check, work)
            work.hold("passes", out, compressed, *_arrays(jac))  # (fwdad/scratch.py: why)
            return jac
    jacobian.__name__ = f"sparse_jacfwd_{probe_attribute(f, '__name__', 'f')}"
    return jacobian


def sparse_jacrev(f: Callable[..., Any], argnums: int = 0, sparsity: Any = "detect",
                  coloring: Any = None, probe: bool = True, check: bool = False
                  ) -> Callable[..., Any]:
    """The function that computes the sparse Jacobian of `f` by reverse mode: the rows
    are coloured so that no two of one colour share a column; f runs once, recording,
    and its pullback runs once per colour (with the sum of its rows' unit cotangents).
    For patterns with dense rows and few of them, where the column colouring needs
    many colours. Arguments, result and errors as `sparse_jacfwd`'s (a `coloring`
    given as colours has one per row; `probe` runs one more pullback, of a random
    cotangent)."""
    planner = _Planner("sparse_jacrev", f, argnums, sparsity, coloring, "row")

    def jacobian(*args: Any, **kwargs: Any) -> Any:
        at, plan = planner.plan(args, kwargs)
        compressed, seeds = passes.reverse(f, args, kwargs, at, plan, probe,
                                           planner.check_rows)
        with plan.lend() as work:
            jac = _finish(planner, plan, seeds, compressed, args, kwargs, check, work)
            work.hold("passes", compressed, *_arrays(jac))
            return jac
    jacobian.__name__ = f"sparse_jacrev_{probe_attribute(f, '__name__', 'f')}"
    return jacobian


def sparse_hessian(f: Callable[..., Any], argnums: int = 0, sparsity: Any = None,
                   coloring: Any = None, chunk_size: Optional[int] = None,
                   probe: bool = True, check: bool = False,
                   executor: Optional[Executor] = None) -> Callable[..., Any]:
    """The function that computes the sparse Hessian of a real scalar `f`: a star
    colouring of the pattern (neighbours differ, no path on four vertices has two
    colours) and one batched forward-over-reverse pass, a Hessian-vector product per
    colour; each entry H[i, j] is read where it is alone, in row i or in row j.

    Args:
        f: a real scalar function of a float array (argument `argnums`).
        sparsity: the Hessian's pattern, square (n, n); it is made symmetric
            (`sparsity | sparsity.T`). Required: detection is not offered here.
        coloring: None, an order name, or one colour per variable (a star colouring,
            checked).
        chunk_size: as `sparse_jacfwd`'s.
        probe: as `sparse_jacfwd`'s: one more direction, random, to check the pattern.
        check: compare the pattern with a dense `fwdad.hessian` (small problems).
        executor: as `sparse_jacfwd`'s: the forward-over-reverse passes run on its
            workers. (Where reverse mode refuses f, the Hessian-vector products by
            forward over forward run here.)

    Returns:
        `hess(*args, **kwargs)`: a symmetric `scipy.sparse.csr_array` of shape (n, n)
        holding the entries of `sparsity | sparsity.T`.

    Raises:
        SparsityPatternError, ColoringError, FwdadError: as `sparse_jacfwd`'s.
    """
    if sparsity is None or isinstance(sparsity, str):
        raise SparsityPatternError(
            f"sparse_hessian({describe(f)}) needs the Hessian's pattern: pass "
            f"sparsity=, a square scipy.sparse matrix or dense bool array (n, n).")
    planner = _Planner("sparse_hessian", f, argnums, sparsity, coloring, "star")
    check_executor("sparse_hessian", executor)

    def hessian(*args: Any, **kwargs: Any) -> Any:
        at, plan = planner.plan(args, kwargs)
        seeds = passes.directions(plan, args[at], probe)
        with plan.lend() as work:
            compressed = passes.forward_over_reverse(f, args, kwargs, at, seeds, chunk_size,
                                                     executor, _seeds_copy(work, seeds))
            hess = _finish(planner, plan, seeds, compressed, args, kwargs, check, work)
            work.hold("passes", compressed, *_arrays(hess))
            return hess
    hessian.__name__ = f"sparse_hessian_{probe_attribute(f, '__name__', 'f')}"
    return hessian


# ---- patterns and colourings, per transformation -------------------------------------
class _Planner:
    """The Compression of one transformation: made at once from a given pattern, or at
    the first call from a detected one; each call's argument checked against it."""

    def __init__(self, api_name: str, f: Callable[..., Any], argnums: Any, sparsity: Any,
                 coloring: Any, kind: str) -> None:
        api_checks.check_callable(f, api_name)
        check_argnums_type(api_name, f, argnums)
        if isinstance(argnums, (tuple, list)):
            raise FwdadError(f"{api_name}({describe(f)}) takes one argument number "
                             f"(argnums=int), not {argnums!r}: for several arguments, "
                             f"differentiate a function of their concatenation.")
        if isinstance(sparsity, str) and sparsity != "detect":
            raise SparsityPatternError(f"{api_name}: sparsity={sparsity!r}: pass a pattern "
                                       f"or \"detect\".")
        self.api, self.f, self.argnums, self.kind = api_name, f, argnums, kind
        self.coloring = coloring
        self.compression: Optional[Compression] = None
        # (number of positional arguments, keyword names) -> the argument's position,
        # for calls whose shape f's signature took (the check costs as much as the
        # rest of a small call outside its pass)
        self._checked: dict[Tuple[int, Tuple[str, ...]], int] = {}
        if not isinstance(sparsity, str):
            self.compression = self._compress(sparsity)

    def _compress(self, pattern: Any) -> Compression:
        coloring = self.coloring
        if coloring is None or isinstance(coloring, str):
            colors = _COLORINGS[self.kind](pattern, coloring or "largest_first")
        else:
            colors = coloring
        return Compression(pattern, colors, self.kind)

    def plan(self, args: Tuple[Any, ...], kwargs: dict[str, Any]) -> Tuple[int, Compression]:
        shape = (len(args), tuple(kwargs))
        at = self._checked.get(shape)
        if at is None:
            check_call(self.api, self.f, args, kwargs)
            (at,) = positions(self.api, self.f, self.argnums, args, kwargs)
            self._checked[shape] = at
        _check_float(self.api, self.f, args[at], at)
        if self.compression is None:
            self.compression = self._compress(self._detect(args, kwargs, at))
        plan = self.compression
        size = int(np.size(args[at]))
        if plan.pattern.shape[1] != size:
            self._wrong_shape(plan, "input", size, at)
        return at, plan

    def check_rows(self, plan: Compression, size: int) -> None:
        if plan.pattern.shape[0] != size:
            self._wrong_shape(plan, "output", size, None)

    def _wrong_shape(self, plan: Compression, what: str, size: int, at: Optional[int]) -> None:
        axis = "rows" if what == "output" else "columns"
        whose = f"the size of argument {at}" if at is not None else "the output's size"
        raise SparsityPatternError(
            f"{self.api}({describe(self.f)}): the sparsity pattern has shape "
            f"{plan.pattern.shape}, but this call's derivative has {size} {axis} "
            f"({whose}): pass a pattern of shape (output size, input size) over the "
            f"flattened output and argument.")

    def _detect(self, args: Tuple[Any, ...], kwargs: dict[str, Any], at: int) -> Any:
        import fwdad
        detect = getattr(fwdad, "jacobian_sparsity", None)
        if detect is None:
            raise FwdadError(
                f"{self.api}({describe(self.f)}, sparsity=\"detect\") needs "
                f"fwdad.jacobian_sparsity, which this version of fwdad does not have: "
                f"pass the pattern as sparsity= (a scipy.sparse matrix or dense bool "
                f"array of shape (output size, input size)).")
        return detect(passes.bound(self.f, kwargs), *args, mode="local", argnums=at)


def _check_float(api_name: str, f: Callable[..., Any], x: Any, at: int) -> None:
    if not (isinstance(x, (float, np.floating)) or (
            isinstance(x, np.ndarray) and x.dtype.kind == "f")):
        raise FwdadError(f"{api_name}({describe(f)}) differentiates with respect to a "
                         f"real float or float array, and argument {at} is {a_type(x)}.")


# ---- reading back and checking -------------------------------------------------------
def _seeds_copy(work: Fresh, seeds: np.ndarray) -> np.ndarray:
    """Where the passes copy the seeds to (f updating its argument in place writes into
    its tangent): the plan's, kept between calls, so that a pass of many seeds does not
    map fresh pages at every call."""
    return work.array("seeds", seeds.shape, seeds.dtype)


def _finish(planner: _Planner, plan: Compression, seeds: np.ndarray, compressed: np.ndarray,
            args: Tuple[Any, ...], kwargs: dict[str, Any], check: bool, work: Fresh) -> Any:
    """The derivative read back from the compressed passes, once the checks pass (their
    temporaries in `work`, the plan's lent arrays)."""
    missed = plan.misses_at(compressed[:plan.ncolors], work)
    if missed is not None:
        _report_missed(planner, plan, missed, compressed)
    jac = plan.decompress(compressed[:plan.ncolors])
    if len(seeds) > plan.ncolors:
        mismatch = plan.probe_mismatch(jac, seeds[-1], compressed, work)
        # The probe bounds rounding by the derivative's size, too tightly where it
        # cancels (terms of 1/2 summing to 1e-7): there a dense derivative decides, once.
        if mismatch is not None and _outside_the_pattern(planner, plan, args, kwargs).any():
            _report_probe(planner, plan, mismatch)
    if check:
        _check_against_dense(planner, plan, args, kwargs)
    return jac


def _arrays(matrix: Any) -> Tuple[np.ndarray, ...]:
    """The arrays of a csr_array this call made: the last large ones it allocated, so
    the ones to hold (fwdad/scratch.py) until the next call, whatever the caller does
    with the matrix (holding them neither reads nor writes them)."""
    return matrix.data, matrix.indices, matrix.indptr


def _report_missed(planner: _Planner, plan: Compression, missed: Tuple[int, int],
                   compressed: np.ndarray) -> None:
    color, index = missed
    value = compressed[color, index]
    if plan.kind == "row":
        where = (f"in column {index}, the pullback of the rows of colour {color} gives "
                 f"{value:.6g}, but no row of that colour has a nonzero in column {index}")
    else:
        where = (f"in row {index}, the derivative along the columns of colour {color} is "
                 f"{value:.6g}, but no column of that colour has a nonzero in row {index}")
    raise SparsityPatternError(
        f"{planner.api}({describe(planner.f)}): the sparsity pattern misses a nonzero: "
        f"{where}. Pass a pattern that holds every nonzero of the derivative "
        f"(check=True compares it with a dense derivative and names the entry).")


def _report_probe(planner: _Planner, plan: Compression, mismatch: Tuple[int, Any, Any]
                  ) -> None:
    index, sparse, expected = mismatch
    where, along = ("column", "a random cotangent") if plan.kind == "row" else \
        ("row", "a random direction")
    raise SparsityPatternError(
        f"{planner.api}({describe(planner.f)}): the sparsity pattern misses a nonzero in "
        f"{where} {index}: along {along}, the sparse derivative gives {sparse:.6g} "
        f"there, and the derivative itself {expected:.6g}. Pass a pattern that holds "
        f"every nonzero of the derivative (check=True compares it with a dense "
        f"derivative and names the entry).")


def _outside_the_pattern(planner: _Planner, plan: Compression, args: Tuple[Any, ...],
                         kwargs: dict[str, Any]) -> np.ndarray:
    """The dense derivative where it is nonzero outside the pattern, else 0."""
    from fwdad.higher import hessian
    from fwdad.jacobians import jacfwd
    at = positions(planner.api, planner.f, planner.argnums, args, kwargs)[0]
    make = hessian if plan.kind == "star" else jacfwd
    dense = np.asarray(make(planner.f, at)(*args, **kwargs)).reshape(plan.pattern.shape)
    return np.where(plan.pattern.toarray(), 0, dense)


def _check_against_dense(planner: _Planner, plan: Compression, args: Tuple[Any, ...],
                         kwargs: dict[str, Any]) -> None:
    dense = _outside_the_pattern(planner, plan, args, kwargs)
    missing = dense != 0
    if missing.any():
        i, j = (int(k[0]) for k in np.nonzero(missing))
        raise SparsityPatternError(
            f"{planner.api}({describe(planner.f)}): the sparsity pattern misses the "
            f"nonzero ({i}, {j}) = {dense[i, j]:.6g} of the dense derivative: add it "
            f"to the pattern.")
