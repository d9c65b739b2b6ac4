"""Random statements for the array idioms of numerical code: selections (np.where,
np.clip, ties in np.maximum, np.sort, argmax-based indexing, boolean masks read and
written, writes through repeated integer indices), scans (np.cumsum, np.cumprod), linear
solves and norms, reshapes, integer indices computed from floats, comprehensions over an
array's rows, lists and tuples where NumPy reads arrays, and SciPy's special functions.

Each top-level generator binds one new variable; inside a block they only rebind a
scalar (as constructs.py does), so that every name keeps one shape on every path.
"""
from __future__ import annotations

import importlib.util

from tests.fuzz.constructs import _rebind
from tests.fuzz.exprs import scalar, value
from tests.fuzz.statements import _factor

HAS_SCIPY = importlib.util.find_spec("scipy") is not None
# (function, bounded argument): SciPy special functions with forward rules, each on a
# domain where it is smooth and finite
SPECIAL = [("scipy.special.erf", "{}"), ("scipy.special.expit", "{}"),
           ("scipy.special.gammaln", "1.5 + {0} * {0}"), ("scipy.special.log_ndtr", "{}"),
           ("scipy.special.i0e", "{}"), ("scipy.special.xlog1py", "{0} * {0}, 0.5 + {0} * {0}"),
           ("scipy.special.psi", "1.0 + {0} * {0}"), ("scipy.special.ndtr", "{}")]
# NumPy stand-ins of the same shape, where SciPy does not import (the draws stay the same)
SPECIAL_FALLBACK = "np.tanh({})"


def _named(g, shape: tuple) -> str:
    """A variable of `shape`, or a fresh one bound to an expression (as a line in g.pre)."""
    names = [n for n, s in g.vars.items() if s == shape]
    if names and g.rng.random() < 0.7:
        return g.rng.choice(names)
    u = g.fresh("u")
    g.pre.append(f"{u} = {value(g, shape, 1)}")
    g.vars[u] = shape
    return u


def _bind_drawn(g, v: str, rows: list) -> list:
    """The lines g.pre holds, then `v = <one of rows>` (an expression and its shape)."""
    expr, shape = g.rng.choice(rows)
    g.vars[v] = shape
    return g.pre + [f"{v} = {expr}"]


def selection(g, top: bool) -> list:
    """np.where, np.clip, ties, sorting and argmax-based indexing: piecewise-smooth
    selections (a tie between equal tangents has one derivative whichever side wins)."""
    if not top:
        return [_rebind(g, scalar(g))]
    g.pre, v = [], g.fresh()
    u = _named(g, (3,))
    c = g.rng.choice(["0.0", "0.25", "-0.3"])
    rows = [(f"np.where({u} > {c}, np.sin({u}), 0.5 * {u})", (3,)),
            (f"np.where({u} < {c}, {value(g, (3,), 1)}, {u})", (3,)),
            (f"np.clip({u}, -0.5, 0.6)", (3,)),
            (f"np.clip({value(g, (3,), 1)}, {u} - 1.0, 0.8)", (3,)),
            (f"np.maximum({u}, {u}) + np.minimum({u}, 1.0 * {u})", (3,)),
            (f"max({u}[0], {u}[0] + 0.0) + min({u}[1], {u}[1])", ()),
            (f"np.sort({u})", (3,)), (f"np.sort({u})[::-1] * np.linspace(0.5, 1.0, 3)", (3,)),
            (f"{u}[np.argmax({u})]", ()), (f"{u}[np.argmin(np.abs({u}))] * {scalar(g, 1)}", ()),
            (f"float({u}[int(np.argmax({u}))])", ())]
    if any(s == (2, 3) for s in g.vars.values()):
        m = _named(g, (2, 3))
        rows += [(f"{m}[np.argmax({m}[:, 0])]", (3,)), (f"np.sort({m}, axis=1)[:, -1]", (2,)),
                 (f"np.where({m} > {c}, {m}, 0.1 * {m}).sum(axis=0)", (3,))]
    return _bind_drawn(g, v, rows)


