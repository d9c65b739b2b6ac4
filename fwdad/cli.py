"""The `fwdad` command: show the code fwdad generates for a function, or check its rule.

    fwdad show path/to/file.py:func               the derived forward rule (optimized)
    fwdad show path/to/file.py:func --unoptimized the rule before optimization
    fwdad show path/to/file.py:func --normalized  the normalized code it came from
    fwdad show path/to/file.py:func --reverse     the derived reverse rule
    fwdad show path/to/file.py:func --linear --at 0.5 [1.0, 2.0]
                                                  linearize's linear program at that point
    fwdad show path/to/file.py:func --transposed --at 0.5
                                                  the transposed program lin.T runs
    fwdad check path/to/file.py:func --at 0.5 1.2 fwdad.testing.test_rule at that point
    fwdad check path/to/file.py:Class.method --self "Class(1.0)" --at 0.5
                                                  a method, on the instance --self builds
    fwdad --version                               the installed version

The derived forward and reverse rules end with a comment that gives the time their build
took and their size (`# built in 0.012 s: 35 lines, 1210 characters`).

Exit codes: 0 success, 1 the rule failed its check (or could not be built), 2 a usage
error (missing file or function, a point that does not parse, as many values as the
function does not take), reported without a traceback. Bare `fwdad` prints the help and
exits with 2, as argparse does for a missing command.
"""
from __future__ import annotations

import argparse
import ast
import copy
import importlib
import importlib.util
import inspect
import itertools
import os
import sys
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

from fwdad.errors import FwdadError, a_type, describe, location_of, note_user_location
from fwdad.forward import dispatch
from fwdad.rules.registry import get_frule, is_primitive
from fwdad.source import python_function
from fwdad.testing import test_rule
from fwdad.version import installed_version


class UsageError(Exception):
    """A problem with what was asked for: exit code 2, no traceback."""


