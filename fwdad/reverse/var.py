"""Reverse-mode values: the scalar Var, the varmat VarMat, and the matvar layout.

    Var(value, adjoint)        a float and its adjoint
    VarMat(value, adjoint)     varmat: one value ndarray and one adjoint ndarray
    object ndarray of Vars     matvar: one Var per element (elementwise code, tests)

A VarMat that is a basic-index view of another shares both memories with it, as NumPy
views do, so writes through a view reach the base and so do adjoints. Conversions
between the layouts are explicit (`to_matvar`, `to_varmat`); nothing converts silently,
and turning a Var into a plain float (`float(v)`, `np.asarray(m)`) is an error, because
it would drop the derivative without a word.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.errors import FwdadError, a_type


class Var:
    """A scalar variable: a float (or complex) value and its adjoint, of the value's
    kind (docs/complex.md)."""

    __slots__ = ("value", "adjoint")

    def __init__(self, value: Any, adjoint: float = 0.0) -> None:
        self.value, self.adjoint = value, adjoint

    def __repr__(self) -> str:
        return f"Var({self.value!r}, adjoint={self.adjoint!r})"

    def __bool__(self) -> bool:  # branches and loops test values
        return bool(self.value)

    def __float__(self) -> float:
        raise _dropped(self)

    def zero(self) -> None:
        self.adjoint = 0.0


class VarMat:
    """An array variable in the varmat layout: one value array, one adjoint array.

    The adjoint array is made when first needed (`adjoint`), or from the first
    cotangent added to it (`add_adjoint`): an output nothing reads costs no memory, and
    the backward pass of `grad` reuses the memory it frees as it goes.
    """

    __slots__ = ("value", "_adjoint")
    __array_ufunc__ = None  # NumPy defers to rules; it never unpacks a VarMat itself

    def __init__(self, value: np.ndarray, adjoint: np.ndarray = None) -> None:
        self.value, self._adjoint = value, adjoint

    @property
    def adjoint(self) -> np.ndarray:
        if self._adjoint is None:  # laid out as the value is, so that a view of one
            # is a view of the other
            self._adjoint = np.zeros_like(self.value, dtype=adjoint_dtype(self.value))
        return self._adjoint

    @property
    def has_adjoint(self) -> bool:
        return self._adjoint is not None

    def add_adjoint(self, ct: np.ndarray) -> None:
        if self._adjoint is None:
            self._adjoint = np.empty_like(self.value, dtype=adjoint_dtype(self.value))
            self._adjoint[...] = ct
        else:
            self._adjoint += ct

    def __repr__(self) -> str:
        return f"VarMat({self.value!r})"

    shape = property(lambda self: self.value.shape)
    ndim = property(lambda self: self.value.ndim)
    size = property(lambda self: self.value.size)
    dtype = property(lambda self: self.value.dtype)

    def __len__(self) -> int:
        return len(self.value)

    def __iter__(self):
        from fwdad.reverse.rules_arrays import getitem
        return (getitem(self, i) for i in range(len(self.value)))

    def __reversed__(self):  # reversed(a), as for an array: its rows, last first
        from fwdad.reverse.rules_arrays import getitem
        return (getitem(self, i) for i in reversed(range(len(self.value))))

    def __bool__(self) -> bool:
        return bool(self.value)

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise _dropped(self)

    def zero(self) -> None:
        if self._adjoint is not None:
            self._adjoint[...] = 0.0


def _unruled(symbol: str):
    """An operator on a variable outside reverse code (a library or C function ran it on
    plain terms): an fwdad error naming it, not Python's bare TypeError."""
    def refuse(self: Any, *other: Any) -> Any:
        raise FwdadError(
            f"{a_type(self)} reached `{symbol}` in code that fwdad runs as it is, "
            f"without a reverse rule (library or C code, or a method fwdad does not "
            f"trace into): its derivative would be lost. Register a rule for the function "
            f"that does this with @fwdad.reverse.raw_rrule, or compute it in your own "
            f"code.")
    refuse.__name__ = f"refuse_{symbol}"
    return refuse


