"""derive_frule: source -> fence -> normalize -> transform -> compile.

`build_rule(fn)` makes the derived rule of one Python function; the cache in
dispatch.derived_rule calls it once per function. `derive_frule` is the public
decorator: the function still works as before, and `f.frule` is its rule.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import gc
import os
from typing import Any, Callable, Iterator, List, Optional, Tuple

from fwdad import frontend, source
from fwdad.compile import compile_function
from fwdad.core import rebinding
from fwdad.core.lazy_rule import LazyRule
from fwdad.core.rebinding import bound_names
from fwdad.errors import FwdadError, a_type, location_of
from fwdad.forward import defaults
from fwdad.forward.default_aliases import reads_mutable_default
from fwdad.forward.defaults import rule_defaults
from fwdad.forward.field_writes import WritesBack
from fwdad.forward.keyed import KeyedCall
from fwdad.forward.optimizer.optimize import optimize
from fwdad.forward.routes import BATCHED, FIELDS, INSTANCE, KINDS, Key, Routes, unkinded_key
from fwdad.forward.transform.dual_code import plain_rule, transform_lines
from fwdad.masked_arrays import refuse_masked_globals
from fwdad.normalize.instance_params import instance_params
from fwdad.normalize.param_locals import unbox_parameters
from fwdad.source import FunctionSource

# FWDAD_OPTIMIZE=0 in the environment builds every rule without optimizing it (to compare
# with the plain rule when debugging).
OPTIMIZE = os.environ.get("FWDAD_OPTIMIZE", "1") != "0"


def build_rule(fn: Callable[..., Any], optimized: Optional[bool] = None) -> Callable[..., Any]:
    """The derived forward rule of the Python function `fn`.

    Optimized (the default, see OPTIMIZE), the rule is the output of
    forward/optimizer/optimize.py and `rule.unoptimized` is the plain rule, the reference it must
    match; with `optimized=False`, the plain rule itself.

    Raises:
        SourceUnavailableError, UnsupportedSyntaxError: see fwdad.errors.
    """
    with collector_paused():
        return _build_rule(fn, optimized)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Building a rule makes some 10^5 syntax nodes that all stay alive until it is
    compiled: the cyclic garbage collector would trace them, and everything else the
    process holds, several times over for nothing to free. A user's gc.disable() stays."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _build_rule(fn: Callable[..., Any], optimized: Optional[bool]) -> Callable[..., Any]:
    src, normalized = frontend.normalized(fn)
    refuse_masked_globals(src)
    instances = instance_params(normalized)
    tree, constants, lines = transform_lines(normalized, src)
    header = f"forward rule of {src.fn.__qualname__} ({location_of(src.fn)})"
    compile_with = functools.partial(_compile, src.fn, src.cells, src.globals, src.filename)
    build = functools.partial(compile_with, bound=bound_names(normalized))
    free = _frees_temporaries(src)
    if not (OPTIMIZE if optimized is None else optimized):
        rule: Any = build(plain_rule(tree, constants, lines, free), constants.values,
                          header=header)
        rule.unoptimized = rule
    else:
        # (a lambda's plain rule is printed now: it has no text to be read again from)
        kept = None if src.text is not None else plain_rule(tree, constants, lines, free)
        plain = PlainRule(_plain_maker(src, kept, constants.values, compile_with,
                                       header, bound_names(normalized)))
        args = tree.args
        specialize = None if src.text is None else functools.partial(
            _variant, frontend.without_tree(src), compile_with, header, plain)
        routes = Routes(plain, tuple(a.arg for a in args.posonlyargs + args.args),
                        tuple(a.arg for a in args.kwonlyargs), specialize, instances)
        keyed = None if specialize is None else KeyedCall(routes, functools.partial(
            _keyed_variant, frontend.without_tree(src), compile_with, header, plain))
        better = None
        if not reads_mutable_default(src, lines.globals):
            better = optimize(tree, constants, lines, routes, keyed=keyed)
            if better is None and kept is None:
                # the optimizer rewrote the Lines in place before it gave up: the rule
                # left unoptimized is printed from Lines made again
                tree, constants, lines = transform_lines(normalized, src)
        if better is not None:
            rule = build(better, constants.values, header="optimized " + header)
            rule.routes = routes  # callers with constant arguments use its variants
            if keyed is not None:
                keyed.attach(rule)
        else:
            rule = build(kept or plain_rule(tree, constants, lines, free), constants.values,
                         header=header)
        rule.unoptimized = plain
    rule.primal = src.fn
    rule.normalized_source = frontend.text_later(src, normalized)
    return rule


def _frees_temporaries(src: FunctionSource) -> bool:
    """Whether the plain rule frees its temporaries after their last use: an frule's own
    code, differentiated only for second derivatives, so that a temporary that read
    `x.tangent` does not hold that array while a later line widens it
    (fwdad/rules/widening.py; tests/test_batching.py: SECOND_ORDER)."""
    module = getattr(src.fn, "__module__", None) or ""
    return module.startswith(source.RULE_MODULES)


def _compile(fn: Callable[..., Any], cells: dict[Any, Any], globals_: dict[Any, Any],
             filename: str, tree: ast.FunctionDef, constants: dict[Any, Any], header: str,
             bound: dict[str, Any]) -> Callable[..., Any]:
    """The rule function of `tree`, with the defaults of `fn` (forward/defaults.py),
    checking first that the globals in `bound` hold what they held when it was built
    (core/rebinding.py)."""
    tree = rebinding.checked(tree, constants, bound, LazyRule(fn))
    tree, defaults, kwdefaults = rule_defaults(fn, tree, constants)
    return compile_function(tree, constants, cells, globals_, defaults, kwdefaults,
                            filename, header)


def _plain_maker(src: FunctionSource, tree: Any, constants: dict[Any, Any],
                 build: Callable[..., Any], header: str, bound: dict[str, Any]
                 ) -> Callable[[], Callable[..., Any]]:
    """How to make the plain rule when it is first needed: from the def's own text
    again, so that a rule keeps no syntax tree alive (some 10^4 objects for the
    collector to trace, and megabytes); a lambda, with no text of its own, keeps its
    tree and a copy of the constants as they are now (the optimizer binds the plain
    rule among its own: sharing that table would make a reference cycle)."""
    if src.text is None:
        return functools.partial(build, tree, dict(constants), header=header, bound=bound)
    return functools.partial(_plain_rule, frontend.without_tree(src), build, header)


def _plain_rule(src: FunctionSource, build: Callable[..., Callable[..., Any]], header: str
                ) -> Callable[..., Any]:
    with collector_paused():
        # (instances left boxed: the plain rule is the reference the optimized rule,
        # unboxed by normalize/unbox.py, must match)
        fresh, normalized = frontend.normalized_source(
            source.again(src), unboxed=False)  # type: ignore[arg-type]  # (a def)
        tree, constants, lines = transform_lines(normalized, fresh)
        return build(plain_rule(tree, constants, lines, free=_frees_temporaries(fresh)),
                     constants.values, header=header, bound=bound_names(normalized))


def _variant(src: FunctionSource, build: Callable[..., Callable[..., Any]], header: str,
             plain: "PlainRule", key: Key) -> Callable[..., Any]:
    """The optimized rule for calls where the parameters of `key` have no tangent (an
    int argument) or are instances of plain classes (INSTANCE: Routes checked them, so
    it has no guard), made from the def's text again as the plain rule is (a lambda,
    with no text of its own, uses the plain rule)."""
    with collector_paused():
        fresh, normalized = frontend.normalized_source(
            source.again(src))  # type: ignore[arg-type]  # (a def: it has text)
        written = _fields_in_locals(normalized, unkinded_key(key)[0])
        tree, constants, lines = transform_lines(normalized, fresh)
        build = functools.partial(build, bound=bound_names(normalized))
        if reads_mutable_default(fresh, lines.globals):
            return plain
        if key[:1] == BATCHED:  # (and the arguments' kinds, when known)
            better = optimize(tree, constants, lines, plain, batched=True,
                              kinds=dict(key[1:]).get(KINDS))
            return plain if better is None else build(
                better, constants.values, header=f"optimized {header}, for batched tangents")
        key, kinds = unkinded_key(key)
        without = {name: kind for name, kind in key if kind not in (INSTANCE, FIELDS)}
        better = optimize(tree, constants, lines, plain, without, kinds=kinds,
                          checked=len(without) < len(key) or kinds is not None)
        if better is None:
            return plain
        described = [f"{', '.join(names)} {what}" for what, names in _described(key) if names]
        if kinds is not None:
            described.append("arguments of these kinds")
        rule = build(better, constants.values,
                     header=f"optimized {header}, for " + "; ".join(described))
        return WritesBack(rule, plain, written) if written else rule


def _keyed_variant(src: FunctionSource, build: Callable[..., Callable[..., Any]],
                   header: str, plain: "PlainRule", key: Key, keyed: KeyedCall
                   ) -> Optional[Callable[..., Any]]:
    """The variant for the signature in `key` that the general rule tries inline
    (forward/keyed.py): Routes' variant for that key, with a test of it first; None
    where the optimizer gives up on it."""
    with collector_paused():
        fresh, normalized = frontend.normalized_source(
            source.again(src))  # type: ignore[arg-type]  # (a def: it has text)
        tree, constants, lines = transform_lines(normalized, fresh)
        key, kinds = unkinded_key(key)
        better = optimize(tree, constants, lines, plain, dict(key), kinds=kinds,
                          checked=True, keyed=keyed)
        if better is None:
            return None
        described = [f"{', '.join(names)} {what}" for what, names in _described(key) if names]
        return build(better, constants.values, bound=bound_names(normalized),
                     header=f"optimized {header}, for "
                     + "; ".join(described + ["arguments of the kinds its first line tests"]))


def _described(key: Key) -> List[Tuple[str, List[str]]]:
    return [("with no tangent", [n for n, kind in key if kind not in (INSTANCE, FIELDS)]),
            ("given as instances", [name for name, kind in key if kind == INSTANCE]),
            ("given as instances, their fields in locals",
             [name for name, kind in key if kind == FIELDS])]


def _fields_in_locals(normalized: ast.FunctionDef, key: Key) -> List[Tuple[str, int, str]]:
    """Keep the fields of the parameters that `key` marks FIELDS in locals
    (normalize/param_locals.py); (parameter, its position, field) of those written."""
    params = [name for name, kind in key if kind == FIELDS]
    if not params:
        return []
    args = normalized.args
    positions = [a.arg for a in args.posonlyargs + args.args]
    return [(param, positions.index(param) if param in positions else len(positions), field)
            for param, field in unbox_parameters(normalized, params)]


class PlainRule:
    """The rule before optimization, built on first use (batched tangents use it;
    building it eagerly would double the time to build every rule)."""

    def __init__(self, build: Callable[[], Callable[..., Any]]) -> None:
        self.rule: Any
        self.build, self.rule = build, None

    def function(self) -> Callable[..., Any]:
        """The compiled rule, built on first use."""
        if self.rule is None:
            self.rule = self.build()
            self.rule.unoptimized = self.rule
        return self.rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        """`.source` and the other attributes of the rule, building it if need be."""
        if name in ("build", "rule"):
            raise AttributeError(name)
        return getattr(self.function(), name)


def derive_frule(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: `fn` keeps working on plain values; `fn.frule` is its derived rule
    (built on first use, then cached), callable on Duals, with a readable `.source`.

    Example:
        @fwdad.derive_frule
        def f(x):
            return x * math.sin(x)

        print(f.frule.source)

    Raises:
        FwdadError: `fn` is not a function (e.g. `derive_frule(3)`).
    """
    if not callable(fn):
        raise FwdadError(f"derive_frule decorates a function (@fwdad.derive_frule above "
                         f"a def), but got {a_type(fn)}: {fn!r:.60}.")

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)
    wrapper.frule = defaults.EntryRule(fn)  # type: ignore[attr-defined]
    return wrapper
