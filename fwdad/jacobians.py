"""Jacobians by forward mode: jacfwd seeds a basis of tangents, pushes it through f in
batched passes (sized by the memory budget, or `chunk_size`; run here or on an
executor: fwdad/chunked.py) and unpacks the output tangents into Jacobian blocks.

    jacfwd(f, argnums=(0, 1))(x, w)  ->  (d out / dx, d out / dw)
"""
from __future__ import annotations

from concurrent.futures import Executor
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from fwdad import api, api_checks, budget, chunked, output_blocks, seeds
from fwdad import holomorphic as complex_args
from fwdad.aliased_arguments import separated, sharing_an_instance
from fwdad.argnums import check_argnums, check_argnums_type
from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, SharedTangentError, describe
from fwdad.probe import probe
from fwdad.rules.layout import matched
from fwdad.signatures import check_call
from fwdad.tangents import NoTangent, add, rebuild, stack, zero_tangent
from fwdad.transformed import Transformed


def jacfwd(f: Callable[..., Any], argnums: Union[int, Tuple[int, ...]] = 0,
           chunk_size: Optional[int] = None, progress: bool = False,
           memory_budget: Optional[float] = None, executor: Optional[Executor] = None,
           holomorphic: bool = False) -> Transformed:
    """The function that computes the Jacobian of `f` by forward mode, in batched
    passes of tangents (one per input entry) whose memory stays under a budget.

    With `chunk_size=None`, the first pass carries 1 tangent and the second up to 16,
    both with their peak memory measured (tracemalloc, which sees NumPy's arrays); the
    rest go in passes of as many tangents as `memory_budget` holds by that measure
    (all in one pass when they fit), and no more than 128 MiB holds, past which a
    pass is no faster a tangent. The measure is kept per function and argument shapes,
    so later calls skip it. An explicit `chunk_size` wins over both.

    With an `executor`, the passes run on its workers (after the measured ones, which
    run here): at least 16 of them, all submitted at once, the results put together in
    order. f goes to the workers by reference when its module can be imported there
    (module + qualname), else by value with cloudpickle, with its source file's lines;
    each worker builds f's rules once. An error in a pass is raised here as the user's
    error (fwdad's notes name the line), with the worker's traceback as its cause.

    Args:
        f: the function to differentiate.
        argnums: the argument (or tuple of arguments) to differentiate with respect to;
            negative numbers count from the end.
        chunk_size: at most this many tangents per pass (None: by the memory budget).
        progress: show the tangents done as the passes run (a tqdm bar when tqdm is
            installed, else a line on stderr now and then).
        memory_budget: bytes a pass may take (None: `fwdad.get_memory_budget()`, 1 GiB
            unless set by `fwdad.set_memory_budget`). The Jacobian itself is extra.
        executor: a `concurrent.futures.Executor` (a `ProcessPoolExecutor`, or Dask's
            `client.get_executor()`) to run the passes on; None runs them here.
        holomorphic: f is holomorphic in its complex arguments and returns complex
            values: the Jacobian is the complex derivative df/dz (as JAX's). Without
            it a complex argument is refused (docs/complex.md).

    Returns:
        `jac(*args, **kwargs)`, shaped like `jax.jacfwd`'s: for each output leaf, an
        array of shape `output.shape + input.shape` (a tuple of them, one per argument,
        when argnums is a tuple; nested inputs and outputs give nested structures;
        an empty input gives empty blocks, as jacrev and hessian do). Keyword
        arguments are passed to f as constants (not differentiated).

    Raises:
        FwdadError: argnums is not an int or tuple of ints, or does not name an
            argument, or f cannot take the arguments, or chunk_size, memory_budget or
            executor is not one; an argument is complex without `holomorphic`, or
            real (or an output real) with it; NonDifferentiableError: the argument has
            no float values; ShippingError: f cannot be sent to the executor's workers.
    """
    api_checks.check_callable(f, "jacfwd")
    check_argnums_type("jacfwd", f, argnums)
    options = chunked.Options(chunk_size, memory_budget, executor, progress).check("jacfwd")

    plans: Dict[Any, _Plan] = {}  # see _Plan

    def jacobian(*args: Any, **kwargs: Any) -> Any:
        key = None if kwargs or options.executor is not None or options.progress else \
            _arrays_key(args, options)
        plan = plans.get(key) if key is not None else None
        if plan is not None:
            out, jac = plan.run(f, args)
        else:
            check_call("jacfwd", f, args, kwargs)
            wrt = check_argnums("jacfwd", f, argnums, len(args))
            complex_args.check_arguments("jacfwd", f, args, wrt, holomorphic)
            out, jac = value_and_jacobian(f, argnums, args, kwargs=kwargs, options=options)
            if key is not None and len(plans) < _MAX_PLANS:
                plan = _Plan.after_first_call(f, argnums, wrt, args, options)
                if plan is not None:
                    plans[key] = plan
        if holomorphic:
            complex_args.check_outputs("jacfwd", f, out)
        return jac
    jacobian.__name__ = f"jacfwd_{probe(f, '__name__', 'f')}"
    return Transformed("jacfwd", f, argnums, jacobian)


