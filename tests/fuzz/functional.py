"""Python's functional idioms and protocols the other statements do not draw:
`functools.reduce` with `operator.mul`/`operator.add`, `itertools.accumulate` (with a
lambda, and with `initial=`), `pairwise`, `chain`, `product` and `zip_longest`, `map`
and `filter` with lambdas and `operator` functions, `sum(..., start)`, `math.fsum`,
`math.prod`, `math.hypot(*xs)` and `math.dist`, `min`/`max` with `key=` and `default=`,
`sorted(reverse=True)`, `enumerate(start=)` and `zip(strict=True)`, `divmod`, `round`,
`int()` and `float()` casts, the walrus `:=` in a comprehension, star-unpacking and
`*args`/`**kwargs` forwarding, a decorator made with `functools.wraps` that scales an
argument, a helper under `functools.lru_cache`, an iterator class (`__iter__` returns
the instance, `__next__` raises StopIteration), and `for ... else` / `while ... else`.

Each program of the `functional` subset (about one in four of the fuzzer's programs,
drawn from the seed by its own random stream, so the rest of the program is drawn as
before; `generate(seed, functional=True)`) rebinds one variable through one of them
after one of its top-level statements:

    v3 = functools.reduce(operator.mul, [v3 * 0.5 + 2.0, np.cos(v3) + 2.0], 1.0) + ...
    ...
    return <the output> + 0.25 * np.sum(v3)

Values stay far from kinks and ties: the keys compared differ by 3 or more, casts
(`int`, `round`, `divmod`'s quotient) take values far from where they jump, `math.hypot`
and `math.dist` far from 0, and the loops' `break`s depend on counts, not values.
"""
from __future__ import annotations

from tests.fuzz.own_stream import OncePattern

FRACTION = 4     # one program in FRACTION draws a functional idiom
SALT = 6967      # the construct's own random stream: random.Random(seed * SALT + 23)

IMPORTS = "import functools\nimport itertools\nimport operator\n"
DECORATED = (IMPORTS + "\n\n"
             "def scaled_{n}(k):\n"
             "    def decorate(fn):\n"
             "        @functools.wraps(fn)\n"
             "        def wrapper(a, *rest, **keywords):\n"
             "            return fn(a * k, *rest, **keywords) + k * a\n"
             "        return wrapper\n"
             "    return decorate\n"
             "\n"
             "\n"
             "@scaled_{n}(0.5)\n"
             "def {name}(a, b, c=2.0):\n"
             "    return np.tanh(a) * b + c * a")
CACHED = (IMPORTS + "\n\n"
          "@functools.lru_cache(maxsize=None)\n"
          "def weight_{n}(k):\n"
          "    return 1.0 / (k + 1.0) + math.sqrt(k)\n"
          "\n"
          "\n"
          "@functools.cache\n"
          "def {name}(a):\n"
          "    return math.tanh(a) * 2.0 + a\n"
          "\n"
          "\n"
          "WEIGHTS_{n} = [weight_{n}(k) for k in range(3)]  # (the cache, filled)")
FORWARDED = ("def inner_{n}(a, b, *, scale=1.0, shift=0.0):\n"
             "    return a * b * scale + shift\n"
             "\n"
             "\n"
             "def {name}(*args, **keywords):\n"
             "    first, *rest = args\n"
             "    return inner_{n}(first, *rest, **keywords) + 0.5 * first")
STEPS = ("class Steps_{n}:\n"
         "    def __init__(self, a, count):\n"
         "        self.a = a\n"
         "        self.count = count\n"
         "        self.k = 0\n"
         "\n"
         "    def __iter__(self):\n"
         "        return self\n"
         "\n"
         "    def __next__(self):\n"
         "        if self.k >= self.count:\n"
         "            raise StopIteration\n"
         "        self.k += 1\n"
         "        self.a = np.sin(self.a) * 0.5 + self.a * 0.75\n"
         "        return self.a * self.k")

