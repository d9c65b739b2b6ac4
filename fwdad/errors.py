"""Every exception fwdad raises, under FwdadError.

Each message says what happened (function, types, the user's file and line), why, and
what to do about it. `where` formats the user's location once for all of them.
"""
from __future__ import annotations

import inspect
import types
from typing import Any, Callable, Optional, Set, Tuple

from fwdad.probe import probe


class FwdadError(Exception):
    """Base class of every error fwdad raises on purpose."""


class UnsupportedSyntaxError(FwdadError, SyntaxError):
    """The function uses a construct fwdad cannot differentiate."""


class MissingRuleError(FwdadError):
    """A call has no registered frule and no Python source to derive one from.

    Note: not a TypeError, although it is raised where a call cannot be made: a user's
    `except TypeError:` must not catch it and quietly take a branch the plain function
    would not take."""


class SourceUnavailableError(FwdadError):
    """The function's Python source cannot be found (not a TypeError, as above)."""


class TangentError(FwdadError, ValueError):
    """A tangent does not match its primal in type or shape."""


class SharedTangentError(TangentError):
    """A batched value is written into an array whose unbatched tangent something else
    holds too (a view of it, a list), so a batched tangent could not replace it."""


class NonDifferentiableError(FwdadError, TypeError):
    """A derivative was asked for with respect to a value that has no tangent."""


class SolverError(FwdadError):
    """A SciPy solver fwdad differentiates through reported failure: there is no
    solution to differentiate."""


class UnrecordableError(FwdadError):
    """linearize cannot record what a rule does with a tangent (jvp can compute it)."""


class ImplicitFunctionError(FwdadError):
    """The implicit function theorem gives no derivative of a solver's result here: the
    solve failed, or dF/dx is singular at the solution (for minimize: the Hessian is not
    positive definite)."""


class SparsityPatternError(FwdadError, ValueError):
    """A sparsity pattern given for a sparse Jacobian or Hessian has the wrong shape, or
    misses a nonzero of the derivative."""


class ColoringError(FwdadError, ValueError):
    """A colouring of a sparsity pattern is invalid: two columns (rows) of one colour
    share a row (column), or a Hessian's colouring is not a star colouring."""


class ValueDependentPatternError(FwdadError):
    """jacobian_sparsity(mode="global") met code whose dependencies depend on the
    values of the inputs (a branch, an index or a count computed from them)."""


class InternalErrorWarning(UserWarning):
    """A bug of fwdad's met on one way to a derivative, which another way took exactly
    (forward over forward for forward over reverse): please report it."""


class DenseFallbackWarning(UserWarning):
    """jacobian_sparsity met a primitive without a sparsity rule: its outputs are taken
    to depend on every input (the pattern stays a superset of the true one)."""


class InternalError(FwdadError, RuntimeError):
    """A bug in fwdad: an invariant of ours did not hold. Please report it."""


class ShippingError(FwdadError):
    """A function cannot be sent to the workers of an executor (`executor=`)."""


class WorkerTraceback(FwdadError):
    """The traceback of an error raised on a worker of an executor, as text: the cause
    (`__cause__`) of that error when it is raised again in the caller's process."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return f"\n\n(on the worker)\n{self.text}"


def describe(fn: Any) -> str:
    """A short, recognizable name for a callable: `module.qualname`."""
    module = probe(fn, "user_module") or probe(fn, "__module__")
    name = probe(fn, "__qualname__") or probe(fn, "__name__")
    if name is None:
        return repr(fn)
    owner = probe(fn, "__self__")
    if isinstance(fn, type(print)) and owner is not None and not inspect.ismodule(owner):
        owner = type(owner)
        return f"{owner.__module__}.{owner.__qualname__}.{fn.__name__}"
    return f"{module}.{name}" if module and module != "builtins" else name


def a_type(value: Any) -> str:
    """The type of `value` with its article, for messages: "an int", "a float", "an
    ndarray" (said "en-dee-array")."""
    name = type(value).__name__
    vowel = name[:1].lower() in "aeiou" or name.startswith("nd")
    return f"{'an' if vowel else 'a'} {name}"


def where(filename: Optional[str], lineno: Optional[int]) -> str:
    """`file.py:12` for messages; empty when the location is unknown."""
    if not filename:
        return ""
    return f"{filename}:{lineno}" if lineno else filename


