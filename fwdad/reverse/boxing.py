"""Between the user's values and reverse-mode variables: box arguments into Vars and
VarMats, unbox results, seed the output's cotangent, read the arguments' adjoints.

    box(np.ones(2), region)    ->  VarMat(array([1., 1.]))  (kept on the region)
    adjoints(held)             ->  array([...])             (a zero gradient if unreached)
    cast(ct, dtypes(primal))   ->  ct in the primal's dtype (float32 in, float32 out)
"""
from __future__ import annotations

import operator
from typing import Any, Dict, Optional, Set, Tuple

import numpy as np

from fwdad.errors import NonDifferentiableError, a_type
from fwdad.probe import shallow_copy
from fwdad.reverse.adjoints import accumulate
from fwdad.reverse.complex_values import no_complex_matvar, note_complex
from fwdad.reverse.rule_calls import array_subclass_error
from fwdad.reverse.tape import Tape, current_layout
from fwdad.reverse.var import Var, VarMat, gather, is_matvar, new_matvar
from fwdad.tangents import NoTangent, Tangent, has_fields, rebuild

# id of a box (a variable, a container or an instance's copy) -> (the box, the value it
# was made from): kept for the call, so that the ids stay the boxes'
Made = Dict[int, Tuple[Any, Any]]


def box(x: Any, region: Tape, within: frozenset = frozenset(),
        copies: Optional[Dict[int, Any]] = None, made: Optional[Made] = None) -> Any:
    """x with its floats and float arrays made variables kept on `region` (`within`:
    the ids of the instances x is a field of, to find a cycle; `copies`: the copy made
    for each instance, shared by the arguments of one call, so that an instance met at
    two places is one copy there too, and f runs on objects aliased as the user's;
    `made`: each variable, container and copy made, by id, with the value it was made
    from, for write_back)."""
    boxed = _box(x, region, within, copies, made)
    if made is not None and boxed is not x:
        made[id(boxed)] = (boxed, x)
    return boxed


def _box(x: Any, region: Tape, within: frozenset, copies: Optional[Dict[int, Any]],
         made: Optional[Made]) -> Any:
    if isinstance(x, (float, np.floating)):
        var = Var(x)
    elif isinstance(x, (complex, np.complexfloating)):
        note_complex()
        var = Var(complex(x))
    elif isinstance(x, np.ndarray) and type(x) is not np.ndarray and x.dtype.kind in "fc":
        raise array_subclass_error(x)
    elif isinstance(x, np.ndarray) and x.dtype.kind == "f":
        var = VarMat(x.astype(x.dtype.newbyteorder("="))) if current_layout() == "varmat" \
            else new_matvar(x)  # (its own dtype: the values are the plain call's)
    elif isinstance(x, np.ndarray) and x.dtype.kind == "c":
        note_complex()
        var = VarMat(x.astype(x.dtype.newbyteorder("="))) if current_layout() == "varmat" \
            else no_complex_matvar(f"a complex array argument ({x.dtype}, shape {x.shape})")
    elif isinstance(x, (list, tuple)):
        return type(x)(box(v, region, within, copies, made) for v in x) \
            if not hasattr(x, "_fields") else type(x)(*(box(v, region, within, copies, made)
                                                        for v in x))
    elif isinstance(x, dict):
        return {k: box(v, region, within, copies, made) for k, v in x.items()}
    elif has_fields(x):  # an instance: a copy with boxed fields
        if id(x) in within:
            raise NonDifferentiableError(
                f"differentiates with respect to {a_type(x)} that holds itself through "
                f"its fields (a cycle): reverse mode gives the fields of an instance a "
                f"copy of it, which a cycle makes endless. Differentiate with respect "
                f"to the fields that hold the floats (pass them as arguments), or break "
                f"the cycle.")
        copies = {} if copies is None else copies
        if id(x) in copies:  # (met before, at another place: one object, one copy)
            return copies[id(x)]
        inner = within | {id(x)}
        return _with_fields(x, lambda value: box(value, region, inner, copies, made),
                            copies)
    else:
        return x
    region.keep(var, argument=True)
    return var


def _with_fields(obj: Any, convert: Any, copies: Dict[int, Any]) -> Any:
    """A shallow copy of an instance with each field converted, set as
    object.__setattr__ sets it: a frozen dataclass's own __setattr__ refuses, and its
    generated __init__ goes around it the same way (the copy kept in `copies`)."""
    out = copies[id(obj)] = shallow_copy(obj)
    for key, value in vars(obj).items():
        object.__setattr__(out, key, convert(value))
    return out


