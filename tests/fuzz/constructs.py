"""Random statements for the higher-level language features: helpers, closures,
lambdas, containers, unpacking, `with`, classes with properties and dataclasses, early
returns.

Module-level definitions they need (helper functions, classes) go to `g.module`.
"""
from __future__ import annotations

from tests.fuzz.exprs import scalar, value

HELPER = """def {name}(u, s=1.0):
    w = np.tanh(u) * s + 0.5 * u
    return w * {c}
"""
HELPER_LOOP = """def {name}(u, s=1.0, r=0.5):
    for _ in range(2):
        u = r * u + np.sin(u) * s
    return u
"""
BOX = """class Box:
    def __init__(self, v):
        self._v = v

    @property
    def value(self):
        return self._v

    @value.setter
    def value(self, v):
        self._v = v

    def scaled(self, s):
        return self._v * s + {c}
"""
RECORD = """import dataclasses


@dataclasses.dataclass
class Record:
    a: float
    v: np.ndarray


def measure(r):
    return 0.25 * np.sum(r.v) + 0.1 * r.a


def nudge(r, c):
    r.v = r.v * c + 0.5 * np.sin(r.v)
    r.a = r.a * c
    return 0.1 * np.sum(r.v)
"""
SCALED = """class Scaled:
    def __init__(self, factor):
        self.factor = factor

    def __enter__(self):
        return self.factor

    def __exit__(self, *exc):
        return False
"""


def add_helpers(g) -> None:
    """Module-level helpers for `helpers`-feature calls (called with s= by keyword)."""
    for i in range(g.rng.randint(1, 2)):
        name = f"helper_{i}"
        template = g.rng.choice([HELPER, HELPER_LOOP])
        g.module.append(template.format(name=name, c=g.rng.choice(["0.5", "1.5", "-1.0"])))
        g.helpers.append(name)


def closure(g, top: bool) -> list:
    if not top:
        return [_rebind(g, scalar(g))]
    name, captured = g.fresh("inner"), scalar(g, 1)
    v, shape = g.fresh(), g.rng.choice([(), (3,)])
    argument = value(g, shape)
    g.vars[v] = shape
    if g.rng.random() < 0.5:
        c = g.fresh("cap")
        return [f"{c} = {captured}", f"def {name}(u, r=0.5):",
                f"    return np.sin(u) * {c} + r * u", f"{v} = {name}({argument}, r=0.25)"]
    return [f"{name} = lambda u, r=0.5: np.tanh(u) * ({captured}) + r * u",
            f"{v} = {name}({argument})"]


def lambdas(g, top: bool) -> list:
    if not top:
        return [_rebind(g, scalar(g))]
    fs, v, t = g.fresh("fns"), g.fresh(), scalar(g, 1)
    made = g.rng.choice(["[lambda t, k=k: np.sin(t) * k + t for k in range(3)]",
                         "[lambda t, c=c: c * t * t for c in (0.5, -1.0)]"])
    use = g.rng.choice([f"sum(fn({t}) for fn in {fs})", f"{fs}[1]({t}) + {fs}[0]({t})",
                        f"sum([fn({t}) for fn in {fs}])"])
    g.vars[v] = ()
    return [f"{fs} = {made}", f"{v} = {use}"]


def containers(g, top: bool) -> list:
    if not top:
        return [_rebind(g, scalar(g))]
    v, lines = g.fresh(), _container_lines(g, g.rng.randrange(4))
    g.vars[v] = ()
    return lines[:-1] + [f"{v} = {lines[-1]}"]