# ---- later calls with arguments of the same shapes -------------------------------------
_MAX_PLANS = 8  # plans kept per jacfwd (a function called with ever new shapes)


def _arrays_key(args: Tuple[Any, ...], options: chunked.Options) -> Any:
    """What the checks of a call, its seeds and its passes depend on when every argument
    is a NumPy array (of its exact type): their shapes and dtypes, and the memory budget
    (set_memory_budget may change it between calls); None for other arguments."""
    return arrays_key(args, budget.resolve(options.memory_budget))


def arrays_key(args: Tuple[Any, ...], *head: Any) -> Any:
    """`head` and the shape and dtype of each argument, when every argument is a NumPy
    array of its exact type; else None."""
    key: list[Any] = list(head)
    for a in args:
        if type(a) is not np.ndarray:
            return None
        key.append(a.shape)
        key.append(a.dtype)
    return tuple(key)


class _Plan:
    """A later call of jacfwd with arguments of the same shapes and dtypes (all arrays,
    no keyword arguments, run here without progress): the checks passed at the first
    call depend on nothing else, and the seeds' leaves and the passes' directions
    (sized by the memory budget's estimate, kept per function and shapes) are known,
    so it runs the passes alone."""

    def __init__(self, argnums: Any, wrt: Tuple[int, ...], leaves: Any,
                 spans: List[Tuple[int, int]]) -> None:
        self.wrt, self.leaves, self.spans = wrt, leaves, spans
        self.many = isinstance(argnums, (tuple, list))

    @classmethod
    def after_first_call(cls, f: Callable[..., Any], argnums: Any, wrt: Tuple[int, ...],
                         args: Tuple[Any, ...], options: chunked.Options
                         ) -> Optional["_Plan"]:
        """The plan of later calls like `args`, once the first has run (and measured
        its passes): None while the budget has no estimate to size them by."""
        leaves, total = seeds.leaves_of(tuple(args[i] for i in wrt))
        if options.chunk_size is not None:
            spans = chunked.fixed_spans(total, options.chunk_size) or []
        else:
            key = ("jacfwd", wrt, budget.shapes_key(args), budget.shapes_key({}))
            known = budget.known(*chunked.estimate_owner(f, key))
            if known is None:
                return None
            spans = budget.ChunkPlan(total, budget.resolve(options.memory_budget),
                                     known).rest(0)
        return cls(argnums, wrt, leaves, spans)

    def run(self, f: Callable[..., Any], args: Tuple[Any, ...]) -> Tuple[Any, Any]:
        """`(f(*args), the Jacobian)`, as value_and_jacobian computes them."""
        from fwdad import chunk_tasks  # (it imports this module)
        chunks = [chunk_tasks.JacobianChunk(args, self.wrt, self.leaves, {}, a, b).run(f)
                  for a, b in self.spans]
        out = chunks[-1][0]
        return out, output_blocks.jacobian_blocks(out, [c for _, c in chunks],
                                          self.leaves if self.many else self.leaves[0])


