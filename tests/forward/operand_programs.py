"""Generated programs that mix operands of every kind, where one without a tangent may
give the result its shape: `x + n * G_INTS`, `x + (a > 0)`, `x - np.argsort(a)`.

Kinds: float scalar, float array, int scalar, int array, bool array; each drawn as a
constant, an argument, a global or a value computed in the function (len, range,
np.argmax, .shape, np.arange, np.argsort, comparisons). Programs combine them with
+, -, * (and np.add, np.subtract), sometimes through a branch that joins an int array
with a float one, sometimes with an in-place update after the sum (aliasing). They are
written to a module file (rules need source) from a seed, and imported.
"""
import importlib.util
import random

import numpy as np

LEAVES = {
    "float scalar": ["x", "1.5", "G_X", "float(n)", "x * 2.0", "np.sum(a)"],
    "float array": ["a", "G_FLOATS", "np.ones(3)", "a * x", "x * G_INTS"],
    "int scalar": ["n", "2", "G_N", "len(a)", "np.argmax(a)", "a.shape[0]",
                   "len(range(n))", "n * 2", "sum(range(n))"],
    "int array": ["k", "G_INTS", "np.arange(3)", "np.argsort(a)", "n * G_INTS",
                  "G_INTS * 2", "np.arange(n, n + 3)", "k * n", "-k"],
    "bool array": ["a > 0", "G_BOOLS", "k > 1", "np.arange(3) == n", "x < a"],
}
KINDS = list(LEAVES)
HEADER = """import numpy as np

G_X, G_N = 0.25, 2
G_FLOATS = np.array([0.5, -1.0, 2.0])
G_INTS = np.arange(3)
G_BOOLS = np.array([True, False, True])
"""


def arguments(fn, seed: int) -> tuple:
    """x (an int for one seed in four), a, n and, if `fn` takes it, k."""
    args = (3 if seed % 4 == 3 else 0.7, np.array([0.3, -1.2, 0.8]), 2, np.array([2, 0, 1]))
    return args[:fn.__code__.co_argcount]


def _leaf(rng: random.Random, kind: str) -> str:
    return f"({rng.choice(LEAVES[kind])})"


def _combine(rng: random.Random, left: str, right: str) -> str:
    if rng.random() < 0.5:
        left, right = right, left
    ops = ["{} + {}", "{} - {}", "{} * {}", "np.add({}, {})", "np.subtract({}, {})"]
    return rng.choice(ops).format(left, right)


def program(seed: int) -> str:
    """`op_<seed>(x, a, n[, k])`: a float operand meets operands of random kinds."""
    rng = random.Random(seed)
    floats = rng.choice(["float scalar", "float array"])
    first, second = rng.choice(KINDS), rng.choice(KINDS)
    u = _combine(rng, _leaf(rng, floats), _leaf(rng, first))
    v = _combine(rng, "u", _leaf(rng, second))
    params = "x, a, n, k" if "k" in u + v else "x, a, n"  # an int array argument
    lines = [f"def op_{seed}({params}):", f"    u = {u}"]         # sends all to the plain rule
    if rng.random() < 0.3:  # never taken: u keeps the value (and kind) it has above
        lines += ["    if x > 10.0:", "        u = a * x"]
    lines.append(f"    v = {v}")
    if rng.random() < 0.3:  # the sum must not share a tangent with a or x
        lines.append("    a[0] = 7.0")
    lines.append("    return u, v")
    return "\n".join(lines) + "\n"


def load(directory, seeds: list):
    """The module of `op_<seed>` for each seed, written to `directory`."""
    path = directory / "operand_programs_generated.py"
    path.write_text(HEADER + "\n\n" + "\n\n".join(program(s) for s in seeds))
    spec = importlib.util.spec_from_file_location("operand_programs_generated", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
