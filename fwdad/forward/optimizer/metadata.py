"""Reads of an array parameter's metadata (`x.shape`, `x.size`, `x.ndim`, `x.dtype`),
which carry no tangent: activity analysis lets no activity through them.

    n = x.shape[0]; h = 1.0 / (n + 1)      h is plain: `r / h` is one product, not a
                                            quotient rule on a zero tangent
Only for parameters the rule never assigns, and only in a rule whose guard turns away
instances of user classes (forward/optimizer/unboxed.py `batched`, batched_variant.py
`batch_ready`), whose `size` could be a property with a derivative: an array's, a
NumPy scalar's or a float's metadata are ints, tuples of ints and dtypes.
"""
from __future__ import annotations

from typing import List, Set

from fwdad.forward.optimizer.lines import Line

METADATA = frozenset({"shape", "size", "ndim", "dtype"})


def quiet_reads(lines: List[Line], params: Set[str]) -> Set[int]:
    """The ids of the lines that read the metadata of one of `params`."""
    assigned = {t for line in lines for t in line.targets}
    return {id(line) for line in lines if _reads_metadata(line, params - assigned)}


def _reads_metadata(line: Line, params: Set[str]) -> bool:
    if line.kind != "call" or getattr(line.entry, "primal", None) is not getattr or \
            len(line.args) != 2 or line.keywords or any(s for _, s in line.args):
        return False
    owner, attribute = line.args[0][0], line.args[1][0]
    name = getattr(attribute.value, "primal", attribute.value)
    return owner.kind == "local" and owner.name in params and \
        attribute.kind == "const" and type(name) is str and name in METADATA