def value_and_jacobian(f: Callable[..., Any], argnums: Union[int, Tuple[int, ...]],
                       args: Tuple[Any, ...], kwargs: Optional[Dict[str, Any]] = None,
                       label: Optional[str] = None, options: Any = None) -> Tuple[Any, Any]:
    """`(f(*args, **kwargs), jacfwd(f, argnums, ...)(*args, **kwargs))` from the same
    passes, split as `options` (a chunked.Options) says, shown under `label`."""
    from fwdad import chunk_tasks  # (it imports this module)
    wrt = check_argnums("jacfwd", f, argnums, len(args))
    args = separated(args)  # (one array at two places: each its own tangents, as jacrev's)
    leaves, total = seeds.leaves_of(tuple(args[i] for i in wrt), 0,
                                    lambda: f"jacfwd({describe(f)}, argnums={argnums})")
    if not seeds.holds_a_leaf(leaves):
        raise api_checks.no_floats_error("jacfwd", f, argnums, tuple(args[i] for i in wrt))
    if not sharing_an_instance(args).isdisjoint(wrt):
        raise _shared_with_a_constant(f, argnums)
    kwargs = kwargs or {}
    many = isinstance(argnums, (tuple, list))  # (an int of NumPy's is one argnum too)
    if total == 0:
        return _empty_jacobian(f, args, wrt, leaves, kwargs, many)

    def task(start: int, stop: int) -> Any:
        return chunk_tasks.JacobianChunk(args, wrt, leaves, kwargs, start, stop)
    key = ("jacfwd", wrt, budget.shapes_key(args), budget.shapes_key(kwargs))
    options = options or chunked.Options()
    if label is None:  # (shown only with progress; describe costs a few us a call)
        label = f"jacfwd of {describe(f)}" if options.progress else "jacfwd"
    results = chunked.run_chunks(f, total, task, key, options, label)
    out = results[-1][0]
    return out, output_blocks.jacobian_blocks(out, [c for _, c in results],
                                      leaves if many else leaves[0])


def _shared_with_a_constant(f: Callable[..., Any], argnums: Any) -> NonDifferentiableError:
    """An instance in a differentiated argument that another argument holds too: its
    one tangent would be the seed at one place and zero at the other (jvp refuses
    that too)."""
    return NonDifferentiableError(
        f"jacfwd({describe(f)}, argnums={argnums}) differentiates with respect to an "
        f"argument holding an instance of a class that another argument holds too: one "
        f"object has one tangent, which cannot be the seed here and zero there. Use "
        f"fwdad.jacrev (or grad), which gives the object's total derivative, or pass "
        f"a copy (copy.copy) as the other argument.")


def _empty_jacobian(f: Callable[..., Any], args: Tuple[Any, ...], wrt: Tuple[int, ...],
                    leaves: Any, kwargs: Dict[str, Any], many: bool) -> Tuple[Any, Any]:
    """`(f(*args), its Jacobian)` when the float leaves are all empty: every block is
    empty (`out.shape + leaf.shape`), from one pass with a zero seed (a batch of one:
    rules take no batch of none), its rows then dropped."""
    from fwdad import chunk_tasks  # (it imports this module)
    out, rows = chunk_tasks.JacobianChunk(args, wrt, leaves, kwargs, 0, 1).run(f)
    return out, output_blocks.jacobian_blocks(out, [seeds.tree_map(lambda r: r[:0], rows)],
                                      leaves if many else leaves[0])


