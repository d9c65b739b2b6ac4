"""jacrev: whole Jacobians by reverse mode, one row per output entry.

    jacrev(f)(x)  ->  J, J[i, j] = d out[i] / d x[j]      (shape output.shape + x.shape)

f runs once, recording its tape (vjp); the pullback then runs once per float entry of
the output, with the unit cotangent of that entry, and gives that entry's row. Cheaper
than jacfwd (one tangent per input entry) when the output has fewer entries than the
inputs. The blocks are shaped, typed and nested as jacfwd's: fwdad/output_blocks.py assembles
both from rows indexed by the flat index of the inputs' float leaves.

Note: there is no `chunk_size`. jacfwd's bounds how many tangents one batched pass
carries; here each row is already its own backward pass over one shared tape, and the
tape and the Jacobian itself are what memory holds.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple, Union

import numpy as np

from fwdad import api_checks, jacobians, output_blocks, seeds
from fwdad import holomorphic as complex_args
from fwdad.aliased_arguments import sharing_an_instance
from fwdad.argnums import check_argnums, check_argnums_type
from fwdad.chunked import Options
from fwdad.errors import FwdadError, NonDifferentiableError, a_type, describe
from fwdad.probe import probe
from fwdad.progress import Step, steps
from fwdad.reverse import api as reverse_api
from fwdad.signatures import check_call
from fwdad.tangents import NoTangent, Tangent, has_fields, rebuild, zero_tangent
from fwdad.transformed import NestedTransformation, Transformed


def jacrev(f: Callable[..., Any], argnums: Union[int, Tuple[int, ...]] = 0,
           progress: bool = False, holomorphic: bool = False) -> Transformed:
    """The function that computes the Jacobian of `f` by reverse mode: one recorded
    pass of f, then one pullback per entry of the output.

    Args:
        f: the function to differentiate.
        argnums: the argument (or tuple of arguments) to differentiate with respect to;
            negative numbers count from the end.
        progress: show the pullbacks as they run (a tqdm bar when tqdm is installed,
            else a line on stderr now and then).
        holomorphic: f is holomorphic in its complex arguments and returns complex
            values: the Jacobian is the complex derivative df/dz (as JAX's): row k is
            the pullback of the unit cotangent of entry k, which for a holomorphic f is
            that entry's complex derivative (docs/complex.md). Without it a complex
            argument or output is refused.

    Returns:
        `jac(*args, **kwargs)`, shaped, typed and nested as `fwdad.jacfwd`'s: for each
        output leaf, an array of shape `output.shape + input.shape` (a tuple of them,
        one per argument, when argnums is a tuple). Keyword arguments are passed to f
        as constants. The caller's arguments are left as they were, even when f
        updates them in place.

    Raises:
        FwdadError: argnums is not an int or tuple of ints, or does not name an
            argument; f cannot take the arguments; an input or output is complex
            without `holomorphic`, or real with it. NonDifferentiableError: the
            arguments hold no floats.
    """
    api_checks.check_callable(f, "jacrev")
    check_argnums_type("jacrev", f, argnums)

    def jacobian(*args: Any, **kwargs: Any) -> Any:
        check_call("jacrev", f, args, kwargs)
        return value_and_jacobian_by_rows(f, argnums, args, kwargs, progress, holomorphic)[1]
    jacobian.__name__ = f"jacrev_{probe(f, '__name__', 'f')}"
    return Transformed("jacrev", f, argnums, jacobian)


def value_and_jacobian_by_rows(f: Callable[..., Any], argnums: Any, args: Tuple[Any, ...],
                               kwargs: Optional[Dict[str, Any]] = None,
                               progress: bool = False, holomorphic: bool = False
                               ) -> Tuple[Any, Any]:
    """`(f(*args, **kwargs), jacrev(f, argnums)(*args, **kwargs))` from one pass (its
    pullbacks shown as they run when `progress`)."""
    wrt = check_argnums("jacrev", f, argnums, len(args))
    leaves, total = seeds.leaves_of(tuple(args[i] for i in wrt), 0,
                                    lambda: f"jacrev({describe(f)}, argnums={argnums})",
                                    shared=True)  # (one instance at two places: the
    # same rows at both, its total derivative, as grad gives it)
    if not seeds.holds_a_leaf(leaves):  # (empty float leaves: empty blocks)
        raise api_checks.no_floats_error("jacrev", f, argnums, tuple(args[i] for i in wrt))
    complex_args.check_arguments("jacrev", f, args, wrt, holomorphic)
    copies = _copies(args)  # (f may update them in place)
    try:
        out, pullback = reverse_api.vjp_with_wrt(f, copies, set(wrt), kwargs, "jacrev")
    except NestedTransformation:  # f calls a transformation: outer derivative forward
        out, jac = jacobians.value_and_jacobian(f, argnums, args, kwargs=kwargs,
                                                options=Options(progress=progress))
        return out, _checked(f, out, holomorphic, jac)
    try:
        try:
            _checked(f, out, holomorphic)
        except NonDifferentiableError as exc:  # (an output that holds itself: name f)
            raise NonDifferentiableError(f"jacrev({describe(f)}): {exc}") from None
        with steps(f"jacrev of {describe(f)}", _row_count(out), "row", progress) as done:
            rows = _rows(f, out, pullback, wrt, leaves, total, done)
    finally:
        pullback.release()
    inputs = leaves if isinstance(argnums, (tuple, list)) else leaves[0]
    blocks = output_blocks.jacobian_blocks(out, [rows], inputs)
    return out, _typed(out, blocks, inputs)


def _copies(args: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """Copies of the arguments, one copy of an instance two of them hold (as the
    user's, one object there)."""
    if sharing_an_instance(args):
        return tuple(api_checks.copied(args))
    return tuple(jacobians.copy_argument(a) for a in args)


def _checked(f: Callable[..., Any], out: Any, holomorphic: bool, jac: Any = None) -> Any:
    """With `holomorphic`, refuse a real output (fwdad/holomorphic.py); without it, a
    complex one: a unit real cotangent pulls back the real part of a row only."""
    if holomorphic:
        complex_args.check_outputs("jacrev", f, out)
    elif any(np.iscomplexobj(y) for _, y in output_blocks.output_paths(out)
             if zero_tangent(y) is not NoTangent):
        raise FwdadError(
            f"jacrev of {describe(f)}: an output is complex, and jacrev takes real outputs "
            f"unless f is holomorphic (pass holomorphic=True for df/dz, as JAX's). For a "
            f"function that is not holomorphic, use fwdad.jacfwd (with real arguments) "
            f"or fwdad.vjp with complex cotangents (docs/complex.md).")
    return jac


def _row_count(out: Any) -> int:
    """How many pullbacks _rows runs: one per entry of a float output leaf."""
    return sum(int(np.size(primal)) for _, primal in output_blocks.output_paths(out)
               if zero_tangent(primal) is not NoTangent)


def _rows(f: Callable[..., Any], out: Any, pullback: Callable[..., Any], wrt: Tuple[int, ...],
          leaves: Any, total: int, done: Step) -> Any:
    """For each output leaf, its Jacobian rows as jacfwd's batched tangents are laid
    out: shape `(total,) + leaf.shape` (the input index first)."""
    rows = {}
    for path, primal in output_blocks.output_paths(out):
        shape, kind = np.shape(primal), _kind(f, primal)
        if kind == "constant":  # an int, a string: no derivative
            rows[path] = np.zeros((total,) + shape)
            continue
        block = np.zeros((int(np.prod(shape)), total), dtype=np.result_type(primal, float))
        for k in range(block.shape[0]):
            cts = pullback(_unit_cotangent(out, path, k))
            _scatter(leaves, tuple(cts[i] for i in wrt), block[k])
            done()
        rows[path] = block.T.reshape((total,) + shape)
    return _tree_of(out, rows, ())


def _kind(f: Callable[..., Any], primal: Any) -> str:
    zero = zero_tangent(primal)
    if zero is NoTangent:
        return "constant"
    kind = np.asarray(zero).dtype.kind if isinstance(zero, (float, np.ndarray,
                                                            np.inexact)) else None
    if kind == "f" or kind == "c":  # (complex: holomorphic, checked by _checked)
        return "float"
    raise FwdadError(
        f"jacrev of {describe(f)}: an output leaf is {a_type(primal)}; jacrev takes outputs "
        f"that are floats, float arrays, or tuples, lists, dicts and instances holding "
        f"them. Use fwdad.jacfwd.")


def _unit_cotangent(out: Any, path: Tuple[Any, ...], k: int) -> Any:
    """The cotangent of the output that is 1 at entry k of the leaf at `path`, 0 at
    every other float entry (a fresh one per row: a pullback may keep what it gets)."""
    def walk(tree: Any, rest: Tuple[Any, ...]) -> Any:
        if not rest:
            zero = zero_tangent(tree)
            if isinstance(zero, np.ndarray):
                zero.flat[k] = 1
                return zero
            return type(zero)(1)
        if isinstance(tree, dict):
            return {key: walk(v, rest[1:]) if key == rest[0] else zero_tangent(v)
                    for key, v in tree.items()}
        if type(rest[0]) is output_blocks.Field:  # (an instance's cotangent: a Tangent)
            return Tangent(**{key: walk(v, rest[1:]) if key == rest[0].name else
                              zero_tangent(v) for key, v in vars(tree).items()})
        return rebuild(tree, [walk(v, rest[1:]) if i == rest[0] else zero_tangent(v)
                              for i, v in enumerate(tree)])
    return walk(out, path)


def _scatter(leaves: Any, cts: Any, row: np.ndarray) -> None:
    """Write the cotangents of the differentiated arguments into `row`, each float leaf
    at its place in the flat index (fwdad/seeds.py)."""
    if leaves is None or cts is NoTangent or cts is None:
        return
    if isinstance(leaves, seeds.Leaf):
        row[leaves.offset:leaves.offset + leaves.size] = np.ravel(cts)
    elif isinstance(leaves, Tangent):  # (an instance's fields: its cotangent's)
        for key, leaf in vars(leaves).items():
            _scatter(leaf, getattr(cts, key, NoTangent), row)
    elif isinstance(leaves, dict):
        for key, leaf in leaves.items():
            _scatter(leaf, cts[key], row)
    else:
        for leaf, ct in zip(leaves, cts):
            _scatter(leaf, ct, row)


def _typed(out: Any, blocks: Any, inputs: Any) -> Any:
    """Each block in the dtype of its input leaf, as grad's gradients are: reverse mode
    computes in float64, so the output's own dtype (jacfwd's) is not known here. For an
    input and output of one dtype, the two agree."""
    if isinstance(out, (tuple, list)):
        return rebuild(blocks, [_typed(o, b, inputs) for o, b in zip(out, blocks)])
    if isinstance(out, dict):
        return {k: _typed(v, blocks[k], inputs) for k, v in out.items()}
    if has_fields(out):  # (an instance output)
        return Tangent(**{k: _typed(v, getattr(blocks, k), inputs)
                          for k, v in vars(out).items()})
    return _cast_like(blocks, inputs)


def _cast_like(block: Any, leaf: Any, done: Optional[Dict[int, Any]] = None) -> Any:
    """(`done`: the Tangent made for each block Tangent, one for an instance met twice.)"""
    if leaf is None:
        return block
    if isinstance(leaf, seeds.Leaf):
        return block.astype(leaf.dtype) if np.ndim(block) else leaf.dtype.type(block)
    done = {} if done is None else done
    if isinstance(leaf, dict):
        return {k: _cast_like(block[k], v, done) for k, v in leaf.items()}
    if isinstance(leaf, Tangent):
        if id(block) not in done:
            done[id(block)] = Tangent(**{k: _cast_like(getattr(block, k), v, done)
                                         for k, v in vars(leaf).items()})
        return done[id(block)]
    return rebuild(block, [_cast_like(b, v, done) for b, v in zip(block, leaf)])


def _tree_of(out: Any, rows: dict[Any, Any], path: Tuple[Any, ...]) -> Any:
    """The rows arranged like the output (what jacobian_blocks reads by path)."""
    if isinstance(out, (tuple, list)):
        return [_tree_of(v, rows, path + (i,)) for i, v in enumerate(out)]
    if isinstance(out, dict):
        return {k: _tree_of(v, rows, path + (k,)) for k, v in out.items()}
    if has_fields(out):
        return Tangent(**{k: _tree_of(v, rows, path + (output_blocks.Field(k),))
                          for k, v in vars(out).items()})
    return rows[path]
