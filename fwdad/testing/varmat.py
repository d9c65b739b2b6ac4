"""test_varmat_matvar: the varmat and the matvar evaluation of a function agree.

Reverse mode keeps arrays as one VarMat (varmat) by default; the matvar layout, an
object array of scalar Vars, is the reference. Both run the same reverse code; they
differ in how arrays hold variables, how indexing and writes alias, and how adjoints
are gathered and scattered, which is what this check exercises.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np

from fwdad.errors import describe
from fwdad.reverse.api import vjp
from fwdad.reverse.tape import layout
from fwdad.tangents import random_tangent


def test_varmat_matvar(f: Callable[..., Any], *args: Any, rtol: float = 1e-12, atol: float = 1e-14,
                       seed: int = 0) -> None:
    """Check that values, gradients and raised errors agree between the two layouts.

    Args:
        f: a function the reverse mode can differentiate.
        args: the point (float arrays become VarMats, or matvars).
        rtol: relative tolerance of the comparison of values and cotangents.
        atol: absolute tolerance of the comparison of values and cotangents.
        seed: seeds the random output cotangent (the same in both layouts).

    Raises:
        AssertionError: naming the function and what differed.
    """
    varmat = _evaluate(f, args, "varmat", seed)
    matvar = _evaluate(f, args, "matvar", seed)
    name = describe(f)
    assert varmat[0] == matvar[0], \
        f"{name}: varmat gave {_said(varmat)} but matvar gave {_said(matvar)}"
    if varmat[0] == "raised":
        return
    for what, i in (("value", 1), ("argument cotangents", 2), ("arguments after", 3)):
        assert _close(varmat[i], matvar[i], rtol, atol), \
            f"{name}: the {what} differ:\n varmat: {varmat[i]!r}\n matvar: {matvar[i]!r}"


test_varmat_matvar.__test__ = False  # type: ignore[attr-defined]  # a library function, not a pytest test


def _evaluate(f: Callable[..., Any], args: tuple[Any, ...], name: str, seed: int
              ) -> tuple[Any, ...]:
    copies = copy.deepcopy(list(args))
    try:
        with layout(name):
            out, pullback = vjp(f, *copies)
            cotangents = pullback(random_tangent(out, np.random.default_rng(seed)))
    except Exception as exc:  # the error itself is what is compared
        return ("raised", type(exc), str(exc))
    return ("returned", out, cotangents, copies)


def _said(result: tuple[Any, ...]) -> str:
    if result[0] == "raised":
        return f"{result[1].__name__}: {result[2]}"
    return f"a value ({type(result[1]).__name__})"


def _close(a: Any, b: Any, rtol: float, atol: float) -> bool:
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and \
            all(_close(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and \
            all(_close(a[k], b[k], rtol, atol) for k in a)
    try:
        return bool(np.allclose(np.asarray(a, float), np.asarray(b, float), rtol, atol))
    except (TypeError, ValueError):
        return bool(a == b)
