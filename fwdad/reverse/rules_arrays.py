"""Reverse rules for arrays: sums and means (other reductions are in rules_reductions),
matmul and dot, indexing, views, and in-place writes into part of a varmat
(Stan's save-and-restore).

Indexing follows NumPy: a basic index gives a view, so `x[1:3]` is a VarMat whose value
and adjoint are views of x's; an advanced index gives a copy, whose adjoint is added
back with `np.add.at`. Writing into a VarMat saves the values it overwrites and pushes a
callback that, on the way back, hands the written part's adjoint to the value written,
zeroes that part and restores the old values.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from fwdad.errors import FwdadError, InternalError, describe, in_user_code
from fwdad.reverse.adjoints import accumulate
from fwdad.reverse.complex_parts import forward_parts, write_through_part
from fwdad.reverse.instances import user_method
from fwdad.reverse.positions import positions, scatter
from fwdad.reverse.registry import get_rrule, raw_rrule, rrule, rrule_entry
from fwdad.reverse.stores import note
from fwdad.reverse.tape import current, recording
from fwdad.reverse.tracked import holds_variable, is_tracked
from fwdad.reverse.var import (
    Var,
    VarMat,
    gather,
    is_matvar,
    new_matvar,
    scatter_add,
    to_matvar,
    to_varmat,
    value_of,
)


# ---- reductions ---------------------------------------------------------------------
def _spread(ct, x, axis, keepdims):
    """The cotangent of a reduction over `axis`, broadcast back to x's shape."""
    if axis is not None and not keepdims:
        ct = np.expand_dims(ct, axis)
    return np.broadcast_to(ct, np.shape(x))


@rrule(np.sum, np.ndarray.sum)
def _sum(x, axis=None, dtype=None, keepdims=False, **given):
    """`initial=` is a constant added; entries `where=` leaves out get no cotangent. (They
    are passed on only when given: NumPy's keywords cost time on the common path.)"""
    out = np.sum(x, axis=axis, dtype=dtype, keepdims=keepdims, **given)
    where = given.get("where", True)
    if where is True:
        return out, lambda ct: (_spread(ct, x, axis, keepdims),)
    return out, lambda ct: (_spread(ct, x, axis, keepdims) * where,)


