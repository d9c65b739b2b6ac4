"""Step templates: the common rrules written out as lines, as forward templates are.

A pure step whose rrule has a row here is printed inline: its forward line computes the
value, and one backward line per variable argument adds the same cotangent the rule's
pullback gives (the same operations in the same order, so the replay is bitwise the
full rule's). Rules without a row are called, and their pullback kept (the generic
step in codegen.py).

    rrule          forward             cotangent of x               cotangent of y
    operator.mul   o = x * y           unread_zero(c, c * y)        unread_zero(c, c * x)
    math.sin       o = _fw_sin(x)      unread_zero(c, c * _fw_cos(x))

(unread_zero, rules/ieee.py: an element whose cotangent is 0 passes 0 back, even through
an infinite partial, as the rules do.)
"""
from __future__ import annotations

import math
import operator
from typing import Any, Dict, Optional, Tuple

import numpy as np

from fwdad.reverse.rules_scalar import pow_base
from fwdad.rules.ieee import divide, unread_zero

_ARITHMETIC: Dict[Any, Tuple[str, Tuple[Optional[str], ...]]] = {
    operator.add: ("{x} + {y}", ("{c}", "{c}")),
    operator.sub: ("{x} - {y}", ("{c}", "-{c}")),
    operator.mul: ("{x} * {y}", ("{unread_zero}({c}, {c} * {y})",
                                 "{unread_zero}({c}, {c} * {x})")),
    operator.neg: ("-{x}", ("-{c}",)),
    operator.pos: ("+{x}", ("{c}",)),
}
_ARITHMETIC.update({np.add: _ARITHMETIC[operator.add],
                    np.subtract: _ARITHMETIC[operator.sub],
                    np.multiply: _ARITHMETIC[operator.mul],
                    np.negative: _ARITHMETIC[operator.neg]})

# f(x) and f'(x) in terms of x and the output o, for Python floats and for arrays.
_UNARY: Dict[Any, Tuple[str, str]] = {
    math.sin: ("{math.sin}({x})", "{unread_zero}({c}, {c} * {math.cos}({x}))"),
    math.cos: ("{math.cos}({x})", "{unread_zero}({c}, {c} * -{math.sin}({x}))"),
    math.exp: ("{math.exp}({x})", "{unread_zero}({c}, {c} * {o})"),
    math.tanh: ("{math.tanh}({x})", "{unread_zero}({c}, {c} * (1.0 - {o} * {o}))"),
    math.sqrt: ("{math.sqrt}({x})", "{unread_zero}({c}, {c} * {divide}(0.5, {o}))"),
    np.sin: ("{np.sin}({x})", "{unread_zero}({c}, {c} * {np.cos}({x}))"),
    np.cos: ("{np.cos}({x})", "{unread_zero}({c}, {c} * -{np.sin}({x}))"),
    np.exp: ("{np.exp}({x})", "{unread_zero}({c}, {c} * {o})"),
    np.tanh: ("{np.tanh}({x})", "{unread_zero}({c}, {c} * (1.0 - {o} * {o}))"),
    np.log: ("{np.log}({x})", "{unread_zero}({c}, {c} * (1.0 / {x}))"),
}
_NAMED = {"math.sin": math.sin, "math.cos": math.cos, "math.exp": math.exp,
          "math.tanh": math.tanh, "math.sqrt": math.sqrt, "divide": divide,
          "np.sin": np.sin, "np.cos": np.cos, "np.exp": np.exp, "np.tanh": np.tanh,
          "np.log": np.log, "unread_zero": unread_zero}

# Plain operators on plain values (comparisons, index arithmetic): printed as operators.
_PLAIN = {operator.add: "{} + {}", operator.sub: "{} - {}", operator.mul: "{} * {}",
          operator.mod: "{} % {}", operator.floordiv: "{} // {}",
          operator.lt: "{} < {}", operator.le: "{} <= {}", operator.gt: "{} > {}",
          operator.ge: "{} >= {}", operator.eq: "{} == {}", operator.ne: "{} != {}",
          operator.getitem: "{}[{}]", operator.not_: "not {}"}


def plain(w: Any, step: Any) -> Optional[str]:
    """A plain operator call as an expression, or None."""
    form = _PLAIN.get(step.callee)
    if form is None or step.kwargs or form.count("{}") != len(step.args):
        return None
    return "(" + form.format(*(w.atom(a) for a in step.args)) + ")"


