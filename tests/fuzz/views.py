"""Views written through and read after, and aliased arguments: `.T`, `reshape`,
`ravel`, `np.swapaxes` and stepped slices written in place (of a copy, of an array made
from constants, of an argument itself); the same array passed to a helper twice, or
with a view of it; a dataclass whose array field a helper writes row by row; `np.put`
and `np.take` with repeated indices; boolean masks assigned into; a generator with a
condition.

Each program of the `views` subset (about one in four of the fuzzer's programs, drawn
from the seed by its own random stream, so the rest of the program is drawn as before;
`generate(seed, views=True)`) rebinds one array variable after one of its top-level
statements:

    view4 = v2 * 1.0
    view4.T[1, 0] = np.sin(v2[0, 1])        # writes view4[0, 1]
    v2 = v2 + 0.5 * view4

No branch depends on a value: masks and conditions are constants or far from their
thresholds, so the oracles' references stay valid.
"""
from __future__ import annotations

from typing import List

from tests.fuzz.own_stream import OnceAfter

FRACTION = 4     # one program in FRACTION draws a view statement
SALT = 9337      # the construct's own random stream: random.Random(seed * SALT + 11)

ALIASED = ("def {name}(a, b):\n"
           "    a[...] = a * 0.5 + np.sin(b)\n"
           "    return a + b * 0.25")
FIELDS = ("import dataclasses\n"
          "\n"
          "\n"
          "@dataclasses.dataclass\n"
          "class ViewBox{n}:\n"
          "    a: np.ndarray\n"
          "    scale: float = 0.5\n"
          "\n"
          "\n"
          "def {name}(box, v):\n"
          "    for k in range(box.a.shape[0]):\n"
          "        box.a[k] = box.a[k] * box.scale + np.cos(v[k])\n"
          "        box.scale = box.scale * 1.25\n"
          "    return box")

# (module text with {name} and {n}, or None; lines with {name}, {n}, {v}, {w}, {t};
# the shape {v} must have: "matrix" (2, 3), "vector" (3,) or "array" (either))
PATTERNS = [
    (None, ["{w} = {v} * 1.0", "{w}.T[1, 0] = np.sin({v}[0, 1])", "{v} = {v} + 0.5 * {w}"],
     "matrix"),
    (None, ["{w} = {v} + 0.0", "{w}.reshape(-1)[::2] *= 0.5 + {v}.reshape(-1)[1::2] ** 2",
            "{v} = {w}"], "array"),
    (None, ["{w} = {v} * 1.0", "{t} = np.swapaxes({w}, 0, 1)",
            "{t}[::2, 1] += {v}[1, ::2] * {v}[0, 0]", "{v} = {w} + {t}.T * 0.5"], "matrix"),
    (None, ["{w} = {v} - 0.25", "{t} = {w}.ravel()",
            "{t}[1::2] = np.tanh({t}[::2][:{t}[1::2].size])", "{v} = {w} * {v}"], "array"),
    (None, ["{w} = np.linspace(0.5, 1.5, 6).reshape(2, 3)", "{w}.T[2] = {v}[:, 0] ** 2",
            "{v} = {v} * {w}"], "matrix"),
    (None, ["{w} = np.ones(({v}.size,)) * 0.5", "{t} = {w}.reshape({v}.shape)",
            "{t}[...] += np.cos({v})", "{v} = {v} + {w}.reshape({v}.shape)"], "array"),
    (None, ["{w} = {v} * 2.0", "{w}.reshape(-1)[::-2] = {v}.ravel()[:{w}[::2].size]",
            "{v} = {w}.T.T * 0.5"], "array"),
    (None, ["{v}.reshape(-1)[::2] += 0.25 * np.sin({v}.reshape(-1)[1::2])"], "array"),
    (ALIASED, ["{w} = {v} * 1.0", "{t} = {name}({w}, {w})", "{v} = {t} + {w}"], "array"),
    (ALIASED, ["{w} = {v} + 0.5", "{t} = {name}({w}, {w}[::-1])", "{v} = {t} * {w}"],
     "vector"),
    (ALIASED, ["{w} = {v} * 1.0", "{t} = {name}({w}.T, {w}.T)", "{v} = {t}.T - {w}"],
     "matrix"),
    (FIELDS, ["{w} = {name}(ViewBox{n}({v} * 1.0), {v})", "{v} = {w}.a * {w}.scale + {v}"],
     "array"),
    (None, ["{w} = {v} * 1.0", "np.put({w}, np.array([0, 2, 0]), {v}.ravel()[:3] * 1.5)",
            "{v} = {v} + np.take({w}, np.array([[2, 1, 0], [0, 0, 5]]))"], "matrix"),
    (None, ["{w} = {v} * 1.0", "np.put({w}, np.array([2, 0, 2]), np.exp({v} * 0.5))",
            "{v} = {w} + np.take({v}, np.array([2, 2, 0]))"], "vector"),
    (None, ["{w} = np.where(np.array([True, False, True]), {v}, 0.5 * {v})",
            "{w}[np.array([True, False, True])] *= {v}[1]",
            "{w}[np.abs({v}) > np.abs({v}).max() + 10.0] = 0.0", "{v} = {w}"], "vector"),
    (None, ["{w} = {v} * 1.0",
            "{w}[np.array([[False, True, False], [True, False, True]])] = np.cos({v}[0])",
            "{v} = {w} * {v}"], "matrix"),
    (None, ["{v} = {v} + sum(np.sin({v} * k) for k in range(4) if k % 2 == 1) * 0.5",
            "{v} = {v} * sum(1.0 for t in {v}.ravel() if t > -1e6) / {v}.size"], "array"),
]
SHAPES = {"matrix": [(2, 3)], "vector": [(3,)], "array": [(2, 3), (3,)]}


class Views(OnceAfter):
    """Whether and where the program of `seed` gets a view statement, and which one
    (`only`, an index into PATTERNS, draws that one, for measuring one at a time)."""

    def __init__(self, seed: int, enabled: bool, only: int = -1) -> None:
        super().__init__(seed, enabled, SALT, 11, FRACTION, "views")
        self.pattern = PATTERNS[only] if only >= 0 else self.rng.choice(PATTERNS)

    def after_statement(self, g) -> List[str]:
        """The lines of the statement (registering its module text), once, where a
        variable of the shape it needs exists."""
        text, lines, kind = self.pattern
        names = sorted(v for v, s in g.vars.items() if s in SHAPES[kind])
        if not self.due(g, bool(names)):
            return []
        number = len(g.module)
        helper = f"view_helper_{number}"
        if text is not None:
            g.module.append(text.format(name=helper, n=number))
        fields = dict(name=helper, n=number, v=self.rng.choice(names), w=g.fresh("view"),
                      t=g.fresh("view"))
        return [line.format(**fields) for line in lines]