_serial = itertools.count(1)
_loaded = set()  # module names this command imported files as (it may replace them)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]). Returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:  # bare `fwdad`: the help, as a usage error
        parser.print_help(sys.stderr)
        return 2
    try:
        _target_after_at(args)
        return args.run(args)
    except UsageError as err:
        print(f"fwdad {args.command}: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `fwdad show ... | head`: the reader left; so do we
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fwdad", description="Show or check the derivative code fwdad generates.")
    parser.add_argument("--version", action="version",
                        version=f"fwdad {installed_version()}")
    commands = parser.add_subparsers(dest="command", metavar="{show,check}")
    show = commands.add_parser("show", help="print the derived rule of a function")
    show.add_argument("target", nargs="?", help=_TARGET)
    kind = show.add_mutually_exclusive_group()
    kind.add_argument("--normalized", action="store_true",
                      help="print the normalized code (one operation per line)")
    kind.add_argument("--unoptimized", action="store_true",
                      help="print the rule before optimization (Duals on every line)")
    kind.add_argument("--reverse", action="store_true",
                      help="print the derived reverse rule")
    kind.add_argument("--linear", action="store_true",
                      help="print linearize's linear program at the point --at")
    kind.add_argument("--transposed", action="store_true",
                      help="print the transposed linear program (lin.T) at --at")
    show.add_argument("--at", nargs="+", metavar="VALUE",
                      help="the point of --linear and --transposed, as for `check`")
    show.set_defaults(run=_show)
    check = commands.add_parser("check", help="run fwdad.testing.test_rule at a point")
    check.add_argument("target", nargs="?", help=_TARGET)
    check.add_argument("--at", nargs="+", required=True, metavar="VALUE",
                       help="the arguments, as Python literals: 0.5, [1.0, 2.0] (lists "
                            "become float arrays), 3 (an int: no tangent)")
    check.add_argument("--self", dest="instance", metavar="EXPR",
                       help="for a target Class.method: the instance, as a Python "
                            "expression evaluated in the file's namespace, e.g. "
                            "\"Point(1.0, 2.0)\" (checked with respect to its fields too)")
    check.set_defaults(run=_check)
    return parser


_TARGET = "path/to/file.py:function (or :Class.method, or :instance.method)"


def _target_after_at(args: argparse.Namespace) -> None:
    """`fwdad check --at 0.5 file.py:f`: --at takes every value up to the next option,
    so the target ends up as its last value: take it back."""
    if args.target is None and args.at and _looks_like_target(args.at[-1]):
        args.target = args.at.pop()
    if args.target is None:
        raise UsageError("which function? give path/to/file.py:function")
    if args.at == []:
        raise UsageError("--at needs the values of the arguments")


def _looks_like_target(text: str) -> bool:
    return text.rpartition(":")[0].endswith(".py")


# ---- the commands -------------------------------------------------------------------
def _show(args: argparse.Namespace) -> int:
    fn = load_function(args.target)
    if (args.linear or args.transposed) != bool(args.at):
        raise UsageError("--linear and --transposed need a point (--at ...), and --at "
                         "is for them only")
    try:
        if args.linear or args.transposed:
            text = _linear_source(fn, [parse_value(v) for v in args.at], args.transposed)
        else:
            text = _reverse_source(fn) if args.reverse else \
                _forward_source(fn, args.normalized, args.unoptimized)
            text = text.rstrip("\n") + _built(fn, args)
    except FwdadError as err:
        text = str(err)  # (say which function, unless the message starts with it)
        print(f"fwdad show: {text}" if text.startswith(describe(fn)) else
              f"fwdad show: {describe(fn)}: {text}", file=sys.stderr)
        return 1
    print(text.rstrip("\n"))
    return 0


def _check(args: argparse.Namespace) -> int:
    fn = load_function(args.target)
    point = [parse_value(text) for text in args.at]
    bound = inspect.ismethod(fn) or args.instance is not None
    fn, point = _with_instance(fn, point, args.instance, args.target)
    _check_arity(fn, point, bound)
    shown = ", ".join(args.at)
    try:
        test_rule(fn, *point)
    except (AssertionError, FwdadError) as err:
        print(f"FAIL {describe(fn)} at ({shown})\n{err}")
        return 1
    except Exception as err:  # the function, or its rule, raised at this point
        print(f"FAIL {describe(fn)} at ({shown}): {_who_raised(fn, point)} raised "
              f"{type(err).__name__}: {err}")
        note_user_location(err)
        for note in getattr(err, "__notes__", ()):
            print(note)
        return 1
    print(f"ok   {describe(fn)} at ({shown}): primal output and argument state match a "
          f"plain call; tangents match central finite differences; a batch of 3 "
          f"tangents matches one at a time")
    return 0


def _with_instance(fn: Callable, point: list, instance: Optional[str], target: str
                   ) -> tuple:
    """A method is checked as its function with the instance first, so that the
    instance's fields are differentiated too: `obj.method` gives the instance, and
    `Class.method` takes one from --self."""
    if inspect.ismethod(fn) and python_function(fn) is not None:
        if instance is not None:
            raise UsageError(f"{target} is already bound to an instance: drop --self")
        return fn.__func__, [fn.__self__] + point
    if instance is None:
        return fn, point
    if not inspect.isfunction(fn) or "." not in fn.__qualname__:
        raise UsageError(f"--self is for a method (file.py:Class.method), but "
                         f"{describe(fn)} is not one")
    try:
        value = eval(instance, vars(sys.modules[fn.__module__]))  # the user's own file
    except Exception as err:
        raise UsageError(f"--self {instance!r} failed: {type(err).__name__}: {err}") \
            from None
    return fn, [value] + point


def _check_arity(fn: Callable, point: list, bound: bool) -> None:
    """As many values as the function takes, else a usage error showing its signature."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*point)
    except TypeError as err:
        method = "." in fn.__qualname__ and next(iter(signature.parameters), "") == "self"
        hint = " (for a method, give the instance with --self or name one in the file: " \
               "file.py:obj.method)" if method and not bound else ""
        raise UsageError(f"{describe(fn)}{signature} cannot take {len(point)} value(s) "
                         f"from --at: {err}. Give one value per argument{hint}.") from None


def _who_raised(fn: Callable, point: list) -> str:
    """Tell a function that fails at the point from a rule that fails where the
    function does not."""
    try:
        fn(*copy.deepcopy(point))
    except Exception:
        return "calling it"
    return "its rule (a plain call at this point works)"


def _forward_source(fn: Callable, normalized: bool, unoptimized: bool = False) -> str:
    if is_primitive(fn):
        return _primitive_source(fn, get_frule(fn))
    rule = dispatch.derived_rule(fn)
    if normalized:
        return str(rule.normalized_source)
    return rule.unoptimized.source if unoptimized else rule.source


def _built(fn: Callable, args: argparse.Namespace) -> str:
    """The closing comment of a derived rule shown whole: its build time and size."""
    if args.normalized or args.unoptimized or (not args.reverse and is_primitive(fn)):
        return ""
    from fwdad.reverse import build_rule as reverse_rule
    build = getattr(reverse_rule(fn) if args.reverse else dispatch.derived_rule(fn),
                    "build", None)
    return "" if build is None else f"\n# built in {build}"


def _primitive_source(fn: Callable, rule: Callable) -> str:
    """A primitive has no derived rule: show the registered one."""
    written = getattr(rule, "__wrapped__", rule)
    header = f"# {describe(fn)} is a primitive: calls use its registered frule " \
             f"({location_of(written) or 'no source'})"
    try:
        return f"{header}\n{inspect.getsource(written)}"
    except (OSError, TypeError):
        return header


def _linear_source(fn: Callable, point: list, transposed: bool) -> str:
    """linearize's recorded program at the point, or its transpose."""
    from fwdad.linearize import linearize
    _, lin = linearize(fn, *point)
    return lin.T.source() if transposed else lin.source()


def _reverse_source(fn: Callable) -> str:
    """The derived reverse rule."""
    from fwdad.reverse import build_rule
    return build_rule(fn).source


# ---- reading the command line ---------------------------------------------------------
def load_function(target: str) -> Callable:
    """`path/to/file.py:name` (or `:Class.method`) -> that function.

    The file is imported as a module named after it (its `if __name__ == "__main__"`
    block does not run), with its directory first on sys.path, as `python file.py`
    would have it.

    Raises:
        UsageError: no `:`, no such file, the file fails to import, or no such name.
    """
    path_text, sep, name = target.rpartition(":")
    if not sep or not path_text or not name:
        raise UsageError(f"expected path/to/file.py:function, got {target!r}")
    path = Path(path_text)
    if not path.is_file():
        raise UsageError(f"no such file: {path_text}")
    module = _import_file(path.resolve())
    value: Any = module
    for part in name.split("."):
        if not hasattr(value, part):
            raise UsageError(f"{path_text} has no function {name!r}")
        value = getattr(value, part)
    if not callable(value):
        raise UsageError(f"{path_text}:{name} is {a_type(value)}, "
                         f"not a function")
    return value


def _import_file(path: Path) -> Any:
    name = path.stem
    if not name.isidentifier() or (name in sys.modules and name not in _loaded):
        name = f"_fwdad_cli_{next(_serial)}"  # never shadow a module already imported
    _loaded.add(name)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as err:
        del sys.modules[name]
        raise UsageError(f"importing {path} failed: {type(err).__name__}: {err}") \
            from None
    finally:
        sys.path.remove(str(path.parent))
    return module


def parse_value(text: str) -> Any:
    """A Python literal; lists (nested too) become float64 arrays.

    Raises:
        UsageError: the text is not a literal, or a list is not numbers.
    """
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise UsageError(f"cannot read {text!r} as a value: write a Python literal "
                         f"such as 0.5, [1.0, 2.0] or (1.0, 2)") from None
    return _arrays(value, text)


def _arrays(value: Any, text: str) -> Any:
    if isinstance(value, list):
        try:
            return np.asarray(value, dtype=np.float64)
        except (ValueError, TypeError):
            raise UsageError(f"{text!r}: a list must hold numbers of one shape (it "
                             f"becomes a float array)") from None
    if isinstance(value, tuple):
        return tuple(_arrays(v, text) for v in value)
    if isinstance(value, dict):
        return {k: _arrays(v, text) for k, v in value.items()}
    return value
