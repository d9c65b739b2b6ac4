"""NumPy reads a list or tuple of numbers (or of Duals of numbers) as an array: so do the
rules of NumPy's functions. A rule is written for arrays; a list argument reaches it as
Dual([a, b], [da, db]), whose tangent is a list too (with NoTangent for a constant item,
and a leading batch axis on each item's tangent under jacfwd), which array arithmetic
would read wrongly. `reads_lists_as_arrays(fn)` says which functions get their list
arguments made arrays first, by np.array's own rule (rules/creation.py), as NumPy
itself would make them.

Left as they are: functions whose arguments are sequences of arrays (`np.concatenate`,
`np.stack`, `np.block`, ...), which write into an argument (`np.copyto`, `np.put`, ...:
an array made from a list would take the write, not the list), the creation functions
(their rules read lists themselves), methods, np.random, and `out=`.
"""
from __future__ import annotations

import inspect
import sys
import types
from typing import Any, Callable, FrozenSet, Optional

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.array_protocol import implicit_array, reads_as_array
from fwdad.rules.plain_params import Adapter
from fwdad.tangents import Tangent

SEQUENCES = (list, tuple)
_NUMPY_VALUES = (np.ndarray, np.generic)
_MODULES = ("numpy", "scipy.special", "scipy.linalg", "scipy.fft")


def _named(*names: str) -> FrozenSet[Any]:
    """The callables of `names` ("np.x", "np.linalg.x") that exist here (NumPy
    versions differ)."""
    found = set()
    for name in names:
        module, _, attr = name.rpartition(".")
        owner: Any = __import__(module.replace("np", "numpy", 1)
                                if module.startswith("np") else module, fromlist=["_"])
        if hasattr(owner, attr):
            found.add(getattr(owner, attr))
    return frozenset(found)


# Sequences of arrays (items of different shapes are allowed), creation functions, and
# functions that write into an argument.
_LEFT_AS_THEY_ARE = _named(
    "np.concatenate", "np.stack", "np.vstack", "np.hstack", "np.dstack",
    "np.column_stack", "np.row_stack", "np.block", "np.linalg.multi_dot", "np.array",
    "np.asarray", "np.asanyarray", "np.ascontiguousarray", "np.asfortranarray",
    "np.asarray_chkfinite", "np.copyto", "np.put", "np.place", "np.putmask",
    "np.fill_diagonal", "np.put_along_axis")
# Functions with a sequence (or a pair that is not an array) at some positions only.
_LEFT_AT = {fn: positions for names, positions in (
    (("np.select",), {0, 1}), (("np.choose",), {1}), (("np.piecewise",), {1, 2}))
    for fn in _named(*names)}
# scipy.linalg's, read when their rules register: from scipy.linalg, which the user's
# code imported then (`import fwdad` imports no SciPy; importing it here would cost
# scipy.special's rules, which need no scipy.linalg, half a second).
_SCIPY_LINALG_LEFT_AT = {"cho_solve": {0}, "lu_solve": {0}, "cho_solve_banded": {0}}


def _left_at(fn: Any) -> FrozenSet[int]:
    """The positions where `fn` takes a sequence that is not one array."""
    left = _LEFT_AT.get(fn)
    linalg = sys.modules.get("scipy.linalg")
    if left is None and linalg is not None:
        left = next((at for name, at in _SCIPY_LINALG_LEFT_AT.items()
                     if getattr(linalg, name, None) is fn), None)
    return frozenset() if left is None else frozenset(left)


def reads_lists_as_arrays(fn: Any) -> bool:
    """Whether `fn` is a NumPy (or SciPy special/linalg/fft) function whose rule should
    see its list arguments as the arrays NumPy makes of them."""
    if isinstance(fn, np.ufunc):
        return True
    if isinstance(fn, (type, types.MethodType)) or hasattr(fn, "__objclass__") or \
            getattr(fn, "__self__", None) is not None and \
            not isinstance(fn.__self__, types.ModuleType):
        return False
    module = getattr(fn, "__module__", None) or ""
    if not module.startswith(_MODULES) or module.startswith("numpy.random"):
        return False
    try:
        return fn not in _LEFT_AS_THEY_ARE
    except TypeError:
        return False


def array_of(d: Any) -> Any:
    """d with its list made an array by np.array's rule (as bound now: a sparsity
    detection runs its own), when NumPy makes a numeric array of it."""
    if not isinstance(d, Dual) or type(d.primal) not in SEQUENCES:  # (a FieldDual too)
        return d
    from fwdad.rules.registry import get_frule  # (the registry wraps rules with this)
    try:
        out = get_frule(np.array)(d)
    except (ValueError, TypeError):  # ragged, or items NumPy does not take as numbers
        return d
    return out if out.primal.dtype.kind in "biufc" else d


