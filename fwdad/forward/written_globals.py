"""The float arrays kept in a module's globals or a closure that code writes into by
name: within one derivative they hold a derivative, as a function's mutable default does.

    SCRATCH = np.zeros(3)

    def helper(a):
        SCRATCH[...] = a            # a derivative written into a global array...
        return SCRATCH * 2.0        # ...and read back

A global array is otherwise read as a constant, with a read-only zero tangent: writing
a derivative into it is refused (rules/widening.refused_as_constant), since the next
read would not see it. An array that a function writes into by name (`G[i] = v`,
`G[...] += v`, `G.fill(v)`, `np.copyto(G, v)`, `out=G`) is registered instead, when
the rule of a function that reaches it is built (forward/default_aliases.py walks them):
it is registered as forward/defaults.FreshDefault registers a mutable default. So, in one
derivative (a jvp, one batched pass of jacfwd, a linearize, a hessian), every read of the
array, in any rule, gets the same Dual, whose writable tangent starts at zero; what one
line writes, a later one reads with its derivative; the next derivative starts from a
zero tangent again (the array's value, what the last call left, is a constant of it).
Since every read shares the one Dual, a name bound to the array before the write
(`a = G; G[0] = x; a[0]`) sees the write too. Rules that read such an array stay
unoptimized (the optimizer takes global reads for constants).

Writes the scan does not see (through another name in a function that does not name the
array, or into a function's parameter that was given the global) are still refused; so
is a live read of a list, object or view that holds such an array (core/written_arrays.py),
whose zero tangent would not see what the array's Dual holds.
"""
from __future__ import annotations

import types
from typing import Any

from fwdad.core.rebinding import forget_rules
from fwdad.core.written_arrays import note_written, written_within
from fwdad.core.written_names import written_arrays
from fwdad.forward.default_refusals import met_late, rule_running
from fwdad.forward.defaults import (
    ASSUMED_PLAIN,
    MUTABLE_DEFAULTS,
    FreshDefault,
    derivative_open,
)

WRITTEN = "a global or closure array that the differentiated code writes into"


def register_written_arrays(f: types.FunctionType) -> None:
    """Register the float arrays of `f`'s globals and closure cells that `f` writes
    into by name (kept registered while f lives)."""
    for value in written_arrays(f):
        kept = MUTABLE_DEFAULTS.get(id(value))
        if kept is None:
            note_written(value)  # (before: FreshDefault may raise, and the array is known)
            kept = FreshDefault(value, f, WRITTEN)
            _drop_rules_taking_holders_for_constants(kept)
        else:
            note_written(value)
            kept.own(f)


def _drop_rules_taking_holders_for_constants(kept: FreshDefault) -> None:
    """An optimized rule that took a list, object or view holding the array for a
    constant (defaults.ASSUMED_PLAIN) is dropped, as one that took the array itself
    (FreshDefault); it may be running now: then this derivative is refused."""
    for key, (scope, name) in list(ASSUMED_PLAIN.items()):
        holder = scope.get(name) if name is not None else _contents(scope)
        if holder is not None and written_within(holder) is kept.value:
            ASSUMED_PLAIN.clear()
            forget_rules()
            if derivative_open() and rule_running():
                raise met_late(kept)
            return


def _contents(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # (an empty cell)
        return None
