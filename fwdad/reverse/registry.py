"""The reverse rule (rrule) table and the two ways to declare an rrule.

    @rrule(np.sin)                   a pure rule on plain values: returns the output and
    def _sin(x):                     its pullback, which maps the output's cotangent to
        return np.sin(x), lambda ct: (ct * np.cos(x),)    one cotangent per argument

    @raw_rrule(operator.setitem)     a rule on reverse values (Var, VarMat, matvar,
    def _setitem(x, key, v): ...     containers of them) that records on the tape itself

    @composed_rrule(np.cov)          plain NumPy computing what np.cov computes from
    def _cov(m, y=None, ...): ...    primitives with rrules: its derived reverse rule

A pullback may give a cotangent as a thunk (a function of no arguments), which is only
called when its argument is a variable: `lambda: ct * y` costs nothing for a constant y.
A pure rule serves both layouts: the wrapper unpacks VarMats and matvars into plain
arrays, wraps the output in the layout of the inputs, and pushes one callback that
sums broadcast cotangents back to each input's shape. Forward primitives marked
non-differentiable (`def_nondiff`) need no row here: they run on plain values.
"""
from __future__ import annotations

import contextlib
import operator
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, Optional

import numpy as np

from fwdad.core.lazy_rule import LazyRule
from fwdad.errors import FwdadError, current_user_location, describe, masked_array_error
from fwdad.reverse.complex_values import (
    COMPLEX_READY,
    RefusingComplex,
    complex_among,
    is_complex,
    no_complex_matvar,
    note_complex,
    refuse_complex,
)
from fwdad.reverse.instances import user_method
from fwdad.reverse.kinds import PLAIN_TYPES
from fwdad.reverse.tape import current
from fwdad.reverse.var import (
    Var,
    VarMat,
    compared_value,
    gather,
    is_matvar,
    new_matvar,
    scatter_add,
    value_of,
)
from fwdad.rules import registry as forward_registry
from fwdad.rules.array_like import reads_lists_as_arrays
from fwdad.tangents import rebuild


@dataclass
class RRuleEntry:
    primal: Any
    rule: Callable
    callable: Callable
    kind: str  # "rrule", "raw" or "nondiff"


_RRULES: Dict[Any, RRuleEntry] = {}


def _key(fn: Any) -> Any:
    return getattr(fn, "__func__", fn)


def rrule(*fns: Any) -> Callable[[Callable], Callable]:
    """Register a pure reverse rule for each of `fns` (see the module docstring)."""
    def register(rule: Callable) -> Callable:
        for fn in fns:
            _RRULES[_key(fn)] = RRuleEntry(fn, rule, Pure(fn, rule), "rrule")
        return rule
    return register


def raw_rrule(*fns: Any) -> Callable[[Callable], Callable]:
    """Register a rule that takes reverse values and records on the tape itself."""
    def register(rule: Callable) -> Callable:
        for fn in fns:
            _RRULES[_key(fn)] = RRuleEntry(fn, rule, RefusingComplex(_key(fn), rule), "raw")
        return rule
    return register


def complex_ready(*fns: Any) -> None:
    """Declare the (registered) rrules of `fns` right for complex values: a holomorphic
    rule written as ct * f'(x), with transposes and no conjugates, is; a rule that
    reads real and imaginary parts apart must say so in its own pullback."""
    for fn in fns:
        COMPLEX_READY.add(_key(fn))
        entry = _RRULES[_key(fn)]
        if entry.kind == "raw" and type(entry.callable) is RefusingComplex:
            entry.callable = entry.rule  # (nothing to check on the hot path)


def nondiff_rrule(*fns: Any) -> None:
    """Declare forward primitives whose derivative is zero (piecewise constant, or not a
    float): they run on plain values, as `def_nondiff` primitives do."""
    for fn in fns:
        _RRULES[_key(fn)] = RRuleEntry(fn, fn, NonDiff(fn), "nondiff")


def compare_rrule(*fns: Any) -> None:
    """Declare forward primitives without a derivative that compare items (`in`, ==,
    list.index): they compare values, inside lists and tuples too, as forward mode
    compares primals (a Var is only itself: `[x * 1.0] == [x * 1.0]` must be True)."""
    for fn in fns:
        _RRULES[_key(fn)] = RRuleEntry(fn, fn, NonDiff(fn, compared_value), "nondiff")


