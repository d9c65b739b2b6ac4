"""Random statements, one generator per language feature.

Each generator takes the Generator `g` and `top` (False inside a block: then it only
updates existing variables, so that every name keeps one shape on every path) and
returns source lines, nested lines indented by four spaces.
"""
from __future__ import annotations

from tests.fuzz.exprs import constant, scalar, value


def _arrays(g, ndim=None) -> list:
    """Array variables every in-place pattern fits (each axis at least 2 long)."""
    return [n for n, s in g.vars.items() if s != () and min(s) >= 2 and len(s) <= 2
            and (ndim is None or len(s) == ndim)]


def _scalars(g) -> list:
    return [n for n, s in g.vars.items() if s == ()]


def _factor(g) -> str:
    return f"(0.5 + 0.25 * math.tanh({scalar(g, 1)}))"


def assign(g, top: bool) -> list:
    if top or not g.vars:
        shape = g.rng.choice([(), (), (3,), (2, 3)])
        name = g.fresh()
        line = f"{name} = {_squashed(g, shape)}"
        g.vars[name] = shape
        return [line]
    name = g.rng.choice(list(g.vars))
    return [f"{name} = 0.5 * {name} + {_squashed(g, g.vars[name])}"]


def _squashed(g, shape) -> str:
    expr = value(g, shape, g.rng.randint(1, 3))
    return f"np.tanh({expr})" if g.rng.random() < 0.4 else expr


def inplace(g, top: bool) -> list:
    names = _arrays(g)
    if not names:
        return assign(g, top)
    a = g.rng.choice(names)
    s = g.vars[a]
    if len(s) == 1:
        rows = [f"{a}[0] = {scalar(g)}", f"{a}[-1] += {scalar(g)}", f"{a}[1:] += {scalar(g)}",
                f"{a}[:2] *= {_factor(g)}", f"{a} *= {_factor(g)}", f"{a} += {value(g, s)}",
                f"np.add({a}, {value(g, s)}, out={a})",
                f"np.multiply({a}, {_factor(g)}, out={a})", f"{a} -= 0.5 * {value(g, s)}"]
    else:
        rows = [f"{a}[0, 1] = {scalar(g)}", f"{a}[{s[0] - 1}] += {value(g, (s[1],))}",
                f"{a}[:, 0] *= {_factor(g)}", f"{a} *= {_factor(g)}",
                f"{a}[1:, :] -= {scalar(g)}", f"np.add({a}, {value(g, s)}, out={a})"]
    return [g.rng.choice(rows)]


def alias(g, top: bool) -> list:
    names = _arrays(g)
    if not names:
        return inplace(g, top)
    a = g.rng.choice(names)
    s = g.vars[a]
    if not top or g.rng.random() < 0.4:
        return [g.rng.choice(_self_updates(a, s))]
    b = g.fresh("view")
    views = [(f"{a}", s)]
    if len(s) == 1:
        views += [(f"{a}[1:]", (s[0] - 1,)), (f"{a}[::2]", ((s[0] + 1) // 2,)),
                  (f"{a}.reshape(1, {s[0]})", (1, s[0]))]
    else:
        views += [(f"{a}[0]", (s[1],)), (f"{a}.T", (s[1], s[0])),
                  (f"{a}.ravel()", (s[0] * s[1],)),
                  (f"{a}.reshape({s[1]}, {s[0]})", (s[1], s[0])),
                  (f"{a}[:, 1:]", (s[0], s[1] - 1))]
    expr, shape = g.rng.choice([(e, t) for e, t in views if min(t) >= 2])
    g.vars[b] = shape
    write = g.rng.choice([f"{b} *= {_factor(g)}", f"{b} += {scalar(g)}",
                          f"{b}[{(0,) * len(shape)}] = {scalar(g)}"])
    return [f"{b} = {expr}", write]


def _self_updates(a: str, s: tuple) -> list:
    if len(s) == 1:
        return [f"{a}[1:] = {a}[:-1]", f"{a}[:-1] = {a}[1:]", f"{a}[0], {a}[1] = {a}[1], {a}[0]",
                f"{a}[1:] += {a}[:-1]", f"{a}[::-1] = {a}.copy()"]
    return [f"{a}[0], {a}[1] = {a}[1].copy(), {a}[0].copy()", f"{a}[1] = {a}[0]",
            f"{a}[:, 1:] = {a}[:, :-1]", f"{a}[0] += {a}[1]"]


def copies(g, top: bool) -> list:
    names = _arrays(g)
    if not names or not top:
        return inplace(g, top)
    a = g.rng.choice(names)
    c = g.fresh("c")
    g.vars[c] = g.vars[a]
    made = g.rng.choice([f"{a}.copy()", f"np.array({a})", f"{a} + 0.0", f"np.copy({a})"])
    index = (0,) * len(g.vars[a])
    return [f"{c} = {made}", f"{c}[{index}] = {scalar(g)}"]


def const_array(g, top: bool) -> list:
    if not top:
        return inplace(g, top)
    shape = g.rng.choice([(3,), (2, 3)])
    z = g.fresh("z")
    made = g.rng.choice([f"np.zeros({shape})", f"np.ones({shape})", constant(g, shape)] +
                        ["np.array([0.25, -0.5, 1.0])", "np.linspace(-1.0, 1.0, 3)"]
                        * (shape == (3,)))
    g.vars[z] = shape
    index = (1,) * len(shape)
    return [f"{z} = {made}", f"{z}[{index}] = {scalar(g)}", f"{z} += {value(g, shape, 1)}"]


def if_else(g, top: bool) -> list:
    lines = [f"if {scalar(g, 1)} > {g.rng.choice(['0.0', '0.3', '-0.2'])}:"]
    lines += _block(g, 2)
    if g.rng.random() < 0.6:
        lines += ["else:"] + _block(g, 1)
    return lines


def for_loop(g, top: bool) -> list:
    k = g.fresh("k")
    g.vars_int.append(k)
    body = _block(g, 2)
    g.vars_int.remove(k)
    body.append(f"    {_contract(g, k)}")
    return [f"for {k} in range({g.rng.randint(1, 3)}):"] + body


def while_loop(g, top: bool) -> list:
    n = g.fresh("n")
    cond = f"{n} < {g.rng.randint(1, 3)} and {scalar(g, 1)} < 5.0"
    return [f"{n} = 0", f"while {cond}:"] + _block(g, 2) + [f"    {n} += 1"]


def _contract(g, k: str) -> str:
    names = list(g.vars)
    if not names:
        return "pass"
    v = g.rng.choice(names)
    return f"{v} = 0.5 * {v} + 0.1 * {k} * {value(g, g.vars[v], 1)}"


def _block(g, size: int) -> list:
    lines = []
    for _ in range(g.rng.randint(1, size)):
        lines += ["    " + line for line in g.statement(top=False)]
    return lines
