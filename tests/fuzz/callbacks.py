"""NumPy's helpers that call back into Python, which the other statements do not draw:
`np.vectorize` of a lambda that closes over a value, of a helper with a default, as a
decorator, with `otypes=` and `excluded=`; `np.apply_along_axis` with results of each
rank; `np.apply_over_axes`; `np.piecewise` with lambdas, a constant and extra
arguments; loops over `np.ndindex` and `np.ndenumerate` that read and write items;
`np.fromfunction` of lambdas that close over values or index them; `np.fromiter` of a
generator; `.tolist()` read back through `math.fsum` and `np.array`.

Each program of the `callbacks` subset (about one in four of the fuzzer's programs,
drawn from the seed by its own random stream, so the rest of the program is drawn as
before; `generate(seed, callbacks=True)`) rebinds one variable through one of them
after one of its top-level statements:

    v3 = np.vectorize(lambda a: math.sin(a) * x1 + a * a)(v3) + ...
    ...
    return <the output> + 0.25 * np.sum(v3)

The conditions the callbacks branch on hold for constants (every other item, by
position) or for values far from them (`a > 1e6`), so the oracles' references stay
valid.
"""
from __future__ import annotations

import random

from tests.fuzz.own_stream import OncePattern

FRACTION = 4     # one program in FRACTION draws a callback
SALT = 7229      # the construct's own random stream: random.Random(seed * SALT + 29)

HELPER = ("def {name}(a, k=0.5):\n"
          "    if a > 1e6:\n"
          "        return a\n"
          "    return math.tanh(a) * k + a * 0.5\n"
          "\n"
          "\n"
          "@np.vectorize\n"
          "def wave_{n}(a, k=0.25):\n"
          "    return math.sin(a) * k + a * a * 0.5")
ROWS = ("def {name}(row, k):\n"
        "    return np.sin(row) * k + row[::-1] * row[0]")
# every other item, by position: a condition that holds for constants
EVERY_OTHER = "np.arange(np.size({v})).reshape(np.shape({v})) % 2 == 0"

# (name, module text with {name} and {n}, or None; lines with {name}, {n}, {v}, {w},
# {t}, {k} and {s}; the shapes {v} may have: "any", "array" or "vector")
PATTERNS = [
    ("vectorized", HELPER, ["{w} = np.vectorize(lambda a: math.sin(a) * {s} + a * a)",
                            "{v} = {w}({v}) * 0.5 + np.vectorize({name})({v}, {s}) + "
                            "wave_{n}({v}) + wave_{n}({v}, {s})"], "any"),
    ("vectorized_options", HELPER, ["{w} = np.vectorize({name}, otypes=[float])",
                                    "{t} = np.vectorize(lambda a, table: a * table[1] + "
                                    "table[0], excluded={{1}})",
                                    "{v} = {w}({v}) + {t}({v}, [{s}, 0.5]) * 0.5"], "any"),
    ("along_axis", ROWS, ["{w} = np.apply_along_axis({name}, -1, {v}, {s})",
                          "{t} = np.apply_along_axis(lambda row: np.sum(row * row) + row[0] "
                          "* {s}, -1, {v})",
                          "{v} = {w} * 0.5 + np.expand_dims({t}, -1) * 0.25"], "array"),
    ("along_outer", None, ["{w} = np.apply_along_axis(lambda row: np.outer(row, "
                           "np.cos(row)), 0, np.stack([{v}, {v} * 0.5]))",
                           "{v} = {v} * 0.5 + {w}[0, 1] * 0.25 + {w}[1, 0]"], "vector"),
    ("over_axes", None, ["{w} = np.apply_over_axes(np.sum, {v} * {v}, [0])",
                         "{v} = {v} + {w} * 0.25 + np.apply_over_axes(np.cumsum, np.sin({v}), "
                         "-1) * 0.5"], "array"),
    ("indices", None, ["{w} = np.zeros(np.shape({v}))",
                       "for {t} in np.ndindex(np.shape({v})):",
                       "    {w}[{t}] = np.sin({v}[{t}]) * (sum({t}) + 1.0) + {s} * 0.25",
                       "{k} = 0.0",
                       "for {t} in np.ndindex(2, 2):",
                       "    {k} = {k} + np.sum({w}) * ({t}[0] - {t}[1] + 0.5)",
                       "{v} = {w} + {k} * 0.1"], "array"),
    ("fromfunction", None, ["{w} = np.fromfunction(lambda i, j: np.sin({s} * (i + 1.0)) * "
                            "(j + 0.5) + i * j, (2, 3))",
                            "{v} = {v} * 0.5 + np.sum({w} * {w}, axis=0) * 0.25 + "
                            "np.fromfunction(lambda i: {v}[i.astype(int)] * (i + 1.0), "
                            "(3,))"], "vector"),
    ("enumerated", None, ["{w} = {v} * 0.0",
                          "for {t}, {k} in np.ndenumerate({v}):",
                          "    {w}[{t}] = np.sin({k}) * (sum({t}) + 1.0) + {k} * {s}",
                          "{v} = {w} * 0.5 + {v}"], "array"),
    ("fromiter", None, ["{w} = np.fromiter((np.sin(a) * {s} + a for a in np.ravel({v})), "
                        "dtype=float, count=np.size({v}))",
                        "{v} = {w}.reshape(np.shape({v})) + {v} * 0.5"], "any"),
    ("tolist", None, ["{w} = np.ravel({v}).tolist()",
                      "{v} = {v} * 0.5 + math.fsum(a * a for a in {w}) * 0.1 + "
                      "np.array({w}).reshape(np.shape({v})) * {s}"], "any"),
]
# Drawn from a stream of their own (LATER_SALT), in one program of the construct in
# len(PATTERNS) + len(LATER), in place of the pattern drawn above: a pattern added later
# leaves the draw of every other program as it was (tests/fuzz/test_callbacks.py).
# np.piecewise with lambdas and extra arguments was left out until batched_jvp(grad(f))
# through it worked (a ValueError in rules/batching.fit: fuzz seed 100,159,606).
LATER = [
    ("piecewise", None, ["{w} = np.piecewise({v}, [" + EVERY_OTHER + "], [lambda a, k: "
                         "np.sin(a) * k + a, lambda a, k: a * a * 0.5 + k], {s})",
                         "{v} = {w} + np.piecewise({v} * 0.5, [" + EVERY_OTHER + ", ~(" +
                         EVERY_OTHER + ")], [0.25, lambda a: np.cos(a)])"], "any"),
]
LATER_SALT = 31
SHAPES = {"any": [(), (3,), (2, 3)], "array": [(3,), (2, 3)], "vector": [(3,)]}


class Callbacks(OncePattern):
    """Whether and where the program of `seed` gets a callback, and which one
    (`only` names the one to draw, for measuring one at a time)."""

    PATTERNS, SHAPES, FRESH = PATTERNS, SHAPES, ("w", "t", "k")
    PREFIX, HELPER = "cb", "callback"

    def __init__(self, seed: int, enabled: bool, only: str = "") -> None:
        super().__init__(seed, enabled, SALT, 29, FRACTION, "callbacks", only)
        later = random.Random(seed * SALT + LATER_SALT)
        named = [p for p in LATER if p[0] == only]
        if named or not only and \
                later.randrange(len(PATTERNS) + len(LATER)) >= len(PATTERNS):
            self.pattern = named[0] if named else later.choice(LATER)
