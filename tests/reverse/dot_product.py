"""The dot-product test: <vjp(ct), t> == <ct, jvp(t)> for random t and ct, with the
forward mode (fwdad.jvp) as the independent side; or, where forward mode has no rule,
central finite differences. The pairing is Re(sum(a * b)), without a conjugate, which is
the real inner product on real values and JAX's convention on complex ones
(docs/complex.md)."""
from __future__ import annotations

import copy
from typing import Any, Callable, Sequence

import numpy as np

import fwdad
from fwdad.tangents import Tangent, inner, random_tangent
from tests.util import assert_close, fd_jvp


def check_dot_product(f: Callable, args: Sequence[Any], forward: bool = True,
                      seed: int = 0, rtol: float = 1e-9) -> None:
    rng = np.random.default_rng(seed)
    out, pullback = fwdad.vjp(f, *copy.deepcopy(list(args)))
    _assert_close(out, f(*copy.deepcopy(list(args))), rtol=1e-12)
    ct = random_tangent(out, rng)
    cts = pullback(ct)
    assert len(cts) == len(args)
    direction = [random_tangent(a, rng) for a in args]
    if forward:
        out_fw, tangent = fwdad.jvp(f, copy.deepcopy(list(args)), direction)
        _assert_close(out_fw, out, rtol=1e-12)
    else:
        tangent, rtol = fd_jvp(f, copy.deepcopy(list(args)), direction), 1e-6
    left = pairing(list(cts), direction)
    right = pairing(ct, tangent)
    assert np.isclose(left, right, rtol=rtol, atol=1e-10), \
        f"<vjp(ct), t> = {left!r} but <ct, jvp(t)> = {right!r}"


def pairing(ct: Any, t: Any) -> float:
    """Re(sum(ct * t)) over every leaf: `inner` conjugates its first argument."""
    return inner(_conjugate(ct), t)


def _conjugate(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return [_conjugate(v) for v in x]  # (inner pairs leaves in order)
    if isinstance(x, dict):
        return {k: _conjugate(v) for k, v in x.items()}
    if isinstance(x, Tangent):
        return Tangent(**{k: _conjugate(v) for k, v in vars(x).items()})
    if isinstance(x, (complex, np.complexfloating, np.ndarray)) and np.iscomplexobj(x):
        return np.conjugate(x)
    return x


def _assert_close(got: Any, want: Any, rtol: float) -> None:
    """assert_close, with the imaginary parts of complex values compared too (it
    compares real parts only, and refuses a Python complex)."""
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_close(g, w, rtol)
    elif np.iscomplexobj(want) and not isinstance(want, dict):
        assert_close(np.real(got), np.real(want), rtol=rtol)
        assert_close(np.imag(got), np.imag(want), rtol=rtol)
    else:
        assert_close(got, want, rtol=rtol)
