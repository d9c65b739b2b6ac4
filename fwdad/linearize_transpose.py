"""lin.T: the transpose of a Linearization (fwdad/linearize.py), the VJP at its point.

    out, lin = linearize(f, x)
    lin.T(ct)        # the recorded program run backwards (fwdad/transposition.py)
    lin.T.method     # "transpose", or "jacobian" (an op with no transpose rule: J^T,
                     # built once by one batched pass), or "vjp" (complex values)
    lin.T.source()   # the transposed program, as readable Python
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy as np

from fwdad import linear_program, output_blocks, seeds, transposition
from fwdad.errors import FwdadError, InternalError
from fwdad.linearize_complex import ComplexTranspose
from fwdad.recording import Linear
from fwdad.tangents import NoTangent, Tangent, has_fields, rebuild

if TYPE_CHECKING:
    from fwdad.linearize import Linearization


class Transpose:
    """`lin.T(cotangent)`: the cotangents of the arguments, a tuple (the VJP).

    The recorded program run backwards (fwdad/transposition.py), at about the cost of
    `lin`; a program with an op that has no transpose rule multiplies by the Jacobian
    instead, which jacfwd builds in one batched pass the first time (re-running f once).
    `method` says which ("transpose" or "jacobian"), or "vjp" for complex values: a
    function of complex values is real-linear only, which neither a transpose rule here
    nor a complex Jacobian represents; reverse mode's pullback is lin's transpose under
    docs/complex.md's convention (fwdad/linearize_complex.py)."""

    def __init__(self, lin: Linearization) -> None:
        self.lin = lin
        self.method: str
        self.why: Optional[str]  # (why lin.T does not transpose, when it does not)
        if any(np.iscomplexobj(leaf) for leaf in _primal_leaves(lin)) \
                or any(node.dtype.kind == "c" for node in lin.tape.nodes):
            self.method, self.why = "vjp", "complex values: reverse mode's pullback"
            self._complex = ComplexTranspose(lin.f, lin.primals)
            return
        try:
            transposition.check(lin.tape)
            self.method, self.why = "transpose", None
        except transposition.NotTransposable as exc:
            self.method, self.why = "jacobian", str(exc)

    @property
    def T(self) -> Linearization:
        return self.lin

    def __call__(self, cotangent: Any) -> tuple[Any, ...]:
        if self.method == "vjp":
            pairs = _output_pairs(self.lin.out_primal, self.lin.out_tangent, cotangent)
            batch = next((np.shape(c)[:np.ndim(c) - np.ndim(p)] for p, _, c in pairs), ())
            try:
                return self._complex(cotangent, batch)
            except InternalError:
                raise
            except FwdadError as exc:  # (reverse mode refuses f: a grad inside, say)
                if not self._real_ends():
                    raise
                self.method = "jacobian"  # real in and out: J^T is the transpose
                self.why = f"complex intermediates, and reverse mode refuses f ({exc})"
        if self.method == "transpose":
            try:
                return self._backward(cotangent)
            except transposition.NotTransposable as exc:  # (a view that its cotangent
                self.method, self.why = "jacobian", str(exc)  # buffer cannot mirror)
        lin = self.lin
        if lin._jacobian_t is None:
            lin._jacobian_t = _jacobian_transposed(lin.f, lin.primals)
        jacobian_t, inputs = lin._jacobian_t
        flat, batch = _flatten_like(lin.out_primal, cotangent)
        result = flat @ jacobian_t.T
        return tuple(seeds.tree_map(lambda leaf: _unflatten(result, leaf, batch), inputs))

    def _real_ends(self) -> bool:
        """Whether the arguments and the output are real (complex values inside only):
        then lin is a real matrix, and its transpose is lin.T whatever the pairing."""
        return not any(np.iscomplexobj(leaf) for leaf in _primal_leaves(self.lin))

    def source(self) -> str:
        """The transposed program (what `lin.T` runs), as readable Python."""
        if self.method != "transpose":
            return f"# lin.T does not run a transposed program here: {self.why}"
        lin = self.lin
        return linear_program.transposed_source(lin.tape, recorded_leaves(lin.inputs),
                                                lin.out_tangent)

    def _backward(self, cotangent: Any) -> tuple[Any, ...]:
        lin = self.lin
        pairs = _output_pairs(lin.out_primal, lin.out_tangent, cotangent)
        batch = next((np.shape(c)[:np.ndim(c) - np.ndim(p)] for p, _, c in pairs), ())
        if batch:  # a batch of cotangents: one backward pass each
            from fwdad.tangents import stack
            stacked: tuple[Any, ...] = stack(
                [self._one([(p, t, np.asarray(c)[b]) for p, t, c in pairs])
                 for b in range(batch[0])])
            return stacked
        return self._one(pairs)

    def _one(self, pairs: list[Any]) -> tuple[Any, ...]:
        lin = self.lin
        seeded = [(t, c) for _, t, c in pairs if type(t) is Linear]
        buffers = transposition.backward(lin.tape, seeded)
        made: dict[int, Tangent] = {}  # (one instance's seed: one cotangent Tangent)
        return tuple(_cotangent_of(p, node, buffers, made) for p, node in zip(lin.primals,
                                                                               lin.inputs))