@rrule(np.mean, np.ndarray.mean)
def _mean(x, axis=None, dtype=None, keepdims=False, *, where=True):
    """The mean of the entries `where` keeps: each of them gets ct / their count."""
    out = np.mean(x, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    if where is True:
        count = max(np.size(x), 1) / max(np.size(out), 1)  # (an empty x gets nothing)
        return out, lambda ct: (_spread(ct / count, x, axis, keepdims),)
    kept = np.broadcast_to(where, np.shape(x))
    count = np.sum(kept, axis=axis, keepdims=True)
    return out, lambda ct: (_spread(ct, x, axis, keepdims) * kept / count,)


# ---- linear algebra ---------------------------------------------------------------------
def _swap(a):
    return np.swapaxes(a, -1, -2)


def matmul_pullback(x, y, ct):
    """The cotangents of x and y in x @ y (1-d operands as NumPy promotes them)."""
    if x.ndim == 1 and y.ndim == 1:
        return ct * y, ct * x
    if x.ndim == 1:
        return np.matmul(y, ct[..., None])[..., 0], x[:, None] * ct[..., None, :]
    if y.ndim == 1:
        return ct[..., :, None] * y, np.matmul(_swap(x), ct[..., None])[..., 0]
    return (lambda: _product(ct, y, "nm,km->nk", x.shape),
            lambda: _product(x, ct, "nk,nm->km", y.shape))


def _product(a, b, spec, shape):
    """The stacked product `spec` of a and b, summed over the leading stack axes that an
    operand of `shape` was broadcast along: those axes join the contracted one, so the
    unsummed stack is never built."""
    extra = max(a.ndim, b.ndim) - len(shape)
    if extra <= 0 or a.shape[:extra] != b.shape[:extra]:
        return np.matmul(a, _swap(b)) if spec.startswith("nm") else np.matmul(_swap(a), b)
    lead = (int(np.prod(a.shape[:extra])),)
    a, b = a.reshape(lead + a.shape[extra:]), b.reshape(lead + b.shape[extra:])
    if spec.startswith("nm"):  # sum over (stack, m) of a[..., n, m] b[..., k, m]
        a, b = (np.moveaxis(v, 0, -2).reshape(v.shape[1:-1] + (v.shape[0] * v.shape[-1],))
                for v in (a, b))  # (sizes given: -1 fails for an empty stack)
        return np.matmul(a, _swap(b))
    a, b = (np.moveaxis(v, 0, -3).reshape(v.shape[1:-2] + (v.shape[0] * v.shape[-2],
                                                            v.shape[-1]))
            for v in (a, b))  # sum over (stack, n) of a[..., n, k] b[..., n, m]
    return np.matmul(_swap(a), b)


@rrule(operator.matmul, np.matmul)
def _matmul(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return x @ y, lambda ct: matmul_pullback(x, y, ct)


@rrule(np.dot, np.ndarray.dot)
def _dot(x, y):
    """dot is multiplication for scalars and matmul for vectors and matrices; past two
    dimensions, a sum over x's last axis and y's second to last (tensordot's)."""
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return np.dot(x, y), lambda ct: (ct * y, ct * x)
    if np.ndim(x) > 1 and np.ndim(y) > 1 and (np.ndim(x) > 2 or np.ndim(y) > 2):
        x, y = np.asarray(x), np.asarray(y)
        return np.dot(x, y), lambda ct: dot_pullback(x, y, ct)
    return _matmul(x, y)  # (with a vector, dot is matmul at any number of dimensions)


def dot_pullback(x, y, ct):
    """np.dot(x, y)[i.., j.., m] = sum_n x[i.., n] y[j.., n, m]: each operand's
    cotangent contracts ct with the other over the axes it does not share."""
    free_x, free_y = x.ndim - 1, [k for k in range(y.ndim) if k != y.ndim - 2]

    def ct_x():
        return np.tensordot(ct, y, (list(range(free_x, ct.ndim)), free_y))

    def ct_y():
        shared = list(range(free_x))
        return np.moveaxis(np.tensordot(x, ct, (shared, shared)), 0, -2)
    return ct_x, ct_y


# ---- indexing -------------------------------------------------------------------------
@raw_rrule(operator.getitem)
def getitem(x: Any, key: Any) -> Any:
    if type(x) is not VarMat:
        if isinstance(x, _CONCATENATORS) and holds_variable(key):
            return _concatenated(x, key)
        method = user_method(operator.getitem, (x, key))
        if method is not None:
            return method(x, key)
        if isinstance(x, _INDEXED_BY_VALUE):
            key = index_values(key)
        return x[key]  # lists, dicts, matvars ... (np.index_exp[x] holds x itself)
    key = index_values(key)
    value = x.value[key]
    if type(value) is np.ndarray and np.may_share_memory(value, x.value):
        return VarMat(value, x.adjoint[key])  # a view: shares value and adjoint
    out = Var(value) if type(value) is not np.ndarray else VarMat(value)
    current().push(lambda: np.add.at(x.adjoint, key, out.adjoint), out)
    return out


# np.r_ and np.c_: NumPy's Python code, derived as forward mode derives it (run as it is,
# it made plain arrays of the variables: tests/reverse/cases_numpy.py, `concatenators`)
_CONCATENATORS = (type(np.r_).__mro__[1],)  # AxisConcatenator: RClass's, CClass's base
_CONCATENATE_RULE: list = []


def _concatenated(x: Any, key: Any) -> Any:
    if not _CONCATENATE_RULE:
        from fwdad.core.lazy_rule import LazyRule
        from fwdad.reverse.dispatch import derived_rrule
        _CONCATENATE_RULE.append(LazyRule(_CONCATENATORS[0].__getitem__, derived_rrule))
    return _CONCATENATE_RULE[0](x, key)


_INDEXED_BY_VALUE = (list, tuple, np.ndarray)  # (and VarMats)


def index_values(key: Any) -> Any:
    """An index's plain values. An index has no derivative, and a variable in one is a
    float: NumPy (or Python) then raises its own error for it, as in forward mode (the
    variable's own refusal of np.asarray said nothing of indices)."""
    if type(key) is tuple or type(key) is list:
        return type(key)(index_values(k) for k in key) if holds_variable(key) else key
    return value_of(key) if is_tracked(key) else key


@raw_rrule(operator.setitem)
def setitem(x: Any, key: Any, v: Any) -> None:
    if type(x) is VarMat or isinstance(x, _INDEXED_BY_VALUE):
        key = index_values(key)
    if type(x) is VarMat:
        assign(x, key, v)
    elif type(x) is np.ndarray and x.dtype.kind in "fc":
        write_constant(x, key, v)
    elif type(x) is np.ndarray and x.dtype.kind in "iub":
        x[key] = value_of(v)  # NumPy truncates: no derivative, as in forward mode
    elif user_method(operator.setitem, (x, key, v)) is not None:
        user_method(operator.setitem, (x, key, v))(x, key, v)
    elif is_matvar(x) and np.iscomplexobj(value_of(v)):
        x[key] = _real_part_as_numpy_writes(v)
    else:
        x[key] = v  # lists, dicts, matvars (they hold variables), int arrays
        if isinstance(x, (list, dict)):
            note(x, v)


def _real_part_as_numpy_writes(v: Any) -> Any:
    """A complex value written into a real matvar: what NumPy writes into a real array,
    its real part, with NumPy's own ComplexWarning (or its TypeError, for a Python
    complex constant) raised by the same write into a plain array. Stored as it was, the
    complex variable made the matvar complex (a TypeError or a ComplexWarning later, in
    var.gather). (A Var keeps a NumPy complex scalar as a Python complex: as an array.)"""
    scratch = np.empty(np.shape(value_of(v)))
    scratch[...] = value_of(v) if type(v) is complex else np.asarray(value_of(v))
    return get_rrule(np.real)(v) if is_tracked(v) else np.real(v)


@raw_rrule(operator.delitem)
def _delitem(x: Any, key: Any) -> None:
    del x[key]


def assign(x: VarMat, key: Any, v: Any) -> None:
    """x[key] = v, Stan's way: save the overwritten values; on the way back, give the
    written part's adjoint to v, zero it and restore the old values."""
    if not x.value.flags.writeable:
        if write_through_part(x, key, v):  # (z.imag[...] = v: a write into z)
            return
        _writable_constant_part(x, v)
    old = np.array(x.value[key])
    x.value[key] = value_of(v)
    region, landed = current(), _last_writes(x.shape, key)

    def restore() -> None:
        ct = np.array(x.adjoint[key])
        x.adjoint[key] = 0.0
        x.value[key] = old
        accumulate(v, ct if landed is None else ct * landed)
    region.push(restore)
    if region.parts is not None and x.value.dtype.kind == "c":
        forward_parts(region, x)  # (parts of x read after this: their new values)
    region.writes.append((x.value, key, np.array(x.value[key])))


def _writable_constant_part(x: VarMat, v: Any) -> None:
    """A write into a read-only view (the real or imaginary part of a complex value,
    rules_ufuncs._read_only_part): refused when the part or the written value depends
    on the arguments, else (a constant part) let through, as NumPy would."""
    from fwdad.reverse.complexes import depends_on_arguments  # (it imports the registry)
    if depends_on_arguments([x]) or (is_tracked(v) and depends_on_arguments([v])):
        raise read_only_write_error(x)
    x.value.flags.writeable = True


def read_only_write_error(x: VarMat) -> FwdadError:
    at = in_user_code()
    return FwdadError(
        f"a write{at} into a read-only {x.value.dtype} array of "
        f"shape {x.shape}: a slice (or other view) of the real or imaginary part of a "
        f"complex variable (z.real[1:], np.imag(z)[::2]), which reverse mode does not "
        f"write through (the write would reach the complex value but not its derivative; "
        f"a write through the whole part, z.imag[k] = v, is followed), or a view NumPy "
        f"makes read-only (np.broadcast_to). Write through the whole part instead "
        f"(z.real[1:] = z.real[1:] * 2.0, not z.real[1:] *= 2.0), build the new value "
        f"(z = z.real + 1j * new_imag), or use forward mode (fwdad.jvp, fwdad.jacfwd), "
        f"which follows these writes.")


def _last_writes(shape: tuple, key: Any) -> Any:
    """For an integer-array index that repeats a position, where the written values
    landed (NumPy keeps the last write); None when every value landed."""
    parts = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, (list, np.ndarray)) and np.asarray(k).dtype.kind in "iu"
               for k in parts):
        return None
    written = positions(shape, 0)[key]
    flat = np.ravel(written)
    last = len(flat) - 1 - np.unique(flat[::-1], return_index=True)[1]
    if len(last) == len(flat):
        return None
    landed = np.zeros(len(flat), dtype=bool)
    landed[last] = True
    return landed.reshape(np.shape(written))