def hold(x: Any, held: Optional[Dict[int, Any]] = None) -> Any:
    """x's variables as they are now (a matvar copied), in x's structure, an instance's
    in a Tangent (`held`: one per instance, as unbox's copies)."""
    t = type(x)
    if t is VarMat or t is Var or t is int or t is float:
        return x  # (the common cases, without making a zero tangent to look at)
    if is_matvar(x):
        return x.copy()
    held = {} if held is None else held
    if isinstance(x, (list, tuple)):
        items = [hold(v, held) for v in x]
        return rebuild(x, items)
    if isinstance(x, dict):
        return {k: hold(v, held) for k, v in x.items()}
    if has_fields(x):
        if id(x) in held:
            return held[id(x)]
        out = held[id(x)] = Tangent()  # (before its fields: a cycle comes back)
        vars(out).update({k: hold(v, held) for k, v in vars(x).items()})
        return out
    return x


def unbox(x: Any, copies: Optional[Dict[int, Any]] = None) -> Any:
    """The plain value of x: Vars and VarMats read, an instance copied with plain
    fields (`copies`: each instance's copy, so that one met twice, or holding itself,
    is one copy, as in the value f returned)."""
    if type(x) is Var:
        return x.value
    if type(x) is VarMat:
        return x.value.copy()
    if is_matvar(x):
        return gather(x, "value")
    copies = {} if copies is None else copies
    if isinstance(x, (list, tuple)):
        items = [unbox(v, copies) for v in x]
        return rebuild(x, items)
    if isinstance(x, dict):
        return {k: unbox(v, copies) for k, v in x.items()}
    if has_fields(x):
        if id(x) in copies:
            return copies[id(x)]
        out = copies[id(x)] = shallow_copy(x)  # (before its fields: a cycle comes back)
        for key, value in vars(x).items():
            object.__setattr__(out, key, unbox(value, copies))
        return out
    return x


def write_back(primal: Any, box: Any, made: Made, values: bool = True,
               done: Optional[Set[int]] = None) -> None:
    """An argument ends as a plain call leaves it: an array f wrote into takes its final
    values (in place; `values` False: f wrote into no variable, nothing to compare),
    and a list, dict or instance that f changed (an item appended, a field rebound)
    takes its new items, each the user's own object wherever f kept the box made for
    it (`made`, from box), else the plain value f put there. (`done`: the containers
    written back, so that one object at two places, or holding itself, is written
    once.)"""
    kind = type(box)
    if kind is VarMat or kind is Var or box is primal:  # (the common cases first)
        if values and kind is VarMat and type(primal) is np.ndarray:
            _write_values(primal, box)
        return
    if is_matvar(box):
        if values and isinstance(primal, np.ndarray):
            _write_values(primal, box)
        return
    done = set() if done is None else done
    if id(box) in done:
        return
    done.add(id(box))
    if type(primal) is list and isinstance(box, list):
        items = [_back(b, made, values, done) for b in box]
        if len(items) != len(primal) or not all(map(operator.is_, items, primal)):
            primal[:] = items
    elif isinstance(primal, tuple) and isinstance(box, tuple):  # (its items may change)
        for p, b in zip(primal, box):
            write_back(p, b, made, values, done)
    elif type(primal) is dict and isinstance(box, dict):
        entries = {k: _back(b, made, values, done) for k, b in box.items()}
        if list(entries) != list(primal) or \
                not all(map(operator.is_, entries.values(), primal.values())):
            primal.clear()
            primal.update(entries)
    elif has_fields(primal) and has_fields(box):
        fields = {k: _back(v, made, values, done) for k, v in vars(box).items()}
        for k in [k for k in vars(primal) if k not in fields]:
            object.__delattr__(primal, k)  # (as the copy: f deleted the field)
        for k, v in fields.items():
            if vars(primal).get(k, _MISSING) is not v:
                object.__setattr__(primal, k, v)  # (frozen dataclasses too)


def _write_values(primal: np.ndarray, box: Any) -> None:
    final = unbox(box)
    if not np.array_equal(final, primal):
        primal[...] = final


_MISSING = object()


