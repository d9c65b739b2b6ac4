"""Shared helpers for the leading batch axis of tangents.

A tangent is batched when it has one more axis than its primal. Rules call these
helpers instead of special-casing that axis themselves.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator, Optional, Tuple, Union

import numpy as np

from fwdad.errors import InternalError
from fwdad.rules.layout import follows, laid_out_like
from fwdad.tangents import NoTangent, zero_tangent

Axis = Optional[Union[int, Tuple[int, ...]]]


def ndim(x: Any) -> int:
    """np.ndim, without its overhead for the common cases (every rule asks this)."""
    kind = type(x)
    if kind is np.ndarray:
        return x.ndim
    if kind in _SCALARS or x is NoTangent:  # (np.ndim would make an array of each)
        return 0
    return np.ndim(x)


_SCALARS = frozenset({float, int, bool, complex, np.float64, np.float32, np.complex128,
                      np.int64, np.bool_})


def is_batched(primal: Any, tangent: Any) -> bool:
    """True when `tangent` carries a leading batch axis."""
    if type(tangent) is np.ndarray and type(primal) is np.ndarray:  # (the common case)
        return tangent.ndim == primal.ndim + 1
    return ndim(tangent) == ndim(primal) + 1


def tangent_axis(primal: Any, tangent: Any, axis: Axis) -> Axis:
    """The axis of `tangent` that corresponds to `axis` of `primal`.

    `None` (all axes) becomes every axis but the batch axis."""
    if not is_batched(primal, tangent):
        return axis
    count = ndim(primal)
    if axis is None:
        return tuple(range(1, count + 1))
    if isinstance(axis, tuple):
        return tuple(a % count + 1 for a in axis)
    return axis % count + 1


def tangent_index(primal: Any, tangent: Any, index: Any) -> Any:
    """The index into `tangent` that selects what `index` selects from `primal`."""
    if not is_batched(primal, tangent):
        return index
    if not isinstance(index, tuple):
        index = (index,)
    return (slice(None),) + index


def iterate_tangent(primal: np.ndarray, tangent: Any) -> Iterator[Any]:
    """The tangents of `primal[0], primal[1], ...` (iteration over the first axis):
    views of rows, as the rows are, but copies of elements, which are new numbers (one
    tangent gives them; a batch of them, `tangent[:, i]`, would be a view)."""
    if is_batched(primal, tangent):
        if primal.ndim == 1:
            return iter(tangent.T.copy())
        return (tangent[:, i] for i in range(len(primal)))
    return iter(tangent)


def move_batch_last(primal: Any, tangent: Any) -> Any:
    """The tangent with its batch axis moved to the end (for matrix products)."""
    return np.moveaxis(tangent, 0, -1) if is_batched(primal, tangent) else tangent


def lift(primal: Any, tangent: Any, out_ndim: int) -> Any:
    """A batched tangent, reshaped so that it broadcasts against a result of `out_ndim`
    axes as its primal does (NumPy aligns shapes on the right; the batch axis is left).
    Unbatched tangents and scalars come back unchanged."""
    if type(tangent) is float:
        return tangent
    primal_ndim = ndim(primal)
    if primal_ndim >= out_ndim or ndim(tangent) <= primal_ndim:
        return tangent
    extra = out_ndim - primal_ndim
    return tangent.reshape(tangent.shape[:1] + (1,) * extra + tangent.shape[1:])


# ---- the tangent context: zero tangents of arrays created during a call --------------
# Note: an array created inside the function (np.zeros, np.array of constants, ...) gets
# a *batched* zero tangent while a batched call runs, so that a later in-place update
# with a batched value (`a[i] = x`, `a += x`) writes into a tangent that already has
# the batch axis, and views taken of `a` before the update see it. The alternative,
# widening the target's tangent when the update happens, cannot reach views taken
# earlier (they hold the old, unbatched tangent); it remains only as a fallback for
# arrays made outside the context (globals, inactive arguments, sums of constants), and
# only where every holder of the old tangent can be moved to the new one
# (fwdad/rules/widening.py): otherwise it raises. Reading a global array does not use
# the context: its zero tangent stays unbatched, so that constants cost no batch work.
# linearize (fwdad/linearize.py) uses the same hook with tangents that are recorded.
class TangentContext:
    """How a running call makes the tangents of new arrays: here, with a batch axis."""

    holds_sets = False  # tangents are arrays of dependency sets (fwdad/sparsity)

    def __init__(self, size: Optional[int]) -> None:
        self.size = size

    def zeros(self, zero: np.ndarray) -> Any:
        """The tangent of a new array whose unbatched zero tangent is `zero`."""
        if zero.ndim > 1 and not zero.flags.c_contiguous:  # (items in its order:
            return laid_out_like(zero, np.zeros((self.size,) + zero.shape, zero.dtype))
        return np.zeros((self.size,) + zero.shape, zero.dtype)  # rules/layout.py)

    def needs_widening(self, x: Any, value: Any) -> bool:
        """Whether writing Dual `value` into Dual `x` needs x's tangent widened."""
        return is_batched(value.primal, value.tangent)

    def widen(self, tangent: np.ndarray, value: Any) -> Any:
        """A new tangent for the target, like `tangent` but shaped to hold `value`'s."""
        size = np.shape(value.tangent)[0]  # (items laid out as tangent: rules/layout.py)
        return laid_out_like(tangent, np.broadcast_to(tangent, (size,) + tangent.shape))


