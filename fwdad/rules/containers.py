"""Rules for building and filling containers: the displays normalization turns into
calls, and the methods comprehensions use. The tangent of a list is a list of
tangents, changed in step with the list."""
from __future__ import annotations

import numpy as np

from fwdad import lang
from fwdad.core.duals import iterate
from fwdad.core.read_only import ReadOnlyDict, ReadOnlyList, is_zero, refuse_unless_zero
from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, in_user_code
from fwdad.rules.registry import def_nondiff, frule
from fwdad.tangents import NoTangent


@frule(lang.build_list, pure=True)
def _build_list(*items: Dual) -> Dual:
    return Dual([x.primal for x in items], [x.tangent for x in items])


@frule(lang.build_tuple, pure=True)
def _build_tuple(*items: Dual) -> Dual:
    return Dual(tuple(x.primal for x in items), tuple(x.tangent for x in items))


@frule(lang.build_dict, pure=True)
def _build_dict(*keys_and_values: Dual) -> Dual:
    keys = [k.primal for k in keys_and_values[::2]]
    values = keys_and_values[1::2]
    return Dual({k: v.primal for k, v in zip(keys, values)},
                {k: v.tangent for k, v in zip(keys, values)})


# ---- sets: no tangent, so no item with a derivative ------------------------------------
@frule(lang.build_set, pure=True)
def _build_set(*items: Dual) -> Dual:
    """Sets hold hashable values (numbers, strings): their order is not defined, so a
    set carries no tangent, and an item that carries a derivative is refused."""
    return Dual({x.primal for x in plain_set_items(items, "a set display")}, NoTangent)


@frule(set.add)
def _set_add(s: Dual, item: Dual) -> Dual:
    s.primal.add(plain_set_items([item], "set.add")[0].primal)
    return Dual(None, NoTangent)


def plain_set_items(items, what: str) -> list:
    """`items`, when none carries a non-zero tangent; else a clear refusal.

    Note: a set carrying tangents would need hashing and equality on the primal and one
    tangent per distinct item (the one Python keeps); until then it is refused, never
    approximated by dropping the tangents (`max(sorted({x, 2 * x}))` had tangent 0)."""
    items = list(items)
    for item in items:
        if not is_zero(item.tangent):
            at = in_user_code()
            raise NonDifferentiableError(
                f"{what}{at} holds a value that carries a derivative "
                f"({type(item.primal).__name__} {item.primal!r:.40}): sets carry no "
                f"tangent in fwdad (their order is not defined). Use a list instead "
                f"(sorted(...) of a list, or list(dict.fromkeys(...)) to drop "
                f"duplicates).")
    return items


# A list's or dict's tangent is written before its value: a global's tangent refuses a
# derivative (core/read_only.py), and the global must then be left as it was
# (tests/forward/test_global_containers.py::test_a_refused_write_leaves_the_global).
@frule(list.append)
def _append(xs: Dual, item: Dual) -> Dual:
    xs.tangent.append(item.tangent)
    xs.primal.append(item.primal)
    return Dual(None, NoTangent)


def_nondiff(lang.truth, str.format, str.split, str.replace, str.join, is_zero)


@frule(lang.build_slice, slice, pure=True)  # (a new slice: mutates nothing)
def _build_slice(*bounds: Dual) -> Dual:
    """A slice carries no tangent: bounds that move (`np.mgrid[0:x:5j]`, `np.r_[0:x:5j]`
    are linspace(0, x, 5)) would lose their derivative, so they are refused."""
    moving = [b.primal for b in bounds if _moves(b.tangent)]
    if moving:
        raise NonDifferentiableError(
            f"fwdad cannot differentiate a slice whose bounds depend on the inputs (here "
            f"{slice(*(b.primal for b in bounds))!r}; {moving[0]!r} has a nonzero "
            f"tangent): a slice carries no tangent, so np.mgrid, np.ogrid or np.r_ over it "
            f"would get a zero derivative. Use np.linspace(start, stop, num) or "
            f"np.arange instead.")
    return Dual(slice(*(b.primal for b in bounds)), NoTangent)


def _moves(tangent) -> bool:
    return tangent is not NoTangent and bool(np.any(np.asarray(tangent) != 0))


# ---- list methods: the tangent list changes in step with the list ---------------------
@frule(list.extend)
def _extend(xs: Dual, items: Dual) -> Dual:
    for item in list(iterate(items)):
        _append(xs, item)
    return Dual(None, NoTangent)


@frule(list.insert)
def _insert(xs: Dual, index, item: Dual) -> Dual:
    xs.tangent.insert(index, item.tangent)
    xs.primal.insert(index, item.primal)
    return Dual(None, NoTangent)


