"""Helpers that keep state between calls: mutable defaults, globals, closures, caches.

Each program of the `state` subset (about one in three of the fuzzer's programs, drawn
from the seed by its own random stream, so the rest of the program is drawn as before;
`generate(seed, stateful=True)`) rebinds one variable
through such a helper after one of its top-level statements:

    def stash_0(a, memo={}):                 # a mutable default, written then read
        memo['last'] = a * 1.0
        return memo['last'] + 0.5 * np.sin(memo['last'])
    ...
        v3 = stash_0(v3)

Every pattern writes the state before it reads it, so the plain function gives the same
result at every call: the repeat oracle then asks the same of every derivative. Writes
of a derivative into a global, a closure's container or a global object's field are
refused by fwdad (a clear error), and must stay refused at every call.
"""
from __future__ import annotations

from typing import List

from tests.fuzz.own_stream import OnceAfter

FRACTION = 3     # one program in FRACTION has a stateful helper
SALT = 7919      # the state's own random stream: random.Random(seed * SALT + 1)

# name -> (module text with {name} and {shape}, the call lines with {name} and {v})
PATTERNS = {
    "memo_default": ("def {name}(a, memo={{}}):\n"
                     "    memo['last'] = a * 1.0\n"
                     "    return memo['last'] + 0.5 * np.sin(memo['last'])",
                     ["{v} = {name}({v})"]),
    "list_default": ("def {name}(a, acc=[]):\n"
                     "    acc.clear()\n"
                     "    acc.append(a)\n"
                     "    acc.append(np.tanh(a))\n"
                     "    return acc[0] * 0.75 + acc[-1] * 0.25",
                     ["{v} = {name}({v})"]),
    "buffer_default": ("def {name}(a, buf=np.zeros({shape})):\n"
                       "    buf[...] = a\n"
                       "    buf *= 0.5\n"
                       "    return buf + np.cos(a) * 0.1",
                       ["{v} = {name}({v})"]),
    "put_then_get": ("def {name}(a, memo={{}}, put=True):\n"
                     "    if put:\n"
                     "        memo['x'] = a * 1.0\n"
                     "        return a\n"
                     "    return memo['x'] * 0.5 + a",
                     ["{v} = {name}({v} * {v})", "{v} = {name}(np.sin({v}), put=False)"]),
    "global_counter": ("CALLS_{name} = {{'n': 0}}\n\n\n"
                       "def {name}(a):\n"
                       "    CALLS_{name}['n'] += 1\n"
                       "    return a * 1.0 + 0.0 * min(CALLS_{name}['n'], 1)",
                       ["{v} = {name}({v})"]),
    "global_scratch": ("SCRATCH_{name} = np.zeros({shape})\n\n\n"
                       "def {name}(a):\n"
                       "    SCRATCH_{name}[...] = a\n"
                       "    return SCRATCH_{name} * 2.0",
                       ["{v} = {name}({v})"]),
    "closure_store": ("def make_{name}():\n"
                      "    store = {{}}\n\n"
                      "    def stash(a):\n"
                      "        store['a'] = a\n"
                      "        return store['a'] * 0.5 + np.sin(a)\n"
                      "    return stash\n\n\n"
                      "{name} = make_{name}()",
                      ["{v} = {name}({v})"]),
}
WEIGHTS = {"memo_default": 2, "list_default": 2, "buffer_default": 2, "put_then_get": 2,
           "global_counter": 1, "global_scratch": 1, "closure_store": 1}


class State(OnceAfter):
    """Whether and where the program of `seed` gets a stateful helper."""

    def __init__(self, seed: int, enabled: bool) -> None:
        super().__init__(seed, enabled, SALT, 1, FRACTION, "state")

    def after_statement(self, g) -> List[str]:
        """The lines that call the helper (registering it with g's module), once."""
        if not self.due(g, bool(g.vars)):
            return []
        pattern = self.rng.choices(list(WEIGHTS), list(WEIGHTS.values()))[0]
        v = self.rng.choice(sorted(g.vars))
        text, calls = PATTERNS[pattern]
        name = f"stash_{len(g.module)}"
        g.module.append(text.format(name=name, shape=g.vars[v]))
        return [line.format(name=name, v=v) for line in calls]
