"""Complex values in reverse code: reverse mode carries real values only, so a complex
value computed from variables is refused when its derivative with respect to the
arguments is not zero (it would otherwise be a constant, and the gradient would leave
out the complex path without a word: tests/reverse/test_numpy_rules.py).

    b = a + 1j          (a an argument)               ->  NonDifferentiableError
    w = np.exp(1j * np.arange(3.0))   (made inside f)  ->  a constant, as before
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.errors import NonDifferentiableError, describe
from fwdad.reverse.registry import accumulate, adjoint_of
from fwdad.reverse.tape import current
from fwdad.reverse.var import value_of


def refuse_complex(fn: Any, inputs: list) -> None:
    """Reverse mode carries real values only. A complex value computed from variables is
    kept as a constant when its derivative is zero (the variables do not depend on the
    arguments here: arrays made inside f, ...); else it is refused, rather than giving
    a derivative that silently leaves out the complex path."""
    if depends_on_arguments(inputs):
        raise NonDifferentiableError(
            f"{describe(fn)} made a complex value from a variable: reverse mode "
            f"differentiates through real values only. Keep the computation real (e.g. "
            f"split a complex number into its real and imaginary parts), or use forward "
            f"mode (fwdad.jvp, fwdad.jacfwd), which differentiates complex code.")


def depends_on_arguments(variables: list) -> bool:
    """Whether the derivative of `variables` with respect to the arguments of the
    running vjp is non-zero here: a backward pass of the tape so far, seeded with
    random cotangents (the rare path of a complex value: not run otherwise)."""
    region, rng = current(), np.random.default_rng(0)
    if not region.arguments:
        return False
    region.zero_adjoints()
    for v in variables:
        accumulate(v, rng.uniform(1.0, 2.0, np.shape(value_of(v))))
    region.backward()
    reached = any(np.any(adjoint_of(a) != 0) for a in region.arguments)
    region.zero_adjoints()
    return reached