def mask(g, top: bool) -> list:
    """Boolean mask indexing, read and written."""
    if not top:
        return [_rebind(g, scalar(g))]
    g.pre, w = [], g.fresh("masked")
    u = _named(g, g.rng.choice([(3,), (2, 3)]))
    shape = g.vars[u]
    c = g.rng.choice(["0.0", "0.2", "-0.4"])
    write = g.rng.choice([f"{w}[{w} < {c}] = 0.0", f"{w}[{w} > {c}] *= {scalar(g, 1)}",
                          f"{w}[{w} > {c}] += 0.5", f"{w}[{u} < {c}] = {scalar(g, 1)}",
                          f"{w}[np.abs({w}) > 0.5] = np.tanh({w}[np.abs({w}) > 0.5])"])
    lines = g.pre + [f"{w} = {u}.copy()", write]
    g.vars[w] = shape
    if g.rng.random() < 0.5:
        s = g.fresh()
        g.vars[s] = ()
        lines.append(f"{s} = float(np.sum({w}[{w} > {c}])) + 0.5 * float(np.sum({u}[{u} <= {c}]))")
    return lines


def scatter(g, top: bool) -> list:
    """Writes through integer-array indices that repeat a position (NumPy keeps the
    last write of `=` and of `+=`; np.add.at adds every one), into a copy, or (inside
    blocks, or on every other draw) into an array that exists: an argument or a view."""
    existing = [n for n, s in g.vars.items() if s in ((3,), (2, 3))]
    in_place = existing and (not top or g.rng.random() < 0.5)
    if not top and not in_place:
        return [_rebind(g, scalar(g))]
    g.pre = []
    if in_place:
        u = w = g.rng.choice(existing)
    else:
        w, u = g.fresh("scattered"), _named(g, g.rng.choice([(3,), (2, 3)]))
    a, b = scalar(g, 1), scalar(g, 1)
    if g.vars[u] == (3,):
        rows = [f"{w}[[0, 0, 2]] = {value(g, (3,), 1)}", f"{w}[[1, 1]] += {value(g, (2,), 1)}",
                f"{w}[[2, 0, 2]] *= {_factor(g)}", f"np.add.at({w}, [0, 0, 2], {a})",
                f"np.put({w}, [0, 0], [{a}, {b}])"]
    else:
        rows = [f"{w}[[0, 0], [1, 1]] = np.array([{a}, {b}])",
                f"{w}[[1, 1]] += {value(g, (3,), 1)}",
                f"np.add.at({w}, ([0, 1, 1], [2, 0, 0]), {a})"]
    if in_place:
        return [g.rng.choice(rows)]
    g.vars[w] = g.vars[u]
    return g.pre + [f"{w} = {u} + 0.0", g.rng.choice(rows)]


def scan_solve(g, top: bool) -> list:
    """Scans, linear solves, norms, reshapes and transposes."""
    if not top:
        return [_rebind(g, scalar(g))]
    g.pre, v = [], g.fresh()
    u = _named(g, (3,))
    rows = [(f"np.cumsum({u})", (3,)), (f"np.cumprod(0.75 + 0.25 * np.tanh({u}))", (3,)),
            (f"np.linalg.solve(2.0 * np.eye(3) + 0.25 * np.outer({u}, {u}), {value(g, (3,), 1)})",
             (3,)),
            (f"np.linalg.norm({u} - {scalar(g, 1)})", ()),
            (f"np.linalg.norm(np.outer({u}, np.tanh({u})), axis=1)", (3,)),
            (f"({u}.reshape(3, 1) * np.tanh({u})).T.sum(axis=1)", (3,)),
            (f"np.transpose(np.stack([{u}, np.cos({u})]))", (3, 2))]
    if any(s == (2, 3) for s in g.vars.values()):
        m = _named(g, (2, 3))
        rows += [(f"np.cumsum({m}, axis=1)", (2, 3)),
                 (f"np.cumprod(np.tanh({m}), axis=0)", (2, 3)),
                 (f"np.linalg.solve(np.eye(2) * 3.0 + 0.2 * ({m} @ {m}.T), {m}[:, 0])", (2,)),
                 (f"{m}.reshape(3, 2).T", (2, 3)), (f"np.linalg.norm({m}, axis=0)", (3,))]
    return _bind_drawn(g, v, rows)


