"""Reverse rules for creation and dtype: np.array, np.asarray, zeros and the other
filled arrays, copies, linspace, arange, astype, the as*array family, NumPy's scalar
types, item and tolist.

An array made from constants (filled, or a copy of a constant) is a variable with no
inputs (`_fresh`), so that variables can be written into it later:
`y = np.zeros(n); y[0] = x`, `s = s0.copy(); s[0] = s[0] * w`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.errors import FwdadError, in_user_code
from fwdad.reverse.adjoints import accumulate
from fwdad.reverse.array_protocol import as_array, implicit_array, reads_as_array
from fwdad.reverse.complex_values import note_complex
from fwdad.reverse.complexes import refuse_complex
from fwdad.reverse.positions import positions, scatter
from fwdad.reverse.registry import get_rrule, raw_rrule, rrule
from fwdad.reverse.rule_calls import Pure
from fwdad.reverse.rules_arrays import varmat_to_matvar
from fwdad.reverse.tape import current, current_layout, recording
from fwdad.reverse.tracked import is_tracked
from fwdad.reverse.var import Var, VarMat, value_of
from fwdad.rules.creation import arange_parts


# ---- np.array, filled arrays and copies: variables, made from constants too ----------
def _positions(x, at=()):
    """(index, variable) for each variable in nested lists/tuples (a list, not a
    generator, so that forward mode can run this code on Duals: over_reverse.py)."""
    if isinstance(x, (list, tuple)):
        return [found for i, item in enumerate(x) for found in _positions(item, at + (i,))]
    if type(x) is Var or type(x) is VarMat:
        return [(at, x)]
    return []


def _values(x):
    if isinstance(x, (list, tuple)):
        return [_values(item) for item in x]
    return value_of(x)


def _copy(x, order="K", subok=False):
    """np.copy keeps the layout by default (order "K")."""
    return np.copy(x, order=order, subok=subok), lambda ct: (ct,)


def _method_copy(x, order="C"):
    """a.copy() is C-ordered unless asked otherwise: a later reshape of it is a view
    (through which a write reaches the copy) only where its layout allows."""
    return x.copy(order), lambda ct: (ct,)


@raw_rrule(np.array)
def array(x, dtype=None, **kwargs):
    """np.array of (nested lists of) variables: one VarMat whose adjoint is handed to
    each variable it was built from (a matvar in that layout)."""
    if reads_as_array(x):  # (an instance: the array its __array__ gives)
        x, copy = as_array(x, np.array, dtype, kwargs.get("copy", True))
        kwargs = {**kwargs, "copy": copy}
    x = _items_read(x)
    if is_tracked(x) and type(x) is not Var and _keeps_dtype(x, dtype):
        copy = kwargs.get("copy", True)  # (None: only when it must, as asarray does)
        out = x if copy is False else _in_order(x, kwargs.get("order")) if copy is None \
            else get_rrule(np.copy)(x, order=kwargs.get("order", "K"))
        ndmin = kwargs.get("ndmin", 0)  # (leading axes of length 1, as NumPy adds them)
        if ndmin > out.ndim:
            out = get_rrule(np.ndarray.reshape)(out, (1,) * (ndmin - out.ndim) + out.shape)
        return out
    out = np.array(_values(x), dtype=dtype, **kwargs)
    if type(x) is np.ndarray and np.may_share_memory(out, x):
        return out  # copy=False: the constant itself, as np.asarray gives it
    if out.dtype.kind not in ("f", "c") or not recording():
        return out
    if current_layout() == "matvar":
        if out.dtype.kind == "c":  # (complex values live in the varmat layout only)
            refuse_complex(np.array, [v for _, v in _positions(x)])
            return out
        return np.array(x, dtype=object, **kwargs)
    if out.dtype.kind == "c":
        note_complex()
    result, parts = VarMat(out), list(_positions(x))
    if parts:
        current().push(lambda: [accumulate(v, result.adjoint[i]) for i, v in parts], result)
    else:
        current().keep(result)
    return result


def _items_read(x: Any) -> Any:
    """A list or tuple (nested) with its instances that NumPy reads by their __array__
    made those arrays (variables when they depend on the inputs); x itself when it holds
    none."""
    if type(x) not in (list, tuple):
        return x
    items = [implicit_array(_items_read(item), np.array) for item in x]
    return x if all(a is b for a, b in zip(items, x)) else items


def _keeps_dtype(x: Any, dtype: Any) -> bool:
    """Whether a variable array converted to `dtype` keeps its values' dtype (a matvar
    holds float64 values)."""
    if dtype is None:
        return True
    return np.dtype(dtype) == (x.dtype if type(x) is VarMat else np.float64)


@raw_rrule(np.asarray)
def asarray(x, dtype=None, **kwargs):
    """np.asarray of a variable array is the variable itself, as for a plain array;
    of a plain array, the array itself unless it converts (a write into it writes into
    the caller's array, as in a plain call: tests/reverse/test_made_inside.py)."""
    if reads_as_array(x):  # (an instance: the array its __array__ gives)
        x, copy = as_array(x, np.asarray, dtype, kwargs.get("copy"))
        kwargs = {**kwargs, "copy": copy} if "copy" in kwargs else kwargs
    if kwargs.get("copy") is True:  # (a copy even of an array: np.array's)
        return array(x, dtype=dtype, **kwargs)
    if is_tracked(x) and type(x) is not Var and _keeps_dtype(x, dtype):
        return _in_order(x, kwargs.get("order"))
    if type(x) is np.ndarray:
        out = np.asarray(x, dtype=dtype, **kwargs)
        return out if np.may_share_memory(out, x) else _fresh(out)
    return array(x, dtype=dtype, **kwargs)


def _fresh(out: Any) -> Any:
    """An array made inside a reverse rule is a variable (with no inputs), so that
    variables can be written into it, as in `y = np.zeros(n); y[0] = x`."""
    if type(out) is not np.ndarray or out.dtype.kind not in ("f", "c") or not recording():
        return out
    if current_layout() == "matvar":
        return out.astype(object) if out.dtype.kind == "f" else out
    if out.dtype.kind == "c":
        note_complex()
    result = VarMat(out)
    current().keep(result)
    return result


def _creation(fn):
    def rule(*args, **kwargs):
        return _fresh(fn(*map(value_of, args), **{k: value_of(v) for k, v in
                                                 kwargs.items()}))
    rule.__name__ = f"new_{fn.__name__}"
    raw_rrule(fn)(rule)


for _fn in (np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like,
            np.eye, np.identity):  # (linspace, arange: rules_creation)
    _creation(_fn)


def copying(fn: Any, rule: Any) -> None:
    """Register the pure `rule` of `fn`, which makes a new array from its first
    argument: made from a constant, the copy is a variable with no inputs too, so that
    `s = s0.copy(); s[0] = w` works as it does on `np.zeros(n)` (a result that shares
    memory with the constant, as `x.astype(float, copy=False)` may, stays the constant:
    writing into it writes into the caller's array)."""
    pure = Pure(fn, rule)

    def made(x, *args, **kwargs):
        out = pure(x, *args, **kwargs)
        if type(out) is not np.ndarray or (type(x) is np.ndarray and
                                           np.may_share_memory(out, x)):
            return out
        return _fresh(out)
    made.__name__ = getattr(rule, "__name__", "copy")
    made.pure = pure  # (rule_calls.pure_inside)
    raw_rrule(fn)(made)


copying(np.copy, _copy)
copying(np.ndarray.copy, _method_copy)


# ---- full, linspace, arange, dtypes ----------------------------------------------------
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
    """start + step * [0, 1, ...]: linear in start and step (by position or by name);
    stop only sets the length. Called as arange(start, stop, step), which NumPy makes
    of every form (a missing start is 0)."""
    rest = {k: v for k, v in kwargs.items() if k not in ("start", "stop", "step")}
    for name, value in rest.items():
        if is_tracked(value):
            raise _keyword_with_derivative("numpy.arange", name)
    start, stop, step = arange_parts(args, kwargs)
    if not (is_tracked(start) or is_tracked(step)):
        return _fresh(np.arange(*map(value_of, args), dtype=dtype,
                                **{k: value_of(v) for k, v in kwargs.items()}))
    stop = value_of(stop)

    def rule(start, step):
        out = np.arange(start, stop, step, dtype=dtype, **rest)
        k = np.arange(len(out), dtype=float)
        return out, lambda ct: (np.sum(ct), np.sum(ct * k))
    rule.__name__ = "_arange"
    return Pure(np.arange, rule)(0 if start is None else start, step)


def _keyword_with_derivative(name: str, keyword: str) -> FwdadError:
    """Forward mode's refusal of a constant parameter that has a derivative."""
    return FwdadError(
        f"{name}{in_user_code()}: its argument {keyword}= has a derivative (it depends on "
        f"the differentiated inputs), and the rule of {name} takes it as a constant, so "
        f"its derivative would be lost. Pass a value that does not depend on the inputs "
        f"there, or pass it by position (np.arange(start, stop, step)), where it is "
        f"differentiated.")


def _astype(x, dtype, *args, **kwargs):
    """A float dtype keeps the derivative; an integer or bool dtype has none."""
    return x.astype(dtype, *args, **kwargs), lambda ct: (ct,)


copying(np.ndarray.astype, _astype)


def _in_order(x, order):
    """A variable array as np.asarray(x, order=order) gives it: itself, or a copy in
    that memory order when NumPy makes one (a later reshape of it is a view or a copy,
    and a write through it reaches it or not, as in NumPy)."""
    if order not in ("C", "F"):
        return x
    if type(x) is not VarMat:  # (the matvar layout: an array of Vars)
        return np.asarray(x, order=order)
    if np.asarray(value_of(x), order=order) is not value_of(x):
        return get_rrule(np.copy)(x, order=order)
    return x


@raw_rrule(np.asanyarray)
def _as_any_array(x, dtype=None, **kwargs):
    return get_rrule(np.asarray)(x, dtype=dtype, **kwargs)


@raw_rrule(np.ascontiguousarray)
def _as_contiguous_array(x, dtype=None, **kwargs):
    return get_rrule(np.asarray)(x, dtype=dtype, order="C", **kwargs)


@raw_rrule(np.asfortranarray)
def _as_fortran_array(x, dtype=None, **kwargs):
    return get_rrule(np.asarray)(x, dtype=dtype, order="F", **kwargs)


def _scalar_type(kind):
    def rule(x):
        return kind(x), lambda ct: (ct,)
    rule.__name__ = f"_{kind.__name__}"
    rrule(kind)(rule)


for _kind in (np.float64, np.float32, np.float16, np.longdouble, np.complex128,
              np.complex64):
    _scalar_type(_kind)


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