def recorded_leaves(tree: Any) -> list[Any]:
    """The recorded (Linear) leaves of a tree of tangents."""
    return [leaf for leaf in seeds.leaf_list(tree) if type(leaf) is Linear]


def _primal_leaves(lin: Linearization) -> list[Any]:
    """The leaves of the arguments (an instance's fields too) and of the output."""
    return seeds.leaf_list((lin.primals, lin.out_primal), instances=True)


def _output_pairs(primal: Any, tangent: Any, cotangent: Any,
                  inside: frozenset[tuple[int, int]] = frozenset()) -> list[Any]:
    """(primal, tangent, cotangent) of each output leaf that has a cotangent. An
    instance met again inside itself with the same cotangent (`inside`: the pairs being
    walked) adds nothing: its leaves are those already listed, as vjp seeds them."""
    if isinstance(primal, (tuple, list)):
        return [pair for i in range(len(primal)) for pair in _output_pairs(
            primal[i], _item(tangent, i), _item(cotangent, i), inside)]
    if isinstance(primal, dict):
        return [pair for k in primal for pair in _output_pairs(
            primal[k], _item(tangent, k), _item(cotangent, k), inside)]
    if has_fields(primal):  # (cotangent: a Tangent)
        here = (id(primal), id(cotangent))
        if here in inside or cotangent is None or cotangent is NoTangent:
            return []
        return [pair for k, v in vars(primal).items() for pair in _output_pairs(
            v, _field(tangent, k), _field(cotangent, k), inside | {here})]
    if cotangent is None or cotangent is NoTangent:
        return []
    return [(primal, tangent, cotangent)]


def _item(tree: Any, key: Any) -> Any:
    return None if tree is None or tree is NoTangent else tree[key]


def _field(tree: Any, key: str) -> Any:
    return None if tree is None or tree is NoTangent else getattr(tree, key, None)


def _cotangent_of(primal: Any, seeded: Any, buffers: list[Any],
                  made: dict[int, Tangent]) -> Any:
    """An argument's cotangent, structured like it (NoTangent where it has none); an
    instance's seed met again (`made`) gives the Tangent made for it, the total
    cotangent of the one object, as grad gives it."""
    if type(seeded) is Linear:
        value = buffers[seeded.index]
        return float(value) if isinstance(primal, float) else np.array(value)
    if isinstance(seeded, (tuple, list)):
        return rebuild(seeded, [_cotangent_of(p, s, buffers, made)
                                for p, s in zip(primal, seeded)])
    if isinstance(seeded, dict):
        return {k: _cotangent_of(primal[k], seeded[k], buffers, made) for k in seeded}
    if isinstance(seeded, Tangent):  # (an instance's, as grad gives it)
        if id(seeded) not in made:
            made[id(seeded)] = Tangent(**{k: _cotangent_of(getattr(primal, k), s, buffers,
                                                           made)
                                          for k, s in vars(seeded).items()})
        return made[id(seeded)]
    return NoTangent


def _jacobian_transposed(f: Callable[..., Any], primals: tuple[Any, ...]) -> tuple[Any, ...]:
    """J^T as an (inputs x outputs) matrix over the flat index of seeds.leaves_of."""
    from fwdad.jacobians import seeded_pass
    inputs, total = seeds.leaves_of(tuple(primals))
    out, tangent = seeded_pass(f, primals, tuple(range(len(primals))),
                               seeds.seed(inputs, 0, total))
    stacked = output_blocks.stacked_output(out, tangent, total)
    columns = [np.reshape(x, (total, -1)) for x in seeds.leaf_list(stacked)]
    return np.concatenate(columns, axis=1), inputs


def _flatten_like(primal: Any, cotangent: Any) -> tuple[Any, ...]:
    """The cotangent's leaves, in the order of the output's, as one (..., n) array."""
    pairs: list[Any] = []

    def walk(p: Any, c: Any) -> None:
        if isinstance(p, (tuple, list)):
            for i, item in enumerate(p):
                walk(item, None if c is None else c[i])
        elif isinstance(p, dict):
            for k, item in p.items():
                walk(item, None if c is None else c[k])
        elif has_fields(p):  # (as stacked_output orders it)
            for k, item in vars(p).items():
                walk(item, _field(c, k))
        else:
            pairs.append((p, c))
    walk(primal, cotangent)
    batch = next((np.shape(c)[:np.ndim(c) - np.ndim(p)] for p, c in pairs
                  if c is not None and c is not NoTangent), ())
    flat = [np.zeros(batch + (int(np.size(p)),)) if c is None or c is NoTangent
            else np.reshape(c, batch + (-1,)) for p, c in pairs]
    return np.concatenate(flat, axis=-1), batch


def _unflatten(flat: np.ndarray, leaf: Any, batch: tuple[Any, ...]) -> Any:
    if leaf is None:
        return NoTangent
    block = flat[..., leaf.offset:leaf.offset + leaf.size].reshape(batch + leaf.shape)
    return float(block) if block.ndim == 0 else block