def int_index(g, top: bool) -> list:
    """Integer indices computed from float values: int() of an integer-valued float,
    of a rounded value, of a comparison count."""
    if not top:
        return [_rebind(g, scalar(g))]
    g.pre, v, i = [], g.fresh(), g.fresh("i")
    u = _named(g, (3,))
    made = g.rng.choice(["2.0", f"np.floor(1.5 + 0.4 * math.tanh({scalar(g, 1)}))",
                         f"float(np.sum({u} > 0.0))",
                         f"round(1.0 + 0.9 * math.sin({scalar(g, 1)}))"])
    use = g.rng.choice([f"{u}[int({i}) % 3]", f"{u}[int({i}) % 3] * {u}[0]",
                        f"float(np.sum({u}[:int({i}) + 1]))"])
    g.vars[v] = ()
    return g.pre + [f"{i} = {made}", f"{v} = {use}"]


def comprehension(g, top: bool) -> list:
    """List comprehensions and generator expressions over an array's elements or rows."""
    if not top:
        return [_rebind(g, scalar(g))]
    g.pre, v = [], g.fresh()
    u, s = _named(g, (3,)), scalar(g, 1)
    rows = [(f"np.array([np.sin(e) * {s} + e for e in {u}])", (3,)),
            (f"sum(e * e for e in {u})", ()), (f"max([math.tanh(e) for e in {u}])", ()),
            (f"np.array([e * k for k, e in enumerate({u})])", (3,))]
    if any(t == (2, 3) for t in g.vars.values()):
        m = _named(g, (2, 3))
        rows += [(f"np.stack([np.tanh(row) * {s} for row in {m}])", (2, 3)),
                 (f"sum(float(np.sum(row * row)) for row in {m})", ())]
    return _bind_drawn(g, v, rows)


def listed(g, top: bool) -> list:
    """Lists and tuples of values where NumPy reads an array: NumPy functions and
    operators with an array on the other side (two lists would concatenate)."""
    if not top:
        return [_rebind(g, scalar(g))]
    g.pre, v = [], g.fresh()
    u = _named(g, (3,))
    a, b, c = scalar(g, 1), scalar(g, 1), scalar(g, 1)
    rows = [(f"np.sin([{a}, {b}, {c}])", (3,)), (f"np.multiply([{a}, 1.0, {b}], {u})", (3,)),
            (f"np.add([{a}, {b}, 0.5], [1.0, {c}, {a}])", (3,)),
            (f"{u} * [{a}, 2.0, {b}]", (3,)), (f"({a}, {b}, 0.5) - {u}", (3,)),
            (f"np.dot({u}, [{a}, {b}, 1.0])", ()), (f"np.outer({u}, [1.0, {a}])[:, 1]", (3,)),
            (f"np.linalg.solve([[2.0 + {a} * {a}, 0.1], [0.2, 3.0]], [{b}, {c}])", (2,)),
            (f"np.exp(({a}, {b}, {c})) @ {u}", ()),
            (f"np.maximum([[{a}, 0.1, {b}], [{c}, {a}, 0.2]], {u})", (2, 3))]
    return _bind_drawn(g, v, rows)


def special(g, top: bool) -> list:
    """A scipy.special function on a bounded argument (a NumPy stand-in without SciPy)."""
    if not top:
        return [_rebind(g, scalar(g))]
    v, shape = g.fresh(), g.rng.choice([(), (3,)])
    fn, argument = g.rng.choice(SPECIAL)
    inner = value(g, shape, 1)
    if not HAS_SCIPY:
        expr = SPECIAL_FALLBACK.format(inner)
    else:
        if "import scipy.special" not in g.module:
            g.module.append("import scipy.special")
        expr = f"{fn}({argument.format(inner)})"
    g.vars[v] = shape
    return [f"{v} = {expr}"]
