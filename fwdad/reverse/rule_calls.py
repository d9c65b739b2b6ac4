"""How a registered reverse rule runs on reverse values (reverse/registry.py makes one
of these for each row): a pure rule gets plain values and its pullback is recorded on
the tape; a primitive without a derivative runs on plain values.

    Pure(np.sin, _sin)(x)      x's value -> _sin -> (out, pullback): out becomes a Var or
                               a VarMat (`wrap`), and a Chain of the pullback is pushed
    NonDiff(np.floor)(x)       np.floor(value_of(x)): a constant
    Chain()                    run backwards: the output's adjoint -> each input's
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional

import numpy as np

from fwdad.errors import FwdadError, describe, in_user_code, masked_array_error
from fwdad.probe import probe
from fwdad.reverse import array_protocol
from fwdad.reverse.adjoints import accumulate, adjoint_of
from fwdad.reverse.array_protocol import implicit_array
from fwdad.reverse.complex_values import (
    COMPLEX_READY,
    complex_among,
    no_complex_matvar,
    note_complex,
    refuse_complex,
)
from fwdad.reverse.instances import user_method
from fwdad.reverse.kinds import PLAIN_TYPES
from fwdad.reverse.tape import current
from fwdad.reverse.tracked import is_tracked, untracked
from fwdad.reverse.var import Var, VarMat, new_matvar, value_of
from fwdad.rules import registry as forward_registry
from fwdad.rules.array_like import reads_lists_as_arrays
from fwdad.tangents import rebuild


def rrule_key(fn: Any) -> Any:
    """The key of `fn`'s row in the rrule table (and in COMPLEX_READY): a method is
    keyed by its function."""
    return probe(fn, "__func__", fn)


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


# A primitive whose keyword argument may carry a derivative, as a composition of
# reverse rules: fn -> (names of such keywords, composed(args, kwargs)); filled by the
# rules' modules (np.sum's `initial` is added, reverse/rules_reductions.py).
TRACKED_KEYWORDS: dict = {}


def _tracked_keywords(call: Any, args: tuple, kwargs: dict) -> Any:
    """A call whose keyword arguments carry a derivative: by its composition when the
    primitive has one for them, else refused (a keyword is otherwise a constant)."""
    tracked = sorted(k for k, v in kwargs.items() if is_tracked(v))
    names, composed = TRACKED_KEYWORDS.get(call.fn, ((), None))
    if composed is not None and set(tracked) <= set(names):
        return composed(args, kwargs)
    raise FwdadError(
        f"{describe(call.fn)}{in_user_code()}: its keyword argument "
        f"{', '.join(tracked)} carries a derivative, which reverse mode does not follow "
        f"for this function (its keyword arguments are constants). Pass it by position "
        f"if the function takes it so, or compute that part outside the call.")


class NonDiff:
    """A primitive without a derivative: the primal runs on plain values."""

    __slots__ = ("fn", "plain", "refuse", "__name__")

    def __init__(self, fn: Callable, plain: Callable = value_of,
                 refuse: Optional[Callable[..., None]] = None) -> None:
        self.fn, self.__name__ = fn, f"nondiff_{getattr(fn, '__name__', 'fn')}"
        self.plain = plain  # what the primal gets for each argument
        self.refuse = refuse  # refuse(result, *args, **kwargs): raises for variables
        # among the arguments that the result does depend on, when given

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if untracked(args, kwargs):
            return self.fn(*args, **kwargs)
        method = user_method(self.fn, args)
        if method is not None:
            return method(*args)
        at = getattr(forward_registry.entry_of(self.fn), "out_at", None)
        if isinstance(at, int) and len(args) > at:  # (out by position: as a keyword)
            kwargs, args = {**kwargs, "out": args[at]}, args[:at] + args[at + 1:]
        out = kwargs.get("out")
        if out is not None and is_tracked(out):
            # a variable given as `out` gets the constant result as `out[...] = r` does:
            # its adjoint stops there (the primal alone would keep the old one flowing)
            del kwargs["out"]
            out = out[0] if type(out) is tuple and len(out) == 1 else out
            from fwdad.reverse.registry import get_rrule  # (the table holds this rule)
            get_rrule(operator.setitem)(out, Ellipsis, self(*args, **kwargs))
            return out
        plain = [self.plain(a) for a in args]
        result = self.fn(*plain, **{k: self.plain(v) for k, v in kwargs.items()})
        if self.refuse is not None:
            self.refuse(result, *args, **kwargs)
        return result


class Pure:
    """Calls a pure rule on plain values and records its pullback on the tape.

    `out_at` is where `fn` takes `out` among its positional parameters (None: not by
    position; reverse/rules_outputs.py sets it): the rule takes `out` as a keyword, so
    `np.clip(x, lo, hi, r)` reaches it as `np.clip(x, lo, hi, out=r)`. Kept here rather
    than in a wrapper, so that what is pure stays a Pure (the static reverse schedule
    replays Pure rules as steps)."""

    __slots__ = ("fn", "rule", "numpy", "out_at", "__name__")

    def __init__(self, fn: Callable, rule: Callable) -> None:
        self.fn, self.rule, self.__name__ = fn, rule, getattr(rule, "__name__", "rrule")
        self.numpy = getattr(fn, "__objclass__", None) is np.ndarray or \
            reads_lists_as_arrays(fn)
        self.out_at: Optional[int] = None

    def out_by_keyword(self, args: tuple, kwargs: dict) -> tuple:
        """(args, kwargs) with an `out` given by position moved to the keyword."""
        at = self.out_at
        if at is None or len(args) <= at:
            return args, kwargs
        if "out" in kwargs:
            raise TypeError(f"{describe(self.fn)} got out= by position and by keyword")
        if args[at] is not None:
            kwargs = {**kwargs, "out": args[at]}
        return args[:at] + args[at + 1:], kwargs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.out_at is not None and len(args) > self.out_at:
            args, kwargs = self.out_by_keyword(args, kwargs)
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
            # other operand is an array), and an instance by its __array__: so do we
            args = tuple(_as_array(a) for a in array_protocol.operands(self.fn, args)) \
                if not self.numpy else tuple(_as_array(implicit_array(a, self.fn))
                                             for a in args)
        at = [i for i, a in enumerate(args) if is_tracked(a)]
        if kwargs and any(is_tracked(v) for v in kwargs.values()):
            return _tracked_keywords(self, args, kwargs)
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
                rrule_key(self.fn) not in COMPLEX_READY:
            refuse_complex(self.fn, [args[i] for i in at])
            return out  # (a constant: its derivative with respect to the arguments is 0)
        result = wrap(out, layout_of(self.fn, args, at))
        if result is not out:
            inputs = [(i, _snapshot(args[i])) for i in at]
            current().push(Chain(pullback, inputs, _snapshot(result), self.fn), result)
        return result


def pure_inside(rule: Any) -> Optional[Pure]:
    """The Pure a registered reverse rule runs: the rule itself, or the one inside a
    wrapper that says so with a `pure` attribute (a ufunc's rule with out=, a copy's);
    None for a rule that records on the tape itself."""
    if type(rule) is Pure:
        return rule
    inner = getattr(rule, "pure", None)
    return inner if type(inner) is Pure else None


def _into_out(rule: "Pure", args: tuple, kwargs: dict) -> Any:
    """`np.sum(x, axis=0, out=y)` and kin: the result is written into `out` as
    `out[...] = result` is, which is how NumPy defines `out` (the ufuncs' rows do the
    same, fwdad/reverse/rules_ufuncs.py)."""
    from fwdad.reverse.registry import get_rrule  # (the table holds these wrappers)
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
        from fwdad.reverse.registry import get_rrule  # (the table holds these wrappers)
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

    __slots__ = ("pullback", "inputs", "out", "fn")

    def __init__(self, pullback: Callable, inputs: list, out: Any, fn: Any = None) -> None:
        self.pullback, self.inputs, self.out, self.fn = pullback, inputs, out, fn

    def __call__(self) -> None:
        if type(self.out) is VarMat and not self.out.has_adjoint:
            return  # nothing read this output: no cotangent to pass on
        cts = self.pullback(adjoint_of(self.out))
        for i, x in self.inputs:
            if i >= len(cts):  # (a position the rule takes as a constant)
                raise _not_followed(self.fn, i)
            ct = cts[i]
            accumulate(x, ct() if callable(ct) else ct)


def _not_followed(fn: Any, i: int) -> FwdadError:
    """A variable reached a position whose derivative the reverse rule does not give
    (np.var's ddof, norm's ord by position): it would be lost."""
    return FwdadError(
        f"{describe(fn) if fn is not None else 'a function'}: its argument at position "
        f"{i + 1} carries a derivative, which reverse mode does not follow for this "
        f"function (it takes that argument as a constant), so the gradient would miss "
        f"its part. Compute that argument from constants, or differentiate in forward "
        f"mode (fwdad.jvp, fwdad.jacfwd), which follows more of them or refuses at the "
        f"line.")


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
    line = in_user_code()
    return FwdadError(
        f"reverse mode meets a {type(x).__qualname__} (a subclass of numpy.ndarray)"
        f"{line} that would carry a derivative: its reverse "
        f"rules are written for plain arrays. Pass np.asarray(x) (a plain array), or "
        f"use forward mode (fwdad.jacfwd, fwdad.jvp).")
