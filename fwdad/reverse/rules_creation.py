"""Reverse rules for creation and dtype: full, full_like, linspace, arange, astype, the
as*array family, NumPy's scalar types, item and tolist.

An array filled with a constant is a variable with no inputs (rules_arrays._fresh), so
that variables can be written into it later, as for np.zeros.
"""
from __future__ import annotations

import numpy as np

from fwdad.errors import FwdadError, describe
from fwdad.reverse.registry import Pure, get_rrule, is_tracked, raw_rrule, rrule
from fwdad.reverse.positions import positions, scatter
from fwdad.reverse.rules_arrays import _fresh, copying, varmat_to_matvar
from fwdad.reverse.var import VarMat, value_of


def _filled(fn, template_first: bool):
    """full(shape, v) / full_like(a, v): linear in v (broadcast into the new array)."""
    def call(first, fill_value, *args, **kwargs):
        first = value_of(first) if template_first else first
        if not is_tracked(fill_value):
            return _fresh(fn(first, fill_value, *args, **kwargs))

        def rule(value):
            return fn(first, value, *args, **kwargs), lambda ct: (ct,)
        rule.__name__ = f"_{fn.__name__}"
        return Pure(fn, rule)(fill_value)
    call.__name__ = f"_{fn.__name__}"
    return call


raw_rrule(np.full)(_filled(np.full, False))
raw_rrule(np.full_like)(_filled(np.full_like, True))


@raw_rrule(np.linspace)
def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    if not (is_tracked(start) or is_tracked(stop)):
        out = np.linspace(value_of(start), value_of(stop), num, endpoint, retstep, dtype,
                          axis)
        return (_fresh(out[0]), out[1]) if retstep else _fresh(out)
    return Pure(np.linspace, _linspace_rule)(start, stop, num, endpoint, retstep, dtype,
                                             axis)


def _linspace_rule(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """Sample k is (1 - t_k) start + t_k stop, t = linspace(0, 1); the step is
    (stop - start) / (num - 1) (num when endpoint=False)."""
    out = np.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    t, div = np.linspace(0.0, 1.0, num, endpoint), max(num - 1 if endpoint else num, 1)

    def pullback(ct):
        moved = np.moveaxis(np.asarray(ct[0] if retstep else ct), axis, 0)
        t_ = t.reshape((-1,) + (1,) * (moved.ndim - 1))
        step = ct[1] / div if retstep else 0.0
        return np.sum(moved * (1.0 - t_), axis=0) - step, np.sum(moved * t_, axis=0) + step
    return out, pullback


@raw_rrule(np.arange)
def _arange(*args, dtype=None, **kwargs):
    """start + step * [0, 1, ...]: linear in start and step; stop only sets the length."""
    out = np.arange(*map(value_of, args), dtype=dtype, **kwargs)
    if len(args) == 1 or not any(is_tracked(a) for a in args):
        return _fresh(out)

    def rule(*values):
        k = np.arange(len(out), dtype=float)
        return out, lambda ct: (np.sum(ct), None, np.sum(ct * k))[:len(values)]
    rule.__name__ = "_arange"
    return Pure(np.arange, rule)(*args)


def _astype(x, dtype, *args, **kwargs):
    """A float dtype keeps the derivative; an integer or bool dtype has none."""
    return x.astype(dtype, *args, **kwargs), lambda ct: (ct,)


copying(np.ndarray.astype, _astype)


@raw_rrule(np.ascontiguousarray, np.asanyarray, np.asfortranarray)
def _as_array_like(x, dtype=None, **kwargs):
    """The same values as np.asarray gives (memory layout does not matter here)."""
    return get_rrule(np.asarray)(x, dtype=dtype)


def _scalar_type(kind):
    def rule(x):
        return kind(x), lambda ct: (ct,)
    rule.__name__ = f"_{kind.__name__}"
    rrule(kind)(rule)


for _kind in (np.float64, np.float32, np.float16, np.longdouble):
    _scalar_type(_kind)


@raw_rrule(np.complex128)
def _complex128(*args):
    if any(is_tracked(a) for a in args):
        raise FwdadError(f"{describe(np.complex128)} of a variable: reverse mode works "
                         f"on real values; use forward mode (fwdad.jvp) for complex ones.")
    return np.complex128(*args)


@rrule(np.ndarray.item)
def _item(x, *args):
    """One element as a Python number: its cotangent goes back to that element."""
    source = np.asarray(positions(np.shape(x)).item(*args))
    return x.item(*args), lambda ct: (scatter(source, ct, np.shape(x)),)


@raw_rrule(np.ndarray.tolist)
def _tolist(x):
    """Nested lists of Vars, whose adjoints flow back into x."""
    if type(x) is VarMat:
        return varmat_to_matvar(x).tolist()
    return x.tolist()
