"""Rules for functions that add elements to an array: pad, append and insert.

Each is linear in its arrays (and in pad's fill value), so the tangent is the same
function of the tangents (zeros where a constant is added).
"""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import FwdadError
from fwdad.rules.batching import dense, fit, lift, map_batch, map_batch_many
from fwdad.rules.reductions import as_array
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent

# ---- pad ---------------------------------------------------------------------------------
_LINEAR_PADS = {"constant", "edge", "reflect", "symmetric", "wrap", "linear_ramp", "mean",
                "empty"}


@frule(np.pad)
def _pad(x: Dual, pad_width, mode="constant", *, constant_values: Dual = None,
         end_values: Dual = None, **kwargs) -> Dual:
    """Linear in x for the modes in _LINEAR_PADS; a scalar `constant_values` adds its
    tangent where it fills, and linear_ramp is linear in x and `end_values` together.
    maximum, minimum and median pick values: no rule."""
    x = as_array(x)
    cv = 0 if constant_values is None else constant_values.primal
    extra = {"constant_values": cv} if mode == "constant" else {}
    if end_values is not None:  # (not a {**a} display: see iteration._partial)
        kwargs = dict(kwargs)
        kwargs.update(end_values=end_values.primal)
    out = np.pad(x.primal, pad_width, mode, **extra, **kwargs)
    if mode not in _LINEAR_PADS:
        raise FwdadError(f"no rule to differentiate numpy.pad with mode={mode!r}: it "
                         f"selects values. Use one of {sorted(_LINEAR_PADS)}.")
    if mode == "linear_ramp":
        return Dual(out, fit(_ramp_tangent(x, pad_width, end_values, kwargs), out))
    zero = {"constant_values": 0} if mode == "constant" else {}
    dx = map_batch(lambda t: np.pad(t, pad_width, mode, **zero, **kwargs), x.primal,
                   dense(x.primal, x.tangent))
    if constant_values is not None and constant_values.tangent is not NoTangent:
        fill = np.pad(np.zeros(x.primal.shape), pad_width, constant_values=1.0)
        dx = dx + lift(cv, constant_values.tangent, fill.ndim) * fill
    return Dual(out, fit(dx, out))


def _ramp_tangent(x: Dual, pad_width, end_values, kwargs: dict):
    """linear_ramp's tangent: the ramp from dx's edges to the tangents of end_values."""
    kwargs = {k: v for k, v in kwargs.items() if k != "end_values"}
    if end_values is None or end_values.tangent is NoTangent:
        return map_batch(lambda t: np.pad(t, pad_width, "linear_ramp", end_values=0,
                                          **kwargs), x.primal, dense(x.primal, x.tangent))
    return map_batch_many(lambda ts: np.pad(ts[0], pad_width, "linear_ramp",
                                            end_values=ts[1], **kwargs),
                          (x.primal, end_values.primal), (x.tangent, end_values.tangent))


# ---- append and insert: linear in the array and in the values ---------------------------
@frule(np.append)
def _append(arr: Dual, values: Dual, axis=None) -> Dual:
    primals, tangents = (arr.primal, values.primal), (arr.tangent, values.tangent)
    return Dual(np.append(*primals, axis=axis), map_batch_many(
        lambda ts: np.append(ts[0], ts[1], axis=axis), primals, tangents))


@frule(np.insert)
def _insert(arr: Dual, obj, values: Dual, axis=None) -> Dual:
    primals, tangents = (arr.primal, values.primal), (arr.tangent, values.tangent)
    return Dual(np.insert(arr.primal, obj, values.primal, axis=axis), map_batch_many(
        lambda ts: np.insert(ts[0], obj, ts[1], axis=axis), primals, tangents))