_PLAIN = TangentContext(None)
# One per thread (and per asyncio task): a batched call in one does not batch another's.
_CONTEXT: ContextVar[Optional[TangentContext]] = ContextVar("fwdad_tangent_context",
                                                            default=None)


@contextmanager
def tangent_context(context: TangentContext) -> Iterator[None]:
    """Run the body with `context` making the tangents of new arrays."""
    token = _CONTEXT.set(context)
    try:
        yield
    finally:
        _CONTEXT.reset(token)


def batch(size: int):
    """Run the body as a batched call with `size` tangents at once (a context manager)."""
    return tangent_context(TangentContext(size))


def running_context() -> TangentContext:
    """The context of the call running now (a plain one outside any)."""
    return _CONTEXT.get() or _PLAIN


def in_a_context() -> bool:
    """Whether a batched, recorded or sets call is running (any but a plain one)."""
    return _CONTEXT.get() is not None


def holds_sets() -> bool:
    """Whether the running call's tangents are dependency sets (fwdad/sparsity)."""
    return running_context().holds_sets


def running_batch_size() -> Optional[int]:
    """The number of tangents of the batched call running now, or None."""
    context = _CONTEXT.get()
    return context.size if context is not None else None


def created_tangent(primal: Any) -> Any:
    """The zero tangent of a value created inside the function: made by the running
    context (batched in a batched call) when the value is a float array."""
    zero = zero_tangent(primal)
    context = _CONTEXT.get()
    if context is None or not isinstance(zero, np.ndarray):
        return zero
    return context.zeros(zero)


def batch_size(primal: Any, tangent: Any) -> Optional[int]:
    """The number of tangents in a batch, or None for a single tangent."""
    return np.shape(tangent)[0] if is_batched(primal, tangent) else None


def map_batch(fn: Any, primal: Any, tangent: Any) -> Any:
    """`fn(tangent)` for a linear `fn` of one array, applied to each tangent of a batch
    (and the results stacked on a leading axis) when the tangent is batched."""
    if tangent is NoTangent:
        return NoTangent
    if not is_batched(primal, tangent):
        return fn(tangent)
    # tangent[i, ...] keeps each item an array (a 0-d one for a scalar primal)
    return np.stack([fn(tangent[i, ...]) for i in range(len(tangent))])


