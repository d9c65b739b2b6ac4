"""Reverse rules for SciPy's ODE solvers (`solve_ivp`, `odeint`): the Jacobian of the
solution by forward sensitivities (fwdad/rules/scipy_integrate.py, one augmented solve
carrying a tangent per variable input), then its transpose times the cotangent.

    res = solve_ivp(f, span, y0, args=p)   ->   J = d(res.y, res.t)/d(y0, p, span, t_eval)
    pullback: ct  ->  J^T ct

Note: not the adjoint method. For the small systems and few parameters these solvers are
used with, one forward solve carrying P tangents costs little more than one carrying a
single tangent (docs/scipy.md has the measurements), with no backward solve, no
interpolation of the forward solution and no checkpoints; the adjoint method, whose cost
does not grow with P, wins when P is large.

Only the arguments are variables here: a right-hand side defined inside the
differentiated function (which may capture variables this rule cannot see) is refused,
with what to do. This module imports SciPy: fwdad/reverse/__init__.py loads it only where
SciPy imports.
"""
from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np
import scipy.integrate as si

from fwdad.core.duals import const
from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, describe
from fwdad.reverse.dispatch import ReverseClosure
from fwdad.reverse.registry import get_rrule, raw_rrule
from fwdad.reverse.rule_calls import Chain, wrap
from fwdad.reverse.tape import current
from fwdad.reverse.tracked import is_tracked
from fwdad.reverse.var import value_of
from fwdad.rules.batching import batch
from fwdad.rules.registry import get_frule
from fwdad.rules.scipy_integrate import refuse_options
from fwdad.tangents import NoTangent


@raw_rrule(si.solve_ivp)
def _solve_ivp(fun, t_span, y0, method="RK45", t_eval=None, dense_output=False,
               events=None, vectorized=False, args=None, **options):
    """res.y and res.t as variables whose pullback is J^T ct."""
    inputs = (t_span, _array(y0), _array(t_eval), args)
    named = dict(method=method, dense_output=dense_output, events=events,
                 vectorized=vectorized, **options)
    _refuse_closure("solve_ivp", fun)
    if not _tracked_leaves(inputs):  # (the variables it seeds)
        span, y0, t_eval, args = _values(inputs)
        return si.solve_ivp(fun, span, y0, t_eval=t_eval, args=args, **named)
    refuse_options("solve_ivp", events, dense_output)
    if t_eval is not None and np.size(_values(t_eval)) == 0:  # no output to record
        span, y0, t_eval, args = _values(inputs)
        return si.solve_ivp(fun, span, y0, t_eval=t_eval, args=args, **named)

    def forward(span, y0, t_eval, args):
        out = get_frule(si.solve_ivp)(const(fun), span, y0, t_eval=t_eval, args=args,
                                      **{k: const(v) for k, v in named.items()})
        return out.primal, (out.tangent["y"], out.tangent["t"])
    duals, count = _seeded(inputs)
    with batch(count):
        res, tangents = forward(*duals)
    res["y"], res["t"] = record(tangents, inputs, (res.y, res.t))
    return res


@raw_rrule(si.odeint)
def _odeint(func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, **options):
    """y(t) as variables whose pullback is J^T ct (and the info dict, as SciPy gives it)."""
    inputs = (_array(y0), _array(t), args)
    named = dict(Dfun=Dfun, col_deriv=col_deriv, full_output=full_output, **options)
    _refuse_closure("odeint", func)
    if not _tracked_leaves(inputs):  # (the variables it seeds)
        return si.odeint(func, *_values(inputs), **named)
    duals, count = _seeded(inputs)
    with batch(count):
        out = get_frule(si.odeint)(const(func), *duals,
                                   **{k: const(v) for k, v in named.items()})
    ys, dys = (out.primal[0], out.tangent[0]) if full_output else (out.primal, out.tangent)
    (ys,) = record((dys,), inputs, (ys,))
    return (ys,) + tuple(out.primal[1:]) if full_output else ys


# ---- the Jacobian, transposed --------------------------------------------------------------
def _seeded(inputs: tuple) -> Tuple[List[Dual], int]:
    """(the inputs as Duals, P): each variable's tangent holds its unit vectors among
    the P scalars that the variables hold (a batch of P, for a batch context of P);
    plain values have no tangent."""
    leaves = _tracked_leaves(inputs)
    count = sum(int(np.size(value_of(v))) for v in leaves)
    seeds = iter(np.split(np.eye(count), np.cumsum(
        [int(np.size(value_of(v))) for v in leaves])[:-1], axis=1))

    def seed(v: Any) -> Any:
        if type(v) in (list, tuple):
            return type(v)(seed(item) for item in v)
        if not is_tracked(v):
            return NoTangent
        return next(seeds).reshape((count,) + np.shape(value_of(v)))
    return [Dual(_values(v), seed(v)) for v in inputs], count


def record(tangents: tuple, inputs: tuple, outputs: tuple) -> tuple:
    """`outputs` as variables on the tape, with the pullback J^T ct: `tangents` hold, for
    each output, its tangent along each variable scalar of the inputs (a leading axis)."""
    leaves = _tracked_leaves(inputs)
    result = tuple(wrap(np.asarray(o, float), current().layout) for o in outputs)

    def pullback(cts: tuple) -> List[Any]:
        flat = sum(np.reshape(t, (np.shape(t)[0], -1)) @ np.ravel(_dense(c, o))
                   for t, c, o in zip(tangents, cts, outputs))
        return _split(flat, leaves)
    current().push(Chain(pullback, list(enumerate(leaves)), result), result)
    return result


def _dense(ct: Any, like: Any) -> np.ndarray:
    return np.zeros(np.shape(like)) if ct is None else np.asarray(ct, float)


def _split(flat: np.ndarray, leaves: list) -> List[Any]:
    """The pieces of a flat cotangent, shaped like each leaf's value."""
    pieces, start = [], 0
    for leaf in leaves:
        shape = np.shape(value_of(leaf))
        size = int(np.prod(shape))
        piece = flat[start:start + size].reshape(shape)
        pieces.append(float(piece) if shape == () else piece)
        start += size
    return pieces


# ---- walking the inputs ------------------------------------------------------------------------
def _array(x: Any) -> Any:
    """A list or tuple holding variables as one matvar (as NumPy reads a list)."""
    if type(x) in (list, tuple) and _tracked_leaves(x):
        return get_rrule(np.array)(x)
    return x


def _tracked_leaves(x: Any) -> list:
    if type(x) in (list, tuple):
        return [leaf for v in x for leaf in _tracked_leaves(v)]
    return [x] if is_tracked(x) else []


def _values(x: Any) -> Any:
    if type(x) in (list, tuple):
        return type(x)(_values(v) for v in x)
    return value_of(x)


def _refuse_closure(name: str, fun: Any) -> None:
    if isinstance(fun, ReverseClosure):
        raise NonDifferentiableError(
            f"scipy.integrate.{name} in reverse mode: its right-hand side "
            f"{describe(fun)} is defined inside the differentiated function, and may "
            f"capture variables that fwdad's reverse rule cannot see. Define it outside "
            f"and pass its parameters with args=, or use forward mode (fwdad.jvp, "
            f"fwdad.jacfwd), which differentiates captured values too.")
