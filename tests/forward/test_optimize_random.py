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
         "np.sqrt(1.0 + ({}) ** 2)"]
BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / (2.0 + ({}) ** 2)"]


def _expression(rng: random.Random, names: list, depth: int) -> str:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(names + ["0.5", "2.0"])
    if rng.random() < 0.4:
        return rng.choice(UNARY).format(_expression(rng, names, depth - 1))
    return rng.choice(BINARY).format(_expression(rng, names, depth - 1),
                                     _expression(rng, names, depth - 1))


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


SEEDS = list(range(40)) + [73]  # 73: (-2.0) ** 2, a negative literal


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    path = tmp_path_factory.mktemp("programs") / "random_programs.py"
    path.write_text("import numpy as np\n\n\n" + "\n\n".join(map(_program, SEEDS)))
    spec = importlib.util.spec_from_file_location("random_programs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program(programs, seed):
    fn = getattr(programs, f"program_{seed}")
    rng = np.random.default_rng(seed)
    args = (rng.standard_normal(3) * 0.5, float(rng.standard_normal() * 0.5))
    tangents = [random_tangent(a, rng) for a in args]
    results = []
    for rule in (build_rule(fn), build_rule(fn, optimized=False)):
        out = rule(*[Dual(copy.deepcopy(a), copy.deepcopy(t)) for a, t in zip(args, tangents)])
        results.append((out.primal, out.tangent))
    assert_close(results[0][0], results[1][0], rtol=1e-12)
    assert_close(results[0][1], results[1][1], rtol=1e-12, atol=1e-12)
    _, tangent = fwdad.jvp(fn, args, tangents)
    assert_close(tangent, fd_jvp(fn, args, tangents), rtol=1e-5, atol=1e-7)
