"""scipy.special.agm and scipy.special.diric, written in plain NumPy for both modes to
differentiate, to every order (as fwdad/rules/piecewise.py does np.piecewise). SciPy's
agm is C; its diric is library code that writes through np.place.

    agm(a, b)    Gauss's iteration a, b -> (a + b) / 2, sqrt(a b) (DLMF 19.8.1). Its
                 iterates are analytic in a and b and converge quadratically, their
                 derivatives with them. The first partials it gives are the closed form
                 d agm / da = pi / (4 K) (1 - (a - b) (K - R_D(0, 1 - m, 1) / 3) / (2 a K)),
                 K = ellipk(m), m = ((a - b) / (a + b))^2 (from agm = pi (a + b) / (4 K(m)),
                 DLMF 19.8.5 and 19.4.1; tests/rules/test_scipy_special_formulas.py).
    diric(x, n)  sin(n y) / (n sin y), y = x / 2 (SciPy's docstring), written as
                 +-sinc(n e) / sinc(e) with y = k pi + e, |e| <= pi / 2, and the sign
                 (-1)^(k (n - 1)): no 0 / 0 at the peaks y = k pi (SciPy's value is +-1
                 there) and no cancellation near them.

A differentiated call's value is this code's: it can differ from SciPy's in the last
digits (near diric's peaks it is the closer to the exact value).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.special as sc

from fwdad.core import entry_points
from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.rules.registry import frule
from fwdad.rules.scipy_special import refuse_tangent

# Past this, a float64 iteration has converged (it doubles the correct digits a step);
# the cap only stops a NaN or an inf from looping.
_AGM_STEPS = 40
# Steps after the values agree: their derivatives agree a step or two later.
_AGM_EXTRA_STEPS = 2


def agm(a: Any, b: Any) -> Any:
    """What scipy.special.agm computes: -agm(-a, -b) where both are negative, NaN where
    their signs differ, 0 where one is 0 (where no two-sided derivative exists: NaN)."""
    sign = np.where((a < 0) & (b < 0), -1.0, 1.0)
    x, y = sign * a, sign * b
    zero = (x == 0) | (y == 0)
    mixed = (x < 0) | (y < 0)
    skip = zero | mixed  # (a zero would never converge; a negative has no square root)
    x0, y0, x, y = x, y, np.where(skip, 1.0, x), np.where(skip, 1.0, y)
    extra = _AGM_EXTRA_STEPS
    for _ in range(_AGM_STEPS):
        if not np.any(np.abs(x - y) > 1e-16 * np.abs(x)):
            extra -= 1
            if extra < 0:
                break
        x, y = 0.5 * (x + y), np.sqrt(x * y)
    out = np.where(zero, np.sqrt(np.abs(x0 * y0)), sign * x)
    return np.where(mixed, np.nan, out)[()]


def diric(x: Any, n: Any) -> Any:
    """What scipy.special.diric computes: NaN where n is not a positive integer."""
    y = 0.5 * x
    k = np.round(y / np.pi)  # piecewise constant
    e = y - k * np.pi
    sign = np.where(np.mod(k * (n - 1), 2) == 0, 1.0, -1.0)
    out = sign * np.sinc(n * e / np.pi) / np.sinc(e / np.pi)
    return np.where((n <= 0) | (n != np.floor(n)), np.nan, out)


def refuse_keywords(call: str, kwargs: dict) -> None:
    if kwargs:
        raise FwdadError(
            f"scipy.special.{call}{in_user_code()}: fwdad differentiates it without "
            f"keyword arguments ({', '.join(kwargs)}). Call it with its arguments only "
            f"(write out[...] = scipy.special.{call} instead of out=).")


@frule(sc.agm)
def _agm(a: Dual, b: Dual, **kwargs: Any) -> Dual:
    refuse_keywords("agm(a, b)", kwargs)
    return entry_points.derived_rule(agm)(a, b)


@frule(sc.diric)
def _diric(x: Dual, n: Dual) -> Dual:
    refuse_tangent(n.tangent, "diric(x, n)", "n")
    return entry_points.derived_rule(diric)(x, n)
