"""The sparsity rules of SciPy's functions: rows added to fwdad/sparsity/table.py's
tables with the rules of each part of SciPy (fwdad/rules/scipy_support.py).

    scipy.linalg.solve            ->  mixing.solve
    scipy.special.logsumexp       ->  reduce_union here; the dense fallback globally
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List

from fwdad.sparsity import mixing
from fwdad.sparsity.rules import SparsityRule, elementwise, reduce_union
from fwdad.sparsity.table import GLOBAL_RULES, LOCAL_RULES, functions_of


def _special() -> Dict[Any, SparsityRule]:
    return {**dict.fromkeys(functions_of("scipy.special", "softmax", "log_softmax"),
                            mixing.softmax),
            **dict.fromkeys(functions_of("scipy.special", "polygamma", "zeta"), elementwise),
            **dict.fromkeys(functions_of("scipy.special", "logsumexp"), reduce_union)}


def _linalg() -> Dict[Any, SparsityRule]:
    return {**dict.fromkeys(functions_of("scipy.linalg", "inv", "det", "cholesky"),
                            mixing.of_each_matrix),
            **dict.fromkeys(functions_of("scipy.linalg", "solve"), mixing.solve)}


_ROWS: Dict[str, Callable[[], Dict[Any, SparsityRule]]] = {
    "special": _special, "linalg": _linalg, "solvers": dict}


def _local_only() -> List[Any]:
    """logsumexp weighs its items by their values: globally, the dense fallback."""
    return functions_of("scipy.special", "logsumexp")


def add_rows(part: str) -> None:
    """Add the rows of one part of SciPy (scipy_support.PARTS) to the tables."""
    rows = _ROWS[part]()
    LOCAL_RULES.update(rows)
    GLOBAL_RULES.update({fn: rule for fn, rule in rows.items() if fn not in _local_only()})
