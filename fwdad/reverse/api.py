"""The public reverse-mode transformations: vjp, grad, value_and_grad.

Each call records into its own nested tape region (fwdad.reverse.tape), so a gradient
taken inside a differentiated function, or inside a rule, leaves the outer region
alone. The pullback of `vjp` keeps its region until the pullback itself is dropped (it
may be called again); `grad` releases the region as soon as it has its gradient.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np

from fwdad.aliased_arguments import sharing_an_instance
from fwdad.argnums import check_argnums_type, positions
from fwdad.errors import FwdadError, NonDifferentiableError, a_type, describe, note_user_location
from fwdad.probe import probe
from fwdad.reverse import dispatch, state
from fwdad.reverse.boxing import (
    Made,
    adjoints,
    box,
    cast,
    dtypes,
    hold,
    seed,
    unbox,
    write_back,
)
from fwdad.reverse.stores import settle
from fwdad.reverse.tape import Tape, nested
from fwdad.signatures import explain_failed_call
from fwdad.tangent_checks import check_tangent
from fwdad.tangents import NoTangent, Tangent, zero_tangent
from fwdad.transformed import NestedTransformation, Transformed


def vjp(f: Callable[..., Any], *primals: Any) -> Tuple[Any, "Pullback"]:
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
    try:
        return vjp_with_wrt(f, primals, range(len(primals)))
    except NestedTransformation as signal:
        raise FwdadError(
            f"vjp of {describe(f)}, which calls fwdad.{signal.inner} inside: reverse mode "
            f"over a nested transformation is not supported yet. For a real scalar "
            f"output use fwdad.grad (it takes the outer derivative in forward mode), or "
            f"fwdad.jacfwd / fwdad.jvp for the outer derivative.") from None


def vjp_with_wrt(f: Callable[..., Any], primals: tuple[Any, ...], wrt: Any,
         kwargs: Optional[dict[Any, Any]] = None, api: str = "vjp") -> Tuple[Any, "Pullback"]:
    """vjp with respect to the primals at positions `wrt` (the others, and `kwargs`,
    are constants); `api` names the transformation in errors."""
    if not callable(f):
        raise FwdadError(f"{api} needs a function to differentiate as its first "
                         f"argument, but got {a_type(f)}: {f!r:.60}.")
    for i in wrt:
        _check_not_opaque(f, primals[i], i)
    made: Made = {}  # (each box of an argument, and what it was made from: write_back)
    with nested() as region:
        state.begin(region, primals + tuple((kwargs or {}).values()))
        try:
            boxed = _boxed(primals, wrt, region, made)
        except NonDifferentiableError as exc:  # (a cycle of instances: name f)
            state.write_back(region)
            settle(region.stores)
            region.recover()
            raise NonDifferentiableError(f"{api}({describe(f)}) {exc}") from None
        held_instances: dict[int, Any] = {}  # (one Tangent an instance, as its one copy)
        held = [hold(b, held_instances) for b in boxed]  # the input Vars, whatever f
        # writes over them
        try:
            out = dispatch.call(f, *boxed, **(kwargs or {}))
        except NestedTransformation:
            state.write_back(region)
            settle(region.stores)
            region.recover()
            raise
        except Exception as exc:
            state.write_back(region)
            settle(region.stores)
            region.recover()
            explain_failed_call(api, f, primals, exc, kwargs)
            note_user_location(exc)
            raise
    state.write_back(region)
    values = bool(region.writes) or region.layout == "matvar"  # (matvar writes are not
    done: set[int] = set()                                      # recorded)
    for primal, boxed_primal in zip(primals, boxed):
        write_back(primal, boxed_primal, made, values, done)
    value = unbox(out)
    if region.stores:  # (the output keeps its variables: its containers are copied)
        out = hold(out)
        settle(region.stores)
    return value, Pullback(f, region, out, value, held, [dtypes(p) for p in primals])


def _boxed(primals: tuple[Any, ...], wrt: Any, region: Tape, made: Made) -> list[Any]:
    """The arguments, those in `wrt` boxed, with one copy for an instance of a user class
    at two places (of one argument or two), as f's plain call sees one object there: a
    write through one place is seen through the other, and the object's cotangent, at
    each of its places, is its total one (jvp's one tangent per object, transposed). An
    argument outside `wrt` holding an instance that one in `wrt` holds is boxed too, so
    that it holds the same copy (its own cotangent is not asked for)."""
    shared = sharing_an_instance(primals)
    if shared and not shared.isdisjoint(wrt):
        wrt = set(wrt) | shared
    copies: dict[int, Any] = {}
    return [box(p, region, frozenset(), copies, made) if i in wrt else p
            for i, p in enumerate(primals)]


class Pullback:
    """`pullback(ct)` -> one cotangent per primal; callable more than once."""

    def __init__(self, f: Callable[..., Any], region: Tape, out: Any, value: Any,
                 boxed: list[Any], dtypes: list[Any]) -> None:
        self.boxed: Optional[list[Any]] = boxed  # (None once released)
        self.f, self.region, self.out, self.value = f, region, out, value
        self.dtypes = dtypes  # of the primals: each cotangent has its primal's dtype

    def __call__(self, ct: Any, release: bool = False) -> tuple[Any, ...]:
        """The cotangents of the primals; with `release`, the tape region is freed as
        the backward pass goes (the pullback cannot run again)."""
        if self.boxed is None:
            raise FwdadError(f"this pullback of {describe(self.f)} was released: call "
                             f"vjp again.")
        ct = check_tangent(self.value, ct, f"the cotangent of the output of "
                                           f"{describe(self.f)}", cotangent=True)
        return self.run(ct, release)

    def run(self, ct: Any, release: bool = False) -> tuple[Any, ...]:
        """`self(ct, release)` for a cotangent already checked (grad's seed)."""
        assert self.boxed is not None, "a released pullback"
        if self.region.used:
            self.region.zero_adjoints()
        seed(self.out, ct)
        self.out = None if release else self.out
        self.region.backward(release)
        summed: dict[int, Any] = {}  # (an instance at two places: one cotangent, the
        typed: dict[int, Any] = {}   # same Tangent at both)
        cts = tuple(cast(adjoints(b, not release, summed), d, typed)
                    for b, d in zip(self.boxed, self.dtypes))
        if release:
            self.release()
        return cts

    def release(self) -> None:
        """Free the tape region now (the pullback cannot run again)."""
        self.region.recover()
        self.out = self.boxed = None


def value_and_grad(f: Callable[..., Any], argnums: Union[int, Sequence[int]] = 0,
                   holomorphic: bool = False) -> Callable[..., Any]:
    """`value_and_grad(f)(*args, **kwargs)` -> `(f(*args, **kwargs), gradient)` for a
    real-valued f; the gradient is shaped like argument `argnums` (a tuple of them for
    a sequence; negative argnums count from the end) and has its dtype. Keyword
    arguments are passed to f as constants (not differentiated). For complex arguments
    the gradient follows JAX's convention, df/dx - i df/dy (docs/complex.md).

    Args:
        holomorphic: f is holomorphic in complex arguments and returns a complex
            scalar; the gradient is its complex derivative f'(z) (as in JAX).

    Raises:
        FwdadError: argnums is not an int or tuple of ints or names no argument, f
            cannot take the arguments, or f's output is not a real scalar (a complex
            scalar with `holomorphic`).
        NonDifferentiableError: an argument in argnums holds no float (an int, ...), or
            no complex value with `holomorphic`.
    """
    return _value_and_grad("value_and_grad", f, argnums, holomorphic)


def _value_and_grad(api: str, f: Callable[..., Any], argnums: Any,
                    holomorphic: bool = False) -> Transformed:
    if not callable(f):
        raise FwdadError(f"{api} needs a function to differentiate as its first argument, "
                         f"but got {a_type(f)}: {f!r:.60}.")
    check_argnums_type(api, f, argnums)

    def value_and_grad_f(*args: Any, **kwargs: Any) -> tuple[Any, ...]:
        wrt = positions(api, f, argnums, args, kwargs)
        for i in wrt:
            _check_differentiable(f, args[i], i)
            if holomorphic:
                _check_complex_input(api, f, args[i], i)
        try:
            out, pullback = vjp_with_wrt(f, args, set(wrt), kwargs, api)
        except NestedTransformation:
            if holomorphic:
                raise _holomorphic_nested(api, f) from None
            return _by_forward_mode(f, argnums, args, wrt, kwargs)
        try:
            check_complex_scalar(api, f, out) if holomorphic else check_real_scalar(f, out)
        except FwdadError:
            pullback.release()
            raise
        # An int or bool output (`return 0` on a flat branch) is piecewise constant:
        # nothing to seed, and the gradient is zero (tests/test_api_boundary.py).
        kind = "f" if type(out) is float else np.asarray(out).dtype.kind
        unit = None if kind not in "fc" else one_like(out) if kind == "f" else \
            np.ones_like(out) if isinstance(out, np.ndarray) else 1.0 + 0.0j
        cts = pullback.run(unit, release=True)  # (a seed made here: nothing to check)
        picked = tuple(cts[i] for i in wrt)
        return out, picked if isinstance(argnums, (tuple, list)) else picked[0]
    value_and_grad_f.__name__ = f"value_and_grad_{probe(f, '__name__', 'f')}"
    return Transformed("value_and_grad", f, argnums, value_and_grad_f)


def _by_forward_mode(f: Callable[..., Any], argnums: Any, args: tuple[Any, ...],
                     wrt: Tuple[int, ...], kwargs: dict[Any, Any]) -> tuple[Any, ...]:
    """value_and_grad of an f that calls one of fwdad's transformations inside: the outer
    derivative is taken in forward mode, one batched pass (jacfwd), over which inner
    transformations are differentiated again (docs/higher_order.md)."""
    from fwdad.jacobians import value_and_jacobian  # (it sits above reverse mode)
    out, jacobian = value_and_jacobian(f, tuple(wrt), args, kwargs=kwargs)
    check_real_scalar(f, out)
    if np.ndim(out):  # an array of one entry: drop its axes from the Jacobian's front
        jacobian = tuple(np.reshape(j, np.shape(args[i])) for j, i in zip(jacobian, wrt))
    picked = tuple(float(j) if type(args[i]) is float else cast(j, dtypes(args[i]))
                   for j, i in zip(jacobian, wrt))  # (as the reverse pass gives them)
    return out, picked if isinstance(argnums, (tuple, list)) else picked[0]


def _check_not_opaque(f: Callable[..., Any], x: Any, i: int) -> None:
    """An instance whose fields fwdad cannot see (a class with __slots__) has no tangent:
    its cotangent would come out NoTangent however the output depends on it."""
    if getattr(type(x), "__slots__", None) and zero_tangent(x) is NoTangent and \
            type(x).__module__ not in ("builtins", "numpy"):
        raise NonDifferentiableError(
            f"vjp of {describe(f)}: argument {i} is {a_type(x)}, a class with "
            f"__slots__, whose fields fwdad does not differentiate through yet: its "
            f"cotangent would be lost. Pass its float fields as arguments.")


def _check_differentiable(f: Callable[..., Any], x: Any, i: int) -> None:
    """JAX's rule: grad differentiates with respect to floats; an argument with none
    would get no gradient at all (a descent loop would silently never move)."""
    if type(x) is float or (type(x) is np.ndarray and x.dtype.kind in "fc"):
        return  # (the common case, without making a zero tangent to look at)
    if not _holds_floats(zero_tangent(x)):
        raise NonDifferentiableError(
            f"grad of {describe(f)} requires real-valued inputs (floats or float arrays), "
            f"but argument {i} has type {type(x).__name__}: {x!r:.40}. Pass it as a float "
            f"(e.g. float(n)), or leave it out of argnums to treat it as a constant.")


def _holds_floats(tangent: Any) -> bool:
    if isinstance(tangent, (list, tuple)):
        return any(_holds_floats(t) for t in tangent)
    if isinstance(tangent, dict):
        return any(_holds_floats(t) for t in tangent.values())
    if isinstance(tangent, Tangent):
        return any(_holds_floats(t) for t in vars(tangent).values())
    return tangent is not NoTangent and tangent is not None


def one_like(out: Any) -> Any:
    """The seed of a real scalar output: 1.0, or ones for an array of one entry."""
    return np.ones_like(out) if isinstance(out, np.ndarray) else 1.0


def check_real_scalar(f: Callable[..., Any], out: Any) -> None:
    if type(out) is float or type(out) is np.float64:
        return
    array_like = isinstance(out, (bool, int, float, complex, np.generic, np.ndarray))
    # a float array of one entry (shape (1,), (1, 1) ...) is a scalar, as autograd takes it
    kind = np.asarray(out).dtype.kind if array_like and np.size(out) == 1 else None
    if kind not in ("f", "i", "u", "b"):
        what = f"a complex value ({type(out).__name__})" if kind == "c" else \
            f"{a_type(out)} of shape {np.shape(out)}" if array_like else \
            f"{a_type(out)}"
        raise FwdadError(f"grad of {describe(f)} needs a float output (a real scalar, or a "
                         f"float array of one entry), but it returned {what}: use vjp for "
                         f"other outputs (for a complex value, differentiate its real "
                         f"part or abs(...) ** 2, or pass holomorphic=True if f is "
                         f"holomorphic).")


def check_complex_scalar(api: str, f: Callable[..., Any], out: Any) -> None:
    """`holomorphic=True` differentiates a complex scalar output (as JAX, which asks for
    a complex output there too)."""
    if not isinstance(out, (complex, np.complexfloating)) and not (
            isinstance(out, np.ndarray) and out.dtype.kind == "c" and out.ndim == 0):
        raise FwdadError(f"{api}(..., holomorphic=True) of {describe(f)} needs a complex "
                         f"scalar output, but it returned {a_type(out)} of shape "
                         f"{np.shape(out)}: leave out holomorphic=True for a real output.")


def _check_complex_input(api: str, f: Callable[..., Any], x: Any, i: int) -> None:
    if not (isinstance(x, (complex, np.complexfloating)) or (
            isinstance(x, np.ndarray) and x.dtype.kind == "c")):
        raise NonDifferentiableError(
            f"{api}(..., holomorphic=True) of {describe(f)} needs complex arguments, but "
            f"argument {i} is {a_type(x)}: pass it as a complex value (e.g. "
            f"x.astype(complex)), or leave out holomorphic=True.")


def _holomorphic_nested(api: str, f: Callable[..., Any]) -> FwdadError:
    return FwdadError(f"{api}(..., holomorphic=True) of {describe(f)}, which calls one of "
                      f"fwdad's transformations inside: not supported yet. Use "
                      f"fwdad.jvp with the direction 1.0 + 0j for the complex derivative.")


def grad(f: Callable[..., Any], argnums: Union[int, Sequence[int]] = 0,
         holomorphic: bool = False) -> Callable[..., Any]:
    """`grad(f)(*args, **kwargs)`: the gradient of a float-valued f with respect to
    `argnums`, as value_and_grad gives it (keyword arguments are constants); with
    `holomorphic`, the complex derivative of a holomorphic f (docs/complex.md)."""
    value_and_grad_f = _value_and_grad("grad", f, argnums, holomorphic)

    def grad_f(*args: Any, **kwargs: Any) -> Any:
        return value_and_grad_f(*args, **kwargs)[1]
    grad_f.__name__ = f"grad_{probe(f, '__name__', 'f')}"
    return Transformed("grad", f, argnums, grad_f)