def write(w: Any, step: Any, out: str) -> bool:
    """Print the pure step `step` from its row; False when it has none or its
    arguments are not plain floats and float arrays."""
    fn = step.callee.fn
    if step.kwargs or not _plain_numbers(w, step):
        return False
    names = [w.atom(a) for a in step.args]
    shape = w.rec.shapes[out]
    if fn in _ARITHMETIC and len(names) == len(_ARITHMETIC[fn][1]):
        form, cts = _ARITHMETIC[fn]
    elif fn in _UNARY and len(names) == 1:
        form, ct = _UNARY[fn]
        form, cts = form, (ct,)
    elif fn in (operator.truediv, np.true_divide) and len(names) == 2:
        return _divide(w, step, out, names)
    elif fn in (operator.matmul, np.matmul) and len(names) == 2:
        return _matmul(w, step, out, names)
    elif fn in _REDUCTIONS and len(names) == 1 and w.rec.is_variable(step.args[0]):
        return _reduce(w, step, out, names[0])
    elif fn in (operator.pow, np.power) and len(names) == 2 and \
            not w.rec.is_variable(step.args[1]) and shape is None:
        form, cts = "{x} ** {y}", (f"{{unread_zero}}({{c}}, {w.bind(pow_base)}({{x}}, "
                                   f"{{y}}, {{c}}))", None)
    else:
        return False
    fields = dict(zip("xy", names), o=out, c=f"ct_{out}",
                  **{k: w.bind(v, k.split(".")[-1]) for k, v in _NAMED.items()})
    w.forward.append(f"{out} = {_fill(form, fields)}")
    if shape is not None and out not in w.reached:
        return True
    for i in reversed(range(len(names))):
        if cts[i] is not None and w.rec.is_variable(step.args[i]):
            w.accumulate(step.args[i], _fill(cts[i], fields), shape)
    return True


_REDUCTIONS = {np.sum: "sum", np.ndarray.sum: "sum", np.mean: "mean", np.ndarray.mean: "mean"}


def _reduce(w: Any, step: Any, out: str, x: str) -> bool:
    """rules_arrays._sum and _mean over every axis: the cotangent, divided by the count
    for a mean, spread over x (`np.full`, as add_adjoint copies the broadcast)."""
    shape = w.rec.shapes[step.args[0]]
    if shape is None:
        return False
    kind = _REDUCTIONS[step.callee.fn]
    w.forward.append(f"{out} = {w.bind(getattr(np, kind), kind)}({x})")
    count = float(int(np.prod(shape, dtype=int)) / 1)  # (size(x) / size(out), as _mean)
    ct = f"ct_{out}" if kind == "sum" else f"ct_{out} / {count!r}"
    w.fill(step.args[0], ct)
    return True


def _matmul(w: Any, step: Any, out: str, names: list) -> bool:
    """rules_arrays.matmul_pullback for 1-d and 2-d operands, the same calls."""
    x, y = names
    dims = [np.ndim(w.rec.values[a].value if w.rec.is_variable(a) else
                    w.rec.values[a] if isinstance(a, str) else a.value) for a in step.args]
    forms = {(2, 1): ("{c}[..., :, None] * {y}", "{mm}({sw}({x}, -1, -2), {c}[..., None])"
                                                 "[..., 0]"),
             (1, 2): ("{mm}({y}, {c}[..., None])[..., 0]", "{x}[:, None] * {c}[..., None, :]"),
             (2, 2): ("{mm}({c}, {sw}({y}, -1, -2))", "{mm}({sw}({x}, -1, -2), {c})")}
    if tuple(dims) not in forms:
        return False
    w.forward.append(f"{out} = {x} @ {y}")
    if out not in w.reached:
        return True
    fields = dict(x=x, y=y, c=f"ct_{out}", mm=w.bind(np.matmul, "matmul"),
                  sw=w.bind(np.swapaxes, "swapaxes"))
    cts = forms[tuple(dims)]
    for i in (1, 0):
        if w.rec.is_variable(step.args[i]):
            w.accumulate(step.args[i], _fill(cts[i], fields), w.rec.shapes[step.args[i]])
    return True


def _fill(form: str, fields: Dict[str, str]) -> str:
    for key, value in fields.items():
        form = form.replace("{" + key + "}", value)
    return form


def _divide(w: Any, step: Any, out: str, names: list) -> bool:
    """rules_scalar._truediv: an output nothing reads passes nothing back, even where
    its partial is infinite (`_read`)."""
    x, y = names
    shape = w.rec.shapes[out]
    w.forward.append(f"{out} = {x} / {y}")
    if shape is not None and out not in w.reached:
        return True
    read = w.bind(read_quotient)
    if w.rec.is_variable(step.args[1]):
        w.accumulate(step.args[1], f"{read}(ct_{out}, -ct_{out} * {out}, {y})", shape)
    if w.rec.is_variable(step.args[0]):
        w.accumulate(step.args[0], f"{read}(ct_{out}, ct_{out}, {y})", shape)
    return True


def read_quotient(ct: Any, numerator: Any, y: Any) -> Any:
    """rules_scalar._read(ct, lambda: numerator / y)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return unread_zero(ct, numerator / y)


def _plain_numbers(w: Any, step: Any) -> bool:
    """Every argument a float (Python's or NumPy's), an int or a float64 array (the
    types the rows' lines compute exactly as the rules do)."""
    for a in step.args:
        value = w.rec.values[a] if isinstance(a, str) else a.value
        value = getattr(value, "value", value)
        if type(value) not in (float, int, np.float64) and not (
                type(value) is np.ndarray and value.dtype == np.float64):
            return False
    return True