def composed_rrule(*fns: Any) -> Callable[[Callable], Callable]:
    """Register, for each of `fns`, the derived reverse rule of the decorated function:
    plain NumPy that computes what fns[0] computes, from primitives with rrules. A call
    without variables runs fns[0] itself."""
    def register(impl: Callable) -> Callable:
        from fwdad.reverse.dispatch import derived_rrule
        derived = LazyRule(impl, derived_rrule)

        def rule(*args: Any, **kwargs: Any) -> Any:
            if any(holds_variable(a) for a in (*args, *kwargs.values())):
                return derived(*args, **kwargs)
            return fns[0](*args, **kwargs)
        rule.__name__ = impl.__name__
        return raw_rrule(*fns)(rule)
    return register


@contextlib.contextmanager
def rrules_restored() -> Iterator[None]:
    """Put the rrule table back as it was on exit (for tests that register rules)."""
    saved = dict(_RRULES)
    try:
        yield
    finally:
        _RRULES.clear()
        _RRULES.update(saved)


def get_rrule(fn: Any) -> Optional[Callable]:
    """What reverse code calls for `fn`: its rrule, or a plain call on values for a
    forward primitive with no derivative; None when there is neither."""
    try:
        entry = _RRULES.get(_key(fn))
    except TypeError:
        return None
    if entry is not None:
        return entry.callable
    forward = forward_registry.entry_of(fn)
    if forward is not None and forward.kind == "nondiff":
        _RRULES[_key(fn)] = entry = RRuleEntry(fn, fn, NonDiff(fn), "nondiff")
        return entry.callable
    return None


def rrule_entry(fn: Any) -> RRuleEntry:
    """The registered entry of `fn` (a KeyError when there is none): rules that wrap
    another's rule read and replace its `callable`."""
    return _RRULES[_key(fn)]


def entries() -> Iterator[RRuleEntry]:
    return iter(list(_RRULES.values()))


def forward_primitives_without_rrule() -> list:
    """Forward primitives fwdad ships with a derivative but no reverse rule yet (the
    known gaps; rules registered by users and tests are theirs to pair)."""
    return [e.primal for e in forward_registry.entries()
            if e.kind != "nondiff" and get_rrule(e.primal) is None
            and (getattr(e.rule, "__module__", None) or "").startswith("fwdad.")]


# ---- the wrappers ---------------------------------------------------------------------
def is_tracked(x: Any) -> bool:
    t = type(x)
    return t is Var or t is VarMat or (t is np.ndarray and x.dtype == object)


def holds_variable(x: Any) -> bool:
    """Whether `x` is a variable, or a list, tuple or dict holding one at any depth (a
    call holding none runs on plain values)."""
    if isinstance(x, (list, tuple)):
        return any(holds_variable(v) for v in x)
    if isinstance(x, dict):
        return any(holds_variable(v) for v in x.values())
    return is_tracked(x)


def untracked(args: tuple, kwargs: dict) -> bool:
    """Whether a primitive call sees no variable (the fast path of constants)."""
    for a in args:
        t = type(a)
        if t not in PLAIN_TYPES and (t is not np.ndarray or a.dtype.hasobject):
            return False
    for a in kwargs.values():
        t = type(a)
        if t not in PLAIN_TYPES and (t is not np.ndarray or a.dtype.hasobject):
            return False
    return True


def _simple_variables(args: tuple) -> Optional[list]:
    """The positions of the Vars and VarMats among `args` when every other argument is a
    plain value (untracked), which no list conversion or user operator concerns; None
    when some argument needs the general path (a list, a matvar, an instance)."""
    at = []
    for i, a in enumerate(args):
        t = type(a)
        if t is Var or t is VarMat:
            at.append(i)
        elif t not in PLAIN_TYPES and (t is not np.ndarray or a.dtype.hasobject):
            return None
    return at


class NonDiff:
    """A primitive without a derivative: the primal runs on plain values."""

    __slots__ = ("fn", "plain", "__name__")

    def __init__(self, fn: Callable, plain: Callable = value_of) -> None:
        self.fn, self.__name__ = fn, f"nondiff_{getattr(fn, '__name__', 'fn')}"
        self.plain = plain  # what the primal gets for each argument

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if untracked(args, kwargs):
            return self.fn(*args, **kwargs)
        method = user_method(self.fn, args)
        if method is not None:
            return method(*args)
        args = [self.plain(a) for a in args]
        return self.fn(*args, **{k: self.plain(v) for k, v in kwargs.items()})


