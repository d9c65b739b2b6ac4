"""The implicit function theorem, for the rules of SciPy's solvers: the tangent of a
solution x* of F(x*, p) = 0, from fwdad's rule of the user's F, not from the solver's
iterations.

    F(x*, p) = 0   ->   dx = -(dF/dx)^-1 (dF/dp dp)

`Residual` is F as a rule: the user's function (or one made from it: a gradient, for
minimize) called on Duals, with the solver's `args=` and the Duals its closure captured
carrying the parameters' tangents. `solution_tangent` evaluates it twice at x*: with a
zero tangent for x (dF/dp dp, batched when the call is) and with the unit tangents of x
(dF/dx). The Jacobian must be square and nonsingular there, and the solve must have
converged; otherwise `ImplicitFunctionError` says which and what to do.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from fwdad.core import entry_points
from fwdad.core.closures import DerivedClosure
from fwdad.core.duals import fresh
from fwdad.dual import Dual
from fwdad.errors import FwdadError, ImplicitFunctionError, NonDifferentiableError, in_user_code
from fwdad.rules.batching import batch, dense, is_batched
from fwdad.rules.recorded_solves import CapturedWrites, recorded
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent, Tangent

# dF/dx counts as singular past this condition number: a solve with it would amplify
# rounding by more than 1e12, and the tangent would be noise.
SINGULAR_CONDITION = 1e12


def refuse(call: str, why: str, todo: str) -> ImplicitFunctionError:
    """The error for `scipy.<call>`, at the user's line."""
    at = in_user_code()
    return ImplicitFunctionError(
        f"scipy.{call}{at}: fwdad differentiates the solution by "
        f"the implicit function theorem, which needs {why}. {todo}")


def first_order_only(call: str) -> Callable[[Callable], Callable]:
    """Mark a rule of `scipy.<call>` (forward or reverse) as not differentiable again:
    it solves on primal values, so a second derivative (hessian, jvp of jvp, forward
    over reverse) would differentiate the solver's iterations. Differentiating the rule
    raises instead, naming the call."""
    def mark(rule: Callable) -> Callable:
        def refuse_second_order(*args: Any, **kwargs: Any) -> Dual:
            at = in_user_code()
            raise NonDifferentiableError(
                f"scipy.{call}{at}: fwdad differentiates its result "
                f"once (jvp, jacfwd, vjp, grad), not twice (hessian, hvp, nested jvp): "
                f"second derivatives of solutions are not implemented. Take the second "
                f"derivative by finite differences of fwdad's first.")
        frule(rule)(refuse_second_order)
        return rule
    return mark


def as_arguments(args: Any) -> tuple:
    """The solver's `args=` as a tuple of Duals (SciPy takes a lone value as a 1-tuple)."""
    if not isinstance(args, Dual):
        args = Dual(args, NoTangent)
    if isinstance(args.primal, tuple):
        tangents = args.tangent if args.tangent is not NoTangent else \
            (NoTangent,) * len(args.primal)
        return tuple(Dual(p, t) for p, t in zip(args.primal, tangents))
    return (args,)


def primals(duals: Sequence[Dual]) -> tuple:
    return tuple(d.primal for d in duals)


class Residual:
    """F(x, *args) as a rule on Duals: `fn` (a Dual callable: the user's function, or a
    gradient made from it) called with `args` (Duals) after x, and `before` (Duals)
    before x, as fwdad's helpers take the user's function first."""

    def __init__(self, fn: Dual, args: tuple = (), before: tuple = (),
                 pick: Callable[[Dual], Dual] = lambda out: out) -> None:
        self.fn, self.args, self.before, self.pick = fn, args, before, pick

    def __call__(self, x: Dual) -> Dual:
        return self.pick(entry_points.call(self.fn, *self.before, x, *self.args))

    def captures_tangents(self) -> bool:
        """Whether F may hold tangents other than its arguments': a function defined
        inside differentiated code reads the Duals it captured, a partial its own."""
        return any(_holds_tangents(f.tangent) or isinstance(f.primal, DerivedClosure)
                   for f in (self.fn,) + self.before)

    def constant(self) -> "Residual":
        """F with the arguments' tangents zero (for dF/dx, when nothing else holds any)."""
        return Residual(self.fn, tuple(fresh(a.primal) for a in self.args),
                        self.before, self.pick)


def _holds_tangents(tangent: Any) -> bool:
    """False for no tangent, or a function's (a Transformed's) fields without any; True
    for anything else (a partial's arguments' tangents, say), to be safe."""
    if tangent is NoTangent:
        return False
    if isinstance(tangent, Tangent):
        return any(_holds_tangents(v) for v in vars(tangent).values())
    return True


def solution_tangent(residual: Residual, x: Any, call: str,
                     check: Callable[[np.ndarray, str], None] = None) -> Any:
    """dx = -(dF/dx)^-1 (dF/dp dp) at the solution x (batched when dF/dp dp is);
    `check(dF/dx, call)` raises where the theorem does not apply (default: a singular
    dF/dx). Under linearize, F that captured recorded tangents (a closure) is one op
    of the tape (fwdad/rules/recorded_solves.py): dF/dx needs them zero, as numbers."""
    if np.iscomplexobj(x):
        raise refuse(call, "a real solution, and this one is complex (complex roots are "
                     "not differentiated yet)", "Solve for the real and imaginary parts "
                     "as real unknowns (a function of a real array of twice the size), "
                     "whose solution fwdad differentiates.")
    if not residual.captures_tangents():
        return _solution_tangent(residual, x, call, check)
    inputs = [residual.fn, *residual.before, *residual.args]
    captured = CapturedWrites(inputs)  # (one walk of what F captured, for both checks)
    if not captured.recording():  # (jvp, jacfwd)
        try:
            with captured.frozen():
                dx = _solution_tangent(residual, x, call, check)
        except (ValueError, FwdadError) as exc:  # (NumPy's refusal, or a rule's:
            if not ("read-only" in str(exc) or "reads as a constant" in str(exc)):
                raise  # lent_tangents.refused_write reads them alike)
            raise _captured_write(call) from exc
        if captured.written():
            raise _captured_write(call)
        return dx
    at = np.copy(x) if isinstance(x, np.ndarray) else x  # (x is the caller's result)
    return recorded(lambda: _solution_tangent(residual, at, call, check), inputs, call)


