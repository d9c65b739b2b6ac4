"""Rules for SciPy's ODE solvers (`scipy.integrate.solve_ivp`, `odeint`), by forward
sensitivities:

    res = solve_ivp(f, (t0, t1), y0, args=p, t_eval=ts)
    ->  the same solver, tolerances and options on z = [y, dy]  (fwdad/rules/ode_sensitivity.py)

The primal is SciPy's own call on the plain values, so `.t`, `.y`, `.nfev`, `.status`
and `.message` are what a plain call gives; the tangents of `.y` come from a second solve
of the augmented system, evaluated at the same output times. Tangents flow from y0, the
args, what f captures, t_span (a moved t0 starts the sensitivity at dy0 - f dt0; a moved
t1 moves the last output time) and t_eval (a moved output time adds f(t, y(t)) dt).
Without t_eval the solver's own step times are constants, except the first and last
(t0 and t1).

With dense_output=True, `res.sol(t)` gives tangents too (fwdad/rules/ode_dense.py); the
event times and states, by the implicit function theorem (fwdad/rules/ode_events.py).
Refused (an fwdad error that says what to do): complex y0, second order, and a solve
that fails. This module imports SciPy: fwdad/rules/scipy_support.py loads it when first
needed.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import scipy.integrate as si

from fwdad.core.duals import iterate
from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, SolverError, in_user_code
from fwdad.rules.batching import dense, running_batch_size
from fwdad.rules.complex_input import real_only
from fwdad.rules.implicit import first_order_only
from fwdad.rules.ode_sensitivity import SensitivitySystem, as_float_array
from fwdad.rules.recorded_solves import recorded, recording, refusal
from fwdad.rules.registry import frule, get_frule
from fwdad.tangents import NoTangent, zero_tangent

IMPLICIT = ("BDF", "Radau", si.BDF, si.Radau)  # the methods that take jac_sparsity
JACOBIAN_OPTIONS = ("jac", "jac_sparsity", "lband", "uband")  # of the plain system only


# ---- solve_ivp ------------------------------------------------------------------------------
@frule(si.solve_ivp)
def _solve_ivp(fun: Dual, t_span: Dual, y0: Dual, method="RK45", t_eval: Dual = None,
               dense_output=False, events=None, vectorized=False, args: Dual = None,
               **options) -> Dual:
    """res.y at output times t_i, with tangents dy(t_i) + f(t_i, y(t_i)) dt_i, dy from
    the sensitivity system solved alongside y; the events' by fwdad/rules/ode_events.py."""
    real_only("scipy.integrate.solve_ivp", y0.primal)
    y0 = as_float_array(y0)
    plain_args = None if args is None else args.primal
    t_out = None if t_eval is None else t_eval.primal
    res = si.solve_ivp(fun.primal, t_span.primal, y0.primal, method=method, t_eval=t_out,
                       dense_output=dense_output, events=events, vectorized=vectorized,
                       args=plain_args, **options)
    check_status("solve_ivp", res.status, res.message)
    if len(res.t) == 0 and events is None and not dense_output:
        return Dual(res, zero_tangent(res))  # (an empty t_eval: no output to move)
    if recording([fun, t_span, y0, t_eval, args]):  # (linearize: one op of its tape)
        refuse_recorded(events, dense_output)
        outputs = SimpleNamespace(t=res.t, y=res.y)

        def joined() -> np.ndarray:  # (res.t's tangent above res.y's: one array)
            times = IvpTimes(t_span, t_eval, running_batch_size(), len(outputs.t), None)
            system = SensitivitySystem(fun, () if args is None else list(iterate(args)),
                                       np.size(y0.primal), times.size, _t_then_y,
                                       "solve_ivp")
            aug = augmented_solve(system, outputs, y0, times, method, options)
            return np.concatenate((times.of_outputs()[..., None, :], output_tangents(
                system, outputs, aug, times)), axis=-2)
        both = recorded(joined, [fun, t_span, y0, t_eval, args], "integrate.solve_ivp")
        tangent = zero_tangent(res)
        tangent["t"], tangent["y"] = both[0], both[1:]
        return Dual(res, tangent)
    times = IvpTimes(t_span, t_eval, running_batch_size(), len(res.t), stop_time(res))
    system = SensitivitySystem(fun, () if args is None else list(iterate(args)),
                               np.size(y0.primal), times.size, _t_then_y, "solve_ivp")
    aug = augmented_solve(system, res, y0, times, method, dict(
        options, dense_output=dense_output or events is not None))
    tangent = zero_tangent(res)
    if events is not None:
        from fwdad.rules.ode_events import event_tangents  # (it imports dispatch)
        tangent["t_events"], tangent["y_events"], dt_stop = event_tangents(
            events, system, res, aug.sol, times.stop)
        times.dt1 = times.dt1 if dt_stop is None else dt_stop  # (the end moved with it)
    if len(res.t):  # (an empty t_eval gives empty lists, their tangents empty too)
        tangent["t"], tangent["y"] = times.of_outputs(), output_tangents(system, res, aug,
                                                                         times)
    if dense_output:
        from fwdad.rules.ode_dense import DenseSolution  # (it imports dispatch)
        res["sol"], tangent["sol"] = DenseSolution(res.sol, aug.sol, system), NoTangent
    return Dual(res, tangent)