for _names, _symbol in [(("add", "radd"), "+"), (("sub", "rsub"), "-"),
                        (("mul", "rmul"), "*"), (("truediv", "rtruediv"), "/"),
                        (("floordiv", "rfloordiv"), "//"), (("mod", "rmod"), "%"),
                        (("pow", "rpow"), "**"), (("matmul", "rmatmul"), "@"),
                        (("neg",), "unary -"), (("pos",), "unary +"), (("abs",), "abs"),
                        (("lt", "le", "gt", "ge"), "an ordering comparison")]:
    for _name in _names:
        for _cls in (Var, VarMat):
            setattr(_cls, f"__{_name}__", _unruled(_symbol))


def _dropped(x: Any) -> FwdadError:
    return FwdadError(
        f"{a_type(x)} was turned into a plain number or array (e.g. by float(), "
        f"np.asarray() or an assignment into a constant array): that would drop its "
        f"derivative. Keep it as a variable, or use fwdad.reverse.value_of(x) on purpose.")


def adjoint_dtype(value: np.ndarray) -> type:
    """Adjoints are float64, or complex128 for a complex value (the cotangents are
    computed in double precision and cast to the argument's dtype at the end)."""
    return complex if value.dtype.kind == "c" else float


def is_matvar(x: Any) -> bool:
    return type(x) is np.ndarray and x.dtype == object


def value_of(x: Any) -> Any:
    """The plain value of a variable (a matvar gives a float array); others as they are."""
    if type(x) is Var or type(x) is VarMat:
        return x.value
    if type(x) is np.ndarray and x.dtype == object:
        return gather(x, "value")
    return x


def compared_value(x: Any) -> Any:
    """What a plain comparison of x compares (sorted, max, min): the values, and tuples
    and lists (from zip, enumerate) item by item."""
    if type(x) in (tuple, list):
        return type(x)(compared_value(v) for v in x)
    return value_of(x)


def gather(m: np.ndarray, field: str) -> np.ndarray:
    """The values (or adjoints) of a matvar as a float array (complex when an item is);
    plain items count as constants (adjoint 0)."""
    flat = [getattr(v, field) if type(v) is Var else (v if field == "value" else 0.0)
            for v in m.flat]
    if any(isinstance(v, (complex, np.complexfloating)) for v in flat):
        # (a complex scalar held as a 0-d matvar, rules_scalar_methods._as_0d: as a float
        # array its imaginary part was dropped, with a ComplexWarning)
        return np.array(flat, dtype=complex).reshape(m.shape)
    return np.array(flat, dtype=float).reshape(m.shape)


def scatter_add(m: np.ndarray, ct: np.ndarray) -> None:
    """Add a cotangent array into the adjoints of a matvar's Vars: a complex Var keeps
    its complex cotangent, a real one the real part (as adjoints.accumulate does for a
    Var; the real part for all dropped a complex scalar's imaginary part, whose method
    runs on a 0-d matvar: test_complex_scalars.py)."""
    ct = np.broadcast_to(ct, m.shape)
    if ct.dtype.kind != "c":
        for v, c in zip(m.flat, ct.flat):
            if type(v) is Var:
                v.adjoint += c
        return
    for v, c in zip(m.flat, ct.flat):
        if type(v) is Var:
            v.adjoint += c if isinstance(v.value, (complex, np.complexfloating)) else c.real


def new_matvar(values: np.ndarray) -> np.ndarray:
    """A matvar of fresh Vars holding `values`."""
    out = np.empty(values.shape, dtype=object)
    flat = out.reshape(-1)  # a view: writes land in out
    for i, v in enumerate(values.flat):
        flat[i] = Var(float(v))
    return out


def to_matvar(m: VarMat) -> np.ndarray:
    """varmat -> matvar: fresh Vars whose adjoints flow back into `m` (recorded)."""
    from fwdad.reverse.rules_arrays import varmat_to_matvar
    return varmat_to_matvar(m)


def to_varmat(m: np.ndarray) -> VarMat:
    """matvar -> varmat: one VarMat whose adjoint flows back into the Vars (recorded)."""
    from fwdad.reverse.rules_arrays import matvar_to_varmat
    return matvar_to_varmat(m)