def linear_call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` for a function linear in its tangent arguments that reads
    them as plain arrays (SciPy's, such as expm_frechet or solve_sylvester). A tangent
    recorded by linearize among them cannot be read: the call is recorded on its tape
    instead (the other arrays copied), as a NumPy function's call is."""
    from fwdad.recording import Linear  # (recording imports the rules' modules)
    for value in args + tuple(kwargs.values()):
        if type(value) is Linear:
            return value.tape.record(fn, args, kwargs)
    return fn(*args, **kwargs)


def dense(primal: Any, tangent: Any, size: Optional[int] = None) -> Any:
    """The tangent as an array (zeros for NoTangent), with a batch axis of `size` when
    `size` is not None (an unbatched tangent is repeated along it)."""
    if tangent is NoTangent:
        tangent = np.zeros(np.shape(primal))
    if size is None or is_batched(primal, tangent):
        return tangent
    return np.broadcast_to(tangent, (size,) + np.shape(tangent))


def common_batch(primals: Any, tangents: Any) -> Optional[int]:
    """The batch size of the first batched tangent among several, or None."""
    for p, t in zip(primals, tangents):
        if is_batched(p, t):
            return np.shape(t)[0]
    return None


def map_batch_many(fn: Any, primals: Any, tangents: Any) -> Any:
    """`fn(list of tangents)` for a function linear in a list of arrays (concatenate,
    stack ...): the NoTangents become zeros, and a batch is mapped item by item."""
    parts = [_list_part(p, t) for p, t in zip(primals, tangents)]
    primals, tangents = [p for p, _ in parts], [t for _, t in parts]
    size = common_batch(primals, tangents)
    full = [dense(p, t, size) for p, t in zip(primals, tangents)]
    if size is None:
        return fn(full)
    return np.stack([fn([t[b] for t in full]) for b in range(size)])


def _list_part(primal: Any, tangent: Any) -> Tuple[Any, Any]:
    """A part given as a list (`np.concatenate((a, [x]))`) whose items carry a batch of
    tangents: one array, its batch axis first (a list of batched items has it second)."""
    if isinstance(primal, (list, tuple)) and isinstance(tangent, (list, tuple)):
        size = common_batch(primal, tangent)
        if size is not None:
            return np.asarray(primal), np.stack(
                [dense(p, t, size) for p, t in zip(primal, tangent)], axis=1)
    return primal, tangent


def cast(tangent: np.ndarray, dtype: Any, copy: bool = True) -> np.ndarray:
    """`tangent.astype(dtype, copy=copy)`, but dependency sets (fwdad/sparsity: dtype
    object) stay sets: casting them to numbers would drop them."""
    if tangent.dtype == object and holds_sets():
        return tangent.copy() if copy else tangent
    return tangent.astype(dtype, copy=copy)


def fit(tangent: Any, out: Any) -> Any:
    """The tangent shaped and typed like the result `out`: broadcast to its shape (a
    batch axis stays in front) and cast to its float dtype; NoTangent when `out` holds
    no floats."""
    if type(out) is np.ndarray and type(tangent) is np.ndarray and \
            tangent.dtype == out.dtype and out.dtype.kind in "fc" and \
            tangent.shape[tangent.ndim - out.ndim:] == out.shape and \
            tangent.ndim - out.ndim in (0, 1):
        if out.ndim > 1 and not (out.flags.c_contiguous and tangent.flags.c_contiguous) \
                and not follows(out, tangent):  # (laid out as out: rules/layout.py)
            return laid_out_like(out, tangent)
        return tangent  # already shaped and typed (the common case, checked quickly)
    kind = np.asarray(out).dtype.kind
    if tangent is NoTangent or kind not in "fc":
        return NoTangent
    shape = np.shape(out)
    if np.ndim(tangent) > len(shape):
        shape = np.shape(tangent)[:1] + shape
    if np.shape(tangent) != shape:
        tangent = np.broadcast_to(tangent, shape).copy()
    dtype = np.asarray(out).dtype
    if holds_sets() and np.asarray(tangent).dtype == object:
        return tangent if isinstance(out, np.ndarray) else np.asarray(tangent)[()]  # (sets)
    if kind == "f" and np.iscomplexobj(tangent):
        _real_or_refuse(tangent)
    if not isinstance(tangent, (np.ndarray, np.generic, float, int, complex)):
        # recorded by linearize: cast as recorded, even for a scalar result
        return tangent if tangent.dtype == dtype else tangent.astype(dtype)
    if isinstance(out, np.ndarray) or np.ndim(tangent) > 0:
        return np.asarray(tangent, dtype=dtype)
    return type(out)(tangent)  # a scalar result: a tangent of its own type


def _real_or_refuse(tangent: Any) -> None:
    """A real result's tangent is real: a rule that computed a complex one treated a
    complex input as real (casting would drop the imaginary part without a word)."""
    if np.any(np.imag(tangent) != 0):
        raise InternalError(
            "a forward rule computed a complex tangent for a real result: it treats a "
            "complex input as real, and casting would give a wrong derivative. Please "
            "report it; differentiate real and imaginary parts separately meanwhile.")


def batch_position(index: Any) -> int:
    """Where the batch axis lands in `tangent[(slice(None),) + index]`: in front, except
    after the axes of advanced indices that stand apart (`x[i, :, j]` puts those first)."""
    if not isinstance(index, tuple):
        return 0
    arrays = [isinstance(i, (np.ndarray, list)) for i in index]
    advanced = [k for k, i in enumerate(index) if arrays[k] or (
        any(arrays) and isinstance(i, (int, np.integer)) and not isinstance(i, bool))]
    if not advanced or advanced[-1] - advanced[0] + 1 == len(advanced):
        return 0  # together: their axes stay where they are
    shapes = [(1,) if np.asarray(index[k]).dtype == bool else np.shape(index[k])
              for k in advanced]
    return len(np.broadcast_shapes(*shapes))
