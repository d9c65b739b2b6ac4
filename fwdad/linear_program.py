"""The recorded linear program of `linearize`, and its transpose, as readable Python
(`fwdad show file.py:f --linear --at ...`, `lin.source()`, `lin.T.source()`).

    t1 = np.multiply(c1, t0)       # c1: a saved float64 array of shape (4,)
    t2 = np.sum(t1, axis=0)

Tangent nodes are t0, t1, ... (the inputs first); saved primal values are c1, c2, ...
The transposed program runs the same steps backwards on cotangents ct0, ct1, ...
(fwdad/transposition.py): a view's cotangent is the same view of its base's, so views
need no step of their own.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Dict, List

import numpy as np

from fwdad.recording import Linear, Tape
from fwdad.rules.recorded_solves import RecordedTangent
from fwdad.tangents import Tangent


def forward_source(tape: Tape, inputs: List[Linear], output: Any) -> str:
    names = _Names()
    names.number(tape)
    lines = [f"# inputs: {', '.join(names.node(n) for n in inputs) or '(none)'}"]
    for index, fn, args, kwargs in tape.ops:
        call = _call(fn, args, kwargs, names)
        lines.append(call if index is None or "out" in kwargs else
                     f"{names.node(tape.nodes[index])} = {call}")
    lines.append(f"return {_tree(output, names)}")
    return "\n".join(lines + names.legend())


def transposed_source(tape: Tape, inputs: List[Linear], output: Any) -> str:
    names = _Names()
    names.number(tape)
    lines = [f"# cotangents in: {_tree(output, names, 'ct')}"]
    for (index, fn, args, kwargs), view in zip(reversed(tape.ops), reversed(tape.views)):
        out = None if index is None else tape.nodes[index]
        if view is not None:
            lines.append(f"# {names.node(out)} viewed {names.node(tape.nodes[view])}: "
                         f"ct{names.node(out)[1:]} is that view of "
                         f"ct{names.node(tape.nodes[view])[1:]}")
            continue
        lines.extend(_transposed_step(fn, args, kwargs, out, names))
    lines.append(f"return {', '.join('ct' + names.node(n)[1:] for n in inputs)}")
    return "\n".join(lines + names.legend())


# ---- one transposed step, in words close to fwdad/transposition.py ----------------------
def _transposed_step(fn: Callable, args: tuple, kwargs: dict, out: Any,
                     names: "_Names") -> List[str]:
    ct = "ct" + names.node(out)[1:] if out is not None else None
    text = [_text(a, names) for a in args]
    recorded = [i for i, a in enumerate(args) if type(a) is Linear]
    cts = ["ct" + names.node(args[i])[1:] for i in recorded]
    steps: List[str] = []
    if "out" in kwargs and out is not None:
        steps.append(f"c = {ct}.copy(); {ct}[...] = 0")
        ct = "c"
    name = getattr(fn, "__name__", "")
    if fn is np.zeros or not recorded:
        return [f"# {names.node(out) if out is not None else ''} = {_callee(fn)}(...): "
                f"made from constants"]
    if fn is operator.setitem:
        target, at = "ct" + names.node(args[0])[1:], _index(args[1], names)
        steps.append(f"w = {target}[{at}].copy(); {target}[{at}] = 0")
        if type(args[2]) is Linear:
            steps.append(f"ct{names.node(args[2])[1:]} += unbroadcast(w)")
        return steps
    if fn is np.copyto:
        target = "ct" + names.node(args[0])[1:]
        steps.append(f"w = where(mask, {target}, 0); {target}[mask] = 0")
        if type(args[1]) is Linear:
            steps.append(f"ct{names.node(args[1])[1:]} += unbroadcast(w)")
        return steps
    if type(fn) is RecordedTangent:  # (SciPy's tangent: one matrix per recorded input)
        steps += [f"{c} += (M{k}.T @ {ct}.ravel()).reshape({c}.shape)  # M{k}: "
                  f"{_callee(fn)}'s matrix in t{names.node(args[i])[1:]}"
                  for k, (c, i) in enumerate(zip(cts, recorded))]
    elif fn in (np.add,):
        steps += [f"{c} += unbroadcast({ct})" for c in cts]
    elif fn is np.subtract:
        signs = ["+=" if i == 0 else "-=" for i in recorded]
        steps += [f"{c} {s} unbroadcast({ct})" for c, s in zip(cts, signs)]
    elif fn is np.negative:
        steps.append(f"{cts[0]} -= {ct}")
    elif fn is np.multiply:
        other = text[1 - recorded[0]]
        steps.append(f"{cts[0]} += unbroadcast({ct} * {other})")
    elif fn is np.true_divide:
        steps.append(f"{cts[0]} += unbroadcast({ct} / {text[1]})")
    elif fn is np.matmul:
        steps.append(f"{cts[0]} += {ct} @ {text[1]}.T" if recorded == [0] else
                     f"{cts[0]} += {text[0]}.T @ {ct}")
    elif fn is operator.getitem:
        steps.append(f"np.add.at({cts[0]}, {text[1]}, {ct})  # (an index that copies)")
    elif fn is np.take_along_axis:
        steps.append(f"np.add.at({cts[0]}, <where each entry was picked>, {ct})")
    elif fn is np.where:
        steps += [f"{c} += unbroadcast(np.where({text[0]}, {ct}, 0) if picked else ...)"
                  for c in cts]
    elif name in ("sum", "mean") or fn in (np.sum, np.mean):
        scale = " / count" if "mean" in name else ""
        steps.append(f"{cts[0]} += broadcast({ct} over the summed axes){scale}")
    else:  # copies, casts, reshapes that copied, ravel, flatten
        steps.append(f"{cts[0]} += {ct}.reshape({cts[0]}.shape)")
    return steps


# ---- names ------------------------------------------------------------------------------------
class _Names:
    def __init__(self) -> None:
        self.constants: Dict[int, tuple] = {}

    def number(self, tape: Tape) -> None:
        """Name the saved values in the order the program uses them."""
        for _, _, args, kwargs in tape.ops:
            _text((args, kwargs), self)

    def node(self, node: Linear) -> str:
        return f"t{node.index}"

    def constant(self, value: Any) -> str:
        key = id(value)
        if key not in self.constants:
            self.constants[key] = (f"c{len(self.constants) + 1}", value)
        return self.constants[key][0]

    def legend(self) -> List[str]:
        return [f"# {name}: a saved {value.dtype} array of shape {value.shape}"
                for name, value in self.constants.values()]


def _text(value: Any, names: _Names) -> str:
    if type(value) is Linear:
        return names.node(value)
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return names.constant(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(_text(v, names) for v in value) + ("," if len(value) == 1
                                                                  else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v, names) for v in value) + "]"
    if value is Ellipsis:
        return "..."
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_text(v, names)}" for k, v in value.items()) + "}"
    if isinstance(value, slice):
        parts = ["" if p is None else repr(p) for p in (value.start, value.stop)]
        return ":".join(parts) + ("" if value.step is None else f":{value.step!r}")
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r})"
    return repr(value)


def _arguments(args: tuple, kwargs: dict, names: _Names) -> str:
    shown = [_text(a, names) for a in args]
    shown += [f"{k}={_text(v, names)}" for k, v in kwargs.items()
              if not (v is None or v is np._NoValue or (k == "where" and v is True))]
    return ", ".join(shown)


def _call(fn: Callable, args: tuple, kwargs: dict, names: _Names) -> str:
    if fn is operator.getitem:
        return f"{_text(args[0], names)}[{_index(args[1], names)}]"
    if fn is operator.setitem:
        return f"{_text(args[0], names)}[{_index(args[1], names)}] = {_text(args[2], names)}"
    return f"{_callee(fn)}({_arguments(args, kwargs, names)})"


def _index(index: Any, names: _Names) -> str:
    text = _text(index, names)
    return text[1:-1].rstrip(",") if isinstance(index, tuple) else text


def _callee(fn: Callable) -> str:
    if fn is operator.getitem:
        return "operator.getitem"
    if fn is operator.setitem:
        return "operator.setitem"
    name = getattr(fn, "__name__", repr(fn))
    if getattr(fn, "__module__", "") == "fwdad.recording":  # a method: call_method(obj, ...)
        return f"method_{name}"
    return f"np.{name}" if getattr(np, name, None) is fn else name


def _tree(value: Any, names: _Names, prefix: str = "t") -> str:
    if type(value) is Linear:
        return prefix + names.node(value)[1:]
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_tree(v, names, prefix) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_tree(v, names, prefix)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, Tangent):  # (an instance's fields)
        return "Tangent(" + ", ".join(f"{k}={_tree(v, names, prefix)}"
                                      for k, v in vars(value).items()) + ")"
    return "0"