def _container_lines(g, kind: int) -> list:
    """Lines building and reading a container; the last is the value read."""
    a, b, c = scalar(g, 1), scalar(g, 1), scalar(g, 1)
    if kind == 0:
        lst = g.fresh("items")
        return [f"{lst} = [{a}, {b}]", f"{lst}.append({c})", f"sum({lst}) * 0.5 + {lst}[1]"]
    if kind == 1:
        d = g.fresh("table")
        return [f"{d} = {{'p': {a}, 'q': {b}}}", f"{d}['r'] = {d}['p'] * {c}",
                f"{d}['q'] + {d}['r'] + sum({d}.values())"]
    if kind == 2:
        s = g.fresh("keys")
        return [f"{s} = {{1, 2, {g.rng.randint(2, 4)}}}",
                f"{a} * len({s}) + sum(k * 0.5 for k in sorted({s}))"]
    p, q = g.fresh(), g.fresh()
    g.vars[p] = g.vars[q] = ()
    return [f"{p}, {q} = {a}, {b}", f"{p}, {q} = {q}, {p} * 0.5", f"{p} - {q}"]


def with_block(g, top: bool) -> list:
    w = g.fresh("w")
    if g.rng.random() < 0.5:
        head = f"with contextlib.nullcontext({scalar(g, 1)}) as {w}:"
    else:
        if SCALED not in g.module:
            g.module.append(SCALED)
        head = f"with Scaled({scalar(g, 1)}) as {w}:"
    g.vars[w] = ()
    body = ["    " + line for line in g.statement(top=False)]
    del g.vars[w]
    names = [n for n, s in g.vars.items() if s == ()]
    if names:
        body.append(f"    {names[0]} = {names[0]} * 0.5 + {w}")
    return [head] + body


def box(g, top: bool) -> list:
    """A Box (a property, a method), or on every other use a Record (a dataclass of a
    float and an array, which normalize/unbox.py turns into locals). Which one follows
    from the name's number, not from the generator's draws, and both make the same
    draws, so that the rest of every program stays what it was before Record."""
    if not top:
        return [_rebind(g, scalar(g))]
    if not any(m.startswith("class Box") for m in g.module):
        g.module.append(BOX.format(c=g.rng.choice(["0.25", "1.0"])))
    b, v = g.fresh("box"), g.fresh()
    number = int(b[len("box"):])
    if number % 2:
        held = len(g.vars)  # (what the program holds so far: varies, and draws nothing)
        return _record(g, b, v, escapes=bool(number // 2 % 2), nudged=bool(held % 2),
                       boxed=bool(held // 2 % 2))
    lines = [f"{b} = Box({scalar(g, 1)})", f"{b}.value = {b}.value * 0.5 + {scalar(g, 1)}",
             f"{v} = {b}.scaled({scalar(g, 1)}) + {b}.value"]
    g.vars[v] = ()
    return lines


def _record(g, b: str, v: str, escapes: bool, nudged: bool, boxed: bool) -> list:
    """The Record's lines: given to `measure` at its last use (escapes), to `nudge`,
    which writes its fields, in the middle (nudged: normalize/field_calls.py), and kept
    an instance by an identity test (boxed: `measure` then takes it as an argument,
    forward/routes.py). The flags come from what the program holds: no new draws."""
    if RECORD not in g.module:
        g.module.append(RECORD)
    lines = [f"{b} = Record({scalar(g, 1)}, np.linspace(0.5, 1.5, 3))",
             f"{b}.a = {b}.a * 0.5 + {scalar(g, 1)}", f"{b}.v = {b}.v * {b}.a",
             f"{b}.a += 0.25"]
    if nudged:
        lines.append(f"{b}.a = {b}.a + nudge({b}, 0.75)")
    last = f"measure({b})" if escapes else f"0.25 * np.sum({b}.v) + 0.1 * {b}.a"
    if boxed:
        last = f"({last} if {b} is not None else 0.0)"
    lines.append(f"{v} = {b}.a * {scalar(g, 1)} + {last}")
    g.vars[v] = ()
    return lines


def early_return(g, top: bool) -> list:
    return [f"if {scalar(g, 1)} > 0.8:", f"    return {g.output()}"]


def _rebind(g, expr: str) -> str:
    names = [n for n, s in g.vars.items() if s == ()]
    if not names:
        return "pass"
    name = g.rng.choice(names)
    return f"{name} = 0.5 * {name} + 0.5 * np.tanh({expr})"
