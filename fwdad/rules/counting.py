"""Rules for counting functions whose outputs carry a derivative after all: np.bincount
is linear in its weights; the unique values of a float array (np.unique, unique_values,
unique_counts, unique_inverse, unique_all) are elements of it, and carry their
derivatives where no two elements are equal (a tie is refused: a perturbation can split
a repeated value, so there is no derivative there; JAX gives a tie the derivative of
one of its elements instead).

    np.unique([0.7, 0.2]) = [0.2, 0.7]   tangent [dx1, dx0]
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from fwdad.core.read_only import is_zero
from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, in_user_code
from fwdad.rules.batching import created_tangent, is_batched
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent, rebuild


@frule(np.bincount)
def _bincount(x, weights: Dual = None, minlength=0) -> Dual:
    """Counts have no derivative; sums of weights are linear in the weights."""
    if weights is None:
        return Dual(np.bincount(x, minlength=minlength), NoTangent)
    out = np.bincount(x, np.asarray(weights.primal), minlength)
    dw = weights.tangent
    if dw is NoTangent or np.asarray(dw).dtype.kind != "f":  # int weights
        return Dual(out, NoTangent)
    dw = np.asarray(dw)
    if is_batched(np.asarray(weights.primal), dw):
        return Dual(out, np.stack([np.bincount(x, t, minlength) for t in dw]))
    return Dual(out, np.bincount(x, dw, minlength))


# ---- unique: each value is one element of the input, where no two are equal ----------
def _unique_rule(fn):
    """The rule of np.unique and the array API's unique_values, unique_counts,
    unique_inverse and unique_all: the first output (the values) carries the derivative
    of the elements it is; the indices and counts carry none."""
    def rule(ar: Dual, *args, **kwargs) -> Dual:
        out = fn(ar.primal, *args, **kwargs)
        values = out if isinstance(out, np.ndarray) else out[0]
        dx = ar.tangent
        if dx is NoTangent or np.result_type(values).kind not in "fc":
            return Dual(out, NoTangent)
        picked = _picked(fn, ar.primal, values, dx, axis_of(fn, args, kwargs))
        if isinstance(out, np.ndarray):
            return Dual(out, picked)
        return Dual(out, rebuild(out, [picked] + [NoTangent] * (len(out) - 1)))
    rule.__name__ = f"_{fn.__name__}"
    frule(fn)(rule)


def axis_of(fn, args: tuple, kwargs: dict):
    """np.unique's `axis` (its fifth parameter); the array API's functions have none."""
    if fn is not np.unique:
        return None
    return args[3] if len(args) > 3 else kwargs.get("axis")


def _picked(fn, x: np.ndarray, values: np.ndarray, dx, axis):
    """The tangent of `values`: dx at the element each value is (a leading batch axis of
    dx is kept). Two equal elements are one value: refused unless their tangents are
    equal too (constants, or one value used twice), as a perturbation that moves one of
    them alone splits the value in two."""
    if axis is not None:
        if is_zero(dx):
            return created_tangent(values)
        raise axis_error(fn)
    if type(dx) is not np.ndarray:  # (a recorded tangent, linearize's: no values to
        dx = np.asarray(dx) if isinstance(dx, (float, np.generic)) else None  # compare)
    lead = () if dx is None else np.shape(dx)[:np.ndim(dx) - x.ndim]
    flat_dx = None if dx is None else np.reshape(dx, lead + (-1,))
    at = unique_positions(np.ravel(x), values, None if flat_dx is None else
                          lambda first: np.array_equal(flat_dx, flat_dx[..., first]))
    if at is None:
        raise tied_error(fn)
    return flat_dx[..., at]


def unique_positions(flat: np.ndarray, values: np.ndarray,
                     agree: Optional[Callable[[np.ndarray], bool]] = None):
    """Where in `flat` each of `values` is (the first of equal elements); None when two
    elements are equal (NaNs are) and `agree` is not given or does not hold of the first
    equal element of each element (e.g. their tangents are equal)."""
    order = np.argsort(flat, kind="stable")
    at = order[np.searchsorted(flat[order], values)]
    if len(values) == flat.size and np.count_nonzero(np.isnan(flat)) <= 1:
        return at
    if agree is None or not agree(order[np.searchsorted(flat[order], flat)]):
        return None
    return at


def axis_error(fn) -> NonDifferentiableError:
    return NonDifferentiableError(
        f"{_name(fn)} with axis= of a float array that depends on the differentiated "
        f"inputs{in_user_code()}: fwdad differentiates the unique values of the "
        f"flattened array only. Call it without axis=, or on values that do not depend "
        f"on the inputs.")


def tied_error(fn) -> NonDifferentiableError:
    return NonDifferentiableError(
        f"{_name(fn)} of a float array that depends on the differentiated inputs"
        f"{in_user_code()}, two of whose elements are equal: each unique value is one "
        f"element of the array (its derivative is that element's), but a perturbation "
        f"that moves one of two equal elements splits their value in two, so the "
        f"result has no derivative there. Sort instead (np.sort is differentiable), or "
        f"call {_name(fn)} on values that do not depend on the inputs.")


def _name(fn) -> str:
    return f"np.{fn.__name__}"


UNIQUE = [np.unique] + [getattr(np, name) for name in (  # (NumPy 2's array API names)
    "unique_values", "unique_counts", "unique_inverse", "unique_all") if hasattr(np, name)]
for _fn in UNIQUE:
    _unique_rule(_fn)
