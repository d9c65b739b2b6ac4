"""Finds an output tangent that shares memory with an argument's tangent while the
output's value does not share memory with that argument's value (and the converse).

Such a tangent is wrong as soon as the program updates the output in place (`b += a`,
`b[i] = v`, `out=`): the update writes into the argument's tangent too. It is wrong for
a number as well (`t = a[0]`, whose batch of tangents `da[:, 0]` is an array): updating
the argument (`a[0] = 0.0`) changes the number's tangent but not the number. A view (`x[1:]`,
`x.T`, the argument itself) may share its tangent, because its value is shared as well;
and it must, or writing through the view changes the argument's value but not its
tangent.
"""
from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence, Tuple

import numpy as np

from fwdad.probe import probe
from fwdad.tangents import NoTangent, Tangent


def first_alias(out_primal: Any, out_tangent: Any, args: Sequence[Tuple[Any, Any]]
                ) -> Optional[Tuple[str, int, str]]:
    """(output leaf, argument index, argument leaf) of the first tangent shared without
    its value being shared, or None. `args` holds (primal, tangent) pairs."""
    inputs = [(i, where, p, t) for i, (primal, tangent) in enumerate(args)
              for where, p, t in _leaves(primal, tangent, f"argument {i}")]
    for where, p, t in _leaves(out_primal, out_tangent, "the output"):
        if not _mutable(p) and not isinstance(t, np.ndarray):
            continue  # (a number's tangent is a number: never updated in place)
        for i, arg_where, q, u in inputs:
            if _shared(t, u) and not _shared(p, q):
                return where, i, arg_where
    return None


def first_lost_view(out_primal: Any, out_tangent: Any, args: Sequence[Tuple[Any, Any]]
                    ) -> Optional[Tuple[str, int, str]]:
    """(output leaf, argument index, argument leaf) of the first view of an
    argument's array whose tangent is not a view of the argument's tangent, or None.
    Broadcast views (one element seen many times) are left out: NumPy is making them
    read-only. A read-only view (np.diagonal's) counts: a write to the argument shows
    through it."""
    inputs = [(i, where, p, t) for i, (primal, tangent) in enumerate(args)
              for where, p, t in _leaves(primal, tangent, f"argument {i}")
              if isinstance(p, np.ndarray) and isinstance(t, np.ndarray)]
    for where, p, t in _leaves(out_primal, out_tangent, "the output"):
        if not isinstance(p, np.ndarray) or not isinstance(t, np.ndarray) or any(
                s == 0 and n > 1 for s, n in zip(p.strides, p.shape)):
            continue
        for i, arg_where, q, u in inputs:
            if np.shares_memory(p, q) and not np.shares_memory(t, u):
                return where, i, arg_where
    return None


def _leaves(primal: Any, tangent: Any, where: str) -> Iterator[Tuple[str, Any, Any]]:
    """(where, value, tangent) of each array tangent and each mutable container tangent
    (a list, dict or Tangent: appending to it is an in-place update too)."""
    if tangent is NoTangent or tangent is None:
        return
    if isinstance(tangent, np.ndarray):
        yield where, primal, tangent
    elif isinstance(tangent, (list, tuple)) and isinstance(primal, (list, tuple)):
        if isinstance(tangent, list):
            yield where, primal, tangent
        for k, (p, t) in enumerate(zip(primal, tangent)):
            yield from _leaves(p, t, f"{where}[{k}]")
    elif isinstance(tangent, dict) and isinstance(primal, dict):
        yield where, primal, tangent
        for k in tangent:
            if k in primal:
                yield from _leaves(primal[k], tangent[k], f"{where}[{k!r}]")
    elif isinstance(tangent, Tangent):
        yield where, primal, tangent
        for name, t in vars(tangent).items():
            yield from _leaves(getattr(primal, name, None), t, f"{where}.{name}")


def _mutable(value: Any) -> bool:
    return isinstance(value, (np.ndarray, list, dict)) or probe(value, "__dict__") is not None


def _shared(a: Any, b: Any) -> bool:
    """Arrays share memory; any other pair is shared when it is one object."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.shares_memory(a, b))
    return a is b
