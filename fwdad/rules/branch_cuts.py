"""The branch cuts of NumPy's complex inverse trigonometric and hyperbolic functions:
on a cut (branch points included) the function is not holomorphic, its value jumps
across the cut, so no complex derivative exists there and both modes refuse it rather
than give one side's derivative (which the formulas of the derivative tables do not
even pick consistently with the side NumPy's value is on).

    cut_checked(UNARY)             the rows of CUTS' ufuncs, refusing complex x on a cut
    refuse_on_cut(np.arcsin, 2+0j) ->  NonDifferentiableError naming arcsin and the cut
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

import numpy as np

from fwdad.errors import NonDifferentiableError, in_user_code


def _real_outside_unit(z: np.ndarray) -> np.ndarray:
    return (z.imag == 0) & (np.abs(z.real) >= 1)


def _imaginary_outside_unit(z: np.ndarray) -> np.ndarray:
    return (z.real == 0) & (np.abs(z.imag) >= 1)


def _real_below_one(z: np.ndarray) -> np.ndarray:
    return (z.imag == 0) & (z.real <= 1)


# ufunc -> (where z lies on its cut, the cut in words); NumPy's principal branches
CUTS: Dict[np.ufunc, Tuple[Callable[[np.ndarray], np.ndarray], str]] = {
    np.arcsin: (_real_outside_unit, "the real axis outside (-1, 1)"),
    np.arccos: (_real_outside_unit, "the real axis outside (-1, 1)"),
    np.arctanh: (_real_outside_unit, "the real axis outside (-1, 1)"),
    np.arctan: (_imaginary_outside_unit, "the imaginary axis outside (-i, i)"),
    np.arcsinh: (_imaginary_outside_unit, "the imaginary axis outside (-i, i)"),
    np.arccosh: (_real_below_one, "the real axis at and below 1"),
}


def refuse_on_cut(ufunc: np.ufunc, x: Any, called: str = "", arg: str = "x") -> None:
    """Raise if a complex `x` has an element on the branch cut of `ufunc`; the message
    names the function as the user called it (`called`: cmath.acosh for its twin,
    numpy.arccosh when empty) and its argument `arg`."""
    if not np.iscomplexobj(x):
        return  # (a real argument: the real function, NaN outside its domain)
    on_cut, where = CUTS[ufunc]
    z = np.asarray(x)
    found = on_cut(z)
    if np.any(found):
        at, line = complex(z[found].flat[0]), in_user_code()
        called = called or f"numpy.{ufunc.__name__}"
        raise NonDifferentiableError(
            f"{called}({arg}){line} got a complex {arg} "
            f"{'with an element, ' if z.ndim else 'value '}{at!r}{',' if z.ndim else ''} "
            f"on its branch cut "
            f"({where}, branch points included): the function is not holomorphic there "
            f"(its value jumps across the cut), so it has no complex derivative. Move the "
            f"argument off the cut (add a small imaginary or real part of the sign of the "
            f"side you mean), or write that branch with real functions of the real and "
            f"imaginary parts.")


def cut_checked(rows: Dict[Any, Callable]) -> Dict[Any, Callable]:
    """The rows of `rows` for the ufuncs in CUTS, each refusing a complex x on its cut
    first (a row's first argument is x, in both the forward and the reverse table)."""
    def checked(ufunc: np.ufunc, row: Callable) -> Callable:
        def row_off_the_cut(x: Any, *rest: Any) -> Any:
            refuse_on_cut(ufunc, x)
            return row(x, *rest)
        return row_off_the_cut
    return {ufunc: checked(ufunc, rows[ufunc]) for ufunc in CUTS if ufunc in rows}
