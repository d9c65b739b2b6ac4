"""NaN-safe comparison of nested outputs, and the tree helpers the oracles share.

`mismatch(got, want, ...)` returns None when `got` matches `want`, else a short
`(kind, detail)`: kind is one of structure / shape / nan / value, so that failures of
the same kind group together. NaN where `want` is finite is always a mismatch; where
`want` itself is not finite the entry is not compared.
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Optional, Tuple

import numpy as np

from fwdad.tangents import NoTangent

Mismatch = Optional[Tuple[str, str]]


def mismatch(got: Any, want: Any, rtol: float, atol: float, shapes: bool = True) -> Mismatch:
    """Compare two outputs leaf by leaf: |got - want| <= atol * (1 + max|want|) + rtol
    * |want|. A missing tangent (None, NoTangent) counts as zeros of want's shape;
    `shapes=False` lets a float stand for a 0-d array (as jvp's scalar outputs do)."""
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            return "structure", f"got {_describe(got)}, want {_describe(want)}"
        for i, (a, b) in enumerate(zip(got, want)):
            found = mismatch(a, b, rtol, atol, shapes)
            if found:
                return found[0], f"[{i}] {found[1]}"
        return None
    return _leaf(got, want, rtol, atol, shapes)


def _leaf(got: Any, want: Any, rtol: float, atol: float, shapes: bool) -> Mismatch:
    if isinstance(got, (tuple, list, dict)):
        return "structure", f"got {_describe(got)}, want {_describe(want)}"
    want_a = np.asarray(want, dtype=float)
    got_a = np.zeros_like(want_a) if got is None or got is NoTangent else _array(got)
    if got_a is None:
        return "structure", f"got {_describe(got)}, want {_describe(want)}"
    if got_a.shape != want_a.shape:
        return "shape", f"got shape {got_a.shape}, want {want_a.shape}"
    finite = np.isfinite(want_a)
    if np.any(np.isnan(got_a) & finite):
        return "nan", f"got {_short(got_a)}, want {_short(want_a)}"
    scale = 1.0 + (np.max(np.abs(want_a[finite])) if finite.any() else 0.0)
    error = np.where(finite, np.abs(got_a - want_a), 0.0)
    if np.any(error > atol * scale + rtol * np.abs(np.where(finite, want_a, 0.0))):
        return _value_kind(got_a, want_a), f"got {_short(got_a)}, want {_short(want_a)}"
    return None


def _value_kind(got: np.ndarray, want: np.ndarray) -> str:
    """value, or value (missing) when got is zero, (spurious) when want is zero."""
    if not np.any(got):
        return "value (missing)"
    if not np.any(want):
        return "value (spurious)"
    return "value"


def _array(x: Any) -> Optional[np.ndarray]:
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return None


def _short(a: np.ndarray) -> str:
    return np.array2string(np.asarray(a), precision=6, threshold=8, max_line_width=200)


def _describe(x: Any) -> str:
    if isinstance(x, (tuple, list)):
        return f"{type(x).__name__} of {len(x)}"
    return f"{type(x).__name__} shape {np.shape(x)}" if _array(x) is not None else \
        type(x).__name__


# ---- trees -----------------------------------------------------------------------------
def tree_map(fn: Callable, *trees: Any) -> Any:
    first = trees[0]
    if isinstance(first, (tuple, list)):
        return type(first)(tree_map(fn, *items) for items in zip(*trees))
    return fn(*trees)


def leaves(tree: Any) -> list:
    if isinstance(tree, (tuple, list)):
        return [x for item in tree for x in leaves(item)]
    return [tree]


def inner(a: Any, b: Any) -> float:
    """<a, b> over matching leaves (a missing tangent is zero)."""
    total = 0.0
    for x, y in zip(leaves(a), leaves(b)):
        if x is None or x is NoTangent or y is None or y is NoTangent:
            continue
        total += float(np.sum(np.asarray(x, float) * np.asarray(y, float)))
    return total


def perturb(args: tuple, tangents: tuple, h: float) -> tuple:
    """Copies of the arguments moved by h * tangents."""
    return tuple(np.array(a + h * t) if isinstance(a, np.ndarray) else float(a + h * t)
                 for a, t in zip(args, tangents))


def fresh(args: tuple) -> tuple:
    return copy.deepcopy(args)


def scaled_difference(plus: Any, minus: Any, h: float) -> Any:
    return tree_map(lambda p, m: (np.asarray(p, float) - np.asarray(m, float)) / h, plus, minus)


def differences_along(jac, args, t0):
    """Central differences of `jac` (a jacfwd of f) along the first argument's tangent
    t0, at the step 1e-5; None when the step 1e-4 disagrees (the references of the
    second-order oracles)."""
    estimates = []
    for h in (1e-5, 1e-4):
        moved = [perturb(args[:1], (t0,), s)[0] for s in (h, -h)]
        plus, minus = (jac(m, *fresh(args[1:])) for m in moved)
        estimates.append((np.asarray(plus, float) - np.asarray(minus, float)) / (2 * h))
    if mismatch(estimates[1], estimates[0], rtol=2e-6, atol=2e-7):
        return None
    return estimates[0]
