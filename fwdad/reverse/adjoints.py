"""Adjoints of reverse values: read one, and add a cotangent into one, summing the axes
a value was broadcast along.

    accumulate(x, ct)       x.adjoint += ct (a VarMat's summed to its shape; a real
                            variable keeps the real part of a complex cotangent)
    unbroadcast(ct, (1, 3)) ct of shape (4, 3) summed to (1, 3)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.reverse.complex_values import is_complex
from fwdad.reverse.var import Var, VarMat, gather, is_matvar, scatter_add


def adjoint_of(x: Any) -> Any:
    t = type(x)
    if t is Var or t is VarMat:
        return x.adjoint
    if t is np.ndarray and x.dtype == object:
        return gather(x, "adjoint")
    if isinstance(x, tuple):
        return tuple(adjoint_of(v) for v in x)
    return None


def accumulate(x: Any, ct: Any) -> None:
    """Add a cotangent into a variable's adjoint (summing broadcast axes away)."""
    if ct is None:
        return
    t = type(x)
    if t is Var:
        if type(ct) is float:
            x.adjoint += ct
            return
        total = np.sum(ct)
        if type(total) is np.float64:
            x.adjoint += float(total)
        elif isinstance(x.value, (complex, np.complexfloating)):
            x.adjoint += complex(total)
        else:  # a real variable keeps the real part of a complex cotangent: with t
            x.adjoint += float(np.real(total))  # real, Re(ct t) = Re(ct) t
    elif t is VarMat:
        ct = unbroadcast(ct, x.value.shape)
        if (ct.dtype.kind == "c" if type(ct) is np.ndarray else is_complex(ct)) and \
                x.value.dtype.kind != "c":
            ct = np.real(ct)
        x.add_adjoint(ct)
    elif is_matvar(x):
        ct = unbroadcast(ct, x.shape)
        scatter_add(x, ct)  # (each Var keeps the part of ct its kind takes)


def unbroadcast(ct: Any, shape: tuple) -> Any:
    """Sum a cotangent over the axes along which a value of `shape` was broadcast."""
    if np.shape(ct) == shape:
        return ct
    ct = np.asarray(ct)
    if ct.ndim < len(shape):  # (a value of shape (1, n) written where n values go)
        return ct.reshape(shape)
    if ct.ndim > len(shape):
        ct = ct.sum(axis=tuple(range(ct.ndim - len(shape))))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and ct.shape[i] != 1)
    return ct.sum(axis=axes, keepdims=True) if axes else ct
