"""The public transformations: check inputs, seed tangents, run the rule, unpack.

jvp is here; jacfwd, linearize, hessian and vjp join it as they are built.
"""
from __future__ import annotations

import inspect
import types
from typing import Any, Callable, List, Sequence, Tuple

from fwdad.dual import Dual
from fwdad.errors import FwdadError, describe, note_user_location
from fwdad.forward import dispatch
from fwdad.tangents import check_tangent, zero_tangent


def jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> Tuple[Any, Any]:
    """Evaluate `f(*primals)` and its directional derivative along `tangents`.

    Args:
        f: a Python function (or anything with a registered frule) of the primals.
        primals: the arguments, a tuple or list. Floats, float arrays and nested
            tuples/lists/dicts of them are differentiable; other values pass through.
        tangents: one tangent per argument, each shaped like its primal (None for an
            argument that has no tangent).

    Returns:
        `(f(*primals), tangent_out)`, with the output tangent shaped like the output.

    Raises:
        TangentError: a tangent does not match its primal in structure or shape.
        NonDifferentiableError: a non-zero tangent was given for an int, str, ...
        MissingRuleError, UnsupportedSyntaxError: f calls code fwdad cannot
            differentiate (the message says where, and what to do).
    """
    _check_callable(f, "jvp")
    primals, tangents = _check_sequences(f, primals, tangents)
    names = _argument_names(f, len(primals))
    duals = [Dual(p, _copy(check_tangent(p, t, f"{n} of {describe(f)}")))
             for p, t, n in zip(primals, tangents, names)]
    try:
        out = call(f, duals)
    except Exception as exc:
        note_user_location(exc)
        raise
    return out.primal, out.tangent


def call(f: Callable, duals: List[Dual]) -> Dual:
    """Run the rule of `f` on Duals (whatever kind of callable f is)."""
    self_tangent = zero_tangent(f.__self__) if isinstance(f, types.MethodType) else None
    return dispatch.call(Dual(f, self_tangent), *duals)


def _check_callable(f: Any, api: str) -> None:
    if not callable(f):
        raise FwdadError(f"{api} needs a function to differentiate as its first "
                         f"argument, but got a {type(f).__name__}: {f!r:.60}.")


def _check_sequences(f: Callable, primals: Any, tangents: Any) -> tuple:
    for what, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, (tuple, list)):
            raise FwdadError(
                f"jvp({describe(f)}, primals, tangents) takes the arguments as a tuple: "
                f"{what} is a {type(value).__name__}. For one argument write "
                f"jvp(f, (x,), (dx,)).")
    if len(primals) != len(tangents):
        raise FwdadError(
            f"jvp({describe(f)}, ...) got {len(primals)} primals but {len(tangents)} "
            f"tangents: give one tangent per argument (None where there is none).")
    return tuple(primals), tuple(tangents)


def _argument_names(f: Callable, count: int) -> List[str]:
    try:
        params = [p.name for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [f"argument {params[i]!r}" if i < len(params) else f"argument {i}"
            for i in range(count)]


def _copy(tangent: Any) -> Any:
    """Tangents are copied, so that a function that updates its inputs in place does
    not write into the caller's tangent arrays."""
    import copy
    return copy.deepcopy(tangent)
