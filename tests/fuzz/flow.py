"""Random statements for control flow and calls between functions: loops left by
`break`, `continue`, `return` or a value-dependent `while` condition; helpers that call
each other (with a constant argument at one call and an active one at another), take
`*args`, return tuples that are unpacked, and take and return dataclass records whose
fields are updated in place.

Module-level definitions go to `g.module` (each once).
"""
from __future__ import annotations

from tests.fuzz.constructs import RECORD, _rebind
from tests.fuzz.exprs import scalar, value
from tests.fuzz.statements import _block

HELPERS = """def inner(u, s):
    return np.tanh(u) * s + 0.25 * u


def outer(u, s=0.5):
    a = inner(u, 1.5)
    return a + inner(a, s)


def total(*terms):
    acc = 0.0
    for t in terms:
        acc = acc + 0.5 * np.sum(t)
    return acc


def split(u, s):
    return np.sin(u) * s, np.cos(u) + s
"""
RECORD_HELPERS = """def advance(r, s):
    r.a = r.a * 0.5 + s
    r.v[0] += s
    r.v *= 0.75
    return r


def renewed(r, s=1.0):
    return Record(r.a * s, r.v + np.sin(r.a))
"""


def loop_exit(g, top: bool) -> list:
    """A loop left early: break, continue, a return inside it, or a while loop whose
    exit depends on a value."""
    if not top:
        return [_rebind(g, scalar(g))]
    k, kind = g.fresh("k"), g.rng.randrange(4)
    test = f"{scalar(g, 1)} > {g.rng.choice(['0.5', '0.0', '-0.3'])}"
    head = f"for {k} in range({g.rng.randint(2, 4)}):"
    if kind == 0:
        return [head] + _block(g, 2) + [f"    if {test}:", "        break"]
    if kind == 1:
        return [head, f"    if {test}:", "        continue"] + _block(g, 2)
    if kind == 2:
        return [head] + _block(g, 2) + [f"    if {test}:", f"        return {g.output()}"]
    t = g.fresh("t")
    start = f"{t} = 0.5 + 0.25 * math.tanh({scalar(g, 1)})"
    g.vars[t] = ()
    return ([start, f"{k} = 0", f"while {t} < 1.6 and {k} < 6:", f"    {t} = {t} * 1.3 + 0.1"]
            + _block(g, 1) + [f"    {k} += 1"])


def calls(g, top: bool) -> list:
    """Helpers calling helpers, *args, tuple returns unpacked."""
    if not top:
        return [_rebind(g, scalar(g))]
    if HELPERS not in g.module:
        g.module.append(HELPERS)
    v, shape = g.fresh(), g.rng.choice([(), (3,)])
    kind = g.rng.randrange(4)
    if kind == 0:
        call = g.rng.choice([f"outer({value(g, shape, 1)}, s={scalar(g, 1)})",
                             f"outer({value(g, shape, 1)})", f"inner({value(g, shape, 1)}, 2.0)"])
        g.vars[v] = shape
        return [f"{v} = {call}"]
    if kind == 1:
        args = ", ".join(value(g, g.rng.choice([(), (3,)]), 1) for _ in range(g.rng.randint(1, 3)))
        g.vars[v] = ()
        return [g.rng.choice([f"{v} = float(total({args}))", f"{v} = float(total(*[{args}]))"])]
    p, pair = g.fresh(), g.fresh("pair")
    call = f"split({value(g, shape, 1)}, {g.rng.choice(['0.5', scalar(g, 1)])})"
    g.vars[v] = g.vars[p] = shape
    if kind == 2:
        return [f"{v}, {p} = {call}"]
    return [f"{pair} = {call}", f"{v} = {pair}[0] * {pair}[1]", f"{p} = {pair}[1]"]


def records(g, top: bool) -> list:
    """Dataclass records passed into helpers, updated there and returned; augmented
    assignment on their fields and on subscripts of their fields."""
    if not top:
        return [_rebind(g, scalar(g))]
    for part in (RECORD, RECORD_HELPERS):
        if part not in g.module:
            g.module.append(part)
    r, v = g.fresh("rec"), g.fresh()
    lines = [f"{r} = Record({scalar(g, 1)}, {value(g, (3,), 1)} + np.zeros(3))",
             g.rng.choice([f"{r}.v[1] += {scalar(g, 1)}", f"{r}.a *= {scalar(g, 1)}",
                           f"{r}.v[:2] -= 0.5 * {r}.a"])]
    lines.append(g.rng.choice([f"{r} = advance({r}, {scalar(g, 1)})",
                               f"{r} = renewed({r}, {scalar(g, 1)})", f"{r} = renewed({r})",
                               f"advance({r}, 0.25)"]))
    lines.append(f"{v} = measure({r}) + {r}.v[2] * {r}.a")
    g.vars[v] = ()
    return lines
