"""Rules for NumPy's elementwise functions (ufuncs).

A unary ufunc's tangent is `f'(x) * dx`; `_unary` registers one from its derivative,
written in terms of x and the output y. Binary arithmetic shares the operator rules.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from fwdad.dual import Dual
from fwdad.rules import operators as ops
from fwdad.rules.registry import def_linear, def_nondiff, frule


def _unary(fn: Callable, derivative: Callable) -> None:
    """Register `fn` with the rule d fn(x) = derivative(x, fn(x)) * dx."""
    def rule(x: Dual) -> Dual:
        out = fn(x.primal)
        return Dual(out, derivative(x.primal, out) * x.tangent)
    rule.__name__ = f"_{fn.__name__}"
    frule(fn)(rule)


# ---- trigonometric and hyperbolic --------------------------------------------------
_unary(np.sin, lambda x, y: np.cos(x))
_unary(np.cos, lambda x, y: -np.sin(x))
_unary(np.tan, lambda x, y: 1.0 + y * y)
_unary(np.arcsin, lambda x, y: 1.0 / np.sqrt(1.0 - x * x))
_unary(np.arccos, lambda x, y: -1.0 / np.sqrt(1.0 - x * x))
_unary(np.arctan, lambda x, y: 1.0 / (1.0 + x * x))
_unary(np.sinh, lambda x, y: np.cosh(x))
_unary(np.cosh, lambda x, y: np.sinh(x))
_unary(np.tanh, lambda x, y: 1.0 - y * y)

# ---- exponential, logarithmic, powers -----------------------------------------------
_unary(np.exp, lambda x, y: y)
_unary(np.expm1, lambda x, y: y + 1.0)
_unary(np.log, lambda x, y: 1.0 / x)
_unary(np.log1p, lambda x, y: 1.0 / (1.0 + x))
_unary(np.sqrt, lambda x, y: 0.5 / y)
_unary(np.square, lambda x, y: 2.0 * x)
_unary(np.absolute, lambda x, y: np.sign(x))

# ---- arithmetic: the same rules as the operators -------------------------------------
frule(np.add)(ops._add)
frule(np.subtract)(ops._sub)
frule(np.multiply)(ops._mul)
frule(np.true_divide)(ops._truediv)
frule(np.power)(ops._pow)
def_linear(np.negative, np.positive)

def_nondiff(np.sign, np.floor, np.ceil, np.isnan, np.isfinite, np.greater, np.less,
            np.equal)
