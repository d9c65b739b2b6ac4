"""The rule tables' calls at edge inputs: each float array argument in turn made all
zeros (singular matrices, zero norms), all ones (ties) and empty (a filter that kept
nothing). Where NumPy or SciPy returns, fwdad returns too, in both modes, or refuses
with a FwdadError that says why: never another exception from inside its rules.

At zeros and ones derivatives are not compared (most of those points are kinks or
singular): this guards the errors. At an empty argument the two modes must agree too,
on a result shaped as NumPy's: <jvp(t), c> = <t, vjp(c)>, for random t and c (an empty
argument contributes nothing; the others still do). Every fourth row runs by default,
the rest with `-m long`."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.rules.cases import CASES

_STATE: dict = {}


def _call(*floats):
    args = list(_STATE["args"])
    for at, value in zip(_STATE["at"], floats):
        args[at] = value
    return _STATE["fn"](*args, **_STATE["kwargs"])


def _variants(case):
    for i, a in enumerate(case.args):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            yield i, "zeros", np.zeros_like(a)
            yield i, "ones", np.ones_like(a)
            if a.ndim:
                yield i, "empty", np.zeros((0,) + a.shape[1:])


def _plain(fn, args, kwargs):
    """fn's result on copies (it may write into its arguments), or None if it raises."""
    try:
        return fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args], **kwargs)
    except Exception:
        return None


def _check(case):
    floats = [i for i, a in enumerate(case.args)
              if isinstance(a, np.ndarray) and a.dtype.kind == "f" or type(a) is float]
    problems = []
    for i, name, value in _variants(case):
        args = list(case.args)
        args[i] = value
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = _plain(case.fn, args, case.kwargs)
            if plain is None:
                continue
            _STATE.update(fn=case.fn, args=args, kwargs=case.kwargs, at=floats)
            primals = tuple(args[j].copy() if isinstance(args[j], np.ndarray) else args[j]
                            for j in floats)
            for mode in ("jvp", "vjp"):
                try:
                    if mode == "jvp":
                        fwdad.jvp(_call, primals, tuple(np.ones_like(p) for p in primals))
                    else:
                        out, pullback = fwdad.vjp(_call, *primals)
                        if isinstance(out, np.ndarray) and out.dtype.kind == "f":
                            pullback(np.ones_like(out))
                except FwdadError:
                    pass
                except Exception as err:
                    problems.append(f"{mode}, argument {i} {name}: {type(err).__name__}: "
                                    f"{str(err)[:200]}")
            if name == "empty" and not problems:
                problems += [f"argument {i} empty: {p}" for p in _modes_disagree(primals, plain)]
    assert not problems, "\n".join(problems)


def _modes_disagree(primals, plain):
    """What is wrong with the derivatives of a float array result (none: [])."""
    rng = np.random.default_rng(0)
    tangents = tuple(rng.standard_normal(np.shape(p)) if np.ndim(p) else rng.standard_normal()
                     for p in primals)
    try:
        out, tangent = fwdad.jvp(_call, primals, tangents)
        out_v, pullback = fwdad.vjp(_call, *primals)
        if not (isinstance(out, np.ndarray) and out.dtype.kind == "f"):
            return []
        ct = rng.standard_normal(out.shape)
        cts = pullback(ct)
    except FwdadError:
        return []
    shapes = [np.shape(plain), np.shape(out), np.shape(tangent), np.shape(out_v)]
    if len(set(shapes)) > 1:
        return [f"shapes of NumPy's result, the two modes' and the tangent: {shapes}"]
    if [np.shape(c) for c in cts] != [np.shape(p) for p in primals]:
        return [f"cotangents shaped {[np.shape(c) for c in cts]}, for arguments "
                f"{[np.shape(p) for p in primals]}"]
    forward = np.sum(tangent * ct)
    reverse = sum(np.sum(t * c) for t, c in zip(tangents, cts))
    if not np.isclose(forward, reverse, rtol=1e-6, atol=1e-9):
        return [f"<jvp(t), c> = {forward}, <t, vjp(c)> = {reverse}"]
    return []


_ROWS = [c if hasattr(c, "args") else c.values[0] for c in CASES]


@pytest.mark.parametrize("case", [pytest.param(c, id=str(c), marks=[] if k % 4 == 0
                                               else [pytest.mark.long])
                                  for k, c in enumerate(_ROWS)])
def test_edge_inputs_raise_nothing_but_fwdad_errors(case):
    _check(case)