class Pure:
    """Calls a pure rule on plain values and records its pullback on the tape."""

    __slots__ = ("fn", "rule", "numpy", "__name__")

    def __init__(self, fn: Callable, rule: Callable) -> None:
        self.fn, self.rule, self.__name__ = fn, rule, getattr(rule, "__name__", "rrule")
        self.numpy = getattr(fn, "__objclass__", None) is np.ndarray or \
            reads_lists_as_arrays(fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        at = _simple_variables(args)
        if at is not None and (not kwargs or "out" not in kwargs and untracked((), kwargs)):
            if not at:  # constants: the primal alone, nothing recorded
                return self.fn(*args, **kwargs)
            return self.record(args, kwargs, at)
        if kwargs.get("out") is not None and (is_tracked(kwargs["out"]) or any(
                is_tracked(a) for a in args)):
            return _into_out(self, args, kwargs)
        if self.numpy or self.fn in _ARITHMETIC and any(
                isinstance(a, _NUMPY_VALUES) for a in args):
            # NumPy reads a list of variables as an array (an operator does when the
            # other operand is an array): so do we
            args = tuple(_as_array(a) for a in args)
        at = [i for i, a in enumerate(args) if is_tracked(a)]
        if kwargs and any(is_tracked(v) for v in kwargs.values()):
            raise FwdadError(f"{describe(self.fn)}: pass differentiable arguments by "
                             f"position; keyword arguments of a primitive are constants.")
        method = user_method(self.fn, args)  # an instance's own operator, even when
        if method is not None:                # the other operand is a variable
            return method(*args)
        if not at:
            return self.fn(*args, **kwargs)
        return self.record(args, kwargs, at)

    def record(self, args: tuple, kwargs: dict, at: list) -> Any:
        """The rule on the values, its pullback on the tape: the variables are `at`."""
        values = list(args)
        for i in at:
            values[i] = value_of(args[i])
        out, pullback = self.rule(*values, **kwargs)
        if (holds_complex(out) or complex_among(values, at)) and \
                _key(self.fn) not in COMPLEX_READY:
            refuse_complex(self.fn, [args[i] for i in at])
            return out  # (a constant: its derivative with respect to the arguments is 0)
        result = wrap(out, layout_of(self.fn, args, at))
        if result is not out:
            inputs = [(i, _snapshot(args[i])) for i in at]
            current().push(Chain(pullback, inputs, _snapshot(result)), result)
        return result


def _into_out(rule: "Pure", args: tuple, kwargs: dict) -> Any:
    """`np.sum(x, axis=0, out=y)` and kin: the result is written into `out` as
    `out[...] = result` is, which is how NumPy defines `out` (the ufuncs' rows do the
    same, fwdad/reverse/rules_ufuncs.py)."""
    import operator
    out = kwargs.pop("out")
    out = out[0] if type(out) is tuple and len(out) == 1 else out
    get_rrule(operator.setitem)(out, Ellipsis, rule(*args, **kwargs))
    return out


_ARITHMETIC = frozenset({operator.add, operator.sub, operator.mul, operator.truediv,
                         operator.pow, operator.mod, operator.matmul, operator.floordiv})
_NUMPY_VALUES = (np.ndarray, np.generic, VarMat)


def _as_array(x: Any) -> Any:
    if type(x) not in (list, tuple):
        return x
    if any(is_tracked(v) or type(v) in (list, tuple) for v in x):
        return get_rrule(np.array)(x)
    try:  # floats: the array NumPy makes of them (a rule may compute with it); ints
        array = np.asarray(x)  # stay as they are (an axis, a shape, indices)
    except (ValueError, TypeError):
        return x
    return array if array.dtype.kind in "fc" else x


def _snapshot(x: Any) -> Any:
    """A matvar is a mutable array of Vars: the callback keeps the Vars it holds now."""
    if type(x) is np.ndarray:
        return x.copy()
    if isinstance(x, tuple):
        return tuple(_snapshot(v) for v in x)
    return x


class Chain:
    """One callback of the chaining stack: output adjoint -> input adjoints."""

    __slots__ = ("pullback", "inputs", "out")

    def __init__(self, pullback: Callable, inputs: list, out: Any) -> None:
        self.pullback, self.inputs, self.out = pullback, inputs, out

    def __call__(self) -> None:
        if type(self.out) is VarMat and not self.out.has_adjoint:
            return  # nothing read this output: no cotangent to pass on
        cts = self.pullback(adjoint_of(self.out))
        for i, x in self.inputs:
            ct = cts[i]
            accumulate(x, ct() if callable(ct) else ct)


def layout_of(fn: Any, args: tuple, at: list) -> str:
    kinds = {"varmat" if type(args[i]) is VarMat else "matvar" for i in at
             if type(args[i]) is not Var}
    if len(kinds) > 1:
        raise FwdadError(f"{describe(fn)} got both a VarMat and a matvar (object array "
                         f"of Vars): convert one explicitly with fwdad.reverse.to_varmat "
                         f"or to_matvar.")
    return kinds.pop() if kinds else current().layout


def holds_complex(out: Any) -> bool:
    if isinstance(out, tuple):
        return any(holds_complex(o) for o in out)
    return isinstance(out, (complex, np.complexfloating)) or (
        type(out) is np.ndarray and out.dtype.kind == "c")


def wrap(out: Any, layout: str) -> Any:
    """Float values become variables in `layout`; anything else stays as it is."""
    t = type(out)
    if t is float or isinstance(out, np.floating):
        return Var(out)
    if t is np.ndarray and out.dtype.kind == "f":
        return VarMat(out) if layout == "varmat" else new_matvar(out)
    if isinstance(out, (complex, np.complexfloating)):
        note_complex()
        return Var(out)
    if t is np.ndarray and out.dtype.kind == "c":
        note_complex()
        return VarMat(out) if layout == "varmat" else no_complex_matvar()
    if isinstance(out, tuple):  # named tuples too (np.linalg's results)
        items = [wrap(o, layout) for o in out]
        if all(a is b for a, b in zip(items, out)):
            return out
        return rebuild(out, items)
    if isinstance(out, np.ndarray) and out.dtype.kind in "fc":
        raise array_subclass_error(out)  # (it was left a constant: a zero gradient)
    return out


def array_subclass_error(x: np.ndarray) -> FwdadError:
    """An ndarray subclass where reverse mode needs a variable: its operators and
    ufuncs may differ from ndarray's, which reverse rules compute with."""
    if isinstance(x, np.ma.MaskedArray):  # (forward mode refuses it too)
        return masked_array_error(x)
    line = current_user_location()
    return FwdadError(
        f"reverse mode meets a {type(x).__qualname__} (a subclass of numpy.ndarray)"
        f"{' at ' + line if line else ''} that would carry a derivative: its reverse "
        f"rules are written for plain arrays. Pass np.asarray(x) (a plain array), or "
        f"use forward mode (fwdad.jacfwd, fwdad.jvp).")


def adjoint_of(x: Any) -> Any:
    t = type(x)
    if t is Var or t is VarMat:
        return x.adjoint
    if t is np.ndarray and x.dtype == object:
        return gather(x, "adjoint")
    if isinstance(x, tuple):
        return tuple(adjoint_of(v) for v in x)
    return None


def accumulate(x: Any, ct: Any) -> None:
    """Add a cotangent into a variable's adjoint (summing broadcast axes away)."""
    if ct is None:
        return
    t = type(x)
    if t is Var:
        if type(ct) is float:
            x.adjoint += ct
            return
        total = np.sum(ct)
        if type(total) is np.float64:
            x.adjoint += float(total)
        elif isinstance(x.value, (complex, np.complexfloating)):
            x.adjoint += complex(total)
        else:  # a real variable keeps the real part of a complex cotangent: with t
            x.adjoint += float(np.real(total))  # real, Re(ct t) = Re(ct) t
    elif t is VarMat:
        ct = unbroadcast(ct, x.value.shape)
        if (ct.dtype.kind == "c" if type(ct) is np.ndarray else is_complex(ct)) and \
                x.value.dtype.kind != "c":
            ct = np.real(ct)
        x.add_adjoint(ct)
    elif is_matvar(x):
        ct = unbroadcast(ct, x.shape)
        scatter_add(x, np.real(ct) if is_complex(ct) else ct)



def unbroadcast(ct: Any, shape: tuple) -> Any:
    """Sum a cotangent over the axes along which a value of `shape` was broadcast."""
    if np.shape(ct) == shape:
        return ct
    ct = np.asarray(ct)
    if ct.ndim < len(shape):  # (a value of shape (1, n) written where n values go)
        return ct.reshape(shape)
    if ct.ndim > len(shape):
        ct = ct.sum(axis=tuple(range(ct.ndim - len(shape))))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and ct.shape[i] != 1)
    return ct.sum(axis=axes, keepdims=True) if axes else ct