last_writes = _last_writes  # (public: reverse schedules replay it, reverse_schedules/codegen.py)


def write_constant(x: np.ndarray, key: Any, v: Any) -> None:
    """A write into a plain float array: fine for constants (the old values are still
    restored on the way back, for the rules that read them), an error for variables."""
    if is_tracked(v):
        raise FwdadError(
            f"x[i] = v{in_user_code()}: a variable was written into a constant array (a "
            f"plain {x.dtype} array of "
            f"shape {x.shape}): its derivative would be lost. The array is one the "
            f"differentiated function did not make (an argument left out of argnums, a "
            f"global, a default value, or a view of one), or one computed from constants "
            f"only; reverse mode cannot make it a variable, since every other reference "
            f"to it would stay constant. Write into a copy made inside the function "
            f"(s = s0.copy(), np.array(s0), np.zeros(n), ...), or differentiate with "
            f"respect to that argument too (argnums). Both modes follow writes into a "
            f"function's own default array or a global or closure array that the code "
            f"names (`buf[i] = v`, `G[i] = v`), not through another name (a parameter "
            f"given the array).")
    if recording():
        old, region = np.array(x[key]), current()
        region.push(lambda: operator.setitem(x, key, old))
        x[key] = v
        region.writes.append((x, key, np.array(x[key])))
    else:
        x[key] = v


