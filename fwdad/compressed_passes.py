"""The compressed passes of the sparse derivatives: one direction per colour.

    forward(f, args, {}, 0, seeds, None)  ->  (f(x), J @ seeds.T)    batched forward mode
    forward_over_reverse(...)              ->  H @ seeds.T            jvp of the gradient
    reverse(f, args, {}, 0, plan, ...)     ->  (seeds @ J, seeds)     a pullback per seed

Each runs f on copies of its arguments: f may update them in place.
"""
from __future__ import annotations

import copy
import functools
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from fwdad import api, budget, chunked
from fwdad.compression import Compression
from fwdad.errors import FwdadError, InternalError, ShippingError, a_type, describe
from fwdad.jacobians import arrays_key, seeded_pass
from fwdad.output_blocks import batched_leaf
from fwdad.tangents import NoTangent, zero_tangent


def bound(f: Callable[..., Any], kwargs: dict[str, Any]) -> Callable[..., Any]:
    """f with the keyword arguments bound (constants)."""
    return functools.partial(f, **kwargs) if kwargs else f


def directions(plan: Compression, x: Any, probe: bool) -> np.ndarray:
    """The directions of the passes, one per colour (and the probe last), in x's dtype."""
    return plan.directions(x.dtype if isinstance(x, np.ndarray) else np.float64, probe)


def forward(f: Callable[..., Any], args: Tuple[Any, ...], kwargs: dict[str, Any], at: int,
            seeds: np.ndarray, chunk_size: Optional[int], executor: Any = None,
            work: Optional[np.ndarray] = None) -> Tuple[Any, np.ndarray]:
    """(f(*args, **kwargs), J @ seeds.T as (directions, output size)) by batched
    forward mode, on copies of the arguments (f may update them in place), in chunks
    of `chunk_size` (None: as many directions as the memory budget holds, as
    batched_jvp's); on `executor`'s workers when one is given.

    Here, each pass takes its seeds in `work` (an array like `seeds`, filled from them
    before the pass: f updating its argument in place writes into its tangent; None:
    a new one), so `seeds` stay as they are, and the result may be a view of `work`."""
    x = args[at]
    count = len(seeds)
    seeds = seeds.reshape((count,) + np.shape(x))
    if count == 0:  # no colours: an argument of size 0
        out = bound(f, kwargs)(*copy.deepcopy(args))
        return out, np.zeros((0, np.size(out)))
    size = None if chunk_size is None else max(1, int(chunk_size))
    if executor is not None:
        all_at_once: list[Any] = [None] * len(args)
        all_at_once[at] = seeds
        out, tangent = api.batched_jvp(bound(f, kwargs), copy.deepcopy(args), all_at_once,
                                       executor=executor, chunk_size=size)
        check_output(f, out)
        return out, np.reshape(tangent, (count, -1))
    work = np.empty_like(seeds) if work is None else work.reshape(seeds.shape)

    def task(start: int, stop: int) -> _Chunk:
        return _Chunk(args, kwargs, at, seeds[start:stop], work[start:stop])
    later = _later_call(args, kwargs, count, size)
    spans = _known_spans(f, later) if later is not None else None
    if spans is not None and len(spans) == 1:  # (the chunks' objects: a tenth of a
        return _one_pass(f, args, kwargs, at, seeds, work)  # small Jacobian's time)
    if spans is not None:
        results = [task(a, b).run(f) for a, b in spans]
    else:
        key = ("compressed passes", budget.shapes_key(args), budget.shapes_key(kwargs))
        results = chunked.run_chunks(f, count, task, key, chunked.Options(size),
                                     f"the compressed passes of {describe(f)}")
        if later is not None:
            _remember_spans(f, key, later, count, size)
    parts = [tangent for _, tangent in results]
    return results[-1][0], parts[0] if len(parts) == 1 else np.concatenate(parts)


# f -> (what a call's chunks depend on -> the chunks), for later calls like the first:
# run_chunks sizes them from the memory budget's estimate, measured at the first call
_SPANS: "weakref.WeakKeyDictionary[Any, Dict[Any, List[Tuple[int, int]]]]" = \
    weakref.WeakKeyDictionary()
_MAX_SPANS = 8  # kept per function (one called with ever new shapes)


def _later_call(args: Tuple[Any, ...], kwargs: dict[str, Any], count: int,
                size: Optional[int]) -> Any:
    """What the chunks of a call depend on when every argument is a NumPy array and
    there are no keyword arguments (the shapes and dtypes, the number of directions,
    chunk_size and the budget, which set_memory_budget may change); else None."""
    return None if kwargs else arrays_key(args, count, size, budget.resolve(None))


