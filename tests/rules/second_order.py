"""Second-order check of a rule: the Hessian of a smooth scalar function of the rule's
results, from fwdad.hessian and fwdad.hvp, against central finite differences of the
gradient that fwdad.jacfwd gives.

The float values among a row's arguments (floats, float arrays, complex numbers and
arrays as two real parts, inside lists, tuples and dicts too) become the entries of
one vector x. The function checked rebuilds the arguments from x, calls the rule's
function, and scores every float value it can see afterwards (the output, and the
arguments, which the call may have written into) with fixed random weights:
`sum(w * v + u * v * v)`. The square makes the Hessian depend on the rule's first
derivative even where the rule is linear; the rule's own second derivative enters
through w. Everything else in the row (ints, strings, masks, functions) is a constant.
"""
from __future__ import annotations

import copy
from collections import abc
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

import fwdad

# what a rebuilt argument is: a constant, or the entries x[start:stop] of the vector
_CONST, _FLOAT, _SCALAR, _ARRAY, _COMPLEX, _LIST, _TUPLE, _DICT = range(8)


def layout(value: Any, at: List[float]) -> tuple:
    """How to rebuild `value` from the vector x; appends its float entries to `at`."""
    if isinstance(value, bool) or not isinstance(value, (float, complex, np.ndarray,
                                                         list, tuple, dict)):
        return (_CONST, value)
    if isinstance(value, np.ndarray) and value.dtype not in (np.float64, np.complex128):
        return (_CONST, value)  # ints, masks; float32 is too coarse for the differences
    if isinstance(value, (list, tuple)) and type(value) not in (list, tuple):
        return (_CONST, value)  # a NamedTuple, say
    if isinstance(value, list):
        return (_LIST, [layout(v, at) for v in value])
    if isinstance(value, tuple):
        return (_TUPLE, [layout(v, at) for v in value])
    if isinstance(value, dict):
        return (_DICT, [(k, layout(v, at)) for k, v in value.items()])
    return _numeric_layout(value, at)


def _numeric_layout(value: Any, at: List[float]) -> tuple:
    start = len(at)
    array = np.asarray(value)
    if np.iscomplexobj(array):
        at.extend(array.real.ravel())
        at.extend(array.imag.ravel())
        return (_COMPLEX, start, array.size, array.shape, isinstance(value, np.ndarray))
    at.extend(array.ravel())
    if isinstance(value, np.ndarray):
        return (_ARRAY, start, start + array.size, array.shape)
    return (_FLOAT if type(value) is float else _SCALAR, start)


def rebuild(x, plan: tuple):
    """The value `plan` describes, with entries from x (differentiated code)."""
    kind = plan[0]
    if kind == _CONST:
        return plan[1]
    if kind == _FLOAT:
        return float(x[plan[1]])
    if kind == _SCALAR:
        return x[plan[1]]
    if kind == _ARRAY:
        return x[plan[1]:plan[2]].reshape(plan[3]).copy()
    if kind == _COMPLEX:
        return _complex(x, plan[1], plan[2], plan[3], plan[4])
    if kind == _DICT:
        return {k: rebuild(x, p) for k, p in plan[1]}
    items = [rebuild(x, p) for p in plan[1]]
    return items if kind == _LIST else tuple(items)


def _complex(x, start: int, size: int, shape: tuple, is_array: bool):
    re = x[start:start + size].reshape(shape)
    im = x[start + size:start + 2 * size].reshape(shape)
    value = re + 1j * im
    return value if is_array else value[()]


def float_leaves(value: Any, found: list) -> list:
    """The float and complex values in `value`, in a fixed order (differentiated code)."""
    if isinstance(value, (abc.Iterator, abc.KeysView, abc.ValuesView, abc.ItemsView)):
        value = list(value)
    if isinstance(value, bool):
        return found
    if isinstance(value, (float, complex)):
        found.append(value)
    elif isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            found.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            float_leaves(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            float_leaves(item, found)
    return found


def score(values: list, weights: list):
    """sum(w * v + u * v * v) over the float values, real part."""
    total = 0.0
    for value, (w, u) in zip(values, weights):
        total = total + np.real(np.sum(w * value + u * value * value))
    return total


def scalar_function(fn: Callable, args: tuple, kwargs: Dict[str, Any],
                    seed: int = 0) -> Tuple[Callable, np.ndarray]:
    """The scalar function of x checked for one row, and the row's point x."""
    entries: List[float] = []
    plan = layout(tuple(args), entries)
    x = np.array(entries, dtype=float)

    def run(x, plan=plan):  # (a default: the row's constant objects, which the rule
        args = rebuild(x, plan)  # may write into, are the call's own, not a closure's)
        out = fn(*args, **kwargs)
        return out, args

    rng = np.random.default_rng(seed)
    weights = [(_weight(v, rng), _weight(v, rng) * 0.5)
               for v in float_leaves(run(x), [])]

    def scalar(x):
        return score(float_leaves(run(x), []), weights)
    return scalar, x


def _weight(value: Any, rng: np.random.Generator):
    shape = np.shape(value)
    if np.iscomplexobj(value):
        return rng.uniform(0.5, 1.5, shape) * np.exp(2j * np.pi * rng.uniform(size=shape))
    return rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)


def entries(args: tuple) -> np.ndarray:
    """The float entries of a row's arguments (its point x)."""
    found: List[float] = []
    layout(tuple(args), found)
    return np.array(found, dtype=float)


def differentiable_entries(fn: Callable, args: tuple) -> int:
    """How many float entries the row's arguments have."""
    return entries(args).size


# fwdad.hessian takes one second-order pass per entry; above this many entries the
# rows check hvp (one batched pass) along two directions instead
HESSIAN_ENTRIES = 4


def check_second_order(fn: Callable, args: tuple, kwargs: Dict[str, Any],
                       h: float = 1e-5, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """fwdad.hessian (for a few entries) and fwdad.hvp of the row's scalar function
    against central differences of its fwdad.jacfwd gradient."""
    f, x = scalar_function(fn, copy.deepcopy(args), kwargs)
    gradient = fwdad.jacfwd(f)
    reference = _differences(gradient, x, h)
    sharper = None  # (the differences at h and h/2 extrapolated, made where needed)

    def check(got: np.ndarray, want: Callable[[np.ndarray], np.ndarray], what: str) -> None:
        """got against want(reference); where they differ, against want of the
        Richardson extrapolation (error O(h^4), not O(h^2): a row whose third
        derivatives are large)."""
        nonlocal sharper
        if np.allclose(got, want(reference), rtol=rtol, atol=atol):
            return
        if sharper is None:
            sharper = (4.0 * _differences(gradient, x, h / 2) - reference) / 3.0
        np.testing.assert_allclose(got, want(sharper), rtol=rtol, atol=atol,
                                   err_msg=f"{what} against differences of jacfwd")
    if x.size <= HESSIAN_ENTRIES:
        check(fwdad.hessian(f)(x), lambda ref: ref, "hessian")
    for v in np.random.default_rng(1).normal(size=(1 if x.size <= HESSIAN_ENTRIES else 2,
                                                    x.size)):
        (hv,) = fwdad.hvp(f, (x,), (v,))
        check(hv, lambda ref, v=v: ref @ v, "hvp")


def _differences(gradient: Callable, x: np.ndarray, h: float) -> np.ndarray:
    """The Hessian by central differences of the gradient, step h."""
    return np.stack([(gradient(x + h * e) - gradient(x - h * e)) / (2 * h)
                     for e in np.eye(x.size)], axis=-1)
