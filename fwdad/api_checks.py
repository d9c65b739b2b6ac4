"""The checks that the public entry points (jvp, jacfwd, hessian, linearize ...) make of
their arguments, and the copy of the tangents they are given.

    check_callable(3.0, "jvp")        ->  FwdadError: jvp needs a function ...
    check_sequences(f, x, dx)         ->  FwdadError: primals is a float, not a tuple
    argument_names(f, 2)              ->  ["argument 'x'", "argument 'k'"]
"""
from __future__ import annotations

from typing import Any, Callable, List

import numpy as np

from fwdad.errors import FwdadError, NonDifferentiableError, a_type, describe
from fwdad.probe import probe
from fwdad.signatures import signature_of


def check_callable(f: Any, api: str) -> None:
    """`f` is callable, or a FwdadError naming the entry point `api`."""
    if not callable(f):
        raise FwdadError(f"{api} needs a function to differentiate as its first "
                         f"argument, but got {a_type(f)}: {f!r:.60}.")


def check_sequences(f: Callable[..., Any], primals: Any, tangents: Any) -> tuple[Any, ...]:
    """jvp's primals and tangents as two tuples of one length, or a FwdadError."""
    for what, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, (tuple, list)):
            raise FwdadError(
                f"jvp({describe(f)}, primals, tangents) takes the arguments as a tuple: "
                f"{what} is {a_type(value)}. For one argument write "
                f"jvp(f, (x,), (dx,)).")
    if len(primals) != len(tangents):
        raise FwdadError(
            f"jvp({describe(f)}, ...) got {len(primals)} primals but {len(tangents)} "
            f"tangents: give one tangent per argument (None where there is none).")
    return tuple(primals), tuple(tangents)


def argument_names(f: Callable[..., Any], count: int) -> List[str]:
    """How errors name f's first `count` positional arguments: `argument 'x'`."""
    signature = signature_of(f)  # (cached per function)
    params = [] if signature is None else [
        p.name for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [f"argument {params[i]!r}" if i < len(params) else f"argument {i}"
            for i in range(count)]


def copied(tangent: Any) -> Any:
    """Tangents are copied, so that a function that updates its inputs in place does
    not write into the caller's tangent arrays."""
    import copy
    return copy.deepcopy(tangent)


def no_floats_error(api: str, f: Callable[..., Any], argnums: Any,
                    inputs: tuple[Any, ...]) -> NonDifferentiableError:
    """The error for a Jacobian with respect to arguments with no float leaves: it
    names an instance of a class among them, which jacfwd and jacrev do not open."""
    where = f"{api}({describe(f)}, argnums={argnums}) differentiates with respect to "
    instance = next((x for x in inputs if probe(x, "__dict__") is not None
                     and not isinstance(x, (type, np.ndarray))), None)
    if instance is not None:
        return NonDifferentiableError(
            where + f"{a_type(instance)}, whose fields hold no floats: pass the "
            f"instance whose fields hold the floats or float arrays to differentiate.")
    return NonDifferentiableError(
        where + "arguments that hold no floats: pass floats or float arrays.")
