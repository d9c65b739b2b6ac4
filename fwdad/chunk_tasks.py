"""The chunks of batched computations, as values that can be sent to a worker.

    JacobianChunk(args, wrt, leaves, kwargs, 0, 100).run(f)  ->  (out, tangents of rows
        0:100 of the identity, each output leaf with the batch axis)
    BatchedChunk(args, tangents[a:b]).run(f)   ->  (out, batched output tangents)
    JvpPoints(primals_list, tangents_list).run(f)  ->  [jvp(f, p, t), ...]
    GradPoints(points, argnums).run(f)  ->  [grad(f, argnums)(*point), ...]

Each holds its data and no function: fwdad/chunked.py sends the function alongside
(fwdad/shipping.py), once per chunk, and runs `task.run(f)` here or on a worker.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from fwdad import api, jacobians, output_blocks, seeds
from fwdad.dual import Dual
from fwdad.errors import FwdadError, NonDifferentiableError, a_type, describe
from fwdad.rules.batching import is_batched
from fwdad.tangents import NoTangent, Tangent, rebuild


@dataclass
class JacobianChunk:
    """Rows start:stop of the identity, pushed through f in one batched pass."""

    args: Tuple[Any, ...]
    wrt: Tuple[int, ...]
    leaves: Any
    kwargs: Dict[str, Any]
    start: int
    stop: int

    def run(self, f: Any) -> Tuple[Any, Any]:
        def reseed() -> Any:
            return seeds.seed(self.leaves, self.start, self.stop)
        out, tangent = jacobians.seeded_pass(f, self.args, self.wrt, reseed(), self.kwargs,
                                             reseed)
        try:
            return out, output_blocks.stacked_output(out, tangent, self.stop - self.start)
        except NonDifferentiableError as exc:  # (an output it cannot lay out: name f)
            raise NonDifferentiableError(f"jacfwd({describe(f)}): {exc}") from None


@dataclass
class BatchedChunk:
    """Some of batched_jvp's tangents (checked, with the batch axis), in one pass. f
    may write into its arguments: all chunks but the last run on copies of them, so
    that each starts from the same values and the caller's end as one call leaves
    them."""

    args: Tuple[Any, ...]
    tangents: Tuple[Any, ...]
    size: int
    last: bool

    def run(self, f: Any) -> Tuple[Any, Any]:
        args = self.args if self.last else copy.deepcopy(self.args)
        # (the tangents are copied too: f writing into an argument writes into them;
        # all at once, so that one instance's one Tangent stays one)
        duals = [Dual(p, t) for p, t in zip(args, copy.deepcopy(self.tangents))]
        out = api.call_batched(f, duals, self.size)
        return out.primal, output_blocks.batched_output(out.primal, out.tangent, self.size)


def batch_rows(primal: Any, tangent: Any, start: int, stop: int,
               done: Optional[Dict[int, Tangent]] = None) -> Any:
    """Rows start:stop of the batch axis of every tangent leaf that has one (views);
    the unbatched leaves (zeros filled in by the checks) as they are. (`done`: the rows
    of each Tangent, so that the one Tangent of an instance at two places, of one
    argument or two, stays one: a write through one place is seen through the other.)"""
    if tangent is None or tangent is NoTangent:
        return tangent
    done = {} if done is None else done
    if isinstance(tangent, (tuple, list)):
        return rebuild(tangent, [batch_rows(p, t, start, stop, done)
                                 for p, t in zip(primal, tangent)])
    if isinstance(tangent, dict):
        return {k: batch_rows(primal[k], t, start, stop, done) for k, t in tangent.items()}
    if isinstance(tangent, Tangent):
        if id(tangent) not in done:
            done[id(tangent)] = out = Tangent()  # (before its fields: a cycle comes back)
            vars(out).update({k: batch_rows(getattr(primal, k), t, start, stop, done)
                              for k, t in vars(tangent).items()})
        return done[id(tangent)]
    return tangent[start:stop] if is_batched(primal, tangent) else tangent


def joined(parts: List[Any], done: Optional[Dict[int, Tangent]] = None) -> Any:
    """The chunks' batched output tangents as one, joined along the batch axis (`done`:
    the Tangent made for each of the first chunk's, so that the tangent of an instance
    met again, at another place or inside itself, is that one)."""
    first = parts[0]
    if len(parts) == 1 or first is None or first is NoTangent:
        return first
    done = {} if done is None else done
    if isinstance(first, (tuple, list)):
        return rebuild(first, [joined([p[i] for p in parts], done)
                               for i in range(len(first))])
    if isinstance(first, dict):
        return {k: joined([p[k] for p in parts], done) for k in first}
    if isinstance(first, Tangent):
        if id(first) not in done:
            done[id(first)] = out = Tangent()  # (before its fields: a cycle comes back)
            vars(out).update({k: joined([vars(p)[k] for p in parts], done)
                              for k in vars(first)})
        return done[id(first)]
    if isinstance(first, np.ndarray):
        return np.concatenate(parts)
    raise FwdadError(f"batched_jvp cannot join the chunks of an output tangent of type "
                     f"{a_type(first)}: pass chunk_size= the batch size, for one pass.")


@dataclass
class JvpPoints:
    """jvp of f at some of map_jvp's points."""

    primals_list: Sequence[Any]
    tangents_list: Sequence[Any]

    def run(self, f: Any) -> List[Tuple[Any, Any]]:
        return [api.jvp(f, p, t) for p, t in zip(self.primals_list, self.tangents_list)]


@dataclass
class GradPoints:
    """The gradient of f at some of map_grad's points (each a tuple of arguments)."""

    points: Sequence[Tuple[Any, ...]]
    argnums: Any

    def run(self, f: Any) -> List[Any]:
        from fwdad.reverse.api import grad  # (reverse mode builds on api: imported late)
        gradient = grad(f, self.argnums)
        return [gradient(*point) for point in self.points]
