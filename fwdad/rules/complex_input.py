"""One refusal for rules whose formulas hold for real input only: complex input raises
an error that names the function, instead of giving a wrong derivative."""
from __future__ import annotations

import numpy as np

from fwdad.errors import FwdadError


def real_only(name: str, *values) -> None:
    """Raise if any of `values` is complex."""
    if any(np.iscomplexobj(v) for v in values):
        raise FwdadError(
            f"fwdad differentiates {name} for real input only: its rule assumes real "
            f"values, and would give a wrong derivative for complex ones. Differentiate "
            f"the real and imaginary parts as separate real arrays, or register a rule "
            f"for complex input with `@fwdad.frule`.")
