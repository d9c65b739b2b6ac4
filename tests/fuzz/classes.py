"""Classes as numerical code writes them, which the other statements do not draw: a
frozen dataclass rebuilt by `dataclasses.replace`, a dataclass whose `__post_init__`
computes a field and whose array field is then updated in place, `dataclasses.astuple`,
a `__slots__` class whose method rebinds its slots, a subclass whose property extends
its parent's through `super()`, a record that keeps its fields in a dict through
`__setattr__` and `__getattr__`, a container with `__len__`, `__getitem__`,
`__setitem__` and `__iter__`, and a Python descriptor's `__get__`.

Each program of the `classes` subset (about one in four of the fuzzer's programs, drawn
from the seed by its own random stream, so the rest of the program is drawn as before;
`generate(seed, classes=True)`) rebinds one variable through one of them after one of
its top-level statements:

    v3 = Child_2(v3 * 0.5).value + v3     # sin(super().value) + ...

No branch depends on a value, so the oracles' references stay valid.
"""
from __future__ import annotations

from tests.fuzz.own_stream import OncePattern

FRACTION = 4     # one program in FRACTION draws a class
SALT = 7517      # the construct's own random stream: random.Random(seed * SALT + 17)

FROZEN = ("import dataclasses\n"
          "\n"
          "\n"
          "@dataclasses.dataclass(frozen=True)\n"
          "class Params_{n}:\n"
          "    a: object\n"
          "    k: float = 0.5\n"
          "\n"
          "    def scaled(self):\n"
          "        return self.a * self.k + np.sin(self.a)")
POST_INIT = ("import dataclasses\n"
             "\n"
             "\n"
             "@dataclasses.dataclass\n"
             "class Stage_{n}:\n"
             "    a: np.ndarray\n"
             "    k: float = 0.5\n"
             "\n"
             "    def __post_init__(self):\n"
             "        self.b = np.tanh(self.a) * self.k")
TUPLED = ("import dataclasses\n"
          "\n"
          "\n"
          "@dataclasses.dataclass\n"
          "class Point_{n}:\n"
          "    a: object\n"
          "    b: object")
SLOTTED = ("class Slotted_{n}:\n"
           "    __slots__ = ('a', 'k')\n"
           "\n"
           "    def __init__(self, a, k):\n"
           "        self.a = a\n"
           "        self.k = k\n"
           "\n"
           "    def step(self):\n"
           "        self.a = np.sin(self.a) * self.k + self.a\n"
           "        self.k = self.k * 0.5")
OVERRIDDEN = ("class Base_{n}:\n"
              "    def __init__(self, a):\n"
              "        self._a = a\n"
              "\n"
              "    @property\n"
              "    def value(self):\n"
              "        return self._a * self._a\n"
              "\n"
              "\n"
              "class Child_{n}(Base_{n}):\n"
              "    @property\n"
              "    def value(self):\n"
              "        return np.sin(super().value) + self._a * 0.5")
RECORD = ("class Record_{n}:\n"
          "    def __init__(self):\n"
          "        object.__setattr__(self, 'store', {{}})\n"
          "\n"
          "    def __setattr__(self, name, value):\n"
          "        self.store[name] = value\n"
          "\n"
          "    def __getattr__(self, name):\n"
          "        if name in self.store:\n"
          "            return self.store[name]\n"
          "        raise AttributeError(name)")
BAG = ("class Bag_{n}:\n"
       "    def __init__(self, items):\n"
       "        self.items = list(items)\n"
       "\n"
       "    def __len__(self):\n"
       "        return len(self.items)\n"
       "\n"
       "    def __getitem__(self, i):\n"
       "        return self.items[i]\n"
       "\n"
       "    def __setitem__(self, i, value):\n"
       "        self.items[i] = value\n"
       "\n"
       "    def __iter__(self):\n"
       "        return iter(self.items)")
DESCRIPTOR = ("class Scaled_{n}:\n"
              "    def __get__(self, obj, kind=None):\n"
              "        return obj.raw * 2.0\n"
              "\n"
              "\n"
              "class Holder_{n}:\n"
              "    twice = Scaled_{n}()\n"
              "\n"
              "    def __init__(self, raw):\n"
              "        self.raw = raw")

# (name, module text with {n}; lines with {n}, {v}, {w}, {t}, {r} and {s}; the shapes
# {v} may have: "any" or "array")
PATTERNS = [
    ("frozen", FROZEN, ["{w} = Params_{n}({v} * 1.0, {s})",
                        "{w} = dataclasses.replace({w}, k={w}.k * 0.5 + 0.25)",
                        "{v} = {w}.scaled() + {w}.a * {w}.k"], "any"),
    ("post_init", POST_INIT, ["{w} = Stage_{n}({v} * 1.0, {s})",
                              "{w}.a[..., 0] += {w}.b[..., -1]", "{w}.k *= 2.0",
                              "{v} = {w}.a * {w}.b + {w}.k"], "array"),
    ("astuple", TUPLED, ["{w} = Point_{n}({v} * 0.5, np.cos({v}))",
                         "{t}, {r} = dataclasses.astuple({w})",
                         "{v} = {t} * {r} + {w}.a"], "any"),
    ("slots", SLOTTED, ["{w} = Slotted_{n}({v}, {s})", "{w}.step()", "{w}.step()",
                        "{v} = {w}.a * (1.0 + {w}.k)"], "any"),
    ("super_property", OVERRIDDEN, ["{v} = Child_{n}({v} * 0.5).value + {v}"], "any"),
    ("record", RECORD, ["{w} = Record_{n}()", "{w}.a = {v} * 0.5",
                        "{w}.b = np.cos({w}.a) * {s}", "{v} = {w}.a * {w}.b + {v}"], "any"),
    ("container", BAG, ["{w} = Bag_{n}([{v}, np.sin({v}), {v} * {s}])",
                        "{w}[1] = {w}[1] * 0.5 + {w}[0]", "{t} = 0.0",
                        "for {r} in {w}:", "    {t} = {t} + {r} * (1.0 / len({w}))",
                        "{v} = {t}"], "any"),
    ("descriptor", DESCRIPTOR, ["{v} = np.cos(Holder_{n}({v} * 0.5).twice) + {v}"], "any"),
]
SHAPES = {"any": [(), (3,), (2, 3)], "array": [(3,), (2, 3)]}


class Classes(OncePattern):
    """Whether and where the program of `seed` gets a class, and which one (`only`
    names the one to draw, for measuring one at a time)."""

    PATTERNS, SHAPES, FRESH, PREFIX = PATTERNS, SHAPES, ("w", "t", "r"), "cls"

    def __init__(self, seed: int, enabled: bool, only: str = "") -> None:
        super().__init__(seed, enabled, SALT, 17, FRACTION, "classes", only)