def numpy_operands(x: Dual, y: Dual) -> tuple:
    """The operands of an operator, with a list or tuple made the array NumPy makes of
    it where the other is a NumPy array or scalar (`x * [a, b]`; two lists stay
    Python's, which concatenate and repeat). NumPy converts it for the value by itself,
    but not a list that holds Duals (at second order), nor its tangent. So it does an
    instance whose class defines __array__ (rules/array_protocol.py)."""
    if isinstance(y.primal, _NUMPY_VALUES) and reads_as_array(x):
        return implicit_array(x, None), y
    if isinstance(x.primal, _NUMPY_VALUES) and reads_as_array(y):
        return x, implicit_array(y, None)
    if type(x.primal) in SEQUENCES and isinstance(y.primal, _NUMPY_VALUES):
        return array_of(x), y
    if type(y.primal) in SEQUENCES and isinstance(x.primal, _NUMPY_VALUES):
        return x, array_of(y)
    return x, y


class ListsAsArrays:
    """Calls `rule` with the list and tuple Duals among its array parameters made
    arrays: the positions `at` (all from `first_star` on when `star`) and the keywords
    `keywords` (None: all but `out`)."""

    __slots__ = ("fn", "rule", "at", "first_star", "star", "stop", "keywords", "__name__",
                 "__wrapped__")

    def __init__(self, fn: Any, rule: Callable[..., Any], at: FrozenSet[int],
                 first_star: int, star: bool, stop: int, keywords: Optional[FrozenSet[str]]
                 ) -> None:
        self.fn, self.rule, self.at, self.first_star, self.star = fn, rule, at, first_star, \
            star
        self.stop, self.keywords = stop, keywords  # (stop: where `out` is, if positional)
        self.__name__ = getattr(rule, "__name__", "rule")
        self.__wrapped__ = rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for a in args:  # (an instance's tangent: NumPy reads it by its __array__)
            if type(getattr(a, "primal", None)) in SEQUENCES or \
                    type(getattr(a, "tangent", None)) is Tangent:
                break
        else:
            if not kwargs or not any(type(getattr(v, "primal", None)) in SEQUENCES or
                                     type(getattr(v, "tangent", None)) is Tangent
                                     for v in kwargs.values()):
                return self.rule(*args, **kwargs)
        args, kwargs = self.converted(args, kwargs)
        return self.rule(*args, **kwargs)

    def converted(self, args: tuple, kwargs: dict,
                  which: Callable[[Any], bool] = lambda d: True) -> tuple:
        """The arguments with their lists made arrays, those `which` picks (a sparsity
        detection, which runs its own rule of the function, asks for some too)."""
        reads, fn = self.reads, self.fn
        args = tuple(array_of(implicit_array(a, fn)) if reads(i) and which(a) else a
                     for i, a in enumerate(args))
        if kwargs:
            names = self.keywords
            kwargs = {k: array_of(implicit_array(v, fn)) if k != "out" and (
                names is None or k in names) and which(v) else v for k, v in kwargs.items()}
        return args, kwargs

    def reads(self, i: int) -> bool:
        """Whether the argument at position i is read as an array."""
        return i < self.stop and (i in self.at if i < self.first_star else self.star)


def lists_as_arrays(fn: Any, rule: Callable[..., Any], out_position: Optional[int] = None
                    ) -> Callable[..., Any]:
    """`rule` (as with_plain_params made it), wrapped in ListsAsArrays where `fn` reads
    lists as arrays; `out_position`: where it takes `out=` among its positional
    parameters, if it does (a ufunc's outputs follow its inputs)."""
    if not reads_lists_as_arrays(fn) or isinstance(rule, ListsAsArrays):
        return rule
    stop = fn.nin if isinstance(fn, np.ufunc) else out_position
    left = _left_at(fn)
    if isinstance(rule, Adapter):  # only its Dual parameters
        first = rule.first_star
        at = frozenset(i for i in rule.dual_at if i < first)
        star, keywords = rule.dual_star, frozenset(rule.dual_kw)
    else:  # every parameter takes a Dual
        first, star, keywords = _positional_count(rule), _has_star(rule), None
        at = frozenset(range(first))
    at, star = at - left, star and not left
    if not at and not star and keywords == frozenset():
        return rule
    return ListsAsArrays(fn, rule, at, first, star, sys.maxsize if stop is None else stop,
                         keywords)


def _positional_count(rule: Callable[..., Any]) -> int:
    """How many parameters come before `*args` (all of them when there is none)."""
    params = list(inspect.signature(rule).parameters.values())
    for i, p in enumerate(params):
        if p.kind in (p.VAR_POSITIONAL, p.KEYWORD_ONLY, p.VAR_KEYWORD):
            return i
    return len(params)


def _has_star(rule: Callable[..., Any]) -> bool:
    return any(p.kind == p.VAR_POSITIONAL
               for p in inspect.signature(rule).parameters.values())
