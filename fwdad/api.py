"""The public transformations: check inputs, seed tangents, run the rule, unpack.

jvp and batched_jvp push tangents through; jacfwd (fwdad/jacobians.py) seeds a whole
basis in batched passes; hessian, hvp (fwdad/higher.py) and linearize
(fwdad/linearize.py) build on them.
"""
from __future__ import annotations

import types
from concurrent.futures import Executor
from typing import Any, Callable, FrozenSet, List, Optional, Sequence, Tuple

import numpy as np

from fwdad import budget, chunked, lent_tangents
from fwdad.aliased_arguments import separated, share_tangents, sharing_an_instance
from fwdad.api_checks import argument_names, check_callable, check_sequences, copied
from fwdad.dual import Dual
from fwdad.errors import FwdadError, describe, note_user_location
from fwdad.forward import defaults, dispatch, float_calls
from fwdad.masked_arrays import refuse_masked_arguments
from fwdad.rules.batching import batch
from fwdad.rules.layout import matched
from fwdad.signatures import check_call, explain_failed_call
from fwdad.tangent_checks import check_tangent
from fwdad.tangents import NoTangent, Tangent, leaves, zero_tangent

_NONE: FrozenSet[int] = frozenset()


def jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]) -> Tuple[Any, Any]:
    """Evaluate `f(*primals)` and its directional derivative along `tangents`.

    Args:
        f: a Python function (or anything with a registered frule) of the primals.
        primals: the arguments, a tuple or list. Floats, float arrays and nested
            tuples/lists/dicts of them are differentiable; other values pass through.
        tangents: one tangent per argument, each shaped like its primal. None (at any
            level: an argument, an item of a tuple, a field) means no tangent: zero.
            An argument given None or a zero tangent is a constant of this
            derivative: the rule runs a version built for that, which does no tangent
            work for it.

    Returns:
        `(f(*primals), tangent_out)`, with the output tangent shaped like the output.

    Raises:
        FwdadError: f cannot take as many arguments as there are primals.
        TangentError: a tangent does not match its primal in structure or shape.
        NonDifferentiableError: a non-zero tangent was given for an int, str, ...
        MissingRuleError, UnsupportedSyntaxError: f calls code fwdad cannot
            differentiate (the message says where, and what to do).
    """
    small = float_calls.pattern(f, primals, tangents)  # (the fast path of small calls)
    if small is not None:
        token = defaults.begin_derivative()  # (two calls, not a `with`: the fast path)
        try:
            out = float_calls.call(small, primals, tangents)
        except Exception as exc:
            explain_failed_call("jvp", f, tuple(primals), exc)
            note_user_location(exc)
            raise
        finally:
            defaults.end_derivative(token)
        if out is not None:
            return out.primal, out.tangent
    check_callable(f, "jvp")
    args, directions = check_sequences(f, primals, tangents)
    duals = _float_duals(args, directions)
    if duals is not None:  # (the fast path of small calls)
        constants = _NONE if 0.0 not in directions else frozenset(
            i for i, t in enumerate(directions) if t == 0.0)
        lent = _NONE
    else:
        constants = constant_positions(directions) - sharing_an_instance(args)
        lent = lent_tangents.lendable(f, args, directions, constants)
        duals = share_tangents(args, directions,
                               _checked_duals(f, args, directions, constants, lent))
    try:
        out = call_with_constants(f, duals, constants) if constants else call(f, duals)
    except Exception as exc:
        if lent:
            error = lent_tangents.refused_write(f, exc)
            if error is not exc:
                raise error from exc
        explain_failed_call("jvp", f, args, exc)
        note_user_location(exc)
        raise
    if lent:  # (f(w) = w must not give the caller's own tangent back)
        return out.primal, lent_tangents.unshared(out.tangent, [directions[i] for i in lent])
    return out.primal, out.tangent


