"""Complex values in reverse code that no rule covers: a rule not declared
`complex_ready` (fwdad/reverse/registry.py) that meets a complex variable refuses it
when the variable's derivative with respect to the arguments is not zero (else it is a
constant, as before), rather than give a cotangent that is wrong for complex values.

    b = np.ptp(z)         (z a complex argument)        ->  NonDifferentiableError
    w = np.ptp(np.exp(1j * np.arange(3.0)))  (made inside f)  ->  a constant
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.errors import NonDifferentiableError, describe
from fwdad.reverse.adjoints import accumulate, adjoint_of
from fwdad.reverse.tape import current
from fwdad.reverse.var import value_of


def refuse_complex(fn: Any, inputs: list) -> None:
    """Raise unless the derivative of `inputs` with respect to the arguments is zero;
    `fn` is the function called, or its name as the user wrote it."""
    if depends_on_arguments(inputs):
        called = fn if isinstance(fn, str) else describe(fn)
        raise NonDifferentiableError(
            f"{called} got or made a complex value that depends on the arguments, "
            f"but its reverse rule covers real values only (for complex ones it would "
            f"give a wrong cotangent; docs/complex.md lists the rules that cover them). "
            f"Use forward mode (fwdad.jvp, fwdad.jacfwd), which differentiates complex "
            f"code, or keep this step real (split the value into its real and imaginary "
            f"parts).")


def depends_on_arguments(variables: list) -> bool:
    """Whether the derivative of `variables` with respect to the arguments of the
    running vjp is non-zero here: a backward pass of the tape so far, seeded with
    random cotangents (the rare path of a complex value: not run otherwise)."""
    region, rng = current(), np.random.default_rng(0)
    if not region.arguments:
        return False
    region.zero_adjoints()
    for v in variables:  # (a complex value gets a complex seed: a real one reaches no
        shape = np.shape(value_of(v))  # real argument through v = x * 1j)
        seed = rng.uniform(1.0, 2.0, shape)
        if np.iscomplexobj(value_of(v)):
            seed = seed + 1j * rng.uniform(1.0, 2.0, shape)
        accumulate(v, seed)
    region.backward()
    reached = any(np.any(adjoint_of(a) != 0) for a in region.arguments)
    region.zero_adjoints()
    return reached
