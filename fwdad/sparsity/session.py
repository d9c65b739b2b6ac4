"""One run of sparsity detection: the call hook that routes every primitive to its
sparsity rule, the tangent context for new arrays, and the warnings.

While a session runs, generated code calls a `SparsityCall` for each primitive. A call
whose arguments carry no dependency sets runs the frule as usual; any other runs the
primitive's sparsity rule, or the dense fallback (with a warning once per primitive).
"""
from __future__ import annotations

import contextlib
import threading
import warnings
from contextvars import ContextVar
from typing import Any, Iterator, Optional, Set

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import DenseFallbackWarning, FwdadError, describe, in_user_code
from fwdad.rules.array_like import ListsAsArrays
from fwdad.rules.batching import TangentContext, tangent_context
from fwdad.rules.registry import RuleEntry, call_hook, frule
from fwdad.sparsity import complex_parts, rules, table, unknown
from fwdad.sparsity.deps import Deps


class Session:
    """The mode, the set of every input (the dense row) and the primitives warned of."""

    def __init__(self, mode: str, inputs: int) -> None:
        self.mode, self.every = mode, Deps((1 << inputs) - 1)
        self.warned: Set[Any] = set()

    def warn_dense(self, entry: RuleEntry, why: str) -> None:
        if entry.primal in self.warned:
            return
        self.warned.add(entry.primal)
        at = in_user_code()
        warnings.warn(
            f"jacobian_sparsity: {describe(entry.primal)}{at} "
            f"{why}, so its outputs are taken to depend on every input (a dense row: the "
            f"pattern stays a superset of the true one).", DenseFallbackWarning,
            stacklevel=2)


_SESSION: ContextVar[Optional[Session]] = ContextVar("fwdad_sparsity", default=None)


class SparsityCall:
    """What generated code calls for a primitive while sessions may run."""

    __slots__ = ("entry", "__name__")

    def __init__(self, entry: RuleEntry) -> None:
        self.entry = entry
        self.__name__ = getattr(entry.callable, "__name__", "rule")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        session = _SESSION.get()
        if session is None:  # (another thread, outside the session)
            return self.entry.callable(*args, **kwargs)
        if isinstance(self.entry.callable, ListsAsArrays):  # (lists of sets read as
            args, kwargs = self.entry.callable.converted(  # arrays, the sets stacked)
                args, kwargs, _holds_sets)
        if session.mode == "global":
            _check_indices(self.entry.primal, args)
            if self.entry.primal in _CONVERSIONS:  # (NumPy reads 0-d items by float())
                args = tuple(Dual(unknown.plain(a.primal), a.tangent) for a in args)
        out = self._run(session, args, kwargs)
        if not isinstance(out, Dual):
            return out
        tangent = out.tangent
        if _is_numpy(self.entry.primal):
            tangent = _holding_sets(tangent, args, kwargs)
        if session.mode == "global":
            return Dual(_unknown_result(out.primal, args, kwargs), tangent)
        return out if tangent is out.tangent else Dual(out.primal, tangent)

    def _run(self, session: Session, args: tuple, kwargs: dict) -> Any:
        duals = list(args) + list(kwargs.values())
        if not any(isinstance(a, Dual) and rules.carries_deps(a.tangent) for a in duals) \
                and not table.updates_a_scalar(self.entry, args):
            return self.entry.callable(*args, **kwargs)
        part = complex_parts.part_name(self.entry, args)
        if part is not None:
            return complex_parts.complex_part(args[0], part)
        rule = table.rule_for(self.entry, session.mode)
        if rule is not None and table.updates_in_place(self.entry) and \
                complex_parts.writes_into_a_part(args):
            rule = complex_parts.united(rule)
        if session.mode == "global" and rule is rules.through_frule and \
                self.entry.kind != "nondiff":
            _check_positions(duals)
        if rule is not None:
            try:
                out = rule(self.entry, args, kwargs)
            except FwdadError:
                raise
            except (TypeError, ValueError) as err:  # (a rule that computes with numbers;
                if table.updates_in_place(self.entry):  # a mistake of the user's is raised
                    raise _failed_update(self.entry, err) from err  # by the fallback)
                out = None
            if out is not None:
                return out
            why = "has a rule that cannot follow dependency sets for these arguments"
        else:
            why = "has no sparsity rule"
        # (the warning comes after the call: one that fails, such as cholesky of a matrix
        # that is not positive definite, raises its own error and no warning)
        out = rules.dense(session.every)(self.entry, args, kwargs)
        session.warn_dense(self.entry, why)
        return out



@frule(SparsityCall.__call__)
def _nested_derivative(*args: Any, **kwargs: Any) -> Any:
    """A derivative taken inside the function whose sparsity is being detected (its
    calls then run one level deeper, where dependency sets are not followed)."""
    raise FwdadError(
        f"jacobian_sparsity{in_user_code()}: the function takes a derivative itself "
        f"(fwdad.jvp, grad, jacfwd, ... inside it), which sparsity detection does not "
        f"follow. Pass the pattern as sparsity= (a scipy.sparse matrix or dense bool "
        f"array), or find it with fwdad.jacfwd at a few random points.")