def _known_spans(f: Any, later: Any) -> Optional[List[Tuple[int, int]]]:
    try:
        return _SPANS.get(f, {}).get(later)
    except TypeError:  # (f not weakly referenceable)
        return None


def _remember_spans(f: Any, key: Any, later: Any, count: int, size: Optional[int]) -> None:
    """The chunks of later calls like this one, once the budget has their estimate."""
    spans = chunked.fixed_spans(count, size)
    if spans is None:
        known = budget.known(*chunked.estimate_owner(f, key))
        if known is None:
            return
        spans = budget.ChunkPlan(count, budget.resolve(None), known).rest(0)
    try:
        known_spans = _SPANS.setdefault(f, {})
    except TypeError:  # (f not weakly referenceable)
        return
    if len(known_spans) < _MAX_SPANS:
        known_spans[later] = spans


def _one_pass(f: Callable[..., Any], args: Tuple[Any, ...], kwargs: dict[str, Any],
              at: int, seeds: np.ndarray, work: np.ndarray) -> Tuple[Any, np.ndarray]:
    """(f(*args), J @ seeds.T) from one batched pass, the seeds copied into `work`
    (jacfwd's pass: the other arguments get unbatched zero tangents)."""
    def reseed() -> Tuple[np.ndarray]:
        np.copyto(work, seeds)
        return (work,)
    count = len(seeds)
    out, tangent = seeded_pass(f, args, (at,), reseed(), kwargs, reseed, count)
    check_output(f, out)
    return out, np.reshape(batched_leaf(out, tangent, count), (count, -1))


@dataclass
class _Chunk:
    """Some of the seeds, and where their pass copies them to."""

    args: Tuple[Any, ...]
    kwargs: dict[str, Any]
    at: int
    seeds: np.ndarray
    work: np.ndarray

    def run(self, f: Any) -> Tuple[Any, np.ndarray]:
        return _one_pass(f, self.args, self.kwargs, self.at, self.seeds, self.work)


def forward_over_reverse(f: Callable[..., Any], args: Tuple[Any, ...],
                          kwargs: dict[str, Any], at: int, seeds: np.ndarray,
                          chunk_size: Optional[int], executor: Any = None,
                          work: Optional[np.ndarray] = None) -> np.ndarray:
    """H @ seeds.T as (directions, n): the jvp of f's gradient along each seed (on
    `executor`'s workers when one is given; `work` as forward's)."""
    from fwdad.reverse.api import grad
    try:
        return forward(grad(bound(f, kwargs), at), args, {}, at, seeds, chunk_size,
                       executor, work)[1]
    except (InternalError, ShippingError):  # (f cannot reach the workers: say so)
        raise
    except FwdadError:  # reverse mode refuses something f does: hvp goes forward twice
        pass
    from fwdad.higher import hvp
    rows = []
    for seed in seeds:
        tangents = [zero_tangent(a) for a in args]
        tangents[at] = seed.reshape(np.shape(args[at])) if np.ndim(args[at]) else seed[0]
        rows.append(np.ravel(hvp(bound(f, kwargs), copy.deepcopy(args), tangents)[at]))
    return np.array(rows).reshape(len(seeds), -1)


def reverse(f: Callable[..., Any], args: Tuple[Any, ...], kwargs: dict[str, Any], at: int,
            plan: Compression, probe: bool, check_rows: Callable[[Compression, int], None]
            ) -> Tuple[np.ndarray, np.ndarray]:
    """(seeds @ J as (directions, input size), the seeds): one recorded pass, a
    pullback per colour (and one of the probe). `check_rows(plan, output size)` runs
    before the pullbacks."""
    from fwdad.reverse.api import vjp
    out, pullback = vjp(bound(f, kwargs), *copy.deepcopy(args))
    try:
        check_output(f, out, real=True)
        check_rows(plan, int(np.size(out)))
        seeds = directions(plan, np.asarray(out, dtype=float), probe)
        rows = np.zeros((len(seeds), int(np.size(args[at]))))
        for k, seed in enumerate(seeds):
            ct = seed.reshape(np.shape(out)) if np.ndim(out) else float(seed[0])
            cts = pullback(ct)[at]
            if cts is not NoTangent and cts is not None:
                rows[k] = np.ravel(cts)
        return rows, seeds
    finally:
        pullback.release()


def check_output(f: Callable[..., Any], out: Any, real: bool = False) -> None:
    kinds = "f" if real else "fc"
    if isinstance(out, float) or (isinstance(out, (np.ndarray, np.generic))
                                  and out.dtype.kind in kinds):
        return
    raise FwdadError(
        f"sparse Jacobians of {describe(f)}: it returns {a_type(out)}, and they take "
        f"functions that return one {'real ' if real else ''}float or float array; for "
        f"several outputs return their concatenation (np.concatenate of the raveled "
        f"parts).")
