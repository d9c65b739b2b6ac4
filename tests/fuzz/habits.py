"""Habits of numerical code the other statements do not draw: staticmethods and
classmethods, objects called through `__call__`, `functools.partial` of a helper,
default arguments computed from module constants, dict comprehensions and generators
with conditions, `zip`/`enumerate` over rows, `np.cumsum`/`np.diff`/`np.roll`/
`np.concatenate` chains, `np.einsum` with repeated indices, `@` with 1-D operands,
`np.linalg.solve`/`inv`/`det`/`slogdet` and the named tuples of `eigh`/`svd`/`qr`,
`try`/`except` around a helper that raises on some calls, `assert` on values, augmented
assignment to attributes and to slices of slices, ufuncs with `out=`, a class with
arithmetic operators, and a named tuple rebuilt by `_replace`.

Each program of the `habits` subset (about one in four of the fuzzer's programs, drawn
from the seed by its own random stream, so the rest of the program is drawn as before;
`generate(seed, habits=True)`) rebinds one variable through one of them after one of
its top-level statements:

    v3 = Scaler_2.apply(v3, x0)       # a classmethod that calls a staticmethod
    ...
    return <the output> + 0.25 * np.sum(v3)

No branch depends on a value: conditions are on constants, and the matrices solved,
inverted and decomposed are far from singular, with eigen- and singular values far
apart (and only quantities that do not depend on the vectors' signs are read), so the
oracles' references stay valid.
"""
from __future__ import annotations

from tests.fuzz.own_stream import OncePattern

FRACTION = 4     # one program in FRACTION draws a habit
SALT = 6151      # the construct's own random stream: random.Random(seed * SALT + 13)

STATIC = ("class Scaler_{n}:\n"
          "    BASE = 0.5\n"
          "\n"
          "    @staticmethod\n"
          "    def bend(a):\n"
          "        return np.sin(a) * 0.5 + a\n"
          "\n"
          "    @classmethod\n"
          "    def apply(cls, a, k):\n"
          "        return cls.bend(a) * cls.BASE + k * a")
CALLABLE = ("class Affine_{n}:\n"
            "    def __init__(self, w, b=0.25):\n"
            "        self.w = w\n"
            "        self.b = b\n"
            "\n"
            "    def __call__(self, a):\n"
            "        self.b = self.b * 0.5\n"
            "        return np.tanh(a * self.w) + self.b * a")
PARTIAL = ("import functools\n"
           "\n"
           "\n"
           "def {name}(a, scale, shift=0.25):\n"
           "    return np.cos(a) * scale + shift * a")
DEFAULTS = ("RATE_{n} = 0.25\n"
            "SHIFT_{n} = math.pi / 8.0\n"
            "\n"
            "\n"
            "def {name}(a, rate=RATE_{n} * 2.0 + math.sqrt(SHIFT_{n}), shift=-SHIFT_{n}):\n"
            "    return a * rate + np.sin(a + shift)")
RAISING = ("def {name}(a, limit):\n"
           "    if limit < 1.0:\n"
           "        raise ArithmeticError('limit')\n"
           "    return np.tanh(a) * limit")
HOLDER = ("class Holder_{n}:\n"
          "    def __init__(self, a):\n"
          "        self.a = a * 1.0\n"
          "        self.k = 0.5")
OVERLOADED = ("class Vec_{n}:\n"
              "    def __init__(self, a):\n"
              "        self.a = a\n"
              "\n"
              "    def __add__(self, other):\n"
              "        return Vec_{n}(self.a + (other.a if isinstance(other, Vec_{n}) "
              "else other))\n"
              "\n"
              "    __radd__ = __add__\n"
              "\n"
              "    def __sub__(self, other):\n"
              "        return Vec_{n}(self.a - other.a)\n"
              "\n"
              "    def __mul__(self, k):\n"
              "        return Vec_{n}(self.a * k)\n"
              "\n"
              "    __rmul__ = __mul__\n"
              "\n"
              "    def __neg__(self):\n"
              "        return Vec_{n}(-self.a)")
NAMED = ("import collections\n"
         "\n"
         "Pair_{n} = collections.namedtuple('Pair_{n}', 'lo hi')")
# a matrix far from singular, with eigen- and singular values far apart
SPREAD = "np.diag([1.0, 2.5, 4.0]) + 0.1 * np.outer(np.sin({v}), np.cos({v}) + 0.5)"

