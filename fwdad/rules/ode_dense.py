"""`res.sol` of a differentiated `solve_ivp(..., dense_output=True)`: the values of the
dense solution with their tangents, from the augmented system's own dense output.

    res.sol(t)   ->   y(t) from SciPy's OdeSolution of the plain solve,
                      dy(t) + f(t, y(t)) dt from the OdeSolution of [y, dy]

`res.sol` is a `DenseSolution`: a closure of the differentiated code (dispatch calls its
rule on Duals), which elsewhere behaves as SciPy's OdeSolution (its call and its
attributes, `.ts`, `.t_min`, ...). Its tangents are in the closure, as a def inside
differentiated code holds the Duals it captures.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.core.closures import DerivedClosure
from fwdad.dual import Dual
from fwdad.rules.batching import dense
from fwdad.rules.ode_sensitivity import SensitivitySystem


class DenseSolution(DerivedClosure):
    """SciPy's OdeSolution with the tangents of its values (see the module docstring):
    its fields (`ts`, `t_min`, `t_max`, `interpolants`, ...) are the OdeSolution's."""

    def __init__(self, solution: Any, augmented: Any, system: SensitivitySystem) -> None:
        def sol(t: Dual) -> Dual:
            return dense_values(solution, augmented, system, t)
        super().__init__(sol)
        self.__dict__.update(vars(solution))  # (fields, not a __getattr__: reading one
        # in differentiated code then needs no rule of ours)


def dense_values(solution: Any, augmented: Any, system: SensitivitySystem, t: Dual) -> Dual:
    """sol(t), one time or an array of them, with tangents dy(t) + f(t, y(t)) dt."""
    times = np.atleast_1d(np.asarray(t.primal, float))
    ys = solution(times).reshape(system.n, -1)
    _, dys = system.split_outputs(augmented(times).reshape(-1, len(times)))
    dts = dense(t.primal, t.tangent, system.size)  # ((B,) +) t's shape: one per time
    dys = system.at_moved_times(times, ys, dys,
                                np.reshape(dts, system.shape[:-1] + (len(times),)))
    if np.ndim(t.primal) == 0:
        return Dual(ys[:, 0], dys[..., 0])
    return Dual(ys, dys)
