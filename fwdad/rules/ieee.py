"""Division and powers of Python numbers as NumPy computes them: at 0 they give inf (or
nan) instead of raising ZeroDivisionError.

A derivative can be infinite where its function is finite: d sqrt(x) = 0.5 / sqrt(x)
at x = 0, d x**0.5 = 0.5 * x**-0.5. NumPy gives inf there (np.sqrt's tangent at 0); on
Python floats the same formula raises a bare ZeroDivisionError from the rule. The rules
and templates that divide by a value that can be 0 where the primal is fine use these,
so that math.sqrt(0.0), x ** 0.5 at 0 and np.sqrt(0.0) agree (inf; docs/
errors-and-debugging.md). Results stay Python floats.

    divide(0.5, 0.0) -> inf      divide(0.0, 0.0) -> nan      power(0.0, -0.5) -> inf

Pullbacks keep 0 * inf = NaN out where nothing is read: unread_zero for a cotangent of 0
through an infinite partial, selected for an inf or NaN cotangent of an element that a
selection did not take.
"""
from __future__ import annotations

from typing import Any

import numpy as np


def divide(a: Any, b: Any) -> Any:
    """a / b, with NumPy's ±inf (nan for 0 / 0) where b is a zero Python number."""
    try:
        return a / b
    except ZeroDivisionError:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.divide(np.float64(a), b).item()


def power(x: Any, y: Any) -> Any:
    """x ** y, with NumPy's inf where x is a zero Python number and y < 0."""
    try:
        return x ** y
    except ZeroDivisionError:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.power(np.float64(x), y).item()


def over_norm(a: Any, norm: Any) -> Any:
    """a / norm for a norm >= |a| (a / hypot(a, b)), with the subgradient 0 where the norm
    is 0 instead of 0 / 0 (docs/errors-and-debugging.md, "Kinks")."""
    if isinstance(norm, np.ndarray) or isinstance(a, np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(norm == 0, 0.0, np.divide(a, norm))
    return a / norm if norm != 0 else 0.0 * a


def unread_zero(ct: Any, value: Any) -> Any:
    """A pullback's `value = ct * partial`, with 0 where ct is 0 and the product is NaN:
    an element of a result that nothing reads passes nothing back, even through an
    infinite or NaN partial (0 * inf), as forward mode drops the tangent that np.where,
    np.nan_to_num or an index leaves out (docs/errors-and-debugging.md, "Kinks"). Only a
    product that holds a NaN is looked at again, found by one reduction that NaN passes
    through: a dot product, the cheapest call on a short vector, else `min`, which never
    spans BLAS threads (a check in every reverse product: measured +8% on the gradient
    of an elementwise function of 10 values).

        unread_zero(0.0, 0.0 * inf) -> 0.0      unread_zero(1.0, 1.0 * inf) -> inf
    """
    if isinstance(value, np.ndarray):
        if not holds_nan(value):
            return value
        return np.where((ct == 0) & np.isnan(value), 0.0, value)  # (only there: a ct that
        # is 0 at this point but moves with x has a derivative, forward over reverse)
    if value == value or ct != 0:
        return value
    return ct * 0.0


def holds_nan(value: np.ndarray) -> bool:
    """Whether an array holds a NaN, by one reduction that NaN passes through (see
    unread_zero); only float and complex arrays can."""
    kind = value.dtype.kind
    if kind == "f":
        if value.ndim == 1 and value.size <= 4096:
            total = value.dot(value)
        elif value.size:
            total = value.min()
        else:
            return False
        return total != total
    return kind == "c" and bool(np.isnan(value).any())


def selected(mask: Any, ct: Any) -> Any:
    """A selection's pullback (np.where, np.maximum, np.clip, np.max, ...): ct where mask
    holds and exactly 0 where it does not, even where ct is inf or NaN. The input not
    taken there never reaches the output, and forward mode selects its tangent out with
    np.where; `ct * mask` alone would send it inf * 0 = NaN (tests/
    test_select_pullbacks.py). That product is kept unless it holds a NaN (np.where on a
    mask is 6 times slower than it on 10^5 random elements); a Dual ct takes its own
    rule (over_reverse_rules.py), which selects the tangent too.

        selected([True, False], [1.0, inf]) -> [1.0, 0.0]
    """
    product = ct * mask
    if type(product) is np.ndarray:
        if not holds_nan(product):
            return product
    elif type(product) in (float, np.float64) and product == product:
        return product
    picked = np.where(mask, ct, 0.0)
    return picked if np.ndim(picked) else picked[()]
