"""The derivative table: each elementwise primitive's derivative, written once.

A row names a NumPy ufunc and its `math` twin (either may be absent) and gives the
derivative as a small expression of the inputs and the output `y`:

    Unary(np.sin, math.sin, "cos(x)", inline=True)      d sin(x) = cos(x) dx
    Binary(np.hypot, None, "over_norm(a, y)", "over_norm(b, y)")   d hypot = (a da + b db) / y

A row's `inline_math` is a math function whose rules are written by hand (math.log,
which also takes a base) but whose one-argument calls inline the row's template.

Function names in the text are resolved per family (`cos` is np.cos in the ufunc's
rules, math.cos in the math function's), so one row serves both. From each row
rules/derivative_code.py makes the forward rule, the optimizer's template (for rows
marked `inline`) and the reverse rule; ufuncs.py, mathfns.py and the reverse modules
register them. Adding an elementwise primitive is one row here and one test row.

Write `divide(a, b)` where b can be 0 at a point where the function is finite (the
derivative is infinite there: sqrt at 0): on Python floats it gives NumPy's inf
instead of raising (rules/ieee.py). A partial that is "0" or "1" costs nothing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, List, Optional

import numpy as np


@dataclass(frozen=True)
class Unary:
    """f(x): its derivative f'(x), in terms of x and y = f(x)."""

    numpy: Optional[np.ufunc]
    math: Any                 # the math module's twin, or None
    derivative: str
    inline: bool = False      # the optimizer inlines its template
    # a math function whose rules are written elsewhere (math.log takes a base too:
    # mathfns.py) but whose one-argument calls the optimizer inlines from this row
    inline_math: Any = None

    @property
    def partials(self) -> tuple:
        return (self.derivative,)


@dataclass(frozen=True)
class Binary:
    """f(a, b): its partial derivatives, in terms of a, b and y = f(a, b)."""

    numpy: Optional[np.ufunc]
    math: Any
    d_a: str
    d_b: str

    @property
    def partials(self) -> tuple:
        return (self.d_a, self.d_b)


_exp2 = getattr(math, "exp2", None)  # (Python 3.11)
_cbrt = getattr(math, "cbrt", None)

UNARY: List[Unary] = [
    # ---- trigonometric and hyperbolic ----
    Unary(np.sin, math.sin, "cos(x)", inline=True),
    Unary(np.cos, math.cos, "-sin(x)", inline=True),
    Unary(np.tan, math.tan, "1.0 + y * y", inline=True),
    Unary(np.arcsin, math.asin, "divide(1.0, sqrt(1.0 - x * x))"),
    Unary(np.arccos, math.acos, "divide(-1.0, sqrt(1.0 - x * x))"),
    Unary(np.arctan, math.atan, "1.0 / (1.0 + x * x)"),
    Unary(np.sinh, math.sinh, "cosh(x)", inline=True),
    Unary(np.cosh, math.cosh, "sinh(x)", inline=True),
    Unary(np.tanh, math.tanh, "1.0 - y * y", inline=True),
    Unary(np.arcsinh, math.asinh, "1.0 / sqrt(x * x + 1.0)"),
    # (not sqrt(x * x - 1): for complex x it has the wrong sign where Re x < 0)
    Unary(np.arccosh, math.acosh, "divide(1.0, sqrt(x - 1.0) * sqrt(x + 1.0))"),
    Unary(np.arctanh, math.atanh, "1.0 / (1.0 - x * x)"),
    Unary(np.deg2rad, None, "pi / 180.0"),
    Unary(np.radians, math.radians, "pi / 180.0"),
    Unary(np.rad2deg, None, "180.0 / pi"),
    Unary(np.degrees, math.degrees, "180.0 / pi"),
    # ---- exponential and logarithmic ----
    Unary(np.exp, math.exp, "y", inline=True),
    Unary(np.exp2, _exp2, "y * LN2"),
    Unary(np.expm1, math.expm1, "y + 1.0"),
    Unary(np.log, None, "1.0 / x", inline=True, inline_math=math.log),
    Unary(np.log2, math.log2, "1.0 / (x * LN2)"),
    Unary(np.log10, math.log10, "1.0 / (x * LN10)"),
    Unary(np.log1p, math.log1p, "1.0 / (1.0 + x)", inline=True),
    # ---- powers and magnitudes (|x| at 0: derivative 0, as sign(0) is 0) ----
    Unary(np.sqrt, math.sqrt, "divide(0.5, y)", inline=True),
    Unary(np.cbrt, _cbrt, "divide(1.0, 3.0 * y * y)"),
    Unary(np.square, None, "2.0 * x", inline=True),
    Unary(np.reciprocal, None, "-y * y"),
    Unary(np.fabs, math.fabs, "sign(x)"),
    # ---- special functions ----
    Unary(None, math.erf, "2.0 / sqrt(pi) * exp(-x * x)"),
    Unary(None, math.erfc, "-2.0 / sqrt(pi) * exp(-x * x)"),
    Unary(None, math.lgamma, "digamma(x)", inline=True),
    Unary(None, math.gamma, "y * digamma(x)"),
]

BINARY: List[Binary] = [
    # ---- angles, norms, log-sum-exp (arctan2 at 0 / 0: nan) ----
    Binary(np.arctan2, math.atan2, "divide(b, a * a + b * b)", "divide(-a, a * a + b * b)"),
    # (hypot at (0, 0): the subgradient 0, as np.linalg.norm at 0; rules/ieee.py)
    Binary(np.hypot, None, "over_norm(a, y)", "over_norm(b, y)"),
    Binary(np.logaddexp, None, "exp(a - y)", "exp(b - y)"),
    Binary(np.logaddexp2, None, "exp2(a - y)", "exp2(b - y)"),
    # ---- remainders: a - q * b, q piecewise constant ----
    Binary(np.remainder, None, "1", "-floor_divide(a, b)"),
    Binary(np.fmod, None, "1", "-trunc((a - y) / b)"),
    # ---- sign and exponent manipulation ----
    Binary(np.copysign, None, "sign(a) * copysign(1.0, b)", "0"),
    Binary(np.ldexp, None, "ldexp(1.0, b)", "0"),
    Binary(np.nextafter, None, "1", "0"),  # a moved by one ulp
]
