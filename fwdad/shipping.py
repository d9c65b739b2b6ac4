"""Functions sent to the workers of an executor, and errors sent back.

    shipped = Shipped(f)                 # in the caller: by reference or by value
    executor.submit(run_task, shipped, task)
    run_task(shipped, task)  ->  task.run(f) on the worker, or a Failure

A function that its module can be imported to find (module + qualname) travels by
reference, as pickle sends it: the worker imports the module and reads its source from
there. Any other (defined in `__main__`, in a function, a lambda, a partial, an
instance) travels by value with cloudpickle, together with the lines of its source
file, which the worker puts in its linecache when it has no such file: fwdad builds
rules from source. Each worker builds a function's rules once: functions that came by
value are kept per worker, so the next chunk finds the same function and its rules.

A task that raises returns a `Failure` instead: the caller raises the user's error
again (with the fwdad notes that name the user's line) and the worker's traceback as
its cause, rather than the executor's own wrapper or a pickling error; and an executor
that retries failed tasks (Dask's `retries=`) does not run a deterministic error again.
"""
from __future__ import annotations

import hashlib
import importlib
import linecache
import pickle
import traceback
import types
from typing import Any, Dict, List, Optional, Protocol, Set

from fwdad.errors import FwdadError, ShippingError, WorkerTraceback, describe
from fwdad.probe import probe


class Task(Protocol):
    def run(self, f: Any) -> Any: ...


class Shipped:
    """A function on its way to a worker (see the module's docstring)."""

    def __init__(self, f: Any) -> None:
        self.local: Any = f  # (in the caller's process only: not pickled)
        self.reference: Any = f if importable(f) else None
        self.value: Optional[bytes] = None if self.reference is not None else _by_value(f)
        self.digest = hashlib.sha256(self.value).hexdigest() if self.value else ""
        self.lines = {} if self.value is None else _source_lines(f)
        # cloudpickle renames the files of the code it sends (`<dynamic-code>`): fwdad
        # needs them back, to find the source
        self.files = {} if self.value is None else {
            (fn.__code__.co_name, fn.__code__.co_firstlineno): fn.__code__.co_filename
            for fn in _functions(f)}

    def __getstate__(self) -> Dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "local"}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state, local=None)

    def function(self) -> Any:
        """The function, in the caller or on a worker."""
        if self.local is not None:
            return self.local
        if self.reference is not None:
            return self.reference
        if self.digest not in _ARRIVED:
            for filename, lines in self.lines.items():
                if not linecache.getlines(filename):  # (no such file on this worker)
                    linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)
            arrived = pickle.loads(self.value or b"")
            for fn in _functions(arrived):
                code = fn.__code__
                filename = self.files.get((code.co_name, code.co_firstlineno))
                if filename is not None:
                    fn.__code__ = _renamed(code, filename)
            if len(_ARRIVED) >= KEPT:  # (a long-lived worker: forget the oldest)
                del _ARRIVED[next(iter(_ARRIVED))]
            _ARRIVED[self.digest] = arrived
        return _ARRIVED[self.digest]


_ARRIVED: Dict[str, Any] = {}  # digest -> the function, on a worker: its rules stay cached
KEPT = 64  # functions kept per worker


def importable(f: Any) -> bool:
    """Whether importing f's module and looking up its qualname gives f back."""
    module, qualname = probe(f, "__module__"), probe(f, "__qualname__")
    if not isinstance(module, str) or not isinstance(qualname, str) or \
            module == "__main__" or "<" in qualname:
        return False
    try:
        found = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except Exception:  # (any failure to import or to find it: send it by value)
        return False
    return found is f


def _by_value(f: Any) -> bytes:
    try:
        import cloudpickle
    except ImportError:
        raise ShippingError(
            f"{describe(f)} cannot be sent to the executor's workers by reference (it is "
            f"not found at the top level of an importable module) and cloudpickle is not "
            f"installed to send it by value: `pip install cloudpickle` (fwdad[dask] "
            f"installs it), or define the function at the top level of a module.") from None
    try:
        data: bytes = cloudpickle.dumps(f)
    except Exception as exc:
        raise ShippingError(f"{describe(f)} cannot be sent to the executor's workers: "
                            f"cloudpickle failed with {type(exc).__name__}: {exc}. "
                            f"Define it at the top level of an importable module.") from exc
    return data


def _source_lines(f: Any) -> Dict[str, List[str]]:
    """The lines of the files that f's code comes from, for a worker without them."""
    out: Dict[str, List[str]] = {}
    for fn in _functions(f):
        lines = linecache.getlines(fn.__code__.co_filename)
        if lines:
            out[fn.__code__.co_filename] = lines
    return out


def _functions(f: Any, seen: Optional[Set[int]] = None) -> List[Any]:
    """The Python functions f is made of: itself, a method's or partial's function, a
    callable instance's `__call__`, a transformation's function, and the functions in
    their closures (the local helpers that travel by value with them)."""
    seen = set() if seen is None else seen
    if id(f) in seen:
        return []
    seen.add(id(f))
    if isinstance(f, types.FunctionType):
        cells = [c.cell_contents for c in f.__closure__ or () if _filled(c)]
        return [f] + [fn for value in cells for fn in _functions(value, seen)]
    for attribute in ("__func__", "func", "f"):  # method, partial, fwdad.Transformed
        inner = getattr(f, attribute, None)
        if inner is not None and callable(inner):
            return _functions(inner, seen)
    call = getattr(type(f), "__call__", None)
    return _functions(call, seen) if isinstance(call, types.FunctionType) else []


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # (an empty cell)
        return False
    return True


def _renamed(code: types.CodeType, filename: str) -> types.CodeType:
    """code (and the code nested in it) as compiled from `filename`."""
    consts = tuple(_renamed(c, filename) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


# ---- running on a worker, and errors on the way back -----------------------------------
def run_task(shipped: Shipped, task: Task) -> Any:
    """Run `task` with the shipped function (on a worker); an error comes back as a
    Failure, to be raised again in the caller (`unwrap`)."""
    try:
        return task.run(shipped.function())
    except Exception as exc:
        return Failure(exc)


class Failure:
    """An error raised on a worker: the error itself when it survives pickling (else a
    FwdadError with its type, message and notes), and its traceback as text."""

    def __init__(self, exc: Exception) -> None:
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        try:
            self.error: Exception = pickle.loads(pickle.dumps(exc))
        except Exception:  # (an error whose class cannot be pickled or rebuilt)
            notes = "".join(f"\n{note}" for note in getattr(exc, "__notes__", ()))
            self.error = FwdadError(f"{type(exc).__name__}: {exc}{notes}")


def unwrap(result: Any, where: str) -> Any:
    """A task's result, or its error raised again (with `where` it ran as a note)."""
    if not isinstance(result, Failure):
        return result
    error = result.error
    if hasattr(error, "add_note"):
        error.add_note(f"fwdad: raised on a worker of the executor, {where}")
    raise error from WorkerTraceback(result.text)
