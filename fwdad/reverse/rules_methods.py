"""Reverse rules for functions that write into arrays (fill, copyto, put, fill_diagonal),
the methods of ufuncs (`np.add.at`, reduce, accumulate, reduceat, outer) and np.random.

Writes go through the setitem rule, so a VarMat saves what they overwrite and restores
it on the way back (rules_arrays.assign). Random draws are constants; shuffles and
permutations move each element's adjoint along with its value.
"""
from __future__ import annotations

import operator

import numpy as np

from fwdad.errors import MissingRuleError, describe
from fwdad.reverse.positions import positions, scatter
from fwdad.reverse.registry import get_rrule, nondiff_rrule, raw_rrule
from fwdad.reverse.rule_calls import Pure
from fwdad.reverse.tracked import holds_variable, is_tracked
from fwdad.reverse.var import value_of
from fwdad.rules import random_ as forward_random
from fwdad.rules import random_params
from fwdad.rules.ufunc_methods import refuse_out


def _write(a, key, v) -> None:
    get_rrule(operator.setitem)(a, key, v)


@raw_rrule(np.ndarray.fill)
def _fill(x, value) -> None:
    _write(x, Ellipsis, value)


@raw_rrule(np.copyto)
def _copyto(dst, src, casting="same_kind", where=True) -> None:
    """`out=` of the identity: src (broadcast) is written where `where` holds."""
    if not (is_tracked(dst) or is_tracked(src)):
        return np.copyto(dst, src, casting=casting, where=where)
    if where is True:
        return _write(dst, Ellipsis, src)
    mask = np.broadcast_to(where, np.shape(dst))
    whole = get_rrule(np.broadcast_to)(src, np.shape(dst))
    _write(dst, mask, get_rrule(operator.getitem)(whole, mask))


@raw_rrule(np.put, np.ndarray.put)
def _put(a, ind, v, mode="raise") -> None:
    """a.flat[ind] = v (v repeated as needed); a repeated index: the last write wins."""
    flat = np.ravel(ind)
    size = max(int(np.size(value_of(a))), 1)
    flat = np.clip(flat, 0, size - 1) if mode == "clip" else flat % size
    last = len(flat) - 1 - np.unique(flat[::-1], return_index=True)[1]
    values = get_rrule(np.resize)(v, (len(flat),))
    index = np.unravel_index(flat[last], np.shape(value_of(a)))
    _write(a, index, get_rrule(operator.getitem)(values, (last,)))


@raw_rrule(np.fill_diagonal)
def _fill_diagonal(a, val, wrap=False) -> None:
    mask = np.zeros(np.shape(value_of(a)), dtype=bool)
    np.fill_diagonal(mask, True, wrap)
    index = np.nonzero(mask)
    _write(a, index, get_rrule(np.resize)(val, (len(index[0]),)))


# ---- methods of ufuncs ------------------------------------------------------------------------
_REDUCE = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min}
_ACCUMULATE = {np.add: np.cumsum, np.multiply: np.cumprod}


def _method(table, ufunc, name, also=()):
    """The reverse rule of `ufunc`'s method `name`, from `table`; or a clear refusal."""
    if ufunc not in table:
        known = ", ".join(f"{f.__name__}.{name}" for f in (*table, *also))
        raise MissingRuleError(
            f"{describe(ufunc)}.{name} has no reverse rule; reverse mode has {known}. "
            f"Write the loop in Python (fwdad derives its rule), or register one with "
            f"@fwdad.reverse.raw_rrule(numpy.ufunc.{name}) (docs/writing-rules.md).")
    return get_rrule(table[ufunc]) if table[ufunc] is not None else None


@raw_rrule(np.ufunc.reduce)
def _reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, **given):
    """add.reduce is sum, multiply.reduce prod, maximum/minimum.reduce max/min (`given`:
    their `initial` and `where`)."""
    if out is not None:
        refuse_out(ufunc, "reduce")
    extra = {} if ufunc in (np.maximum, np.minimum) else {"dtype": dtype}
    return _method(_REDUCE, ufunc, "reduce")(array, axis=axis, keepdims=keepdims, **extra,
                                              **given)


# A Pure's `fn` takes the arguments its rule takes: `fn(*args)` is what the pass runs for
# constants, and forward over reverse calls fn's frule. So a ufunc's method gets the ufunc
# first, as np.ufunc.accumulate does (given without it, np.ufunc.accumulate(x, ...) met an
# array as its ufunc: tests/test_ufunc_methods_second_order.py).
@raw_rrule(np.ufunc.accumulate)
def _accumulate(ufunc, array, axis=0, dtype=None, out=None):
    if out is not None:
        refuse_out(ufunc, "accumulate")
    if ufunc in _EXTREMES:
        return _RUNNING(ufunc, array, axis, dtype)
    return _method(_ACCUMULATE, ufunc, "accumulate", _EXTREMES)(array, axis=axis,
                                                                dtype=dtype)


