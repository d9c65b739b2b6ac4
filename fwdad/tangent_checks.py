"""Checking the tangents users give against their primals (jvp, jacfwd, vjp, ...).

`check_tangent` accepts what a user would naturally write (an int tangent for a float,
None for no tangent, a Tangent or an instance for an object) and rejects the rest with
an error naming the argument.
"""
from __future__ import annotations

import numbers
from typing import Any, Dict, Optional

import numpy as np

from fwdad.errors import NonDifferentiableError, TangentError, a_type, masked_array_error
from fwdad.tangents import NoTangent, Tangent, instance_fields, map_pairs, stack, zero_tangent


def check_tangent(primal: Any, tangent: Any, name: str, batch: int | None = None,
                  of: str = "", seen: Optional[Dict[int, Any]] = None,
                  cotangent: bool = False) -> Any:
    """Validate a tangent given by a user for argument `name` (of the function named
    by `of`); return it, converted to the tangent type where that is unambiguous (an
    int tangent for a float becomes a float). None means "no tangent": a zero tangent
    of the primal's type and shape. With `batch`, every array leaf carries a leading
    axis of that size.

    Raises:
        TangentError: the tangent's type or shape does not match the primal.
        NonDifferentiableError: a non-zero tangent was given for an int, str, ...

    `seen` (one per call of the transformation, shared by its arguments: else one per
    argument) keeps the Tangent made for each instance: an instance reached at two
    places has one tangent, so both must be given as one Tangent object (or both
    left out), and get that one checked Tangent, whose field writes both then see.
    A `cotangent` (of an output) may differ between the places of one instance: they
    add up, as the derivatives of a sum; one met again with the same cotangent object
    (an output that holds itself, given a cotangent that holds itself) has that one
    checked Tangent.
    """
    seen = (_Summed() if cotangent else {}) if seen is None else seen
    if type(primal) is np.ndarray and primal.dtype.kind in "fc" and tangent is not None \
            and tangent is not NoTangent:  # (its zero, an array, would only be looked at)
        return _check_leaf(primal, tangent, _label(name, of), batch)
    if isinstance(primal, np.ma.MaskedArray) and primal.dtype.kind in "fc":
        raise masked_array_error(primal, _label(name, of))  # (its zero would, unnamed)
    zero = zero_tangent(primal)
    if isinstance(zero, Tangent) and type(seen) is not _Summed:
        earlier = seen.get(id(primal))
        if earlier is not None:
            return _again(primal, tangent, name, of, earlier)
    elif isinstance(zero, Tangent) and (id(primal), id(tangent)) in seen:
        return seen[(id(primal), id(tangent))]  # (a cycle comes back to its cotangent)
    if tangent is None or tangent is NoTangent:
        out = zero if batch is None or zero is NoTangent else stack([zero] * batch)
        _record_unspecified(primal, out, name, seen)
        return out
    if zero is NoTangent:
        if _is_all_zero(tangent):
            return NoTangent
        raise NonDifferentiableError(
            f"{_label(name, of)} is {a_type(primal)} ({primal!r:.60}), which has no "
            f"derivative, but a non-zero tangent was given for it. {_as_float(primal)}"
            f"Otherwise give its tangent as None.")
    if isinstance(primal, (tuple, list)):
        _expect(isinstance(tangent, (tuple, list)) and len(tangent) == len(primal),
                _label(name, of), primal, tangent)
        return map_pairs(primal, tangent, _Checker(name, batch, of, seen))
    if isinstance(primal, dict):
        _expect(isinstance(tangent, dict) and tangent.keys() == primal.keys(),
                _label(name, of), primal, tangent)
        return {k: check_tangent(primal[k], tangent[k], f"{name}[{k!r}]", batch, of, seen)
                for k in primal}
    if isinstance(zero, Tangent):
        return _check_object_tangent(primal, tangent, name, batch, of, seen)
    return _check_leaf(primal, tangent, _label(name, of), batch)


def _label(name: str, of: str) -> str:
    """`argument 'y0'[0] of lotka.mean_prey`: the path stays on the argument."""
    return f"{name} of {of}" if of else name


def _as_float(primal: Any) -> str:
    """How to make `primal` differentiable, when a float version of it exists."""
    if isinstance(primal, np.ndarray) and primal.dtype.kind in "biu":
        return ("To differentiate with respect to it, pass it as a float array "
                "(e.g. value.astype(float) or np.asarray(value, dtype=float)). ")
    if isinstance(primal, (numbers.Integral, np.integer)):
        return (f"To differentiate with respect to it, pass it as a float "
                f"(e.g. float({primal!r:.20})). ")
    return ("fwdad differentiates floats, float arrays and containers or objects "
            "holding them. ")


class _Summed(dict):  # type: ignore[type-arg]
    """The `seen` of a cotangent: each place of an instance is checked on its own."""


class _Checker:
    """check_tangent over the items of a tuple or list, naming each by its index."""

    def __init__(self, name: str, batch: int | None, of: str, seen: Dict[int, Any]) -> None:
        self.name, self.batch, self.of, self.index, self.seen = name, batch, of, 0, seen

    def __call__(self, primal: Any, tangent: Any) -> Any:
        self.index += 1
        return check_tangent(primal, tangent, f"{self.name}[{self.index - 1}]", self.batch,
                             self.of, self.seen)


