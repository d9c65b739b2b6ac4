"""Typed random expressions: a Python expression string of a requested shape.

Shape () is a Python float; any other tuple is a float array of that shape. Every
expression stays bounded on bounded inputs (squashing functions, contractions, safe
domains such as `np.log(1.0 + t * t)`), so a generated program rarely overflows.
"""
from __future__ import annotations

from typing import Tuple

Shape = Tuple[int, ...]

SCALAR_FNS = ["math.sin({})", "math.cos({})", "math.tanh({})", "math.exp(0.1 * {})",
              "math.log(1.0 + {0} * {0})", "math.sqrt(1.5 + {0} * {0})", "math.atan({})"]
ARRAY_FNS = ["np.sin({})", "np.cos({})", "np.tanh({})", "np.exp(0.1 * {})",
             "np.log(1.0 + {0} * {0})", "np.sqrt(1.5 + {0} * {0})", "np.arctan({})",
             "np.log1p({0} * {0})", "np.square({})"]
POWERS = ["({}) ** 2", "({}) ** 3", "(1.5 + {0} * {0}) ** -0.5", "(1.5 + {0} * {0}) ** 0.5",
          "2.0 ** np.tanh({})"]
REDUCTIONS = ["np.sum({})", "np.mean({})", "({}).sum()", "np.prod(np.tanh({}))",
              "np.linalg.norm({})", "({}).mean()"]
KINK_REDUCTIONS = ["np.max({})", "np.min({})", "({}).max()", "max(({}).ravel())"]
CONSTANTS = ["0.5", "1.25", "-0.75", "2.0", "0.3"]


def value(g, shape: Shape, depth: int = 2) -> str:
    """An expression of `shape` over the variables of `g` (a Generator)."""
    if depth <= 0 or g.rng.random() < 0.25:
        return leaf(g, shape)
    pick = g.rng.random()
    if pick < 0.35:
        return _binary(g, shape, depth)
    if pick < 0.6:
        return _function(g, shape, depth)
    if pick < 0.7 and g.has("pow"):
        return g.rng.choice(POWERS).format(value(g, shape, depth - 1))
    if pick < 0.75:
        return f"-({value(g, shape, depth - 1)})"
    if pick < 0.85 and g.has("kinks"):
        return _kink(g, shape, depth)
    if pick < 0.95 and g.helpers and g.has("helpers"):
        return _helper_call(g, shape, depth)
    return _binary(g, shape, depth)


def scalar(g, depth: int = 2) -> str:
    return value(g, (), depth)


def _binary(g, shape: Shape, depth: int) -> str:
    left = value(g, shape, depth - 1)
    right = value(g, g.rng.choice([shape, ()]), depth - 1)
    op = g.rng.choice(["+", "-", "*", "*", "/"])
    if op == "/":
        return f"({left} / (1.0 + {right} * {right}))"
    return f"({left} {op} {right})"


def _function(g, shape: Shape, depth: int) -> str:
    inner = value(g, shape, depth - 1)
    if shape == ():
        if g.rng.random() < 0.5:
            return g.rng.choice(SCALAR_FNS).format(inner)
        if g.has("reduce") and g.rng.random() < 0.6:
            return reduction(g, depth)
    return g.rng.choice(ARRAY_FNS).format(inner)


def reduction(g, depth: int) -> str:
    shape = g.rng.choice([(3,), (2, 3)])
    table = REDUCTIONS + (KINK_REDUCTIONS if g.has("kinks") else [])
    return "float(" + g.rng.choice(table).format(value(g, shape, depth - 1)) + ")"


def _kink(g, shape: Shape, depth: int) -> str:
    a, b = value(g, shape, depth - 1), value(g, shape, depth - 1)
    if shape == ():
        return g.rng.choice([f"max({a}, {b})", f"min({a}, {b})", f"abs({a})"])
    return g.rng.choice([f"np.maximum({a}, {b})", f"np.minimum({a}, {b})", f"np.abs({a})"])


def _helper_call(g, shape: Shape, depth: int) -> str:
    name = g.rng.choice(g.helpers)
    return f"{name}({value(g, shape, depth - 1)}, s={scalar(g, depth - 1)})"


# ---- leaves ----------------------------------------------------------------------------
def leaf(g, shape: Shape) -> str:
    names = [n for n, s in g.vars.items() if s == shape]
    if names and g.rng.random() < 0.7:
        return g.rng.choice(names)
    derived = _derived(g, shape)
    if derived and g.rng.random() < 0.8:
        return g.rng.choice(derived)
    return constant(g, shape)


def constant(g, shape: Shape) -> str:
    if shape == ():
        return g.rng.choice(CONSTANTS)
    if len(shape) == 1 and g.rng.random() < 0.5:
        return f"np.linspace(0.1, 0.9, {shape[0]})"
    return f"({g.rng.choice(CONSTANTS)} * np.ones({shape}))"


def _derived(g, shape: Shape) -> list:
    """Expressions of `shape` read out of variables of other shapes."""
    out = []
    for name, s in g.vars.items():
        if s == () and shape != ():
            out.append(f"({name} * np.ones({shape}))")
        if len(s) == 1 and shape == () and g.has("index"):
            out += [f"{name}[0]", f"{name}[-1]", f"{name}[{s[0] // 2}]"]
        if len(s) == 2 and shape == () and g.has("index"):
            out += [f"{name}[{s[0] - 1}, 0]", f"{name}[0][{s[1] - 1}]"]
        if shape == () and s != () and g.has("reduce"):
            out.append(f"float(np.sum({name}))")
        if len(s) == 1 and shape == (s[0] - 1,) and g.has("index"):
            out += [f"{name}[1:]", f"{name}[:-1]"]
        if len(s) == 2 and shape == (s[1],):
            out += [f"{name}[0]", f"{name}[{s[0] - 1}, :]", f"{name}.sum(axis=0)"]
        if len(s) == 2 and shape == (s[0],):
            out += [f"{name}[:, 0]", f"{name}.mean(axis=1)"]
            out += [f"({name} @ {v})" for v, t in g.vars.items() if t == (s[1],)]
        if len(s) == 2 and shape == (s[1], s[0]):
            out.append(f"{name}.T")
    return out