def _captured_write(call: str) -> ImplicitFunctionError:
    return refuse(call, "a function that writes into nothing it captured", "It wrote "
                  "into a differentiated value it captured (an array, a list, a field, or "
                  "a nonlocal name), which would keep the tangents of fwdad's passes at "
                  "the solution, not those of the solver's last call. Make the values the "
                  "function writes inside it.")


def _solution_tangent(residual: Residual, x: Any, call: str,
                      check: Callable[[np.ndarray, str], None] = None) -> Any:
    out = residual(Dual(x, zero_like(x)))
    if out.tangent is NoTangent:
        return NoTangent
    moved = dense(out.primal, out.tangent)
    jacobian = jacobian_in_x(residual, x, moved, out.primal)
    (check or check_nonsingular)(jacobian, call)
    batched = is_batched(out.primal, moved)
    rows = np.reshape(moved, (-1 if batched else 1, np.size(out.primal)))
    dx = -np.linalg.solve(jacobian, rows.T).T
    return dx.reshape(np.shape(moved)[:1] + np.shape(x)) if batched else \
        fit_scalar(dx.reshape(np.shape(x)), x)


def zero_like(x: Any) -> Any:
    return np.zeros(np.shape(x)) if isinstance(x, np.ndarray) or np.ndim(x) else 0.0


def fit_scalar(dx: np.ndarray, x: Any) -> Any:
    """A float solution's tangent is a float (a tangent recorded by linearize, which
    has no value to convert, stays a recorded 0-d array)."""
    if np.ndim(x) == 0 and not isinstance(x, np.ndarray) and type(dx) is np.ndarray:
        return float(dx)
    return dx


def jacobian_in_x(residual: Residual, x: Any, moved: np.ndarray, out: Any) -> np.ndarray:
    """dF/dx at x, an (outputs x unknowns) matrix, from one batched pass of the unit
    tangents of x.

    Note: F's arguments can be given zero tangents, but the Duals a closure captured
    keep theirs, and the pass returns dF/dx e_i + dF/dp dp: `moved` (dF/dp dp) is
    subtracted. When the call is itself batched, those tangents carry its batch axis,
    which the unit tangents cannot share: one pass per unknown then."""
    n, m = int(np.size(x)), int(np.size(out))
    seeds = np.eye(n).reshape((n,) + np.shape(x))
    if not residual.captures_tangents():
        return _columns(residual.constant(), x, seeds, out).reshape(n, m).T
    if not is_batched(out, moved):
        return (_columns(residual, x, seeds, out) - moved).reshape(n, m).T
    size = np.shape(moved)[0]
    columns = [dense(out, residual(Dual(x, np.broadcast_to(seed, (size,) + seed.shape)
                                        .copy())).tangent, size)[0] - moved[0]
               for seed in seeds]
    return np.reshape(columns, (n, m)).T


def jacobian_at(residual: Residual, x: Any) -> np.ndarray:
    """dF/dx at x of a residual whose arguments carry no tangents (reverse mode's)."""
    out = residual(Dual(x, zero_like(x))).primal
    seeds = np.eye(np.size(x)).reshape((np.size(x),) + np.shape(x))
    return _columns(residual, x, seeds, out).reshape(np.size(x), np.size(out)).T


def _columns(residual: Residual, x: Any, seeds: np.ndarray, out: Any) -> np.ndarray:
    with batch(len(seeds)):
        return dense(out, residual(Dual(np.asarray(x, dtype=float), seeds)).tangent,
                     len(seeds))


def check_nonsingular(jacobian: np.ndarray, call: str) -> None:
    rows, cols = np.shape(jacobian)
    if rows != cols:
        raise refuse(call, f"as many equations as unknowns (F has {rows} outputs for "
                     f"{cols} unknowns)", "Pass a function with one output per unknown.")
    condition = np.linalg.cond(jacobian) if jacobian.size else 1.0
    if not np.isfinite(condition) or condition > SINGULAR_CONDITION:
        raise refuse(call, f"a nonsingular Jacobian dF/dx at the solution (its condition "
                     f"number is {condition:.3g})", "The solution is not locally unique "
                     "in the parameters: fix the free directions (add an equation or a "
                     "regularizing term), or differentiate a quantity that does not "
                     "depend on them.")


def check_positive_definite(hessian: np.ndarray, call: str) -> None:
    """minimize: a strict local minimum, where the Hessian is positive definite (and so
    nonsingular)."""
    check_nonsingular(hessian, call)
    lowest = np.min(np.linalg.eigvalsh(0.5 * (hessian + hessian.T)))
    if not lowest > 0.0:
        raise refuse(call, f"a strict local minimum (a positive definite Hessian; its "
                     f"lowest eigenvalue here is {lowest:.3g})", "The result is a saddle "
                     "point or a flat minimum: check res.x, or start elsewhere.")
