"""Reverse rules of ufuncs on complex values beyond the holomorphic rows of rules_complex:
the inverse trigonometric and hyperbolic functions (holomorphic off their branch cuts,
fwdad/rules/branch_cuts.py, which their rows refuse), cumprod, the selections, and
np.sign, which is constant on real values but turns with a complex argument.

    np.sign(z) = z / |z|:   pullback  ct -> -i conj(s) Re(i ct s) / |z|
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.reverse.complex_values import complex_variable
from fwdad.reverse.registry import complex_ready, raw_rrule
from fwdad.reverse.rule_calls import NonDiff, Pure

# ---- holomorphic off their cuts (rules_ufuncs' rows check the cut): ct * f'(x) ---------
complex_ready(np.arcsin, np.arccos, np.arctan, np.arcsinh, np.arccosh, np.arctanh)
# ---- products along an axis (holomorphic: the real pullback, in x's complex dtype) ------
complex_ready(np.cumprod, np.ndarray.cumprod)
# ---- powers: float_power's row takes the principal log of a complex base ---------------
complex_ready(np.float_power)
# ---- selections: ct goes to the input picked (NumPy orders complex values by (re, im)) ---
complex_ready(np.maximum, np.minimum, np.fmax, np.fmin)


# ---- np.sign ------------------------------------------------------------------------------
def _complex_sign(x: Any, **kwargs: Any) -> Any:
    """d sign = i s Im(conj(s) dz) / |z| (forward: rules/ufuncs._sign_tangent), whose
    transpose for the pairing Re(sum(ct * t)) is -i conj(s) Re(i ct s) / |z|. At z = 0
    sign has no derivative: NaN where the cotangent is not zero."""
    s = np.sign(x, **kwargs)
    magnitude = np.abs(x)

    def pullback(ct: Any) -> tuple:
        with np.errstate(invalid="ignore", divide="ignore"):
            ct_x = -1j * np.conj(s) * np.real(1j * ct * s) / magnitude
        return (np.where(magnitude == 0, np.where(ct == 0, 0.0, np.nan), ct_x),)
    return s, pullback


_SIGN_OF_COMPLEX, _SIGN_OF_REAL = Pure(np.sign, _complex_sign), NonDiff(np.sign)


@raw_rrule(np.sign)
def _sign(x: Any, *args: Any, **kwargs: Any) -> Any:
    """Piecewise constant on real values (no derivative recorded), z / |z| on complex."""
    if complex_variable(x):
        return _SIGN_OF_COMPLEX(x, *args, **kwargs)
    return _SIGN_OF_REAL(x, *args, **kwargs)


complex_ready(np.sign)
