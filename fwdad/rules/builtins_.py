"""Rules for builtins: abs, min, max, sum, pow, float, complex, int, and the ones with no
derivative (len, range, print, isinstance, ...)."""
from __future__ import annotations

import builtins

import numpy as np

from fwdad.core.duals import const, iterate
from fwdad.dual import Dual
from fwdad.rules.batching import is_batched
from fwdad.rules.operators import abs_rule, add_rule, pow_rule
from fwdad.rules.registry import def_nondiff, frule
from fwdad.tangents import NoTangent

frule(builtins.abs, pure=True)(abs_rule)


@frule(builtins.pow, pure=True)
def _builtin_pow(x: Dual, y: Dual, mod=None) -> Dual:
    if mod is not None:
        return Dual(pow(x.primal, y.primal, mod), NoTangent)
    return pow_rule(x, y)


def _candidates(args: tuple) -> list:
    """`max(a, b, ...)` compares its arguments; `max(xs)` the items of xs."""
    return list(iterate(args[0])) if len(args) == 1 else list(args)


def _select(choose, args: tuple, key, default) -> Dual:
    items = _candidates(args)
    if not items:
        if default is not _NO_DEFAULT:
            return default
        raise ValueError(f"{choose.__name__}() arg is an empty sequence")
    keys = [items[i].primal if key is None else key.primal(items[i].primal)
            for i in range(len(items))]
    return items[_chosen(choose, keys)]


def _chosen(choose, keys: list) -> int:
    """The index of the item `choose` (max or min) returns, the first of equal ones: as
    Python compares, a later item wins only if > (max) or < (min) the best so far.
    (A loop, not choose(..., key=lambda): rule code is differentiated again, and a
    function a builtin calls back is out of the derived rule's reach.)"""
    best = 0
    for i in range(1, len(keys)):
        if (keys[i] > keys[best]) if choose is max else (keys[i] < keys[best]):
            best = i
    return best


_NO_DEFAULT = object()


@frule(builtins.max, pure=True)
def _max(*args: Dual, key: Dual = None, default: Dual = _NO_DEFAULT) -> Dual:
    """The tangent of the selected item (the first of equal ones, as Python picks)."""
    return _select(max, args, key, default)


@frule(builtins.min, pure=True)
def _min(*args: Dual, key: Dual = None, default: Dual = _NO_DEFAULT) -> Dual:
    return _select(min, args, key, default)


@frule(builtins.sum, pure=True)
def _sum(items: Dual, start: Dual = None) -> Dual:
    total = const(0) if start is None else start
    for item in iterate(items):
        total = add_rule(total, item)
    return total


@frule(builtins.float, pure=True)
def _float(x: Dual = None) -> Dual:
    if x is None:
        return Dual(0.0, 0.0)
    out = float(x.primal)
    tangent = x.tangent
    if tangent is NoTangent or isinstance(x.primal, str):
        return Dual(out, 0.0)
    if is_batched(x.primal, tangent):
        return Dual(out, np.reshape(tangent, (np.shape(tangent)[0],)).copy())  # new number
    if not isinstance(tangent, (float, complex, np.ndarray, np.generic)):
        return Dual(out, np.real(np.reshape(tangent, ())))  # recorded by linearize
    return Dual(out, float(np.real(tangent)))


@frule(builtins.complex, pure=True)
def _complex(real: Dual = None, imag: Dual = None) -> Dual:
    """complex(a, b) is a + 1j b (for complex a and b too, as Python computes it): its
    tangent is da + 1j db; a string parses to a constant."""
    parts = [d for d in (real, imag) if d is not None]
    out = complex(*(d.primal for d in parts))
    if any(isinstance(d.primal, str) for d in parts):
        return Dual(out, 0j)
    tangents = [number_tangent(d) for d in parts]
    if len(tangents) == 2:
        tangent = tangents[0] + 1j * tangents[1]
    else:
        tangent = tangents[0] + 0j if tangents else 0j
    if isinstance(tangent, (float, complex, np.generic)):
        tangent = complex(tangent)  # (not a batch, nor a tangent linearize records)
    return Dual(out, tangent)


def number_tangent(x: Dual):
    """x's tangent as a number (a batch of them: an array), 0 for none."""
    t = x.tangent
    if t is NoTangent:
        return 0.0
    if is_batched(x.primal, t):
        return np.reshape(t, (np.shape(t)[0],))
    return np.reshape(t, ()) if isinstance(t, np.ndarray) else t


def_nondiff(builtins.int, builtins.bool, builtins.round, builtins.len, builtins.range,
            builtins.print, builtins.isinstance, builtins.issubclass, builtins.str,
            builtins.repr, builtins.id, builtins.hash, builtins.type, builtins.callable,
            builtins.hasattr, builtins.format, builtins.ord, builtins.chr, builtins.any,
            builtins.all, builtins.open, builtins.dir, builtins.bin, builtins.hex,
            builtins.oct, builtins.ascii)
