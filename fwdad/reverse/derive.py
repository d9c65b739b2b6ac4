"""derive_rrule: source -> fence -> normalize -> reverse transform -> compile.

`build_rrule(fn)` makes the derived reverse rule of one Python function (the cache in
dispatch.derived_rrule calls it once per function), and `build_rrule(fn, key)` the one
for positional arguments of the kinds `key` (specialize.py, once per signature). The
rule runs on reverse values and records on the tape; on plain values it computes what
`fn` computes.
"""
from __future__ import annotations

from typing import Callable, Optional, Tuple

from fwdad import frontend
from fwdad.compile import compile_function
from fwdad.core import rebinding
from fwdad.core.lazy_rule import LazyRule
from fwdad.core.rebinding import bound_names
from fwdad.errors import location_of
from fwdad.reverse import state
from fwdad.reverse.specialize import parameter_kinds
from fwdad.reverse.transform import transform


def build_rrule(fn: Callable, key: Optional[Tuple[str, ...]] = None) -> Callable:
    """The derived reverse rule of the Python function `fn`; with `key`, specialized for
    positional arguments of those kinds (fwdad/reverse/specialize.py).

    Raises:
        SourceUnavailableError, UnsupportedSyntaxError: see fwdad.errors.
    """
    src, normalized = frontend.normalized(fn)
    state.register(src.fn)
    kinds = None if key is None else parameter_kinds(normalized.args, src.fn, key)
    tree, constants = transform(normalized, src, kinds)
    header = f"reverse rule of {src.fn.__qualname__} ({location_of(src.fn)})"
    if kinds:
        header += " for " + ", ".join(f"{k} {v}" for k, v in kinds.items())
    from fwdad.reverse.dispatch import derived_rrule
    tree = rebinding.checked(tree, constants.values, bound_names(normalized),
                             LazyRule(src.fn, derived_rrule))
    rule = compile_function(tree, constants.values, src.cells, src.globals,
                            src.fn.__defaults__ or (), dict(src.fn.__kwdefaults__ or {}),
                            src.filename, header)
    rule.primal = src.fn
    rule.normalized_source = frontend.text_later(src, normalized)
    return rule
