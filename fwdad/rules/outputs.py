"""`out=` for the NumPy functions that take it beyond the ufuncs: the rule computes the
result as usual, then it is copied into `out` (primal and tangent, in place), and `out`
is returned, as NumPy returns it.

Which functions take `out`, and where, is on their entries (`takes_out` beside each
rule, RuleEntry.out_at). Imported after the other rule modules: it wraps the rules they
registered.
"""
from __future__ import annotations

from typing import Callable, Optional, Union

from fwdad.dual import Dual
from fwdad.rules.registry import KEYWORD_ONLY, RuleEntry, entries, frule
from fwdad.rules.ufuncs import write_outputs


def supports_out(rule: Callable, position: Optional[int]) -> Callable:
    """The rule, plus `out` (a keyword, or positional at `position`): the result is
    written into out, which is returned."""
    def with_out(*args: Dual, out: Dual = None, **kwargs: Dual) -> Dual:
        if position is not None and len(args) > position:
            out, args = args[position], args[:position] + args[position + 1:]
        result = rule(*args, **kwargs)
        if out is None or out.primal is None:
            return result
        return write_outputs((out,), result.primal, result.tangent, {})
    with_out.__name__ = getattr(rule, "__name__", "rule")
    with_out.__doc__ = getattr(rule, "__doc__", None)
    return with_out


def _with_out(entry: RuleEntry) -> None:
    """Register the rule of `entry` again, taking `out` (a nondiff rule stays declared
    nondiff; the entry's other fields stay)."""
    at: Union[int, str, None] = entry.out_at
    position = None if at == KEYWORD_ONLY else at
    assert position is None or isinstance(position, int)
    frule(entry.primal, nondiff=entry.kind == "nondiff", pure=entry.pure, out_at=at,
          template=entry.template)(supports_out(entry.callable, position))


for _entry in list(entries()):  # (the ufuncs' own rules handle out=: no out_at)
    if _entry.out_at is not None:
        _with_out(_entry)
