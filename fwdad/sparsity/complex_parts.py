"""The real and imaginary parts of a complex array while sparsity detection runs.

A tangent of sets is an object array, and NumPy gives an object array no parts: its
`.real` is the array itself and its `.imag` a new array of zeros. So `z.imag` dropped
every dependency of z (the pattern of `np.fft.fft(x).imag` came out empty), and `z.real`
kept the complex zeros of z's constant items, which later rules cast to a real tangent
(a ComplexWarning, fuzzer seed 100,021,526). Here either part of an item depends on the
item's set, and a part is a view of z's tangent, as the value's part is of z:

    complex_part(np.imag, z)  ->  Dual(z.imag, the sets of z, marked a Part)

A write into a Part (`z.real[1:3] = v`) leaves the other part of those items as it was,
so it adds the written sets to the items' own (`united`) instead of replacing them.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.registry import RuleEntry
from fwdad.sparsity.deps import Deps

_PARTS = {np.real: "real", np.imag: "imag"}


class Part(np.ndarray):
    """The sets of a complex array seen through its real or imaginary part: slices of
    it are Parts too, while arithmetic on it makes plain arrays."""

    def __array_wrap__(self, array: Any, context: Any = None,
                       return_scalar: bool = False) -> Any:
        plain = np.asarray(array)
        return plain[()] if return_scalar else plain


def part_name(entry: RuleEntry, args: tuple) -> Optional[str]:
    """"real" or "imag" for `np.real(z)`, `np.imag(z)` and `getattr(z, name)` of a
    complex array whose tangent holds sets; None for any other call."""
    if entry.primal in _PARTS:
        name = _PARTS[entry.primal]
    elif entry.primal is getattr and len(args) == 2 and \
            getattr(args[1], "primal", args[1]) in ("real", "imag"):
        name = getattr(args[1], "primal", args[1])
    else:
        return None
    z = args[0]
    if not (isinstance(z, Dual) and isinstance(z.primal, np.ndarray) and
            np.iscomplexobj(z.primal) and isinstance(z.tangent, np.ndarray) and
            z.tangent.dtype == object):
        return None
    return name


def complex_part(z: Dual, name: str) -> Dual:
    """z.real or z.imag: the value's part, and z's own sets as a Part (the empty sets,
    numbers, made real zeros in place: either part of a zero is 0.0)."""
    sets = z.tangent
    numbers = np.asarray(_is_number(sets), dtype=bool)  # (a 0-d one gives a bool)
    if not sets.flags.writeable:  # (a broadcast: no write can reach it through a part)
        sets = sets.copy()
    sets[numbers] = 0.0
    return Dual(getattr(z.primal, name), sets.view(Part))


_is_number = np.frompyfunc(lambda item: type(item) is not Deps, 1, 1)


def writes_into_a_part(args: tuple) -> bool:
    return bool(args) and isinstance(args[0], Dual) and isinstance(args[0].tangent, Part)


def united(rule: Callable[[RuleEntry, tuple, dict], Any]
           ) -> Callable[[RuleEntry, tuple, dict], Any]:
    """`rule` (an in-place update of a Part), then each item of the Part given back the
    sets it had before: the other part of the item still depends on them."""
    def keeping_the_other_part(entry: RuleEntry, args: tuple, kwargs: dict) -> Any:
        sets = args[0].tangent
        before = np.array(sets, dtype=object)
        out = rule(entry, args, kwargs)
        np.copyto(sets, np.asarray(sets, dtype=object) + before)
        return out
    return keeping_the_other_part
