"""`jacobian_sparsity`: the pattern of a Jacobian, as a SciPy sparse array of bools.

    jacobian_sparsity(lambda x: x[1:] - x[:-1], np.ones(4))  ->  3x4, 6 stored entries
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, List, Sequence, Tuple, Union

import numpy as np

from fwdad.argnums import check_argnums, check_argnums_type
from fwdad.dual import Dual
from fwdad.errors import (
    FwdadError,
    NonDifferentiableError,
    SharedTangentError,
    describe,
    note_user_location,
)
from fwdad.forward import defaults, dispatch
from fwdad.signatures import check_call
from fwdad.sparsity import session as sessions
from fwdad.sparsity.deps import bits_of, indices, seeds
from fwdad.sparsity.unknown import known_nothing, plain
from fwdad.tangents import NoTangent, rebuild, zero_tangent

MODES = ("local", "global")


def jacobian_sparsity(f: Callable[..., Any], *primals: Any, mode: str = "local",
                      argnums: Union[int, Tuple[int, ...]] = 0) -> Any:
    """The sparsity pattern of the Jacobian of `f` at `primals`: which outputs depend
    on which inputs.

    Runs the derived forward rule of `f` once, with sets of inputs as tangents: each
    primitive's sparsity rule says which inputs each output item depends on (union for
    elementwise functions and sums, the structural product for matmul, moved sets for
    indexing, slicing, np.roll, concatenation and reshapes; an in-place update replaces
    the sets of the items it overwrites). Arithmetic on sets never cancels, so x - x
    or 0 * y keep their dependencies: the pattern is never missing a nonzero of the
    Jacobian. A primitive without a sparsity rule makes its outputs depend on every
    input and warns (a `DenseFallbackWarning`, once per primitive and call).

    Args:
        f: the function; its outputs are a float array or scalar, or a tuple of them.
        *primals: the arguments of f.
        mode: "local" gives the pattern at these arguments (branches, max and
            np.where go the way these values take them); "global" gives a pattern
            valid for every value of the differentiated arguments, and refuses code
            where values decide the dependencies (a branch, an index or a loop bound
            computed from them).
        argnums: the argument (or tuple of arguments) the columns are for: each a
            float scalar or float array, flattened in C order, in the order given
            (as `jacfwd` orders them).

    Returns:
        A `scipy.sparse.csr_array` of bools, shape (output size, input size). For a
        tuple of outputs, their rows follow each other in order (each flattened in C
        order), as if the outputs were raveled and concatenated.

    Raises:
        FwdadError: mode is unknown, or argnums names no argument or an argument that
            is not a float scalar or array, or an output is not a float array or scalar.
        ValueDependentPatternError: mode="global" met code whose dependencies depend
            on the values of the inputs (the message names the line).
        ImportError: SciPy is not installed (it is an optional extra: fwdad[scipy]).
    """
    from scipy import sparse  # (an optional dependency: imported on use only)
    if mode not in MODES:
        raise FwdadError(f"jacobian_sparsity({describe(f)}, mode={mode!r}): mode must be "
                         f"'local' or 'global'.")
    check_argnums_type("jacobian_sparsity", f, argnums)
    check_call("jacobian_sparsity", f, primals, {})
    wrt = check_argnums("jacobian_sparsity", f, argnums, len(primals))
    offsets, total = _offsets(f, primals, wrt)
    with sessions.running(mode, total):
        try:
            out = _detect(f, primals, offsets, mode, holding_sets=False)
        except SharedTangentError:  # (as jacfwd does: fwdad/jacobians.seeded_pass)
            out = _detect(f, primals, offsets, mode, holding_sets=True)
    rows = _rows(f, plain(out.primal), out.tangent)
    return _csr(sparse, rows, total)


def _offsets(f: Callable[..., Any], primals: Sequence[Any], wrt: Tuple[int, ...]
             ) -> Tuple[Dict[int, int], int]:
    """{argument position: its first column} and the number of columns."""
    offsets: Dict[int, int] = {}
    total = 0
    for i in wrt:
        kind = np.asarray(primals[i]).dtype.kind
        if kind not in "f" or not isinstance(primals[i], (float, np.ndarray, np.floating)):
            raise NonDifferentiableError(
                f"jacobian_sparsity({describe(f)}, argnums={wrt}) differentiates argument "
                f"{i}, which is {type(primals[i]).__name__} (of dtype kind {kind!r}): "
                f"pass a float scalar or a float array.")
        offsets[i], total = total, total + int(np.size(primals[i]))
    return offsets, total


def _detect(f: Callable[..., Any], primals: Sequence[Any], offsets: Dict[int, int],
            mode: str, holding_sets: bool) -> Dual:
    """One run of f's rule on the seeded arguments. With `holding_sets`, the zero
    tangents of the other arguments are arrays that can hold sets: f writes sets into a
    view of one of them, which a plain zero tangent cannot take (it would be widened to
    one that can, but its views would not follow) and refuses with a SharedTangentError.
    The first run gives them plain zeros, which cost no set arithmetic."""
    duals = [_seeded(p, offsets.get(i), mode, holding_sets) for i, p in enumerate(primals)]
    token = defaults.begin_derivative(duals)  # (one derivative: forward/defaults.py)
    try:
        return dispatch.call(Dual(f, None), *duals)
    except Exception as exc:
        note_user_location(exc)
        raise
    finally:
        defaults.end_derivative(token)


def _seeded(primal: Any, offset: Any, mode: str, holding_sets: bool = False) -> Dual:
    """The argument's Dual: a copy (f may update it in place) with its seeds, or with
    a zero tangent when it is not differentiated."""
    if offset is None:
        zero = zero_tangent(primal)
        return Dual(copy.deepcopy(primal), _able_to_hold_sets(zero) if holding_sets else zero)
    sets = seeds(np.shape(primal), offset)
    if mode == "global":
        value = known_nothing(primal)
        return Dual(value if np.ndim(primal) else value.reshape(()), sets)
    return Dual(np.array(primal) if isinstance(primal, np.ndarray) else primal, sets)


def _able_to_hold_sets(zero: Any) -> Any:
    """The zero tangent with its float arrays (in lists, tuples and dicts) as object
    arrays of zeros."""
    if isinstance(zero, np.ndarray) and zero.dtype.kind in "fc":
        return zero.astype(object)
    if isinstance(zero, (list, tuple)):
        return rebuild(zero, [_able_to_hold_sets(z) for z in zero])
    if isinstance(zero, dict):
        return {k: _able_to_hold_sets(z) for k, z in zero.items()}
    return zero


def _rows(f: Callable[..., Any], primal: Any, tangent: Any) -> List[int]:
    """The bit masks of the output items, in order (a tuple's outputs one by one)."""
    if isinstance(primal, tuple):
        parts = tangent if isinstance(tangent, tuple) else (NoTangent,) * len(primal)
        return [bits for p, t in zip(primal, parts) for bits in _rows(f, p, t)]
    if np.asarray(primal).dtype.kind not in "fc":
        raise FwdadError(f"jacobian_sparsity({describe(f)}): f returned "
                         f"{type(primal).__name__}; it must return a float array or "
                         f"scalar, or a tuple of them.")
    size = int(np.size(primal))
    if tangent is NoTangent or tangent is None:
        return [0] * size
    return [bits_of(item) for item in np.asarray(tangent, dtype=object).reshape(-1)]


def _csr(sparse: Any, rows: List[int], columns: int) -> Any:
    found = [indices(bits, columns) for bits in rows]
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(c) for c in found])
    cols = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
    data = np.ones(len(cols), dtype=bool)
    return sparse.csr_array((data, cols, indptr), shape=(len(rows), columns))