@frule(list.pop)
def _list_pop(xs: Dual, index=-1) -> Dual:
    return Dual(xs.primal.pop(index), xs.tangent.pop(index))


@frule(list.remove)
def _remove(xs: Dual, item: Dual) -> Dual:
    _list_pop(xs, xs.primal.index(item.primal))
    return Dual(None, NoTangent)


@frule(list.reverse)
def _reverse(xs: Dual) -> Dual:
    xs.primal.reverse()
    xs.tangent.reverse()
    return Dual(None, NoTangent)


def sort_order(keys: list, reverse: bool) -> list:
    """The positions of plain keys in sorted order (stable). Rules sort through it, not
    with sorted(..., key=lambda ...): rule code is differentiated again, and a function
    a builtin calls back is out of the derived rule's reach."""
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)


def_nondiff(sort_order)


@frule(list.sort)
def _sort(xs: Dual, *, key=None, reverse=False) -> Dual:
    """Sorts by the primal values (ties keep their order); the tangents follow."""
    keys = [xs.primal[i] if key is None else key(xs.primal[i])
            for i in range(len(xs.primal))]
    order = sort_order(keys, reverse)
    xs.primal[:] = [xs.primal[i] for i in order]
    xs.tangent[:] = [xs.tangent[i] for i in order]
    return Dual(None, NoTangent)


@frule(list.copy)
def _list_copy(xs: Dual) -> Dual:
    return Dual(xs.primal.copy(), list(xs.tangent))


@frule(list.clear, dict.clear)
def _clear(xs: Dual) -> Dual:
    xs.primal.clear()
    xs.tangent.clear()
    return Dual(None, NoTangent)


# ---- dict methods -----------------------------------------------------------------------
def _entry(table: Dual, key) -> Dual:
    return Dual(table.primal[key], table.tangent[key])


@frule(dict.get)
def _get(table: Dual, key, default: Dual = None) -> Dual:
    if key in table.primal:
        return _entry(table, key)
    return Dual(None, NoTangent) if default is None else default


@frule(dict.setdefault)
def _setdefault(table: Dual, key, default: Dual = None) -> Dual:
    if key not in table.primal:
        value = Dual(None, NoTangent) if default is None else default
        table.tangent[key], table.primal[key] = value.tangent, value.primal
    return _entry(table, key)


@frule(dict.items)
def _items(table: Dual) -> Dual:
    return Dual(table.primal.items(), [(NoTangent, table.tangent[k]) for k in table.primal])


@frule(dict.values)
def _values(table: Dual) -> Dual:
    return Dual(table.primal.values(), [table.tangent[k] for k in table.primal])


@frule(dict.update)
def _update(table: Dual, *other: Dual, **kwargs: Dual) -> Dual:
    from fwdad.rules.iteration import dict_rule
    new = dict_rule(*other, **kwargs)
    table.tangent.update(new.tangent)
    table.primal.update(new.primal)
    return Dual(None, NoTangent)


@frule(dict.pop)
def _dict_pop(table: Dual, key, *default: Dual) -> Dual:
    if key not in table.primal and default:
        return default[0]
    return Dual(table.primal.pop(key), table.tangent.pop(key))


@frule(dict.copy)
def _dict_copy(table: Dual) -> Dual:
    return Dual(table.primal.copy(), dict(table.tangent))


def_nondiff(list.index, list.count, tuple.index, tuple.count, dict.keys)


# ---- the read-only tangents of globals (core/read_only.py), differentiated again -------
# A rule that writes into the tangent of a list or dict read from a global runs these
# when it is itself differentiated (second order): what goes in, and its derivative,
# must be zero, as at the first level.
def _read_only_method(rule, at: int, key: bool = False):
    """`rule` of a method whose argument `at` goes in (after an index or key, `key`,
    which the rule takes plain)."""
    def checked(xs: Dual, *args: Dual) -> Dual:
        if len(args) > at:
            refuse_unless_zero((args[at].primal, args[at].tangent))
        if key:
            return rule(xs, args[0].primal, *args[1:])
        return rule(xs, *args)
    checked.__name__ = f"read_only_{rule.__name__.strip('_')}"
    return checked


frule(ReadOnlyList.append)(_read_only_method(_append, 0))
frule(ReadOnlyList.insert)(_read_only_method(_insert, 1, key=True))
frule(ReadOnlyList.extend)(_read_only_method(_extend, 0))
frule(ReadOnlyDict.setdefault)(_read_only_method(_setdefault, 1, key=True))


@frule(ReadOnlyDict.update)
def _read_only_update(table: Dual, *other: Dual, **kwargs: Dual) -> Dual:
    from fwdad.rules.iteration import dict_rule
    new = dict_rule(*other, **kwargs)
    refuse_unless_zero((new.primal, new.tangent))
    return _update(table, new)
