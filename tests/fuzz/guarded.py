"""Statements users write around a computation: `try`/`except` (the exception raised
in a helper, on a flag or never), `try`/`finally`, `np.errstate`, a `with` whose
manager suppresses what its body raises (always, after the body updated a local), a
manager of the user's whose `__enter__` gives a value, a string-keyed dict of state,
and a nested helper that returns early.

Each program of the `guarded` subset (about one in four of the fuzzer's programs, drawn
from the seed by its own random stream, so the rest of the program is drawn as before;
`generate(seed, guarded=True)`) rebinds one variable through such a statement after one
of its top-level statements:

    try:
        v3 = checked_2(v3, strict=True)     # raises: the except branch computes v3
    except ValueError:
        v3 = np.tanh(v3) * 0.5 + v3

Which branch runs depends on the code, never on a value near a threshold, so finite
differences stay valid.
"""
from __future__ import annotations

from typing import List

from tests.fuzz.own_stream import OnceAfter

FRACTION = 4     # one program in FRACTION draws a guarded statement
SALT = 7937      # the construct's own random stream: random.Random(seed * SALT + 3)

CHECKED = ("def {name}(a, strict=False):\n"
           "    if strict:\n"
           "        raise ValueError('strict')\n"
           "    return np.sin(a) * 0.5 + a")
NESTED = ("def {name}(a, depth=2):\n"
          "    def inner(b):\n"
          "        if depth > 1:\n"
          "            return np.cos(b) * 0.5 + b\n"
          "        return b * 0.0\n"
          "    return inner(inner(a) * 0.75)")
SUPPRESSED = ("import contextlib\n"
              "\n"
              "SUPPRESS_{name} = contextlib.suppress(ValueError)\n"
              "\n"
              "\n"
              "def {name}(a):\n"
              "    b = a * 0.5\n"
              "    with SUPPRESS_{name}:\n"
              "        b = np.sin(a) * b + a\n"
              "        b = b * math.log(-1.0 - float(np.sum(a * a)))  # (always raises)\n"
              "    return b * 0.75 + a")
ENTERED = ("class Scaled_{name}:\n"
           "    def __init__(self, k):\n"
           "        self.k = k\n"
           "\n"
           "    def __enter__(self):\n"
           "        return self.k * 2.0\n"
           "\n"
           "    def __exit__(self, *exc):\n"
           "        return False\n"
           "\n"
           "\n"
           "def {name}(a):\n"
           "    with Scaled_{name}(a) as s:\n"
           "        b = np.sin(s) * a\n"
           "    return b + s * 0.25")

# (module text with {name}, or None; lines with {name}, {v} and {d})
PATTERNS = [
    (CHECKED, ["try:",
               "    {v} = {name}({v}, strict=True)",
               "except ValueError:",
               "    {v} = np.tanh({v}) * 0.5 + {v}"]),
    (CHECKED, ["try:",
               "    {v} = {name}({v})",
               "except (ValueError, ArithmeticError) as err:",
               "    {v} = {v} * float(len(str(err)))"]),
    (None, ["try:",
            "    {v} = np.sin({v}) + {v} * 0.5",
            "finally:",
            "    {v} = {v} * 0.75"]),
    (None, ["with np.errstate(divide='ignore', invalid='ignore'):",
            "    {v} = {v} / (1.5 + np.cos({v})) + np.log1p({v} * {v})"]),
    (None, ["{d} = {{'scale': 0.5, 'value': {v}}}",
            "{d}['value'] = {d}['value'] * {d}['scale'] + np.sin({d}['value'])",
            "for {k} in sorted({d}):",
            "    {d}[{k}] = {d}[{k}] * 1.25",
            "{v} = {d}.get('value', {v}) + {d}['scale']"]),
    (NESTED, ["{v} = {name}({v})"]),
    (SUPPRESSED, ["{v} = {name}({v})"]),
    (ENTERED, ["{v} = {name}({v})"]),
]


class Guarded(OnceAfter):
    """Whether and where the program of `seed` gets a guarded statement."""

    def __init__(self, seed: int, enabled: bool) -> None:
        super().__init__(seed, enabled, SALT, 3, FRACTION, "guarded")

    def after_statement(self, g) -> List[str]:
        """The lines of the statement (registering its helper with g's module), once."""
        if not self.due(g, bool(g.vars)):
            return []
        text, lines = self.rng.choice(PATTERNS)
        name = f"guarded_{len(g.module)}"
        if text is not None:
            g.module.append(text.format(name=name))
        names = dict(name=name, v=self.rng.choice(sorted(g.vars)), d=g.fresh("state"),
                     k=g.fresh("key"))
        return [line.format(**names) for line in lines]