# (name, module text with {name} and {n}, or None; lines with {name}, {n}, {v}, {w},
# {t}, {k}, {u} and {s}; the shapes {v} may have: "any", "array", "vector" or "scalar")
PATTERNS = [
    ("reduce", IMPORTS, ["{w} = functools.reduce(operator.mul, [{v} * 0.5 + 2.0, "
                         "np.cos({v}) + 2.0], {s} * 0.1 + 1.0)",
                         "{v} = {w} * 0.25 + functools.reduce(operator.add, "
                         "[{v}, np.sin({v}), {v} * {v} * 0.5])"], "any"),
    ("accumulate", IMPORTS, ["{w} = list(itertools.accumulate([{v}, np.sin({v}), {v} * {s}], "
                             "lambda a, b: a * 0.5 + b))",
                             "{t} = list(itertools.accumulate([np.cos({v}) + 2.0, {v} + 3.0], "
                             "operator.mul, initial={s} * 0.5 + 1.0))",
                             "{v} = {w}[-1] + {w}[1] * {t}[-1] * 0.1 + {t}[0]"], "any"),
    ("pairs", IMPORTS, ["{w} = {v} * 0.0",
                        "for {t}, {k} in itertools.pairwise([{v}, np.sin({v}), {v} * {s}]):",
                        "    {w} = {w} + {t} * {k}",
                        "for {t}, {k} in itertools.product([{v}, {v} * 0.5], [1.0, {s}]):",
                        "    {w} = {w} + np.tanh({t}) * {k} * 0.25",
                        "{v} = {w} + sum(itertools.chain([{v} * 0.5], ({t} * {t} for {t} in "
                        "[{v}, np.cos({v})]))) * 0.1"], "any"),
    ("zip_longest", IMPORTS, ["{w} = 0.0",
                              "for {t}, {k} in itertools.zip_longest({v}, [{s}, {s} * 2.0], "
                              "fillvalue={s} * 0.5 + 1.0):",
                              "    {w} = {w} + {t} * {k}",
                              "{v} = {v} * 0.5 + {w} * 0.25"], "vector"),
    ("map_filter", IMPORTS, ["{w} = list(map(lambda a: np.sin(a) * {s}, filter(lambda a: "
                             "np.all(np.abs(a) < 1e6), [{v}, {v} * 2.0])))",
                             "{v} = sum({w}, start={v} * 0.5) + sum(map(operator.mul, "
                             "[{v}, {w}[0]], [0.25, {v}]))"], "any"),
    ("math_sums", None, ["{w} = math.fsum({v}) + math.prod({v} * 0.5 + 2.0) + "
                         "math.hypot(*{v}, 1.5) + math.dist({v}, np.sin({v}) + 2.0)",
                         "{v} = {v} * (0.5 + 0.1 * math.tanh({w})) + "
                         "math.fsum([{w}, {w} * {w} * 0.01])"], "vector"),
    ("keyed", None, ["{w} = [{v} + 3.0, {v}, {v} - 3.0]",
                     "{t} = min({w}, key=np.sum) * 0.5 + max({w}, key=np.sum, default={v})",
                     "{k} = sorted([{s} + 3.0, {s} - 3.0, {s}], reverse=True)",
                     "{v} = {t} + {k}[0] * {k}[2] * 0.1 + min([], default={s}) * 0.25"],
     "any"),
    ("counted", None, ["{w} = 0.0",
                       "for {k}, ({t}, {u}) in enumerate(zip({v}, np.cos({v}), strict=True), "
                       "start=1):",
                       "    {w} = {w} + {k} * {t} * {u}",
                       "{v} = {v} * 0.5 + {w} * 0.1"], "array"),
    ("casts", None, ["{w} = int({s} * 0.0 + 10.0) + round(2.4) + int(np.sum({v}) * 0.0 + 3.5)",
                     "{t}, {k} = divmod({s} * 0.01 + 7.5, 2.0)",
                     "{v} = {v} * {w} * 0.1 + {k} * {v} + {t} * 0.25 + float(np.sum({v})) * "
                     "0.1 + round({s} * 0.001 + 0.5, 2) * {v}"], "any"),
    ("walrus", None, ["{w} = [{t} * 0.5 for {k} in ({v}, {v} * 2.0) if np.all(({t} := "
                      "np.sin({k}) + {k} * 0.5) > -1e6)]",
                      "{v} = {w}[0] + {w}[1] * 0.25"], "any"),
    ("starred", FORWARDED, ["{w}, *{t} = [{v}, np.sin({v}), {s} * 0.5]",
                            "*{k}, {u} = [{v} * 0.5, np.cos({v}), {s}]",
                            "{v} = {name}({w}, {t}[0], scale={u}) + {name}(*{k}, "
                            "**{{'shift': {t}[1]}})"], "any"),
    ("decorated", DECORATED, ["{v} = {name}({v}, {s}) + {name}({v}, np.cos({v}), c={s})"],
     "any"),
    ("cached", CACHED, ["{v} = {v} * WEIGHTS_{n}[1] + {v} * weight_{n}(2) * {s} + "
                        "{name}(float(np.sum({v}))) * 0.25"], "any"),
    ("iterator", STEPS, ["{w} = {v} * 0.0",
                         "for {t} in Steps_{n}({v} * 0.5 + {s} * 0.25, 3):",
                         "    {w} = {w} + {t}",
                         "{v} = {w} * 0.5"], "any"),
    ("loop_else", None, ["{w} = {v} * 0.5",
                         "for {k} in range(4):",
                         "    {w} = np.sin({w}) + {v} * 0.25",
                         "    if {k} == 2:",
                         "        break",
                         "else:",
                         "    {w} = {w} * 100.0",
                         "{t} = 0",
                         "while {t} < 2:",
                         "    {w} = {w} * 0.75 + {s} * 0.1",
                         "    {t} += 1",
                         "else:",
                         "    {w} = {w} + 0.5",
                         "{v} = {w}"], "any"),
]
SHAPES = {"any": [(), (3,), (2, 3)], "array": [(3,), (2, 3)], "vector": [(3,)],
          "scalar": [()]}


class Functional(OncePattern):
    """Whether and where the program of `seed` gets a functional idiom, and which one
    (`only` names the one to draw, for measuring one at a time)."""

    PATTERNS, SHAPES, FRESH = PATTERNS, SHAPES, ("w", "t", "k", "u")
    PREFIX, HELPER = "fn", "functional"

    def __init__(self, seed: int, enabled: bool, only: str = "") -> None:
        super().__init__(seed, enabled, SALT, 23, FRACTION, "functional", only)
