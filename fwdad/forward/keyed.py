"""The variant an optimized rule runs for calls with every argument active, keyed on kinds.

    def f_frule(x, a):
        if _fw_batched(x, a) or ...:            # the guard: forward/optimizer/guard.py
            return _fw_unoptimized(x, a)
        if _fw_keyed is not None:               # a KeyedCall, then a variant, or None
            _fw_keyed_out = _fw_keyed(x, a)
            if _fw_keyed_out is not _fw_MISS:
                return _fw_keyed_out
        ...                                     # the general body: no kinds known

Calls the guard lets through (unbatched, every checked parameter with a tangent) would
run the general body, which knows no kinds: a NumPy template that needs an array or a
float stays a rule call there. The first such call decides, once: it builds the variant
for its own signature (which parameters have no tangent, and the kinds of the
positional arguments: forward/routes.py builds the same for the calls it keys), with
an inline test of that signature as its first line (forward/optimizer/kind_tests.py),
and keeps it in the rule's `_fw_keyed` cell where the variant has fewer rule calls
than the general body; else None, and the general body runs as before. Later calls of
that signature run the variant after a test of some 50 ns (kinds.signature costs
microseconds); calls of other kinds get MISS back and run the general body. A rule
that makes no rule call (every line inlined) has nothing to gain and no such lines. A
first call whose kinds no inline test decides (a list, an instance), or a rule that has
met _MAX_VARIANTS signatures, keeps the general body.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Optional

from fwdad.forward.optimizer import kinds
from fwdad.forward.optimizer.kind_tests import MISS, keyable
from fwdad.forward.routes import KINDS, Key, Routes


class KeyedCall:
    """The first call into a general rule's keyed variant: builds it or declines."""

    def __init__(self, routes: Routes,
                 build: Callable[[Key, "KeyedCall"], Optional[Callable]]
                 ) -> None:
        self.routes, self.build = routes, build
        self.name: Optional[str] = None  # the rule's name for it (kind_tests.entry)
        self.cell: Any = None  # that name's cell in the compiled rule
        self.general_calls = 0  # the rule calls left in the general body
        self.variant_calls = 0  # and in the variant (set by each build)
        self.lock = threading.Lock()

    def attach(self, rule: Callable) -> None:
        """Find the cell of the compiled general rule that holds this object."""
        code = rule.__code__
        if self.name is not None and self.name in code.co_freevars:
            self.cell = rule.__closure__[code.co_freevars.index(self.name)]  # type: ignore

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            rule = self.cell.cell_contents
            if rule is self:
                rule = self.decide(args, kwargs)
                self.cell.cell_contents = rule
        return MISS if rule is None else rule(*args, **kwargs)

    def decide(self, args: tuple, kwargs: Dict[str, Any]) -> Optional[Callable]:
        """The variant for the signature of this call, or None where it gains nothing."""
        routes = self.routes
        named = len(routes.positional)
        if len(args) < named or routes.full():
            return None
        signature = kinds.signature(args[:named])
        if not all(keyable(kind) for kind in signature):
            return None
        rule = self.build(routes.key(args, kwargs) + ((KINDS, signature),), self)
        return rule if rule is not None and self.variant_calls < self.general_calls else None
