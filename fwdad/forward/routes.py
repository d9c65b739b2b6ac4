"""Where a call goes that the guard of an optimized rule turns away.

    if _fw_batched(x, n) or n.tangent is _fw_NoTangent:
        return _fw_unoptimized(x, n)        # a Routes: the plain rule, or a variant

Batched tangents go to the plain rule. Arguments with no tangent (an int, a string,
None) go to the optimized rule specialized on that, built on first use and cached by
which parameters have none and whether each is a number: there they are constants, so
`x + n * A` keeps the shape n * A gives (forward/vanishing.py says which parameters the
guard must check). Only named parameters are keys; *args and **kwargs are not checked.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from fwdad.forward import unboxed
from fwdad.tangents import NoTangent

Key = Tuple[Tuple[str, bool], ...]  # (parameter with no tangent, whether a number)
_NUMBERS = (int, float, complex, np.number, np.bool_)


class Routes:
    """The plain rule and the variants of one optimized rule."""

    def __init__(self, plain: Callable, positional: Tuple[str, ...],
                 keywords: Tuple[str, ...],
                 specialize: Optional[Callable[[Key], Callable]] = None) -> None:
        self.plain, self.specialize = plain, specialize
        self.positional, self.keywords = positional, keywords
        self.variants: Dict[Key, Callable] = {}
        self.lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.specialize is None or unboxed.batched(*args, **kwargs):
            return self.plain(*args, **kwargs)
        key = self.key(args, kwargs)
        rule = self.variant(key) if key else self.plain
        return rule(*args, **kwargs)

    def key(self, args: tuple, kwargs: Dict[str, Any]) -> Key:
        found = [(name, _is_number(d.primal)) for name, d in zip(self.positional, args)
                 if d.tangent is NoTangent]
        found += [(name, _is_number(kwargs[name].primal)) for name in self.keywords
                  if name in kwargs and kwargs[name].tangent is NoTangent]
        return tuple(found)

    def variant(self, key: Key) -> Callable:
        rule = self.variants.get(key)
        if rule is None:
            with self.lock:
                rule = self.variants.get(key)
                if rule is None:
                    rule = self.variants[key] = self.specialize(key)
        return rule


def _is_number(value: Any) -> bool:
    """A value that broadcasts to no new shape (the guard let no int array through)."""
    return isinstance(value, _NUMBERS) or (type(value) is np.ndarray and value.ndim == 0)