def _running_extreme(ufunc, x, axis, dtype):
    """maximum/minimum.accumulate: each running extreme's cotangent goes to the element
    it came from (on a tie, the earlier one, as forward mode's rule picks)."""
    out = ufunc.accumulate(x, axis, dtype)
    best = np.moveaxis(out, axis, -1)
    n = best.shape[-1]
    taken = np.concatenate([np.ones(best.shape[:-1] + (1,), bool),
                            best[..., 1:] != best[..., :-1]], axis=-1)
    source = np.maximum.accumulate(np.where(taken, np.arange(n), 0), axis=-1)
    return out, lambda ct: (None, _sent_back(np.moveaxis(ct, axis, -1), source, axis))


def _sent_back(ct, source, axis):
    """The cotangent of x where ct[..., k] belongs to x[..., source[..., k]] (complex
    when ct is: a real total dropped its imaginary part)."""
    n = ct.shape[-1]
    if ct.size == 0:
        return np.moveaxis(np.zeros(ct.shape), -1, axis)
    rows = np.arange(ct.size // n).reshape(ct.shape[:-1] + (1,)) * n
    total = np.zeros(ct.size, np.result_type(ct, float))
    np.add.at(total, (rows + source).reshape(-1), np.reshape(ct, -1))
    return np.moveaxis(total.reshape(ct.shape), -1, axis)


_EXTREMES = (np.maximum, np.minimum)
_RUNNING = Pure(np.ufunc.accumulate, _running_extreme)


@raw_rrule(np.ufunc.reduceat)
def _reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """add.reduceat sums slices: each slice's cotangent goes to every element in it."""
    _method({np.add: None}, ufunc, "reduceat")
    if out is not None:
        refuse_out(ufunc, "reduceat")
    return _ADD_REDUCEAT(ufunc, array, indices, axis, dtype)


def _add_reduceat(ufunc, x, indices, axis, dtype):
    out = ufunc.reduceat(x, indices, axis, dtype)
    n, starts = np.shape(x)[axis], np.asarray(indices)
    ends = np.append(starts[1:], n)
    ends = np.where(ends > starts, ends, starts + 1)  # (a slice of one: x[start])
    slices = (np.arange(n) >= starts[:, None]) & (np.arange(n) < ends[:, None])
    return out, lambda ct: (None, np.moveaxis(np.moveaxis(ct, axis, -1) @ slices, -1, axis))


_ADD_REDUCEAT = Pure(np.ufunc.reduceat, _add_reduceat)


@raw_rrule(np.ufunc.outer)
def _outer(ufunc, a, b, **kwargs):
    """ufunc.outer(a, b) is ufunc(a[..., None, ...], b)."""
    shape = np.shape(value_of(a)) + (1,) * np.ndim(value_of(b))
    return get_rrule(ufunc)(get_rrule(np.reshape)(a, shape), b, **kwargs)


@raw_rrule(np.ufunc.at)
def _at(ufunc, a, indices, b=None) -> None:
    """a[indices] = ufunc(a[indices], b), unbuffered: a repeated index applies again.
    add and subtract add all of b at once; other ufuncs go one element at a time."""
    if not (is_tracked(a) or holds_variable(b)):
        return ufunc.at(a, indices, *(() if b is None else (b,)))
    if type(b) in (list, tuple):  # variables in a list: NumPy reads it as an array
        b = get_rrule(np.array)(b)
    shape = np.shape(value_of(a))
    where = positions(shape, 0)[indices]
    if ufunc in (np.add, np.subtract) and b is not None:
        return _write(a, Ellipsis, get_rrule(ufunc)(a, _gathered_sum(b, where, shape)))
    items = None if b is None else get_rrule(np.broadcast_to)(b, where.shape)
    getitem = get_rrule(operator.getitem)
    for k, pos in enumerate(where.reshape(-1)):
        index = np.unravel_index(pos, shape)
        args = () if items is None else (getitem(items, np.unravel_index(k, where.shape)),)
        _write(a, index, get_rrule(ufunc)(getitem(a, index), *args))


def _gathered_sum(b, where, shape):
    """The array of `shape` holding, at each position, the sum of the b's bound there."""
    if not is_tracked(b):  # a constant added to a variable: nothing to record
        return _gathered_total(b, where, shape)
    return _GATHERED(b, where, shape)


def _gathered_total(b, where, shape):
    total = np.zeros(int(np.prod(shape)))
    np.add.at(total, where, b)
    return total.reshape(shape)


def _add_at(b, where, shape):
    return _gathered_total(b, where, shape), lambda ct: (np.ravel(ct)[where],)


_GATHERED = Pure(_gathered_total, _add_at)  # (not np.ufunc.at, which takes other arguments)


# ---- np.random: draws are constants; shuffles move adjoints with values ------------------
def _drawing(method):
    """`method` of the generator given first, or of NumPy's global RandomState for a call
    through np.random, which reaches the rule without it (calling the unbound method on
    the first argument instead raised a TypeError, or crashed the interpreter)."""
    def draw(*args, **kwargs):
        source, args = forward_random.source_and_args(args)
        return getattr(source, method.__name__)(*args, **kwargs)
    draw.__name__ = method.__name__
    return draw


def _refusing(method):
    """A float draw whose parameter is a variable: refused (the sample moves with it),
    as forward mode refuses it; the generator given first is no parameter."""
    call = f"{getattr(method, '__qualname__', method.__name__)}"

    def refuse(sample, *args, **kwargs):
        first = 1 if args and isinstance(args[0], forward_random.SOURCES) else 0
        moved = [f"argument {i + 1 - first}" for i, a in enumerate(args)
                 if holds_variable(a)] + [f"{k}=" for k, v in kwargs.items()
                                          if holds_variable(v)]
        if moved and forward_random.moves_with_parameters(sample):
            raise forward_random.draw_parameter_error(call, moved[0])
    return refuse


nondiff_rrule(*[getattr(cls, name) for cls in forward_random.SOURCES for name in dir(cls)
                if not name.startswith("_") and name not in forward_random.NOT_DRAWS
                and name not in random_params.FAMILIES and callable(getattr(cls, name))],
              call=_drawing, refuse=_refusing)


def _location_scale(cls: type, name: str):
    """normal(loc, scale), uniform(low, high) with parameters that may be variables: the
    sample's pullback is ct * d sample / d parameter (rules/random_params.py)."""
    call = f"{cls.__name__}.{name}"

    def draw(*args, **kwargs):
        source, rest = forward_random.source_and_args(args)
        a, b, size = random_params.bind(name, rest, kwargs)
        if not (holds_variable(a) or holds_variable(b)):
            return getattr(source, name)(value_of(a), value_of(b), size)
        if random_params.degenerate(name, value_of(a), value_of(b)) and (
                holds_variable(b) or name == "uniform"):  # (as forward mode refuses)
            raise random_params.degenerate_error(call)

        def rule(a, b):
            out = getattr(source, name)(a, b, size)
            by_a, by_b = random_params.partials(name, random_params.unit_draw(name, out, a, b))
            return out, lambda ct: (ct * by_a, ct * by_b)
        rule.__name__ = f"_{name}"
        return Pure(getattr(cls, name), rule)(a, b)
    draw.__name__ = f"_{name}"
    return draw


for _cls in forward_random.SOURCES:
    for _name in random_params.FAMILIES:
        raw_rrule(getattr(_cls, _name))(_location_scale(_cls, _name))


def _shuffle_rule(in_place: bool):
    def rule(*args, axis=0):
        source, rest = (args[0], args[1:]) if isinstance(args[0], forward_random.SOURCES) \
            else (np.random.mtrand._rand, args)
        x, extra = rest[0], (() if isinstance(source, np.random.RandomState) else (axis,))
        if not is_tracked(x):
            return getattr(source, "shuffle" if in_place else "permutation")(x, *extra)
        order = positions(np.shape(value_of(x)), 0)
        both = np.stack([value_of(x), order.astype(float)], axis=-1)  # rows move as one
        source.shuffle(both, *(e % np.ndim(order) for e in extra))
        moved = _moved(x, both[..., 1].astype(int))
        if not in_place:
            return moved
        _write(x, Ellipsis, moved)
    rule.__name__ = "_shuffle" if in_place else "_permutation"
    return rule


def _moved(x, source):
    """x's elements taken from the flat positions `source`."""
    def rule(value):
        return np.ravel(value)[source], lambda ct: (scatter(source + 1, ct, np.shape(value)),)
    rule.__name__ = "_permuted"
    return Pure(np.random.Generator.permutation, rule)(x)


for _cls in forward_random.SOURCES:
    raw_rrule(_cls.shuffle)(_shuffle_rule(True))
    raw_rrule(_cls.permutation)(_shuffle_rule(False))
