"""Idioms of ordinary Python the other statements do not draw: recursion, a closure
that rebinds a `nonlocal`, `functools.reduce`, `map` and `sorted(key=)` over arrays, a
class hierarchy whose methods call `super()`, a `while True` loop left by `break` and
skipped through by `continue` on values, `np.select`, and integer index arrays with
repeated indices in `r[idx] += v` and `np.add.at`.

Each program of the `idioms` subset (about one in four of the fuzzer's programs, drawn
from the seed by its own random stream, so the rest of the program is drawn as before;
`generate(seed, idioms=True)`) rebinds one variable through one of them after one of
its top-level statements:

    v3 = idiom_recursive_2(v3, 3)     # calls itself twice more, then returns

Which branch runs and how often a loop turns depends on values only through
quantities kept far from their thresholds (`np.sum(v) + 3.0` against `np.sum(v)`), or
through a count whose switch finite differences detect (the program is then
discarded), so the oracles' references stay valid.
"""
from __future__ import annotations

from typing import List

from tests.fuzz.own_stream import OnceAfter

FRACTION = 4     # one program in FRACTION draws an idiom
SALT = 8861      # the construct's own random stream: random.Random(seed * SALT + 7)

RECURSIVE = ("def {name}(a, n):\n"
             "    if n == 0:\n"
             "        return a\n"
             "    return {name}(np.sin(a) * 0.5 + a * 0.75, n - 1) * 0.9 + 0.1 * a")
NONLOCAL = ("def {name}(a):\n"
            "    acc = a * 0.0\n"
            "    calls = 0\n"
            "\n"
            "    def add(b, w):\n"
            "        nonlocal acc, calls\n"
            "        acc = acc + w * np.tanh(b)\n"
            "        calls += 1\n"
            "\n"
            "    add(a, 0.5)\n"
            "    add(a * a, 0.25)\n"
            "    return acc * calls + a")
REDUCED = ("import functools\n"
           "\n"
           "\n"
           "def {name}(a):\n"
           "    parts = [a, a * 0.5, a + 0.25]\n"
           "    folded = functools.reduce(lambda s, t: s * 0.5 + np.sin(t), parts, a * 0.0)\n"
           "    return folded + sum(map(lambda t: np.cos(t) * 0.25, parts))")
SORTED = ("def {name}(a):\n"
          "    parts = sorted([a + 3.0, a, a - 3.0], key=lambda t: float(np.sum(t)))\n"
          "    return parts[0] * 0.25 + np.tanh(parts[1]) + parts[2] * parts[0] * 0.1")
HIERARCHY = ("class Base{n}:\n"
             "    def __init__(self, scale):\n"
             "        self.scale = scale\n"
             "\n"
             "    def apply(self, a):\n"
             "        return np.sin(a) * self.scale\n"
             "\n"
             "\n"
             "class Shifted{n}(Base{n}):\n"
             "    def __init__(self, scale, shift):\n"
             "        super().__init__(scale)\n"
             "        self.shift = shift\n"
             "\n"
             "    def apply(self, a):\n"
             "        return super().apply(a) + self.shift * a")
LOOPED = ("def {name}(a):\n"
          "    t = 1.0 + 0.5 * math.tanh(float(np.sum(a)))\n"
          "    while True:\n"
          "        t = t * 1.5\n"
          "        if t > 4.0:\n"
          "            break\n"
          "        if t < 2.0:\n"
          "            continue\n"
          "        a = a * 0.75 + np.sin(a) * 0.25 * t\n"
          "    return a")

# (name, module text with {name} and {n}, or None; lines with {name}, {n}, {v}, {w},
# {s}; whether {v} must have shape (3,))
PATTERNS = [
    ("recursive", RECURSIVE, ["{v} = {name}({v}, 3)"], False),
    ("nonlocal", NONLOCAL, ["{v} = {name}({v})"], False),
    ("reduced", REDUCED, ["{v} = {name}({v})"], False),
    ("sorted", SORTED, ["{v} = {name}({v})"], False),
    ("hierarchy", HIERARCHY, ["{w} = Shifted{n}(0.5, {s})", "{v} = {w}.apply({v})"], False),
    ("looped", LOOPED, ["{v} = {name}({v})"], False),
    ("select", None, ["{v} = np.select([{v} > 0.3, {v} < -0.3], "
                      "[np.sin({v}), {v} * {v}], default=0.5 * {v})"], False),
    ("repeated", None, ["{w} = {v} + 0.0",
                        "{w}[np.array([2, 0, 2])] += {v}[::-1] * 0.5",
                        "np.add.at({w}, np.array([1, 1, 0]), {v} * {v})",
                        "{v} = {w}"], True),
]


class Idioms(OnceAfter):
    """Whether and where the program of `seed` gets an idiom, and which one (`only`
    names the one to draw, for measuring one at a time)."""

    def __init__(self, seed: int, enabled: bool, only: str = "") -> None:
        super().__init__(seed, enabled, SALT, 7, FRACTION, "idioms")
        self.pattern = self.rng.choice([p for p in PATTERNS if p[0] == only] or PATTERNS)

    def after_statement(self, g) -> List[str]:
        """The lines of the statement (registering its module text), once."""
        name, text, lines, vector = self.pattern
        names = sorted(v for v, s in g.vars.items() if s == (3,) or not vector)
        if not self.due(g, bool(names)):
            return []
        number = len(g.module)
        helper = f"idiom_{name}_{number}"
        if text is not None:
            g.module.append(text.format(name=helper, n=number))
        v = self.rng.choice(names)
        scalars = sorted(u for u, s in g.vars.items() if s == ())
        shift = self.rng.choice(scalars) if scalars else f"float(np.sum({v}))"
        fields = dict(name=helper, n=number, v=v, w=g.fresh("idiom"), s=shift)
        return [line.format(**fields) for line in lines]
