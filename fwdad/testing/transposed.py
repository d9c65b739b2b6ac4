"""vjp by linearize and transposition: a second reverse mode, to check the first.

`fwdad.vjp` runs the reverse rules on varmats (fwdad/reverse/); `vjp_by_transposition`
records the forward rules' tangent program and runs it backwards
(fwdad/transposition.py). The two are derived from different rules, so where they agree
both are likely right (tests/test_transposition.py, and the program fuzzer's linearize
oracle, compare them).
"""
from __future__ import annotations

from typing import Any, Callable, Tuple

from fwdad.linearize import linearize


def vjp_by_transposition(f: Callable[..., Any], *primals: Any) -> Tuple[Any, Callable[..., Any]]:
    """`(f(*primals), pullback)` as `fwdad.vjp` returns them, computed by linearize and
    the transposed linear program (`lin.T`). `pullback.method` says whether the program
    was transposed ("transpose") or the Jacobian used ("jacobian")."""
    out, lin = linearize(f, *primals)
    return out, lin.T
