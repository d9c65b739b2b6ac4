"""Rules for building and filling containers: the displays normalization turns into
calls, and the methods comprehensions use. The tangent of a list is a list of
tangents, changed in step with the list."""
from __future__ import annotations

from fwdad import lang
from fwdad.dual import Dual
from fwdad.rules.registry import def_nondiff, frule
from fwdad.tangents import NoTangent


@frule(lang.build_list)
def _build_list(*items: Dual) -> Dual:
    return Dual([x.primal for x in items], [x.tangent for x in items])


@frule(lang.build_tuple)
def _build_tuple(*items: Dual) -> Dual:
    return Dual(tuple(x.primal for x in items), tuple(x.tangent for x in items))


@frule(lang.build_dict)
def _build_dict(*keys_and_values: Dual) -> Dual:
    keys = [k.primal for k in keys_and_values[::2]]
    values = keys_and_values[1::2]
    return Dual({k: v.primal for k, v in zip(keys, values)},
                {k: v.tangent for k, v in zip(keys, values)})


@frule(lang.build_set)
def _build_set(*items: Dual) -> Dual:
    """Sets hold hashable values (numbers, strings): their order is not defined, so a
    set carries no tangent."""
    return Dual({x.primal for x in items}, NoTangent)


@frule(list.append)
def _append(xs: Dual, item: Dual) -> Dual:
    xs.primal.append(item.primal)
    xs.tangent.append(item.tangent)
    return Dual(None, NoTangent)


def_nondiff(lang.build_slice, lang.truth, set.add, str.format)