def _t_then_y(t: Dual, y: Dual, args: tuple) -> tuple:
    return (t, y) + tuple(args)


def augmented_solve(system: SensitivitySystem, res: Any, y0: Dual, times: "IvpTimes",
                    method: Any, options: dict) -> Any:
    """The augmented system solved to res.t (to where a terminal event stopped the
    plain solve) with the same method and tolerances."""
    y_start = np.ravel(np.asarray(y0.primal, float))
    dy0 = dense(y0.primal, y0.tangent, times.size).reshape(system.shape)
    start = system.start(times.t0, y_start, dy0, times.dt0)
    span = times.span if times.stop is None else (times.span[0], times.stop)
    aug = si.solve_ivp(system.rhs, span, system.join(y_start, start), method=method,
                       t_eval=res.t, **augmented_options(options, system, method))
    check_status("solve_ivp", aug.status, aug.message, " (of the sensitivity system)")
    return aug


def output_tangents(system: SensitivitySystem, res: Any, aug: Any, times: "IvpTimes"
                    ) -> np.ndarray:
    """The tangents of res.y: dy(t_i) + f(t_i, y(t_i)) dt_i."""
    _, dys = system.split_outputs(aug.y)
    dys = system.at_moved_times(res.t, res.y, dys, times.of_outputs())
    return dys.reshape(times.shape_of(np.shape(res.y)))


def stop_time(res: Any) -> Any:
    """Where a terminal event stopped the solve (status 1): the last event time along
    the direction of integration; None when it ran to t1."""
    if res.status != 1:
        return None
    found = np.concatenate([np.ravel(t) for t in res.t_events])
    return found.max() if res.t[-1] >= res.t[0] else found.min()


class IvpTimes:
    """t_span's and t_eval's values and tangents (dense: () or (B,) for t0 and t1), and
    the time a terminal event stopped the solve at (or None)."""

    def __init__(self, t_span: Dual, t_eval: Any, size: Any, count: int, stop: Any) -> None:
        (t0, t1) = iterate(t_span)
        self.size, self.count = size, count
        self.t0, self.span = float(t0.primal), (t0.primal, t1.primal)
        self.dt0, self.dt1 = (dense(t.primal, t.tangent, size) for t in (t0, t1))
        self.t_eval, self.stop = t_eval, stop

    def of_outputs(self) -> np.ndarray:
        """The tangents of res.t: t_eval's, or dt0 and dt1 at the ends of the solver's
        own times (the steps between are constants; dt1: the terminal event's dt_e)."""
        if self.t_eval is not None:
            return np.stack([np.asarray(dense(t.primal, t.tangent, self.size), float)
                             for t in iterate(self.t_eval)], axis=-1)
        dts = np.zeros(self.shape_of((self.count,)))
        dts[..., 0], dts[..., -1] = self.dt0, self.dt1
        return dts

    def shape_of(self, shape: tuple) -> tuple:
        return shape if self.size is None else (self.size,) + shape


def augmented_options(options: dict, system: SensitivitySystem, method: Any) -> dict:
    """The caller's options for the augmented state: an array atol repeated for each
    tangent; the plain system's Jacobian options replaced by the augmented system's
    sparsity (so that an implicit method's finite-difference Jacobian costs 2n calls)."""
    kept = {k: v for k, v in options.items() if k not in JACOBIAN_OPTIONS}
    if np.ndim(options.get("atol", 0.0)) > 0:
        kept["atol"] = np.tile(np.ravel(options["atol"]), 1 + (system.size or 1))
    if method in IMPLICIT:
        kept["jac_sparsity"] = augmented_sparsity(system.n, system.size or 1)
    return kept


def augmented_sparsity(n: int, directions: int) -> np.ndarray:
    """Which entries of z' depend on which of z: y' on y; dy_k' on y and dy_k."""
    blocks = np.eye(1 + directions)
    blocks[1:, 0] = 1.0
    return np.kron(blocks, np.ones((n, n)))