def _float_duals(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> Optional[List[Dual]]:
    """Plain float arguments with float tangents need no checks and no copies (the
    fast path of small calls); None when any argument is something else."""
    if all(type(p) is float and type(t) is float for p, t in zip(primals, tangents)):
        return [Dual(p, t) for p, t in zip(primals, tangents)]
    return None


def _checked_duals(f: Callable[..., Any], primals: tuple[Any, ...], tangents: tuple[Any, ...],
                   constants: FrozenSet[int] = frozenset(), lent: FrozenSet[int] = frozenset()
                   ) -> List[Dual]:
    """Duals of the checked arguments, each with a copy of its tangent, or at `lent`
    a read-only view of it (fwdad/lent_tangents.py); an argument in `constants` gets a
    new zero, which costs no pass over memory for an array."""
    names = argument_names(f, len(primals))
    duals = []
    seen: dict[int, Any] = {}  # (an instance reached twice: one tangent, tangent_checks.py)
    for i, (p, t, n) in enumerate(zip(primals, tangents, names)):
        if i not in constants:
            checked = check_tangent(p, t, n, of=describe(f), seen=seen)
            duals.append(Dual(p, _copied_like(p, checked, i in lent)))
            continue
        if t is not None:
            check_tangent(p, t, n, of=describe(f), seen=seen)  # (a zero of the wrong shape)
        duals.append(Dual(p, _new_zero(p)))
    shared = sharing_an_instance(primals)  # (never constants: jvp takes them out)
    if shared:  # one instance in two arguments: one tangent object, copied once for all
        copies = copied(tuple(check_tangent(primals[i], tangents[i], names[i],
                                            of=describe(f), seen=seen) for i in shared))
        for i, tangent in zip(shared, copies):
            duals[i] = Dual(primals[i], tangent)
    return duals


def _copied_like(primal: Any, tangent: Any, lend: bool = False) -> Any:
    """A copy of the tangent (with `lend`, a read-only view of it); of an array's, laid
    out in memory as the array is (so that a reshape of both is a view, or a copy,
    alike: rules/layout.py)."""
    laid_out = matched(primal, tangent)
    if laid_out is not tangent:
        return laid_out
    return lent_tangents.lent(tangent) if lend and type(tangent) is np.ndarray else \
        copied(tangent)


def _new_zero(primal: Any) -> Any:
    """The zero tangent of `primal`; a float array's from calloc'd memory, in its order."""
    if type(primal) is np.ndarray and primal.dtype.kind == "f":
        fortran = primal.flags.f_contiguous and not primal.flags.c_contiguous
        return np.zeros(primal.shape, primal.dtype, order="F" if fortran else "C")
    return zero_tangent(primal)


def call(f: Callable[..., Any], duals: List[Dual], keywords: Optional[dict[Any, Any]] = None
         ) -> Dual:
    """Run the rule of `f` on Duals (whatever kind of callable f is), with `keywords`
    (Duals too) passed by name."""
    refuse_masked_arguments(f, duals)  # (jacfwd's seeded ones have no zero tangent made)
    self_tangent = zero_tangent(f.__self__) if isinstance(f, types.MethodType) else None
    token = defaults.begin_derivative((duals, keywords))
    try:
        return dispatch.call(Dual(f, self_tangent), *duals, **(keywords or {}))
    finally:
        defaults.end_derivative(token)


def constant_positions(tangents: tuple[Any, ...]) -> FrozenSet[int]:
    """The arguments given no tangent or a zero one: the rule runs as if they were
    constants (checked cheaply: an array is tested only when its first item is 0)."""
    return frozenset(i for i, t in enumerate(tangents) if t is None or t is NoTangent or (
        type(t) is float and t == 0.0) or (
        type(t) is np.ndarray and t.dtype.kind == "f" and (t.size == 0 or (
            t.flat[0] == 0.0 and not t.any()))))


def call_with_constants(f: Callable[..., Any], duals: List[Dual],
                        constants: FrozenSet[int]) -> Dual:
    """`call(f, duals)`; a Python function whose arguments at `constants` have zero
    tangents runs its rule's variant for them (no tangent work for those)."""
    if constants and type(f) is types.FunctionType:
        rule = dispatch.specialized_rule(f, constants)
        if rule is not None:
            token = defaults.begin_derivative(duals)
            try:
                out: Dual = rule(*duals)
            finally:
                defaults.end_derivative(token)
            return out
    return call(f, duals)


def batched_jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
                chunk_size: Optional[int] = None, memory_budget: Optional[float] = None,
                executor: Optional[Executor] = None, progress: bool = False
                ) -> Tuple[Any, Any]:
    """jvp with B tangents at once: every tangent leaf carries a leading axis of size B
    (None, for an argument or any part of one, means no tangent: zero). Returns
    `(f(*primals), tangents_out)`, each output tangent leaf with the leading axis (as
    one-at-a-time jvp would give, stacked).

    The B tangents go through f in passes of `chunk_size` (None: as many as the memory
    budget holds: see `jacfwd`), joined in order; on `executor`'s workers when given.

    Args:
        f: the function to differentiate.
        primals: the arguments, as for jvp.
        tangents: one tangent per argument, as for jvp, with the batch axis in front.
        chunk_size: at most this many tangents per pass (None: by the memory budget).
        memory_budget: bytes a pass may take (None: `fwdad.get_memory_budget()`, 1 GiB
            unless set by `fwdad.set_memory_budget`).
        executor: a `concurrent.futures.Executor` to run the passes on (None: here).
        progress: show the tangents done as the passes run.

    Raises:
        FwdadError: f cannot take as many arguments as there are primals.
        TangentError: a tangent does not match its primal plus the batch axis.
    """
    from fwdad import chunk_tasks  # (it imports this module)
    check_callable(f, "batched_jvp")
    options = chunked.Options(chunk_size, memory_budget, executor, progress).check(
        "batched_jvp")
    args, directions = check_sequences(f, primals, tangents)
    size = _batch_size_of(f, directions)
    names = argument_names(f, len(args))
    seen: dict[int, Any] = {}  # (an instance at two places: one tangent, as jvp's)
    checked = tuple(check_tangent(p, t, n, batch=size, of=describe(f), seen=seen)
                    for p, t, n in zip(args, directions, names))
    check_call("batched_jvp", f, args)
    args = separated(args)  # (each chunk's tangents are copied per argument)

    def task(start: int, stop: int) -> Any:
        return chunk_tasks.BatchedChunk(
            args, chunk_tasks.batch_rows(args, checked, start, stop), stop - start,
            stop == size)
    key = ("batched_jvp", budget.shapes_key(args))
    results = chunked.run_chunks(f, size, task, key, options, f"batched_jvp of {describe(f)}")
    return results[-1][0], chunk_tasks.joined([tangent for _, tangent in results])


def call_batched(f: Callable[..., Any], duals: List[Dual], size: int,
                 keywords: Optional[dict[Any, Any]] = None) -> Dual:
    """Run the rule of `f` on Duals whose tangents carry a batch axis of `size`."""
    try:
        with batch(size):
            return call(f, duals, keywords)
    except Exception as exc:
        note_user_location(exc)
        raise


def _batch_size_of(f: Callable[..., Any], tangents: tuple[Any, ...]) -> int:
    size = _leading_size(tangents)
    if size is None:
        raise FwdadError(f"batched_jvp({describe(f)}, ...) needs at least one tangent with "
                         f"a leading batch axis; for a single tangent use jvp.")
    return size


def _leading_size(tangents: Any) -> Optional[int]:
    """The length of the first batched leaf's leading axis, in instances' fields too."""
    for leaf in leaves(tangents):
        if isinstance(leaf, Tangent):
            size = _leading_size(list(vars(leaf).values()))
            if size is not None:
                return size
        elif leaf is not None and leaf is not NoTangent and np.ndim(leaf) > 0:
            return int(np.shape(leaf)[0])
    return None
