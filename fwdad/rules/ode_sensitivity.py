"""The forward sensitivity system of an ODE, shared by the solve_ivp and odeint rules.

    y' = f(t, y, p)         ->    z = [y, dy_1, ..., dy_B]
                                  z' = [f, J_y f dy_1 + J_p f dp_1, ...]

The tangent part of z' is what fwdad's own rule of the user's `f` gives when it is called
on Duals: y with the tangents dy, the `args` with theirs, and whatever `f` captures
(a function defined inside the differentiated one holds Duals). No Jacobian is formed.
The tangents of y may carry a batch axis of B (jacfwd): z holds every direction.
Every step calls the rule chosen on the first (`rhs`): the arguments' kinds do not
change within a solve (t is always a float, y and dy arrays of one shape), so the
variant of f's rule for a constant t runs without a guard (core/entry_points.fixed_rule).

Moving the start time t0 by dt0 starts the sensitivity at dy0 - f(t0, y0) dt0, and the
value at an output time moved by dt gains f(t, y(t)) dt (`at_moved_times`).
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable, Optional, Sequence

import numpy as np

from fwdad.core import entry_points
from fwdad.core.lazy_rule import LazyRule
from fwdad.core.read_only import is_zero
from fwdad.dual import Dual
from fwdad.errors import FwdadError, describe
from fwdad.rules.batching import dense
from fwdad.rules.registry import get_frule
from fwdad.tangents import NoTangent


class SensitivitySystem:
    """The augmented right-hand side of `fun` and the packing of [y, dy] into one
    vector. `order(t, y, args)` gives fun's positional arguments (solve_ivp: t, y, *args;
    odeint: y, t, *args)."""

    def __init__(self, fun: Dual, args: Sequence[Dual], n: int, size: Optional[int],
                 order: Callable, name: str) -> None:
        self.fun, self.args, self.n, self.size = fun, tuple(args), n, size
        self.order, self.name = order, name
        self.shape = (n,) if size is None else (size, n)  # of a tangent of y
        self.rule = _rule_of(fun)  # (resolved once: rhs runs at every step)
        self.step_rule: Optional[Callable] = None  # what rhs calls (`_fix_step_rule`),
        self.step_state: Optional[tuple] = None  # for states of this shape
        self.time_at = order(_TIME, _STATE, ()).index(_TIME)  # t's position among f's

    # ---- packing -------------------------------------------------------------------
    def split(self, z: np.ndarray):
        """(y, dy) from the augmented state; dy is (n,) or (B, n)."""
        return z[:self.n].copy(), z[self.n:].reshape(self.shape)

    def join(self, y: np.ndarray, dy: np.ndarray) -> np.ndarray:
        return np.concatenate((np.asarray(y).ravel(), np.asarray(dy).ravel()))

    def split_outputs(self, zs: np.ndarray):
        """(y, dy) at every output time from the augmented solution's (N, m) array:
        (n, m) and (n, m) or (B, n, m)."""
        m = np.shape(zs)[-1]  # (not -1: ambiguous for an empty y)
        shape = (self.n, m) if self.size is None else (self.size, self.n, m)
        return zs[:self.n], zs[self.n:].reshape(shape)

    # ---- the right-hand sides ---------------------------------------------------------
    def rhs(self, t: float, z: np.ndarray) -> np.ndarray:
        """z' = [f, the tangent of f along dy and the tangents of what f reads]."""
        z = z.copy()  # (one copy, of the solver's state, for f's rule to read or write)
        n = self.n
        dy = z[n:] if self.size is None else z[n:].reshape(self.shape)
        time = Dual(float(t), 0.0)  # (a float at every step: its kind never changes)
        args = self.order(time, Dual(z[:n], dy), self.args)
        if z.shape != self.step_state or z.dtype is not _FLOAT64:
            out = self._fix_step_rule(args, z)(*args)
        else:  # (the common case: every step after the first)
            out = self.step_rule(*args)  # type: ignore[misc]  # (set with step_state)
        joined = _joined_numbers(out, n, self.shape) if type(out.primal) is not np.ndarray \
            else _joined_array(out, n, self.shape)  # (the common results, at once)
        if joined is not None:
            return joined
        out = self.checked(out)
        tangent = dense(out.primal, out.tangent, self.size)
        return self.join(out.primal, np.reshape(tangent, self.shape))

    def _fix_step_rule(self, args: tuple, z: np.ndarray) -> Callable:
        """The rule of every step of the solve (core/entry_points.fixed_rule: the
        variant of fun's rule for t with no tangent, for arguments of the kinds of the
        first step's), fixed on the first step for states of its shape and dtype; a
        state of another kind (never, from SciPy's solvers) takes the general rule."""
        if self.step_state is not None:
            return self.rule
        self.step_rule = entry_points.fixed_rule(self.rule, args, frozenset((self.time_at,))) \
            if isinstance(self.rule, LazyRule) else self.rule
        if z.dtype is _FLOAT64:
            self.step_state = z.shape
        return self.step_rule

    def value(self, t: float, y: np.ndarray) -> np.ndarray:
        """f(t, y) on plain values (the tangents that fun's rule makes are dropped)."""
        plain = [Dual(a.primal, NoTangent) for a in self.args]
        return np.ravel(self.call(Dual(t, NoTangent), Dual(np.asarray(y, float), NoTangent),
                                  Dual(self.fun.primal, NoTangent), plain).primal)

    def call(self, t: Dual, y: Dual, fun: Optional[Dual] = None,
             args: Optional[list] = None) -> Dual:
        """fun's rule at (t, y) with the args, its output as one float array."""
        rule = self.rule if fun is None else _rule_of(fun)
        return self.checked(rule(*self.order(t, y, self.args if args is None else args)))

    def checked(self, out: Dual) -> Dual:
        """What fun returned, as one float array of n values."""
        if type(out.primal) is not np.ndarray or out.primal.dtype != np.float64 or \
                type(out.tangent) is not np.ndarray:  # (a float array is one already)
            out = _numbers_as_array(out, self.size) or as_float_array(out)
        if np.size(out.primal) != self.n:
            raise FwdadError(
                f"{self.name}: the right-hand side {describe(self.fun.primal)} returned "
                f"{np.size(out.primal)} values for a state of {self.n}: it must return "
                f"one derivative per state variable.")
        return out

    # ---- moved times --------------------------------------------------------------------
    def start(self, t0: float, y0: np.ndarray, dy0: np.ndarray, dt0: Any) -> np.ndarray:
        """The sensitivity's initial value: dy0 - f(t0, y0) dt0 (dt0: () or (B,))."""
        if is_zero(dt0):
            return dy0
        return dy0 - np.multiply.outer(dt0, self.value(t0, y0))

    def at_moved_times(self, ts: np.ndarray, ys: np.ndarray, dys: np.ndarray,
                       dts: Any) -> np.ndarray:
        """The tangents of y (n, m) at output times ts moved by dts ((m,) or (B, m)):
        dy(t) + f(t, y(t)) dt."""
        if is_zero(dts):
            return dys
        slopes = np.stack([self.value(t, ys[:, i]) for i, t in enumerate(ts)], axis=-1)
        return dys + np.asarray(dts)[..., None, :] * slopes