# ---- odeint ---------------------------------------------------------------------------------
@frule(si.odeint)
def _odeint(func: Dual, y0: Dual, t: Dual, args: Dual = None, Dfun=None, col_deriv=0,
            full_output=0, tfirst=False, **options) -> Dual:
    """y(t_i) with tangents dy(t_i) + f(y, t_i) dt_i; t[0] is the start time."""
    real_only("scipy.integrate.odeint", y0.primal)
    y0 = as_float_array(y0)
    plain_args = () if args is None else args.primal
    if np.size(t.primal) == 0:  # no output time (SciPy refuses it with full_output)
        ys = si.odeint(func.primal, y0.primal, t.primal, plain_args, Dfun, col_deriv,
                       full_output, tfirst=tfirst, **options)
        size = running_batch_size()
        return Dual(ys, np.zeros(((size,) if size else ()) + np.shape(ys)))
    ys, info = si.odeint(func.primal, y0.primal, t.primal, plain_args, Dfun, col_deriv, 1,
                         tfirst=tfirst, **options)
    check_odeint(info)
    size, times = running_batch_size(), np.asarray(t.primal, float)
    dts = np.stack([np.asarray(dense(d.primal, d.tangent, size), float) for d in iterate(t)],
                   axis=-1)
    system = SensitivitySystem(func, () if args is None else list(iterate(args)),
                               np.size(y0.primal), size, _t_then_y if tfirst else _y_then_t,
                               "odeint")
    dys = odeint_sensitivities(system, ys, times, y0, dts, options)
    return Dual((ys, info) if full_output else ys, (dys, NoTangent) if full_output else dys)


def _y_then_t(t: Dual, y: Dual, args: tuple) -> tuple:
    return (y, t) + tuple(args)


def odeint_sensitivities(system: SensitivitySystem, ys: np.ndarray, times: np.ndarray,
                         y0: Dual, dts: np.ndarray, options: dict) -> np.ndarray:
    """The tangents of odeint's (m, n) output, from LSODA on the augmented system."""
    dy0 = dense(y0.primal, y0.tangent, system.size).reshape(system.shape)
    start = system.start(times[0], np.ravel(ys[0]), dy0, dts[..., 0])
    kept = {k: v for k, v in options.items() if k not in ("ml", "mu")}
    for name in ("rtol", "atol"):  # (odeint takes an array of either)
        if np.ndim(options.get(name)) > 0:
            kept[name] = np.tile(np.ravel(options[name]), 1 + (system.size or 1))
    zs, info = si.odeint(system.rhs, system.join(ys[0], start), times, full_output=1,
                         tfirst=True, **kept)
    check_odeint(info, " (of the sensitivity system)")
    _, dys = system.split_outputs(zs.T)
    dys = system.at_moved_times(times, ys.T, dys, dts)
    return np.swapaxes(dys, -1, -2)  # (m, n), or (B, m, n)


def check_odeint(info: dict, what: str = "") -> None:
    """odeint warns and returns on failure: its info's message says which."""
    if info.get("message") != "Integration successful.":
        check_status("odeint", -1, info.get("message", ""), what)


# ---- refusals and failures --------------------------------------------------------------------
def refuse_recorded(events: Any, dense_output: Any) -> None:
    """linearize records the tangents of res.t and res.y only (one op of its tape)."""
    for option, given in (("events", events is not None), ("dense_output", dense_output)):
        if given:
            raise refusal(
                f"scipy.integrate.solve_ivp{in_user_code()} with {option}=: linearize "
                f"records the tangents of res.t and res.y, not of the events or of the "
                f"dense solution. Ask for the output times you need with t_eval= "
                f"instead, or use fwdad.jvp or fwdad.jacfwd, which differentiate them.")


def refuse_options(name: str, events: Any, dense_output: Any) -> None:
    """Reverse mode's refusals: the cotangents of event times and of the dense solution
    are not passed back (say so, not zero)."""
    for option, given in (("events", events is not None), ("dense_output", dense_output)):
        if given:
            at = in_user_code()
            raise NonDifferentiableError(
                f"scipy.integrate.{name}{at}: reverse mode does not "
                f"differentiate through {option}= (forward mode does: fwdad.jvp, "
                f"fwdad.jacfwd). Ask for the output times you need with t_eval= instead, "
                f"or use forward mode.")


def check_status(name: str, status: int, message: str, what: str = "") -> None:
    if status < 0:
        at = in_user_code()
        raise SolverError(
            f"scipy.integrate.{name}{at} failed{what}: {message} "
            f"There is no solution to differentiate: adjust the tolerances, the method "
            f"(a stiff problem needs 'BDF', 'Radau' or 'LSODA') or the time span.")


# ---- differentiated again: refused (the SciPy call inside a rule cannot be) -----------------
for _name, _solver, _rule in (("solve_ivp", si.solve_ivp, _solve_ivp),
                              ("odeint", si.odeint, _odeint)):
    for _target in (_rule, get_frule(_solver)):  # (the rule as written, and as generated
        first_order_only(f"integrate.{_name}")(_target)  # code calls it)