def location_of(fn: Callable[..., Any]) -> str:
    """The file and first line of a Python function, when it has them."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:
        return ""
    return where(code.co_filename, code.co_firstlineno)


def masked_array_error(x: Any, what: str = "a value") -> FwdadError:
    """A numpy.ma.MaskedArray of floats met where a derivative is computed (`what`: the
    argument it is): NumPy's masked operations leave masked entries out, which the
    rules, written for plain arrays, do not, so the derivative would count them."""
    line = in_user_code()
    return FwdadError(
        f"{what} is a numpy.ma.MaskedArray (shape {x.shape})"
        f"{line}: its operations leave the masked entries out, "
        f"and the derivative rules, written for plain arrays, would count them (a wrong "
        f"derivative), so fwdad does not differentiate masked arrays, in either mode. "
        f"Pass plain arrays (np.ma.getdata(x), and np.ma.getmaskarray(x) as a bool "
        f"array) and write the masking with np.where or boolean indexing.")


def current_user_location() -> str:
    """`file.py:12` of the user's line that the innermost generated code running now
    comes from (for errors a rule raises); empty when none is running."""
    found = _running_user_line()
    return where(*found[:2]) if found else ""


def in_user_code() -> str:
    """` in f at file.py:12`: the user's function and line that the innermost generated
    code running now comes from, as every message a rule raises names them (` at
    file.py:12` when the function is not known; empty when no generated code runs).

        raise FwdadError(f"scipy.integrate.quad{in_user_code()}: fwdad does not ...")
    """
    found = _running_user_line()
    return user_code(found[2], found[0], found[1]) if found else ""


def user_code(function: Optional[str], filename: Optional[str],
              lineno: Optional[int]) -> str:
    """` in f at file.py:12`, the phrase by which messages name the user's function,
    file and line (what is not known is left out)."""
    at = where(filename, lineno)
    return (f" in {function}" if function else "") + (f" at {at}" if at else "")


def _running_user_line() -> Optional[Tuple[Any, ...]]:
    """(file, line, function) of the user's line that the innermost generated code
    running now comes from: the user's own code before fwdad's (see `_fwdads_own`)."""
    import sys

    from fwdad.compile import user_function, user_location
    frame: Optional[types.FrameType] = sys._getframe(2)
    own = None
    while frame is not None:
        hit = _through_rules(user_location, frame.f_code.co_filename, frame.f_lineno,
                             user_function)
        if hit is not None and not _fwdads_own(hit[0]):
            return hit
        own = own or hit
        frame = frame.f_back
    return own


def _fwdads_own(filename: str) -> bool:
    """A line of fwdad's own code (a reverse rule differentiated in forward mode, a rule
    of a rule): errors name the user's line that reached it instead
    (tests/reverse/test_user_state.py::test_a_refused_global_write_names_the_users_line)."""
    import os
    return filename.startswith(os.path.dirname(__file__) + os.sep)


def _through_rules(user_location: Callable[[str, int], Optional[Tuple[Any, ...]]],
                   filename: str, lineno: int,
                   user_function: Optional[Callable[[str], Optional[str]]] = None
                   ) -> Optional[Tuple[Any, ...]]:
    """The user's line a line of generated code comes from. A rule of a rule (second
    order) comes from a generated rule's line: followed back to the user's own. With
    `user_function`, (file, line, the user's function)."""
    hit = user_location(filename, lineno)
    while hit is not None and hit[0].startswith("<fwdad "):
        further = user_location(*hit)
        if further is None:
            break
        filename, hit = hit[0], further
    if hit is None or user_function is None:
        return hit
    return hit[0], hit[1], user_function(filename)


def note_user_location(exc: BaseException) -> None:
    """Add a note to an exception raised inside generated code, naming the user's file
    and line it comes from (Python 3.11 and later show notes in tracebacks)."""
    from fwdad.compile import user_location
    tb, found, own = exc.__traceback__, None, None
    while tb is not None:  # the innermost generated frame of the user's code wins
        hit = _through_rules(user_location, tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        if hit is not None and _fwdads_own(hit[0]):
            own, hit = hit, None
        found = hit or found
        tb = tb.tb_next
    found = found or own
    if found is None or not hasattr(exc, "add_note"):
        return
    filename, lineno = found
    note = f"fwdad: raised in the derivative of {where(filename, lineno)}"
    if note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)


def global_holding(array: Any) -> Optional[str]:
    """The name of a global or closure variable of the user's code running now that
    holds `array` (or the array it is a view of), for a message; None when none does.
    Generated rules run with their function's globals and closure cells."""
    import sys
    if array is None:
        return None
    wanted = {id(array), id(getattr(array, "base", None) if getattr(array, "base", None)
                          is not None else array)}
    frame: Optional[types.FrameType] = sys._getframe(1)
    seen = set()
    while frame is not None:
        scope = frame.f_globals
        if id(scope) not in seen and \
                not str(scope.get("__name__", "")).startswith(_LIBRARY_NAMES):
            seen.add(id(scope))  # (a module's globals: alive, so its id stays its own)
            found = _named(scope, wanted)
            if found:
                return found
        if frame.f_code.co_filename.startswith("<fwdad "):  # (its closure cells)
            local = frame.f_locals
            found = _named({n: local.get(n) for n in frame.f_code.co_freevars}, wanted)
            if found:
                return found
        frame = frame.f_back
    return None


def _named(scope: Any, wanted: Set[int]) -> Optional[str]:
    for name, value in list(scope.items()):
        if id(value) in wanted and not name.startswith("_fw"):
            return str(name)
    return None


_LIBRARY_NAMES = ("fwdad", "numpy", "scipy")