def _check_leaf(primal: Any, tangent: Any, name: str, batch: int | None) -> Any:
    shape = np.shape(primal) if batch is None else (batch,) + np.shape(primal)
    numeric = isinstance(tangent, (numbers.Number, np.ndarray, np.generic)) \
        and not isinstance(tangent, (bool, np.bool_))
    if numeric and np.shape(tangent) == shape:
        if isinstance(primal, np.ndarray) or batch is not None:
            return np.asarray(tangent, dtype=np.asarray(primal).dtype)
        return type(primal)(tangent)
    got = f"{a_type(tangent)} of shape {np.shape(tangent)}" if numeric \
        else a_type(tangent)
    batched = " with a leading batch axis" if batch is not None else ""
    raise TangentError(
        f"the tangent of {name} must be a {_kind(primal)} of shape {shape} (like its "
        f"primal{batched}), but it is {got}. Give a tangent of the same shape as the "
        f"value.")


def _check_object_tangent(primal: Any, tangent: Any, name: str, batch: int | None,
                          of: str, seen: Dict[int, Any]) -> Any:
    fields = vars(tangent) if isinstance(tangent, (Tangent, type(primal))) else None
    _expect(fields is not None, _label(name, of), primal, tangent)
    unknown = set(fields) - set(instance_fields(primal))
    if unknown:
        raise TangentError(f"the tangent of {_label(name, of)} has fields "
                           f"{sorted(unknown)} that {type(primal).__name__} does not have.")
    out = zero_tangent(primal) if batch is None else Tangent()
    seen[id(primal)] = (name, tangent, out)  # (before the fields: a cycle comes back)
    if type(seen) is _Summed:  # (a cotangent: by the object and the cotangent given)
        seen[(id(primal), id(tangent))] = out
    for key, value in instance_fields(primal).items():
        given = fields.get(key, NoTangent)
        setattr(out, key, check_tangent(value, given, f"{name}.{key}", batch, of, seen)
                if given is not NoTangent else _unspecified(value, f"{name}.{key}", of, seen))
    return out


def _unspecified(primal: Any, name: str, of: str, seen: Dict[int, Any]) -> Any:
    """The tangent of a field given none: its zero, unbatched (it costs no batch
    work), kept for the instances in it as check_tangent keeps them."""
    earlier = seen.get(id(primal)) if type(seen) is not _Summed else None
    if earlier is not None:
        return _again(primal, None, name, of, earlier)
    zero = zero_tangent(primal)
    _record_unspecified(primal, zero, name, seen)
    return zero


def _again(primal: Any, tangent: Any, name: str, of: str, earlier: Any) -> Any:
    """The Tangent of an instance met before, at `first`: given as the same object
    there and here (or left out at both), it is that one; else the two places would
    give one object two tangents."""
    first, given, checked = earlier
    unspecified = tangent is None or tangent is NoTangent
    if tangent is given or (unspecified and given is None):
        return checked
    raise TangentError(
        f"{_label(name, of)} is the same {type(primal).__name__} as {first}, with "
        f"{'no' if unspecified else 'a'} tangent here and "
        f"{'no tangent' if given is None else 'another tangent'} there: one object has "
        f"one tangent. Give the same fwdad.Tangent object at both places (or leave "
        f"both out), or pass two separate objects (copy.copy).")


def _record_unspecified(primal: Any, zero: Any, name: str, seen: Dict[int, Any]) -> None:
    """Keep the zero Tangent of each instance in a value given no tangent (each met
    again must be given none either)."""
    if isinstance(primal, (tuple, list)) and isinstance(zero, (tuple, list)):
        for k, (p, z) in enumerate(zip(primal, zero)):
            _record_unspecified(p, z, f"{name}[{k}]", seen)
    elif isinstance(primal, dict) and isinstance(zero, dict):
        for k, p in primal.items():
            _record_unspecified(p, zero.get(k, NoTangent), f"{name}[{k!r}]", seen)
    elif isinstance(zero, Tangent) and id(primal) not in seen:
        seen[id(primal)] = (name, None, zero)
        for key, value in instance_fields(primal).items():
            _record_unspecified(value, getattr(zero, key, NoTangent), f"{name}.{key}", seen)


def _is_all_zero(t: Any) -> bool:
    try:
        return bool(np.all(np.asarray(t) == 0))
    except Exception:  # noqa: BLE001 (NumPy asked a user's __getattr__ for its array
        return False  # protocol and it raised, e.g. KeyError: not an array of zeros)


def _kind(x: Any) -> str:
    return "float array" if isinstance(x, np.ndarray) else type(x).__name__


def _expect(ok: bool, name: str, primal: Any, tangent: Any) -> None:
    if not ok:
        raise TangentError(
            f"the tangent of {name} must have the structure of its primal "
            f"({type(primal).__name__}), but it is {a_type(tangent)}: "
            f"{tangent!r:.80}.")
