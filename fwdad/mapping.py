"""The same derivative at many points: map_jvp and map_grad, in chunks of points run
here or on the workers of an executor.

    fwdad.map_grad(f, [(x0,), (x1,), (x2,)], executor=pool)  ->  [grad(f)(x0), ...]
"""
from __future__ import annotations

import math
from concurrent.futures import Executor
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

from fwdad import chunk_tasks, chunked
from fwdad.errors import FwdadError, a_type, describe


def map_jvp(f: Callable[..., Any], primals_list: Sequence[Sequence[Any]],
            tangents_list: Sequence[Sequence[Any]], executor: Optional[Executor] = None,
            chunk_size: Optional[int] = None, progress: bool = False
            ) -> List[Tuple[Any, Any]]:
    """`[jvp(f, primals, tangents) for primals, tangents in zip(...)]`, in chunks of
    points run on `executor`'s workers (in order) or here.

    Args:
        f: the function to differentiate.
        primals_list: one tuple of arguments per point.
        tangents_list: one tuple of tangents per point, as jvp takes them.
        executor: a `concurrent.futures.Executor` (Dask's `client.get_executor()`, a
            `ProcessPoolExecutor`); None runs the points here, one after the other.
            f is sent to the workers as `jacfwd` sends it.
        chunk_size: points per task (None: a 16th of them on an executor).
        progress: show the points done.

    Returns:
        A list with `(f(*primals), tangent_out)` for each point.

    Raises:
        FwdadError: the lists differ in length, or are not lists; what jvp raises, for
            the first point (in order) that raises it.
    """
    points = _checked_list("map_jvp", f, "primals_list", primals_list)
    directions = _checked_list("map_jvp", f, "tangents_list", tangents_list)
    if len(points) != len(directions):
        raise FwdadError(f"map_jvp({describe(f)}, ...) got {len(points)} points but "
                         f"{len(directions)} tangents: give one tuple of tangents a point.")
    return _mapped(f, len(points), lambda a, b: chunk_tasks.JvpPoints(
        points[a:b], directions[a:b]), executor, chunk_size, progress, "map_jvp")


def map_grad(f: Callable[..., Any], points: Sequence[Any], argnums: Union[int, Tuple[int, ...]]
             = 0, executor: Optional[Executor] = None, chunk_size: Optional[int] = None,
             progress: bool = False) -> List[Any]:
    """`[grad(f, argnums)(*point) for point in points]`, in chunks of points run on
    `executor`'s workers (in order) or here.

    Args:
        f: a float-valued function.
        points: the arguments at each point: a tuple is the tuple of arguments, any
            other value the one argument (write `(t,)` for a tuple argument t).
        argnums: as for grad.
        executor: as for map_jvp.
        chunk_size: as for map_jvp.
        progress: as for map_jvp.

    Returns:
        A list with the gradient at each point.

    Raises:
        FwdadError: points is not a list or tuple; what grad raises, for the first
            point (in order) that raises it.
    """
    calls = [p if type(p) is tuple else (p,)
             for p in _checked_list("map_grad", f, "points", points)]
    return _mapped(f, len(calls), lambda a, b: chunk_tasks.GradPoints(calls[a:b], argnums),
                   executor, chunk_size, progress, "map_grad")


def _mapped(f: Any, count: int, make_task: Any, executor: Optional[Executor],
            chunk_size: Optional[int], progress: bool, api: str) -> List[Any]:
    if not callable(f):
        raise FwdadError(f"{api} needs a function as its first argument, not {a_type(f)}.")
    if count == 0:
        return []
    if chunk_size is None:  # (a task per point here: progress shows each)
        chunk_size = 1 if executor is None else math.ceil(count / chunked.EXECUTOR_CHUNKS)
    options = chunked.Options(chunk_size, None, executor, progress).check(api)
    results = chunked.run_chunks(f, count, make_task, None, options,
                                 f"{api} of {describe(f)}", unit="point")
    return [item for chunk in results for item in chunk]


def _checked_list(api: str, f: Any, what: str, value: Any) -> List[Any]:
    if not isinstance(value, (list, tuple)):
        raise FwdadError(f"{api}({describe(f)}, ...) takes {what} as a list (one entry a "
                         f"point), not {a_type(value)}.")
    return list(value)
