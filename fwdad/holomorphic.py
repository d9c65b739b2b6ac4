"""Complex arguments of jacfwd, jacrev, hessian and hvp (docs/complex.md), as JAX does:
without `holomorphic=True` a complex argument is refused (its Jacobian along the real
directions alone would be half a derivative), and with it every differentiated argument
and every float output must be complex; the Jacobian is then the complex derivative
df/dz, which is what unit real seeds (or cotangents) give for a holomorphic f.

    check_arguments("jacfwd", f, args, (0,), holomorphic=False)  z complex -> FwdadError
    check_outputs("jacfwd", f, out)      with holomorphic=True, a real output -> FwdadError

Note: like JAX, the check is of dtypes only. Checking the Cauchy-Riemann equations would
take the derivatives along the imaginary directions too, a second Jacobian's cost.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from fwdad.errors import FwdadError, NonDifferentiableError, a_type, describe
from fwdad.tangents import NoTangent, leaves, zero_tangent


def _is_complex(x: Any) -> bool:
    return isinstance(x, (complex, np.complexfloating)) or (
        isinstance(x, np.ndarray) and x.dtype.kind == "c")


def _is_inexact(x: Any) -> bool:
    if type(x) is np.ndarray:  # (what its zero tangent says, without making one)
        return x.dtype.kind in "fc"
    return zero_tangent(x) is not NoTangent and isinstance(
        x, (float, complex, np.inexact, np.ndarray))


def check_arguments(api: str, f: Callable[..., Any], args: Sequence[Any],
                    wrt: Sequence[int], holomorphic: bool) -> None:
    """Refuse a complex differentiated argument unless `holomorphic`; with it, refuse
    a real one."""
    for i in wrt:
        found = [x for x in leaves(args[i]) if _is_inexact(x)]
        if not holomorphic and any(_is_complex(x) for x in found):
            raise FwdadError(
                f"{api}({describe(f)}): argument {i} is complex ({a_type(args[i])}), and "
                f"{api} of a complex argument has two meanings. Pass holomorphic=True if "
                f"{describe(f)} is holomorphic in it: the Jacobian is then the complex "
                f"derivative df/dz (as JAX's). Otherwise split the argument into its real "
                f"and imaginary parts, two real arguments, for the real Jacobian of a "
                f"function that is not holomorphic (docs/complex.md).")
        if holomorphic and not all(_is_complex(x) for x in found):
            raise NonDifferentiableError(
                f"{api}(..., holomorphic=True) of {describe(f)} needs complex arguments, "
                f"but argument {i} holds {a_type(args[i])} with real values: pass it as "
                f"complex (x.astype(complex)), or leave out holomorphic=True.")


def check_outputs(api: str, f: Callable[..., Any], out: Any) -> None:
    """With holomorphic=True, every float output must be complex: a real-valued function
    of a complex argument is holomorphic only if constant."""
    for y in leaves(out):
        if _is_inexact(y) and not _is_complex(y):
            raise FwdadError(
                f"{api}(..., holomorphic=True) of {describe(f)} needs complex outputs (as "
                f"JAX's), but it returned {a_type(y)} of real values: a real function of "
                f"a complex argument is not holomorphic (unless constant). Leave out "
                f"holomorphic=True and split the complex argument into its real and "
                f"imaginary parts, or return the value as complex (y.astype(complex)).")
