"""The arguments of one of several runs of a function on the same call (one level-2 jvp
per direction: fwdad/nesting.py): each run starts from the call's values, and the
arguments end as one call leaves them.

    for k, direction in enumerate(directions):
        given = run_arguments(args, last=k == len(directions) - 1)

Arrays (in lists, tuples and dicts) are copied for every run, and the caller writes the
last run's back (over_reverse.copied, over_reverse.write_final). The instances of user
classes are shared by those copies: a run that wrote into one (`box.field += v`) left
the next run a changed instance and a wrong derivative. So each run but the last gets a
deep copy of the arguments when one holds an instance (one copy of all of them, which
keeps their aliasing), and the last runs on the instances themselves, as one call does.
"""
from __future__ import annotations

import copy
from typing import Any, List, Sequence

from fwdad.dual import Dual
from fwdad.over_reverse import copied
from fwdad.tangents import Tangent, tangent_type


def run_arguments(args: Sequence[Dual], last: bool) -> List[Dual]:
    """Copies of the Duals `args` for one run (see the module docstring)."""
    if last or not any(_holds_instance(a.primal) for a in args):
        return [copied(a) for a in args]
    try:
        pairs = copy.deepcopy([(a.primal, a.tangent) for a in args])
    except Exception:  # noqa: BLE001 (an object deepcopy refuses: a lock, a generator)
        return [copied(a) for a in args]  # (shared, as before: see docs/higher_order.md)
    return [Dual(primal, tangent) for primal, tangent in pairs]


def _holds_instance(x: Any) -> bool:
    """Whether x is, or a list, tuple or dict in x holds, an instance of a user class
    (a value whose tangent is a structural `Tangent`)."""
    if type(x) in (list, tuple):
        return any(_holds_instance(item) for item in x)
    if type(x) is dict:
        return any(_holds_instance(item) for item in x.values())
    return tangent_type(type(x)) is Tangent
