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
from fwdad.errors import FwdadError, NonDifferentiableError, in_user_code
from fwdad.rules.registry import frule
from fwdad.rules.scipy_special import refuse_tangent
from fwdad.tangents import NoTangent

# Past this, a float64 iteration has converged (it doubles the correct digits a step);
# the cap only stops a NaN or an inf from looping.
_AGM_STEPS = 40
# Steps after the values agree: their derivatives agree a step or two later.
_AGM_EXTRA_STEPS = 2


def agm(a: Any, b: Any) -> Any:
    """What scipy.special.agm computes: -agm(-a, -b) where both are negative, NaN where
    their signs differ, 0 where one is 0 (for every value of the other: its partial
    there is 0; the rules refuse a derivative with respect to the zero itself,
    refuse_zero_argument)."""
    sign = np.where((a < 0) & (b < 0), -1.0, 1.0)
    x, y = sign * a, sign * b
    zero = (x == 0) | (y == 0)
    mixed = (x < 0) | (y < 0)
    skip = zero | mixed  # (a zero would never converge; a negative has no square root)
    x, y = np.where(skip, 1.0, x), np.where(skip, 1.0, y)
    extra = _AGM_EXTRA_STEPS
    for _ in range(_AGM_STEPS):
        if not np.any(np.abs(x - y) > 1e-16 * np.abs(x)):
            extra -= 1
            if extra < 0:
                break
        x, y = 0.5 * (x + y), np.sqrt(x * y)
    out = np.where(zero, 0.0, sign * x)
    return np.where(mixed & ~zero, np.nan, out)[()]


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


def refuse_zero_argument(moving: Any, a: Any, b: Any) -> None:
    """Raise where a or b is 0 and `moving(name)` says the derivative is asked along it:
    agm(a, 0) = 0 for every a, but agm(a, b) ~ pi a / (2 log(4 a / b)) as b -> 0+ (a > 0),
    whose slope grows without bound, and agm is NaN for b < 0 (the signs differ): its
    derivative in b at 0 is +inf from one side and does not exist from the other."""
    for name, value in (("a", a), ("b", b)):
        if np.any(np.asarray(value) == 0) and moving(name):
            other = "b" if name == "a" else "a"
            raise NonDifferentiableError(
                f"scipy.special.agm(a, b){in_user_code()}: {name} is 0, where agm is 0 for "
                f"every {other}. Its derivative with respect to {name} there is infinite "
                f"from the side where {name} has the sign of {other} (agm(a, b) ~ "
                f"pi a / (2 log(4 a / b)) as b -> 0+) and does not exist from the other, "
                f"where agm is NaN; fwdad refuses rather than return an infinite or NaN "
                f"derivative. Differentiate at a nonzero {name}, or pass {name} = 0 as a "
                f"constant (the derivative in {other} is then 0).")


@frule(sc.agm)
def _agm(a: Dual, b: Dual, **kwargs: Any) -> Dual:
    refuse_keywords("agm(a, b)", kwargs)
    tangents = {"a": (a.primal, a.tangent), "b": (b.primal, b.tangent)}
    refuse_zero_argument(lambda name: _moves_at_zero(*tangents[name]), a.primal, b.primal)
    return entry_points.derived_rule(agm)(a, b)


def _moves_at_zero(primal: Any, tangent: Any) -> bool:
    """Whether a tangent (of a batch too) is nonzero where its primal is 0; True when
    its values cannot be read (a tangent recorded by linearize)."""
    if tangent is NoTangent:
        return False
    try:
        return bool(np.any((np.asarray(tangent) != 0) & (np.asarray(primal) == 0)))
    except (TypeError, ValueError):
        return True


@frule(sc.diric)
def _diric(x: Dual, n: Dual) -> Dual:
    refuse_tangent(n.tangent, "diric(x, n)", "n")
    return entry_points.derived_rule(diric)(x, n)