# ---- views: the adjoint is the same view of the adjoint -------------------------------
def view_rrule(fn):
    """A view of a VarMat is a VarMat viewing its value and adjoint. A scalar variable is
    made an array of the tape's layout first, as np.asarray's rule makes it (NumPy's
    object array of it was a matvar among VarMats: np.polysub(x, v), np.ediff1d)."""
    def rule(x, *args, **kwargs):
        if type(x) is Var:
            x = get_rrule(np.asarray)(x)
        if type(x) is not VarMat:
            return fn(x, *args, **kwargs)
        value = fn(x.value, *args, **kwargs)
        if np.may_share_memory(value, x.value):
            return _same_view(fn, x, value, lambda adjoint: fn(adjoint, *args, **kwargs))
        out, source = VarMat(value), fn(positions(x.shape), *args, **kwargs)
        current().push(lambda: x.add_adjoint(scatter(source, out.adjoint, x.shape)), out)
        return out
    rule.__name__ = f"view_{fn.__name__}"
    return rule


def keeping_views(fn, operand: Callable[[tuple], Any]) -> None:
    """Wrap fn's registered rule: where NumPy's fn gives a view of its one variable
    array `operand(args)` (np.einsum("ij->ji", a), np.real of a real array), the result
    is the same view of its value and of its adjoint, so that writes through it reach
    both, as view_rrule's do; elsewhere the rule runs as before."""
    entry = rrule_entry(fn)
    inner = entry.callable

    def rule(*args, **kwargs):
        x = operand(args)
        if type(x) is not VarMat:
            return inner(*args, **kwargs)
        value = fn(*[x.value if a is x else a for a in args], **kwargs)
        if not np.may_share_memory(value, x.value):
            return inner(*args, **kwargs)
        return _same_view(fn, x, value, lambda adjoint: fn(
            *[adjoint if a is x else a for a in args], **kwargs))
    entry.callable = rule


def _same_view(fn, x: VarMat, value: np.ndarray, of: Callable[[np.ndarray], Any]) -> VarMat:
    """The VarMat of `value`, a view of x's value, and of the same view of x's adjoint."""
    adjoint = of(x.adjoint)
    if not np.may_share_memory(adjoint, x.adjoint):  # (laid out unlike the value)
        raise InternalError(f"{describe(fn)} of a VarMat gave a view of its value "
                            f"but a copy of its adjoint: the gradient would be lost.")
    return VarMat(value, adjoint)


keeping_views(np.real, lambda args: None if np.iscomplexobj(args[0]) else args[0])  # (of a
# real array: the array itself; a complex one's real part is read-only: rules_ufuncs.py)


transpose = view_rrule(np.transpose)
raw_rrule(np.transpose)(transpose)
for _fn in (np.ndarray.transpose, np.reshape, np.ndarray.reshape, np.ravel,
            np.ndarray.ravel):
    raw_rrule(_fn)(view_rrule(_fn))


# ---- explicit conversions between the layouts -----------------------------------------
def varmat_to_matvar(m: VarMat) -> np.ndarray:
    out = new_matvar(m.value)
    held = out.copy()  # the Vars made here, whatever is written into out later
    current().push(lambda: m.add_adjoint(gather(held, "adjoint")), out)
    return out


def matvar_to_varmat(m: np.ndarray) -> VarMat:
    out, held = VarMat(gather(m, "value")), m.copy()
    current().push(lambda: scatter_add(held, out.adjoint), out)
    return out


raw_rrule(to_matvar)(varmat_to_matvar)
raw_rrule(to_varmat)(matvar_to_varmat)
raw_rrule(value_of)(value_of)  # on purpose: the plain value, a constant from here on