# (name, module text with {name} and {n}, or None; lines with {name}, {n}, {v}, {w},
# {t}, {r}, {k} and {s}; the shapes {v} may have: "any", "array" or "vector")
PATTERNS = [
    ("static", STATIC, ["{v} = Scaler_{n}.apply({v}, {s}) + Scaler_{n}().bend({v}) * 0.25"],
     "any"),
    ("callable", CALLABLE, ["{w} = Affine_{n}({s} * 0.5 + 1.0)",
                            "{v} = {w}({v}) + {w}({v} * 0.5)"], "any"),
    ("partial", PARTIAL, ["{w} = functools.partial({name}, scale={s}, shift=0.5)",
                          "{v} = {w}({v}) + functools.partial({name}, {v})(0.75)"], "any"),
    ("defaults", DEFAULTS, ["{v} = {name}({v}) + {name}({v}, rate={s}) * 0.5"], "any"),
    ("dict_comprehension", None,
     ["{w} = {{k: np.sin({v} * k) + k for k in range(4) if k % 2 == 0}}",
      "{v} = sum({w}.values()) * 0.5 + {w}[2] * {v}"], "any"),
    ("weighted", None, ["{v} = sum(c * np.sin({v} + c) for c in (0.5, -1.0, 2.0, 0.0) "
                        "if c > 0) + {v} * 0.5"], "any"),
    ("rows", None, ["{w} = 0.0",
                    "for {k}, ({t}, {r}) in enumerate(zip({v}, {v}[::-1])):",
                    "    {w} = {w} + np.sum({t} * np.tanh({r})) * ({k} + 1)",
                    "{v} = {v} * 0.5 + {w} * 0.25"], "array"),
    ("scan", None, ["{w} = np.diff(np.concatenate([np.cumsum({v}), {v} * 0.5]))",
                    "{v} = np.roll({w}[:3], 1) + np.roll({v}, -1) * {w}[3:].sum()"], "vector"),
    ("einsum", None, ["{w} = np.outer({v}, np.cos({v})) + 2.0 * np.eye(3)",
                      "{v} = np.einsum('ii->i', {w}) + np.einsum('ii', {w}) * 0.1 + "
                      "np.einsum('ij,j->i', {w}, {v}) * 0.25 + "
                      "np.einsum('ij,ij->', {w}, {w}) * 0.01"], "vector"),
    ("matmul", None, ["{w} = np.outer({v}, {v}) * 0.25 + np.eye(3)",
                      "{v} = ({v} @ {w}) * 0.5 + ({v} @ {v}) * {w} @ {v} * 0.1"], "vector"),
    ("solve", None, ["{w} = 3.0 * np.eye(3) + 0.3 * np.outer(np.sin({v}), np.cos({v}))",
                     "{t}, {r} = np.linalg.slogdet({w})",
                     "{v} = np.linalg.solve({w}, {v}) + np.linalg.inv({w}) @ np.cos({v}) "
                     "* np.linalg.det({w}) * 0.1 + {r} * {t}"], "vector"),
    ("decompositions", None, ["{w} = " + SPREAD,
                              "{t}, {r} = np.linalg.eigh({w} + {w}.T)",
                              "{k} = np.linalg.svd({w})",
                              "{v} = {t} * 0.25 + {r}[:, 0] ** 2 + {k}.S * 0.1 + "
                              "{k}.U[:, 0] * {k}.Vh[0] + np.linalg.qr({w}).R[0] * "
                              "np.linalg.qr({w}).Q[:, 0]"], "vector"),
    ("raising", RAISING, ["for {k} in (0.5, 2.0):",
                          "    try:",
                          "        {v} = {name}({v}, {k}) + {v} * 0.5",
                          "    except ArithmeticError:",
                          "        {v} = {v} * 0.75 + 0.1"], "any"),
    ("asserted", None, ["assert np.all(np.isfinite({v})), 'finite'",
                        "assert np.ndim({v}) <= 2 and float(np.max(np.abs({v}))) < 1e6",
                        "{v} = {v} * 0.5 + np.sin({v})"], "any"),
    ("attributes", HOLDER, ["{w} = Holder_{n}({v})", "{w}.a += np.sin({v})",
                            "{w}.k *= {s}", "{w}.a -= {w}.k * {v}", "{v} = {w}.a * {w}.k"],
     "any"),
    ("sliced", None, ["{w} = np.concatenate([{v}, {v} * 2.0])",
                      "{w}[1:][::2] += np.cos({v})", "{w}[::-1][:3] *= 0.5",
                      "{v} = {w}[:3] - {w}[3:]"], "vector"),
    ("out", None, ["{w} = np.empty({v}.shape)", "np.multiply({v}, {v}, out={w})",
                   "np.sin({w}, out={w})", "np.add({w}, {v}, out={w})",
                   "{v} = {w} * 1.0"], "array"),
    ("overloaded", OVERLOADED, ["{w} = sum([Vec_{n}({v}), Vec_{n}(np.sin({v})) * 2.0, "
                                "-Vec_{n}({v} * {v})])",
                                "{v} = ({w} - Vec_{n}({v}) * 0.5).a"], "any"),
    ("named", NAMED, ["{w} = Pair_{n}({v} * 0.5, np.cos({v}))",
                      "{w} = {w}._replace(hi={w}.hi * {w}.lo + 0.25)",
                      "{t}, {r} = {w}", "{v} = {t} + {r} * 2.0"], "any"),
]
SHAPES = {"any": [(), (3,), (2, 3)], "array": [(3,), (2, 3)], "vector": [(3,)]}


class Habits(OncePattern):
    """Whether and where the program of `seed` gets a habit, and which one (`only`
    names the one to draw, for measuring one at a time)."""

    PATTERNS, SHAPES, FRESH, PREFIX = PATTERNS, SHAPES, ("w", "t", "r", "k"), "habit"

    def __init__(self, seed: int, enabled: bool, only: str = "") -> None:
        super().__init__(seed, enabled, SALT, 13, FRACTION, "habits", only)
