"""Forward mode's derived-rule and runtime-rule caches.

Derived rules are built once per Python function and kept while the function lives.
The runtime cache maps what a dynamic call site meets (a function, a method of a type,
a class) to how to call it, so each callee is resolved once.
"""
from __future__ import annotations

from typing import Any, Callable, Dict

from fwdad.core.rule_cache import RuleCache

derived_rules = RuleCache(weak=True)  # Python function -> its derived rule
runtime_rules: Dict[Any, Callable] = {}  # callee key -> how to call it (dispatch.py)