def _back(value: Any, made: Made, values: bool, done: Set[int]) -> Any:
    """What the user's argument holds where f left `value`: the user's own object, written
    back, when value is the box made for it; else value's plain self (a new list f
    built holding such boxes holds the user's objects)."""
    entry = made.get(id(value))
    if entry is not None and entry[0] is value:
        if values or type(value) is not VarMat:  # (else nothing to write)
            write_back(entry[1], value, made, values, done)
        return entry[1]
    if type(value) is list:
        return [_back(v, made, values, done) for v in value]
    if type(value) is dict:
        return {k: _back(v, made, values, done) for k, v in value.items()}
    if type(value) is tuple:
        return tuple(_back(v, made, values, done) for v in value)
    return unbox(value)


def dtypes(x: Any) -> Any:
    """The dtypes of a primal's float leaves (None where float64 or not a float), in
    its structure: the cotangents are computed in float64 and cast at the end."""
    if type(x) is int or type(x) is float:
        return None
    if isinstance(x, (np.ndarray, np.floating, np.complexfloating)):
        return x.dtype if x.dtype.kind in ("f", "c") and x.dtype not in (
            np.float64, np.complex128) else None
    if isinstance(x, (list, tuple)):
        return [dtypes(v) for v in x]
    if isinstance(x, dict):
        return {k: dtypes(v) for k, v in x.items()}
    if has_fields(x):
        return {k: dtypes(v) for k, v in vars(x).items()}
    return None


def cast(ct: Any, dtype: Any, done: Optional[Dict[int, Any]] = None) -> Any:
    """ct with each float leaf in its dtype (`done`: the Tangent made for each
    Tangent, so that the one Tangent of an instance at two places stays one)."""
    if dtype is None or ct is NoTangent:
        return ct
    if isinstance(dtype, np.dtype):
        return ct.astype(dtype) if isinstance(ct, np.ndarray) else dtype.type(ct)
    done = {} if done is None else done
    if isinstance(ct, (list, tuple)):
        return rebuild(ct, [cast(c, d, done) for c, d in zip(ct, dtype)])
    if isinstance(ct, Tangent):
        if id(ct) not in done:
            done[id(ct)] = Tangent(**{k: cast(v, dtype.get(k), done)
                                      for k, v in vars(ct).items()})
        return done[id(ct)]
    return {k: cast(v, dtype.get(k), done) for k, v in ct.items()}


def seed(out: Any, ct: Any, inside: Optional[set] = None) -> None:
    """Add the cotangent `ct` into the adjoints of the output's variables. An instance
    met again inside itself with the same cotangent Tangent (`inside`: the pairs being
    seeded) is that pair, seeded already: an output that holds itself, with a cotangent
    that holds itself (or a zero filled in for it), ends. (One instance at two places
    of the output, not in a cycle, is seeded at each: tests/test_shared_instances.py.)"""
    if ct is NoTangent or ct is None:
        return
    inside = set() if inside is None else inside
    if isinstance(out, (list, tuple)):
        for o, c in zip(out, ct):
            seed(o, c, inside)
    elif isinstance(out, dict):
        for k in out:
            seed(out[k], ct[k], inside)
    elif isinstance(ct, Tangent):
        pair = (id(out), id(ct))
        if pair in inside:
            return
        inside.add(pair)
        for key, value in vars(ct).items():
            seed(getattr(out, key), value, inside)
        inside.discard(pair)
    else:
        accumulate(out, ct)


def adjoints(box: Any, copy: bool = True, done: Optional[Dict[int, Any]] = None) -> Any:
    """The adjoints of a boxed argument, in its structure; without `copy`, an array
    adjoint itself (for a region about to be released: nothing writes into it again).
    An instance held at two places (one Tangent of hold's) has one cotangent there,
    the same Tangent (`done`: the one made for each held Tangent)."""
    if type(box) is Var:  # (complex for a complex argument: docs/complex.md)
        if isinstance(box.value, complex):
            return complex(box.adjoint)
        return float(box.adjoint)
    if type(box) is VarMat:
        return box.adjoint.copy() if copy else box.adjoint  # (made if nothing
        # reached it: a zero gradient)
    if is_matvar(box):
        return gather(box, "adjoint")
    done = {} if done is None else done
    if isinstance(box, (list, tuple)):
        items = [adjoints(v, copy, done) for v in box]
        return rebuild(box, items)
    if isinstance(box, dict):
        return {k: adjoints(v, copy, done) for k, v in box.items()}
    if isinstance(box, Tangent):  # the fields of an instance, held by hold
        if id(box) not in done:
            done[id(box)] = Tangent(**{k: adjoints(v, copy, done)
                                       for k, v in vars(box).items()})
        return done[id(box)]
    return NoTangent
