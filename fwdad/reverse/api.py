"""The public reverse-mode transformations: vjp, grad, value_and_grad.

Each call records into its own nested tape region (fwdad.reverse.tape), so a gradient
taken inside a differentiated function, or inside a rule, leaves the outer region
alone. The pullback of `vjp` keeps its region until the pullback itself is dropped (it
may be called again); `grad` releases the region as soon as it has its gradient.
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Sequence, Tuple, Union

import numpy as np

from fwdad.errors import FwdadError, NonDifferentiableError, describe, note_user_location
from fwdad.reverse import dispatch
from fwdad.reverse.registry import accumulate
from fwdad.reverse.tape import Tape, current_layout, nested
from fwdad.reverse.var import Var, VarMat, gather, is_matvar, new_matvar
from fwdad.tangent_checks import check_tangent
from fwdad.tangents import NoTangent, Tangent, rebuild, zero_tangent


def vjp(f: Callable, *primals: Any) -> Tuple[Any, "Pullback"]:
    """Evaluate `f(*primals)` and return its pullback.

    Args:
        f: a Python function (or anything with a registered rrule) of the primals.
        primals: floats, float arrays, nested tuples/lists/dicts of them and instances
            of user classes (through their fields) are differentiable; other values
            (ints, strings) are constants.

    Returns:
        `(f(*primals), pullback)`; `pullback(ct)` takes a cotangent shaped like the
        output and returns one cotangent per primal (NoTangent for constants).

    Raises:
        MissingRuleError, UnsupportedSyntaxError: f calls code fwdad cannot
            differentiate (the message says where, and what to do).
    """
    return _vjp(f, primals, range(len(primals)))


def _vjp(f: Callable, primals: tuple, wrt: Any) -> Tuple[Any, "Pullback"]:
    """vjp with respect to the primals at positions `wrt` (the others are constants)."""
    if not callable(f):
        raise FwdadError(f"vjp needs a function to differentiate as its first argument, "
                         f"but got a {type(f).__name__}: {f!r:.60}.")
    with nested() as region:
        boxed = [_box(p, region) if i in wrt else p for i, p in enumerate(primals)]
        held = [_hold(b) for b in boxed]  # the input Vars, whatever f writes over them
        try:
            out = dispatch.call(f, *boxed)
        except Exception as exc:
            region.recover()
            note_user_location(exc)
            raise
    if region.writes or region.layout == "matvar":  # (matvar writes are not recorded)
        for primal, box in zip(primals, boxed):
            _write_back(primal, box)
    value = _unbox(out)
    return value, Pullback(f, region, out, value, held)


class Pullback:
    """`pullback(ct)` -> one cotangent per primal; callable more than once."""

    def __init__(self, f: Callable, region: Tape, out: Any, value: Any, boxed: list):
        self.f, self.region, self.out, self.value, self.boxed = f, region, out, value, boxed

    def __call__(self, ct: Any, release: bool = False) -> tuple:
        """The cotangents of the primals; with `release`, the tape region is freed as
        the backward pass goes (the pullback cannot run again)."""
        if self.boxed is None:
            raise FwdadError(f"this pullback of {describe(self.f)} was released: call "
                             f"vjp again.")
        ct = check_tangent(self.value, ct, f"the cotangent of the output of "
                                           f"{describe(self.f)}")
        if self.region.used:
            self.region.zero_adjoints()
        _seed(self.out, ct)
        self.out = None if release else self.out
        self.region.backward(release)
        cts = tuple(_adjoints(b) for b in self.boxed)
        if release:
            self.release()
        return cts

    def release(self) -> None:
        """Free the tape region now (the pullback cannot run again)."""
        self.region.recover()
        self.out = self.boxed = None


def value_and_grad(f: Callable, argnums: Union[int, Sequence[int]] = 0) -> Callable:
    """`value_and_grad(f)(*args)` -> `(f(*args), gradient)` for a float-valued f; the
    gradient is shaped like argument `argnums` (a tuple of them for a sequence)."""
    def value_and_grad_f(*args: Any) -> tuple:
        out, pullback = _vjp(f, args, {argnums} if isinstance(argnums, int) else
                             set(argnums))
        if not isinstance(out, (float, np.floating)) and np.shape(out) != ():
            raise FwdadError(f"grad of {describe(f)} needs a float output, but it returned "
                             f"a {type(out).__name__}: use vjp for other outputs.")
        cts = pullback(1.0, release=True)
        picked = cts[argnums] if isinstance(argnums, int) else tuple(cts[i] for i in argnums)
        return out, picked
    value_and_grad_f.__name__ = f"value_and_grad_{getattr(f, '__name__', 'f')}"
    return value_and_grad_f


def grad(f: Callable, argnums: Union[int, Sequence[int]] = 0) -> Callable:
    """`grad(f)(*args)`: the gradient of a float-valued f with respect to `argnums`."""
    value_and_grad_f = value_and_grad(f, argnums)

    def grad_f(*args: Any) -> Any:
        return value_and_grad_f(*args)[1]
    grad_f.__name__ = f"grad_{getattr(f, '__name__', 'f')}"
    return grad_f


# ---- boxing arguments, unboxing results ------------------------------------------------
def _box(x: Any, region: Tape) -> Any:
    if isinstance(x, (complex, np.complexfloating)) or (
            isinstance(x, np.ndarray) and x.dtype.kind == "c"):
        raise NonDifferentiableError(
            f"reverse mode differentiates real values only, but got a complex "
            f"{type(x).__name__}: pass its real and imaginary parts as two arguments, or "
            f"use fwdad.jvp.")
    if isinstance(x, (float, np.floating)):
        var = Var(x)
    elif isinstance(x, np.ndarray) and x.dtype.kind == "f":
        var = VarMat(x.astype(float)) if current_layout() == "varmat" \
            else new_matvar(x)
    elif isinstance(x, (list, tuple)):
        return type(x)(_box(v, region) for v in x) if not hasattr(x, "_fields") \
            else type(x)(*(_box(v, region) for v in x))
    elif isinstance(x, dict):
        return {k: _box(v, region) for k, v in x.items()}
    elif isinstance(zero_tangent(x), Tangent):  # an instance: a copy with boxed fields
        obj = copy.copy(x)
        for key, value in vars(x).items():
            setattr(obj, key, _box(value, region))
        return obj
    else:
        return x
    region.keep(var)
    return var


def _hold(x: Any) -> Any:
    if is_matvar(x):
        return x.copy()
    if isinstance(x, (list, tuple)):
        items = [_hold(v) for v in x]
        return rebuild(x, items)
    if isinstance(x, dict):
        return {k: _hold(v) for k, v in x.items()}
    if isinstance(zero_tangent(x), Tangent):
        return Tangent(**{k: _hold(v) for k, v in vars(x).items()})
    return x


def _unbox(x: Any) -> Any:
    if type(x) is Var:
        return x.value
    if type(x) is VarMat:
        return x.value.copy()
    if is_matvar(x):
        return gather(x, "value")
    if isinstance(x, (list, tuple)):
        items = [_unbox(v) for v in x]
        return rebuild(x, items)
    if isinstance(x, dict):
        return {k: _unbox(v) for k, v in x.items()}
    if isinstance(zero_tangent(x), Tangent):
        obj = copy.copy(x)
        for key, value in vars(x).items():
            setattr(obj, key, _unbox(value))
        return obj
    return x


def _write_back(primal: Any, box: Any) -> None:
    """An array argument ends as a plain call leaves it (f may update it in place)."""
    if isinstance(primal, np.ndarray) and (type(box) is VarMat or is_matvar(box)):
        final = _unbox(box)
        if not np.array_equal(final, primal):
            primal[...] = final
    elif isinstance(primal, (list, tuple)) and isinstance(box, (list, tuple)):
        for p, b in zip(primal, box):
            _write_back(p, b)
    elif isinstance(primal, dict) and isinstance(box, dict):
        for k in primal:
            _write_back(primal[k], box.get(k))


def _seed(out: Any, ct: Any) -> None:
    if ct is NoTangent or ct is None:
        return
    if isinstance(out, (list, tuple)):
        for o, c in zip(out, ct):
            _seed(o, c)
    elif isinstance(out, dict):
        for k in out:
            _seed(out[k], ct[k])
    elif isinstance(ct, Tangent):
        for key, value in vars(ct).items():
            _seed(getattr(out, key), value)
    else:
        accumulate(out, ct)


def _adjoints(box: Any) -> Any:
    if type(box) is Var:
        return float(box.adjoint)
    if type(box) is VarMat:
        return box.adjoint.copy()  # (made if nothing reached it: a zero gradient)
    if is_matvar(box):
        return gather(box, "adjoint")
    if isinstance(box, (list, tuple)):
        items = [_adjoints(v) for v in box]
        return rebuild(box, items)
    if isinstance(box, dict):
        return {k: _adjoints(v) for k, v in box.items()}
    if isinstance(box, Tangent):  # the fields of an instance, held by _hold
        return Tangent(**{k: _adjoints(v) for k, v in vars(box).items()})
    return NoTangent
