"""Random programs: the optimized rule matches the plain rule and finite differences.

Each program is a few lines of float and NumPy arithmetic with a branch and a loop,
mixing inputs, constants and loop counters (so every kind of local occurs); they are
generated from a fixed seed, written to a module file (rules need source), imported.
"""
import copy
import importlib.util
import random

import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.tangents import random_tangent
from tests.util import assert_close, fd_jvp

UNARY = ["np.sin({})", "np.tanh({})", "np.exp(0.1 * {})", "-{}", "({}) ** 2",
         "np.sqrt(1.0 + ({}) ** 2)", "(1.5 + ({}) ** 2) ** -0.5", "(x * ({})).sum()",
         "np.log1p(({}) ** 2)", "+{}"]
BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / (2.0 + ({}) ** 2)", "{} * 2 + {} * 3"]
SCALAR_UNARY = ["math.sin({})", "math.tanh({})", "math.exp(0.1 * {})", "-{}",
                "({}) ** 3", "math.sqrt(1.0 + ({}) ** 2)", "math.cos({})", "abs({})",
                "float({})", "({}) ** -2.0 if abs({}) > 0.1 else 1.0"]


def _expression(rng: random.Random, names: list, depth: int, unary=UNARY) -> str:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(names + ["0.5", "2.0", "-1.5"])
    if rng.random() < 0.4:
        inner = _expression(rng, names, depth - 1, unary)
        return rng.choice(unary).format(inner, inner)
    return rng.choice(BINARY).format(_expression(rng, names, depth - 1, unary),
                                     _expression(rng, names, depth - 1, unary))


def _scalar_program(seed: int) -> str:
    """Floats, math and ints: a while loop, a counter, a list, an augmented update."""
    rng = random.Random(seed)
    names = ["x", "y"]
    e = lambda depth: _expression(rng, names, depth, SCALAR_UNARY)  # noqa: E731
    return (f"def scalar_{seed}(x, y):\n"
            f"    a = {e(3)}\n"
            f"    n = 0\n"
            f"    values = []\n"
            f"    while n < 3 and abs(a) < 50.0:\n"
            f"        a = a * 0.5 + {e(2)} * n\n"
            f"        values.append(a)\n"
            f"        n += 1\n"
            f"    a += sum(values) * {e(1)}\n"
            f"    return a * {e(2)} if a > 0 else -a\n")


def _program(seed: int) -> str:
    rng = random.Random(seed)
    names, lines = ["x", "y"], []
    for i in range(rng.randint(2, 5)):
        lines.append(f"    t{i} = {_expression(rng, names, 3)}")
        names.append(f"t{i}")
    lines += [f"    if np.sum({names[-1]}) > 0:",
              f"        {names[-1]} = {_expression(rng, names, 2)}",
              "    for k in range(3):",
              f"        {names[-1]} = {names[-1]} * 0.5 + {_expression(rng, names + ['k'], 2)}",
              f"    return np.sum({names[-1]} * {_expression(rng, names, 2)})"]
    return f"def program_{seed}(x, y):\n" + "\n".join(lines) + "\n"


SEEDS = list(range(24)) + [73]  # 73: (-2.0) ** 2, a negative literal


def load_programs(directory, seeds: list, name: str):
    """A module, written to `directory`, with `program_<seed>` and `scalar_<seed>` for
    each seed (fwdad reads their source from the file)."""
    path = directory / f"{name}.py"
    path.write_text("import math\n\nimport numpy as np\n\n\n" + "\n\n".join(
        [_program(s) for s in seeds] + [_scalar_program(s) for s in seeds]))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    return load_programs(tmp_path_factory.mktemp("programs"), SEEDS, "random_programs")


@pytest.mark.parametrize("kind", ["program", "scalar"])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_program(programs, seed, kind):
    fn = getattr(programs, f"{kind}_{seed}")
    rng = np.random.default_rng(seed)
    first = rng.standard_normal(3) * 0.5 if kind == "program" else 0.3 + rng.random()
    args = (first, float(rng.standard_normal() * 0.5))
    tangents = [random_tangent(a, rng) for a in args]
    results = []
    for rule in (build_rule(fn), build_rule(fn, optimized=False)):
        out = rule(*[Dual(copy.deepcopy(a), copy.deepcopy(t)) for a, t in zip(args, tangents)])
        results.append((out.primal, out.tangent))
    assert_close(results[0][0], results[1][0], rtol=1e-12)
    assert_close(results[0][1], results[1][1], rtol=1e-12, atol=1e-12)
    _, tangent = fwdad.jvp(fn, args, tangents)
    assert_close(tangent, fd_jvp(fn, args, tangents), rtol=1e-5, atol=1e-7)