def _rule_of(fun: Dual) -> Callable:
    """What a call of `fun` on Duals runs: for a Python function, its static rule (what
    a dynamic call finds for it, found once); for anything else, a dynamic call."""
    if type(fun.primal) is types.FunctionType:
        return entry_points.static_rule(fun.primal, "")
    return functools.partial(entry_points.call, fun)


def as_float_array(x: Dual) -> Dual:
    """np.asarray(x, float) by its rule: a list of Duals becomes one array and tangent."""
    return get_frule(np.asarray)(x, Dual(float, NoTangent))


def _numbers_as_array(x: Dual, size: Optional[int]) -> Optional[Dual]:
    """A list of numbers with their tangents as one array (the common `return [a, b]`:
    quicker than np.asarray's rule, which takes any nesting); None for anything else."""
    if type(x.primal) not in (list, tuple) or type(x.tangent) not in (list, tuple) or \
            not x.primal or \
            not all(type(p) in _NUMBER_TYPES for p in x.primal):
        return None
    tangents = np.array([dense(p, t, size) for p, t in zip(x.primal, x.tangent)], float)
    return Dual(np.array(x.primal, float), tangents.T)  # ((B,) + (n,): np.stack is slower)


def _joined_numbers(x: Dual, n: int, shape: tuple) -> Optional[np.ndarray]:
    """z' = [f, df] at once when fun returned n numbers (`return [a, b]`) with number
    tangents, or with float arrays of shape (B,) for a batch (`shape`: (n,) or (B, n)):
    what `checked` and `join` make of them, without their steps; None for anything
    else (which takes those steps, and their checks)."""
    primal, tangent = x.primal, x.tangent
    if type(primal) not in (list, tuple) or type(tangent) is not type(primal) or \
            len(primal) != n or len(tangent) != n:
        return None
    for value in primal:
        if type(value) not in _NUMBER_TYPES:
            return None
    if len(shape) == 1:
        for value in tangent:
            if type(value) not in _NUMBER_TYPES:
                return None
        return np.array(primal + tangent, float)
    for value in tangent:  # (each number's tangents in the batch: the columns of dy)
        if type(value) is not np.ndarray or value.dtype is not _FLOAT64 or \
                value.shape != shape[:1]:
            return None
    return np.concatenate((np.array(primal, float), np.array(tangent).T.ravel()))


def _joined_array(x: Dual, n: int, shape: tuple) -> Optional[np.ndarray]:
    """z' = [f, df] at once when fun returned a float array of n values with a tangent
    of `shape` ((n,), or (B, n) for a batch); None for anything else."""
    primal, tangent = x.primal, x.tangent
    if type(tangent) is not np.ndarray or primal.dtype is not _FLOAT64 or \
            tangent.dtype is not _FLOAT64 or primal.shape != (n,) or tangent.shape != shape:
        return None
    return np.concatenate((primal, tangent.ravel()))


_NUMBER_TYPES = frozenset((float, int, np.float64))
_FLOAT64 = np.dtype(np.float64)
_TIME, _STATE = object(), object()  # (stand-ins, to find t's position among f's arguments)
