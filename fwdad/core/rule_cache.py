"""A cache of rules with hit and miss counters, safe under threads: forward mode's
derived rules (forward/cache.py) and reverse mode's (reverse/dispatch.py) are two.

    rules = RuleCache(weak=True)       # kept while the function lives
    rule = rules.get(fn, build_rule)   # built once, on the first miss
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any, Callable

from fwdad.buildlog import timed_build


@dataclass
class Counters:
    hits: int = 0
    misses: int = 0


class RuleCache:
    """A cache from keys to rules that counts hits and misses."""

    def __init__(self, weak: bool) -> None:
        self._rules = weakref.WeakKeyDictionary() if weak else {}
        self.counters = Counters()
        # One thread builds a missing rule while the others wait for it, so that each
        # function gets one rule and the counters stay exact under threads (a
        # re-entrant lock: building one rule may build the rules of its callees).
        self._building = threading.RLock()

    def get(self, key: Any, build: Callable[[Any], Any]) -> Any:
        try:
            rule = self._rules.get(key)
        except TypeError:  # neither hashable nor weakly referenceable: do not cache
            with self._building:
                self.counters.misses += 1
            return timed_build(build, key)
        with self._building:
            if rule is None:
                rule = self._rules.get(key)  # built by another thread meanwhile?
            if rule is None:
                self.counters.misses += 1
                rule = self._rules[key] = timed_build(build, key)
            else:
                self.counters.hits += 1
        return rule

    def clear(self) -> None:
        self._rules.clear()
        self.counters = Counters()

    def __contains__(self, key: Any) -> bool:
        try:
            return key in self._rules
        except TypeError:
            return False
