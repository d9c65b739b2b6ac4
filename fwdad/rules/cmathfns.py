"""Rules for the cmath module (and z.conjugate() of a Python complex): each function is
its NumPy ufunc on one complex number, so its rule is the ufunc's (branch cuts refused
as there: rules/branch_cuts.py) with the value made a Python complex, as cmath returns
it.

    cmath.exp(z)    ->  numpy.exp's rule on np.complex128(z)
    cmath.phase(z)  ->  numpy.angle's (a float)
    cmath.rect(r, phi) = r (cos phi + 1j sin phi)
"""
from __future__ import annotations

import cmath
import math
from typing import Any, Callable

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.branch_cuts import CUTS, refuse_on_cut
from fwdad.rules.builtins_ import number_tangent
from fwdad.rules.registry import def_nondiff, frule, get_frule

# cmath function -> the ufunc that computes it on a complex number
TWINS = {
    cmath.exp: np.exp, cmath.sqrt: np.sqrt, cmath.log10: np.log10,
    cmath.sin: np.sin, cmath.cos: np.cos, cmath.tan: np.tan,
    cmath.sinh: np.sinh, cmath.cosh: np.cosh, cmath.tanh: np.tanh,
    cmath.asin: np.arcsin, cmath.acos: np.arccos, cmath.atan: np.arctan,
    cmath.asinh: np.arcsinh, cmath.acosh: np.arccosh, cmath.atanh: np.arctanh,
}


def as_complex(z: Any) -> Any:
    """A number as np.complex128, as the ufunc should see it (cmath takes any number)."""
    return np.complex128(z)


def _scalar(value: Any, kind: Callable[[Any], Any]) -> Any:
    """A NumPy scalar made the Python number cmath returns; arrays (a batch of
    tangents) stay arrays, and so does a tangent linearize records."""
    if isinstance(value, np.ndarray):
        return value if value.ndim else kind(value)
    return kind(value) if isinstance(value, (int, float, complex, np.generic)) else value


def refuse_on_cmath_cut(fn: Any, ufunc: np.ufunc, z: Any) -> None:
    """The twin's branch cut, refused in the name the user called (cmath.acosh)."""
    if ufunc in CUTS:
        refuse_on_cut(ufunc, z, f"cmath.{fn.__name__}", "z")


def _twin_rule(ufunc: np.ufunc, fn: Any = None) -> Callable[[Dual], Dual]:
    def rule(z: Dual) -> Dual:
        refuse_on_cmath_cut(fn, ufunc, as_complex(z.primal))
        out = get_frule(ufunc)(Dual(as_complex(z.primal), z.tangent))
        return Dual(complex(out.primal), _scalar(out.tangent, complex))
    rule.__name__ = f"_cmath_{ufunc.__name__}"
    return rule


def_nondiff(refuse_on_cut, refuse_on_cmath_cut)  # (checks on values: at second order too)
for _fn, _ufunc in TWINS.items():
    frule(_fn, pure=True)(_twin_rule(_ufunc, _fn))
frule(complex.conjugate, pure=True)(_twin_rule(np.conjugate))  # (z.conjugate() of a number)


@frule(cmath.log, pure=True)
def _log(z: Dual, *base: Dual) -> Dual:
    out = get_frule(np.log)(Dual(as_complex(z.primal), z.tangent))
    if base:  # log(z) / log(b)
        log_b = get_frule(np.log)(Dual(as_complex(base[0].primal), base[0].tangent))
        out = get_frule(np.divide)(out, log_b)
    return Dual(complex(out.primal), _scalar(out.tangent, complex))


@frule(cmath.phase, pure=True)
def _phase(z: Dual) -> Dual:
    out = get_frule(np.angle)(Dual(as_complex(z.primal), z.tangent))
    return Dual(float(out.primal), _scalar(out.tangent, float))


@frule(cmath.polar, pure=True)
def _polar(z: Dual) -> Dual:
    size, angle = get_frule(abs)(z), _phase(z)
    return Dual((float(size.primal), angle.primal),
                (_scalar(np.real(size.tangent), float), angle.tangent))


@frule(cmath.rect, pure=True)
def _rect(r: Dual, phi: Dual) -> Dual:
    """d rect = (cos phi + 1j sin phi) dr + 1j rect dphi."""
    out = cmath.rect(r.primal, phi.primal)
    unit = complex(math.cos(phi.primal), math.sin(phi.primal))
    tangent = unit * number_tangent(r) + 1j * out * number_tangent(phi)
    return Dual(out, _scalar(tangent, complex))