def seeded_pass(f: Callable[..., Any], args: tuple[Any, ...], wrt: Tuple[int, ...],
                 seeded: tuple[Any, ...], kwargs: Optional[dict[Any, Any]] = None,
                 reseed: Optional[Callable[[], tuple[Any, ...]]] = None,
                 size: Optional[int] = None) -> Tuple[Any, Any]:
    """One batched pass of f on copies of args (f may update them in place, and a
    later chunk needs them as they were), with the seeds as the tangents of `wrt`.

    The other arguments, and the keyword arguments, get zero tangents without the batch
    axis, so that constants cost no batch work. When f writes a batched value into one
    of them where that zero is held twice (in a list, a view, or at second order a
    rule's argument), it cannot be widened (fwdad/rules/widening.py): the pass runs
    again, on fresh copies, with batched zeros for them. (f runs twice then, as it does
    once per chunk.) Each pass has its own copy of the seeds too: f writing into a
    differentiated argument writes into its tangent, and the second pass needs the
    seeds as they were. A caller that made the seeds for this pass alone passes
    `reseed`, which makes them again: the first pass takes them without a copy. `size`:
    the seeds' rows, when the caller knows them (else read from the seeds' trees)."""
    size = seeds.rows_of(seeded) if size is None else size
    tangents = _per_argument(wrt, seeded)
    try:
        return _pass(f, args, kwargs or {}, tangents, size, api_checks.copied,
                     copy_seeds=reseed is None)
    except SharedTangentError:
        if reseed is not None:
            tangents = _per_argument(wrt, reseed())
        return _pass(f, args, kwargs or {}, tangents, size,
                     lambda zero: stack([zero] * size), copy_seeds=reseed is None)


def _per_argument(wrt: Tuple[int, ...], seeded: tuple[Any, ...]) -> dict[int, Any]:
    """The seeds of each differentiated argument. An argument that argnums names twice
    (argnums=(0, 0)) moves along the sum of its seeds: each place has rows of its own,
    so each row is still one unit vector (a dict of the last seeds gave the first
    place's block zeros)."""
    tangents: dict[int, Any] = {}
    for i, seed in zip(wrt, seeded):
        tangents[i] = add(tangents[i], seed) if i in tangents else seed
    return tangents


def _pass(f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[Any, Any],
          tangents: dict[Any, Any], size: int, inactive: Callable[..., Any],
          copy_seeds: bool = True) -> Tuple[Any, Any]:
    seed = api_checks.copied if copy_seeds else _same
    shared = sharing_an_instance(args)
    if shared:  # one instance in two arguments, not differentiated: one copy, and one
        # zero Tangent for it, made for all the arguments at once (as jvp gives it)
        zeros = inactive(zero_tangent(args))
        duals = [Dual(a, _fill(a, seed(tangents[i])) if i in tangents else zeros[i])
                 for i, a in enumerate(api_checks.copied(args))]
    else:
        duals = [Dual(copy_argument(a), _fill(a, seed(tangents[i])) if i in tangents else
                      inactive(zero_tangent(a))) for i, a in enumerate(args)]
    named = {k: Dual(copy_argument(v), inactive(zero_tangent(v))) for k, v in kwargs.items()}
    out = api.call_batched(f, duals, size, named)
    return out.primal, out.tangent


def _same(tangent: Any) -> Any:
    return tangent


def copy_argument(primal: Any) -> Any:
    """A copy of an argument (a float array's is a plain copy, in the same memory
    order as deepcopy's)."""
    if type(primal) is np.ndarray and primal.dtype.kind in "fc":
        return primal.copy(order="K")
    return api_checks.copied(primal)


def _fill(primal: Any, tangent: Any) -> Any:
    """The seed, with the zero tangent where a leaf is not a float."""
    if tangent is NoTangent:
        return zero_tangent(primal)
    if isinstance(primal, (tuple, list)):
        return rebuild(primal, [_fill(p, t) for p, t in zip(primal, tangent)])
    if isinstance(primal, dict):
        return {k: _fill(v, tangent[k]) for k, v in primal.items()}
    return matched(primal, tangent)  # (each item laid out as the argument: rules/layout.py)