def _failed_update(entry: RuleEntry, err: Exception) -> FwdadError:
    """An in-place update cannot run again as the fallback: it may have written already."""
    at = in_user_code()
    return FwdadError(
        f"jacobian_sparsity: the in-place update {describe(entry.primal)}"
        f"{at} could not follow dependency sets ({err}), and "
        f"cannot run a second time for the fallback. Write it as an assignment of a new "
        f"value (`a = a + b` for `a += b`).")


def _check_indices(fn: Any, args: tuple) -> None:
    """Globally, an index computed from values would move dependencies by value."""
    import operator
    if fn in (operator.getitem, operator.setitem, operator.delitem) and len(args) > 1:
        index = args[1].primal if isinstance(args[1], Dual) else args[1]
        parts = index if isinstance(index, tuple) else (index,)
        if any(isinstance(p, unknown.Unknown) for p in parts):
            unknown.refuse("an index computed from input values")
        if fn is operator.setitem and type(args[0].primal) is np.ndarray and \
                isinstance(args[2].primal, unknown.Unknown):
            unknown.refuse("a value computed from the inputs written into an argument "
                           "that is not differentiated (or a global array)")


_CONVERSIONS = {np.array, np.asarray, np.asanyarray}


def _is_numpy(fn: Any) -> bool:
    """NumPy's functions and methods return new arrays or views, never a value held in
    a container or a field (whose tangent must stay the one held there)."""
    module = getattr(fn, "__module__", None) or ""
    return module.startswith("numpy") or isinstance(fn, np.ufunc) or \
        getattr(fn, "__objclass__", None) in (np.ndarray, np.generic)


def _holding_sets(tangent: Any, args: tuple, kwargs: dict) -> Any:
    """A new float tangent (the zeros of a constant NumPy made, np.array([0.25, 0.5]))
    as one that can hold sets, so that a later update with sets needs no widening
    (which views of it would refuse). Not an argument's tangent, nor a view of one."""
    if type(tangent) is not np.ndarray or tangent.dtype == object or tangent.base is not None:
        return tangent
    if any(getattr(a, "tangent", None) is tangent for a in list(args) + list(kwargs.values())):
        return tangent
    return tangent.astype(object)


def _holds_sets(d: Any) -> bool:
    """Whether d is a list or tuple some of whose items carry dependency sets (a list
    of constants stays as it is: made an array, it would count as unknown)."""
    def held(tangent: Any) -> bool:
        if isinstance(tangent, (list, tuple)):
            return any(held(t) for t in tangent)
        return rules.carries_deps(tangent)
    return isinstance(d, Dual) and isinstance(d.primal, (list, tuple)) and held(d.tangent)


def _unknown_result(primal: Any, args: tuple, kwargs: dict) -> Any:
    """Globally, every array a primitive returns counts as unknown (a constant made
    inside, such as np.zeros(n), may be given input values by an update later), and so
    does a Python float computed from unknown values (by library code that read their
    memory, which the values' own type cannot see)."""
    if type(primal) in (float, complex) and any(
            isinstance(getattr(a, "primal", a), unknown.Unknown)
            for a in list(args) + list(kwargs.values())):
        return np.asarray(primal).view(unknown.Unknown)
    return unknown.unknown(primal)


def _check_positions(duals: list) -> None:
    """Globally, integers or booleans computed from values (argmax, x > 0) that steer
    a move (an index, a mask) would move dependencies by value."""
    for a in duals:
        primal = a.primal if isinstance(a, Dual) else a
        parts = primal if isinstance(primal, (tuple, list)) else (primal,)
        if any(isinstance(p, unknown.Unknown) and p.dtype.kind in "biu" for p in parts):
            unknown.refuse("an index or a mask computed from input values")


class DependencyContext(TangentContext):
    """New arrays get tangents that can hold sets; a plain zero tangent that a value
    with sets is written into becomes one (fwdad/rules/widening.py)."""

    holds_sets = True

    def __init__(self) -> None:
        super().__init__(None)

    def zeros(self, zero: np.ndarray) -> Any:
        return zero.astype(object)

    def needs_widening(self, x: Any, value: Any) -> bool:
        return x.tangent.dtype != object and rules.carries_deps(value.tangent)

    def widen(self, tangent: np.ndarray, value: Any) -> Any:
        return tangent.astype(object)


@contextlib.contextmanager
def running(mode: str, inputs: int) -> Iterator[Session]:
    """Run the body as a sparsity session over `inputs` inputs."""
    if _SESSION.get() is not None:
        raise FwdadError("jacobian_sparsity cannot run inside another jacobian_sparsity "
                         "(of a function that calls it).")
    session = Session(mode, inputs)
    with _ONE_AT_A_TIME:  # (the call hook is the registry's, for every thread)
        token = _SESSION.set(session)
        try:
            with call_hook(_wrapper), tangent_context(DependencyContext()):
                yield session
        finally:
            _SESSION.reset(token)


_ONE_AT_A_TIME = threading.Lock()


_WRAPPERS: dict = {}


def _wrapper(entry: RuleEntry) -> SparsityCall:
    """One SparsityCall per entry (the same object each time a rule binds it)."""
    call = _WRAPPERS.get(id(entry))
    if call is None or call.entry is not entry:
        call = _WRAPPERS[id(entry)] = SparsityCall(entry)
    return call
