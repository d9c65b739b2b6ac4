"""Reverse rules for the cmath module: each function's rule is its NumPy ufunc's on one
complex number (fwdad/rules/cmathfns.py says which), the value made a Python complex
as cmath returns it."""
from __future__ import annotations

import cmath
import math
from typing import Any, Callable

import numpy as np

from fwdad.reverse.registry import complex_ready, rrule, rrule_entry
from fwdad.reverse.var import value_of
from fwdad.rules.cmathfns import TWINS, as_complex, refuse_on_cmath_cut


def _twin_rrule(ufunc: np.ufunc, fn: Any = None) -> Callable[[Any], Any]:
    def rule(z: Any) -> Any:
        refuse_on_cmath_cut(fn, ufunc, as_complex(value_of(z)))  # (before the ufunc's
        out, pullback = rrule_entry(ufunc).rule(as_complex(z))  # refusal, in its name)
        return complex(out), pullback
    rule.__name__ = f"_cmath_{ufunc.__name__}"
    return rule


for _fn, _ufunc in TWINS.items():
    rrule(_fn)(_twin_rrule(_ufunc, _fn))
rrule(complex.conjugate)(_twin_rrule(np.conjugate))


@rrule(cmath.log)
def _log(z, *base):
    if not base:
        return _twin_rrule(np.log)(z)
    log_z, log_b = cmath.log(z), cmath.log(base[0])
    out = log_z / log_b
    return out, lambda ct: (ct / (z * log_b), -ct * out / (base[0] * log_b))


@rrule(cmath.phase)
def _phase(z):
    out, pullback = rrule_entry(np.angle).rule(as_complex(z))
    return float(out), pullback


@rrule(cmath.polar)
def _polar(z):
    """(|z|, phase z): d|z| = Re(conj(z) dz) / |z|, d phase = Im(dz / z)."""
    size, angle = abs(z), cmath.phase(z)

    def pullback(ct):
        ct_size, ct_angle = ct
        sign = z / size if size else 0.0
        return (_or_zero(ct_size) * np.conjugate(sign) + _or_zero(ct_angle) * -1j / z,)
    return (size, angle), pullback


def _or_zero(ct: Any) -> Any:
    return 0.0 if ct is None else ct


@rrule(cmath.rect)
def _rect(r, phi):
    """d rect = (cos phi + 1j sin phi) dr + 1j rect dphi."""
    out = cmath.rect(r, phi)
    unit = complex(math.cos(phi), math.sin(phi))
    return out, lambda ct: (ct * unit, ct * 1j * out)


complex_ready(*TWINS, cmath.log, cmath.phase, cmath.polar, cmath.rect, complex.conjugate)
