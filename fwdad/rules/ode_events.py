"""The tangents of solve_ivp's events, by the implicit function theorem.

An event is a zero of g(t, y(t), p) along the solution. Moving the inputs moves it:

    dt_e = -(g_y dy(t_e) + g_p dp) / (g_t + g_y f(t_e, y_e))
    dy_e = dy(t_e) + f(t_e, y_e) dt_e

with dy(t_e) from the augmented solve's dense output. Both g-terms come from fwdad's rule
of the user's event function on Duals (so the p that g reads, in args or captured, are
differentiated too): g's tangent along (0, dy) gives the numerator, along (1, f + dy)
the numerator plus the rate at which g crosses zero. A terminal event also moves the
end of the solution, so its dt_e is the tangent of the last output time.
"""
from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from fwdad.core import entry_points
from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, describe, in_user_code
from fwdad.rules.batching import dense
from fwdad.rules.ode_sensitivity import SensitivitySystem
from fwdad.tangents import NoTangent


def event_tangents(events: Any, system: SensitivitySystem, res: Any, augmented: Any,
                   stop: Any) -> Tuple[List[np.ndarray], List[np.ndarray], Any]:
    """(tangents of res.t_events, of res.y_events, dt_e of the event at `stop`, the time
    a terminal event ended the solve at, or None)."""
    events = list(events) if isinstance(events, (list, tuple)) else [events]
    dts, dys, last = [], [], None
    for event, t_es, y_es in zip(events, res.t_events, res.y_events):
        found = [crossing(event, system, t, y, augmented) for t, y in zip(t_es, y_es)]
        lead = system.shape[:-1]  # () or (B,)
        dts.append(np.stack([dt for dt, _ in found], axis=-1) if found else
                   np.zeros(lead + (0,)))
        dys.append(np.stack([dy for _, dy in found], axis=-2) if found else
                   np.zeros(lead + (0, system.n)))
        if found and stop is not None and t_es[-1] == stop:
            last = found[-1][0]
    return dts, dys, last


def crossing(event: Any, system: SensitivitySystem, t: float, y: np.ndarray,
             augmented: Any) -> tuple:
    """(dt_e, dy_e) of one event at (t, y)."""
    _, dy = system.split(augmented(t))
    slope = system.value(t, y)
    numerator = _g_tangent(event, system, Dual(t, NoTangent), Dual(y, dy))
    rate = _g_tangent(event, system, Dual(t, 1.0), Dual(y, slope + dy)) - numerator
    if not np.all(np.abs(rate) > 0.0):
        at = in_user_code()
        raise NonDifferentiableError(
            f"scipy.integrate.solve_ivp{at}: the event "
            f"{describe(event)} at t = {t!r} touches zero without crossing it (its rate "
            f"of change along the solution is 0), so its time has no derivative. Refine "
            f"the event function so that it crosses zero.")
    dt = -numerator / rate
    return dt, dy + np.multiply.outer(dt, slope)


def _g_tangent(event: Any, system: SensitivitySystem, t: Dual, y: Dual) -> np.ndarray:
    """The tangent of g(t, y, *args) by fwdad's rule of g: () or (B,)."""
    out = entry_points.call(Dual(event, NoTangent), t, y, *system.args)
    return np.asarray(dense(out.primal, out.tangent, system.size), float).reshape(
        system.shape[:-1])
