"""The dot-product test: <vjp(ct), t> == <ct, jvp(t)> for random t and ct, with the
forward mode (fwdad.jvp) as the independent side; or, where forward mode has no rule,
central finite differences."""
from __future__ import annotations

import copy
from typing import Any, Callable, Sequence

import numpy as np

import fwdad
from fwdad.tangents import NoTangent, inner, random_tangent
from tests.util import assert_close, fd_jvp


def check_dot_product(f: Callable, args: Sequence[Any], forward: bool = True,
                      seed: int = 0, rtol: float = 1e-9) -> None:
    rng = np.random.default_rng(seed)
    out, pullback = fwdad.vjp(f, *copy.deepcopy(list(args)))
    assert_close(out, f(*copy.deepcopy(list(args))), rtol=1e-12)
    ct = random_tangent(out, rng)
    cts = pullback(ct)
    assert len(cts) == len(args)
    direction = [random_tangent(a, rng) for a in args]
    if forward:
        out_fw, tangent = fwdad.jvp(f, copy.deepcopy(list(args)), direction)
        assert_close(out_fw, out, rtol=1e-12)
    else:
        tangent, rtol = fd_jvp(f, copy.deepcopy(list(args)), direction), 1e-6
    left = inner([c for c in cts], [d if d is not NoTangent else NoTangent
                                     for d in direction])
    right = inner(ct, tangent)
    assert np.isclose(left, right, rtol=rtol, atol=1e-10), \
        f"<vjp(ct), t> = {left!r} but <ct, jvp(t)> = {right!r}"
