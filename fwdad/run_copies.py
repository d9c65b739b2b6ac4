"""Copies of a call's Dual arguments for one of several runs of f, instances of user
classes included, and the state the last run left given back to the originals.

    run = RunCopies()
    given = [run.dual(a) for a in args]   # f may write into them: each run has its own
    ... f runs on given ...
    run.give_back()                       # the caller's instances end as f left them

A derivative that runs f once per direction (the level-2 jvps of fwdad/nesting.py)
must start each run from the call's values. Arrays, lists, tuples and dicts are copied
as `over_reverse.arrays_copied` copies them (their end state is written back by
`over_reverse.write_final`); an instance is copied with its fields, once however many
places hold it (one object, as in the plain call), its tangent (a Tangent) likewise.
Shared, as they were, a write through a field (`p.c = p.c * x[0]`) reached the next
run, and compounded: the Hessian of such a function was silently wrong
(tests/test_run_copies.py). After the last run each original instance takes its copy's
fields (an object f made is kept as it is; a copy, its original), and each array held
by an instance its copy's values, as one plain call leaves them.
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np

from fwdad.dual import Dual
from fwdad.probe import shallow_copy
from fwdad.tangents import has_fields


class RunCopies:
    """The copies made for one run: original -> copy, by the original's id."""

    def __init__(self) -> None:
        self.pairs: Dict[int, Tuple[Any, Any]] = {}

    def dual(self, d: Dual) -> Dual:
        return Dual(self.value(d.primal), self.value(d.tangent))

    def value(self, x: Any, held: bool = False) -> Any:
        """A copy of x for the run (`held`: x is inside an instance, whose arrays are
        kept to be given back)."""
        from fwdad.over_reverse import arrays_copied  # (it imports the rules' modules)
        if id(x) in self.pairs:
            return self.pairs[id(x)][1]
        if has_fields(x) and not _recorded(x):  # (linearize's recorded tangent: an array)
            out = shallow_copy(x)
            self.pairs[id(x)] = (x, out)  # (before its fields: a cycle comes back)
            for key, value in vars(x).items():
                object.__setattr__(out, key, self.value(value, True))
            return out
        if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
            return type(x)(self.value(v, held) for v in x)
        if isinstance(x, dict):
            return {k: self.value(v, held) for k, v in x.items()}
        copy = arrays_copied(x)
        if held and copy is not x:
            self.pairs[id(x)] = (x, copy)
        return copy

    def give_back(self) -> None:
        """The originals take the state the run left in their copies."""
        originals = {id(copy): original for original, copy in self.pairs.values()}
        for original, copy in self.pairs.values():
            if has_fields(original):
                for key, value in vars(copy).items():
                    object.__setattr__(original, key, originals.get(id(value), value))
            elif _recorded(original) or _recorded(copy):
                original[...] = copy  # (linearize's tangent: the write is recorded)
            elif isinstance(original, np.ndarray) and np.shape(original) == np.shape(copy) \
                    and original.flags.writeable and not np.array_equal(original, copy):
                original[...] = copy


def _recorded(x: Any) -> bool:
    """A tangent linearize records (`Linear`): copied and written as an array is."""
    if type(x) is np.ndarray:
        return False
    from fwdad.recording import Linear  # (recording imports the rules' modules)
    return type(x) is Linear
