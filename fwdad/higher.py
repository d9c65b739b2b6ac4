"""Higher order: jvp inside differentiated code, hvp and hessian.

`jvp` has a registered frule: when the function being differentiated calls `jvp`, the
inner derivative runs as a *level-2* computation (fwdad/forward/nested/levels.py): the derived
rule of the inner function's rule, whose values carry the outer perturbation in their
tangents. The inner function's rule sees the outer computation's values only lifted
(inner tangent zero, outer tangent kept), so perturbations cannot be confused: see
docs/higher_order.md. This rule is plain code over Duals too: a jvp inside a jvp
inside a differentiated function runs its derived rule (a third level), and so on.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

from fwdad import api, api_checks, chunked, jacobians
from fwdad import holomorphic as complex_args
from fwdad.argnums import check_argnums_type, positions
from fwdad.dual import Dual
from fwdad.errors import FwdadError, InternalError, a_type, describe
from fwdad.forward.defaults import close_nested
from fwdad.forward.nested import calls as nested_calls
from fwdad.forward.nested import levels as nested
from fwdad.probe import probe
from fwdad.progress import steps
from fwdad.reverse import api as reverse_api
from fwdad.rules import batching
from fwdad.rules.layout import matched
from fwdad.rules.registry import frule
from fwdad.signatures import check_call
from fwdad.tangent_checks import check_tangent
from fwdad.tangents import NoTangent, Tangent, leaves, stack, zero_tangent
from fwdad.transformed import Transformed
from fwdad.tree_hessian import is_tree, tree_hessian


@frule(api.jvp)
def _jvp(f: Dual, primals: Dual, tangents: Dual) -> Dual:
    """jvp(f, primals, tangents) inside a differentiated function: returns
    (out, tangent_out), each with its outer tangent."""
    return jvp_with_keywords(f, primals, tangents, {})


def jvp_with_keywords(f: Dual, primals: Dual, tangents: Dual, keywords: dict[Any, Any]) -> Dual:
    """_jvp, with `keywords` (plain values: constants of both levels) passed to f."""
    args = [_level2_argument(f.primal, i, primals, tangents)
            for i in range(len(primals.primal))]
    named = {k: nested.lift_outer(v) for k, v in keywords.items()}
    close_nested(2)  # (what a nested jvp stopped by an error caught left open)
    out = nested_calls.call_rule(nested.lift_outer(f), *args, **named)
    close_nested(2)  # (its perturbation is gone: the state it wrote settles)
    outer_out, outer_tangent = nested.outer_of(out)
    value, tangent = out.primal.primal, out.primal.tangent
    return Dual((value, tangent), (_real(outer_out, value), _real(outer_tangent, tangent)))


def _level2_argument(fn: Any, i: int, primals: Dual, tangents: Dual) -> Dual:
    """Argument i as a level-2 value. Its inner tangent is a copy, as jvp copies it,
    and so is that copy's outer tangent, with a batch axis when the argument's outer
    tangent has one: the function may write into the argument, and both outer tangents
    must be its own and batched alike to take the batched values written
    (fwdad/rules/widening.py)."""
    primal, tangent = primals.primal[i], tangents.primal[i]
    inner = api_checks.copied(check_tangent(primal, tangent, f"argument {i}", of=describe(fn)))
    outer_primal = _item(primals.tangent, i)
    outer_inner = api_checks.copied(_item(tangents.tangent, i))
    if _batched(primal, outer_primal) and not _batched(inner, outer_inner):
        size: Any = batching.running_batch_size()  # (an int: _batched says one runs)
        outer_inner = stack([outer_inner] * size)  # batched alike
    return Dual(Dual(primal, inner), Tangent(primal=outer_primal, tangent=outer_inner))


def _batched(primal: Any, tangent: Any) -> bool:
    """Whether a leaf of the tangent of the (tree) `primal` has a batch axis."""
    return batching.running_batch_size() is not None and tangent is not NoTangent and any(
        batching.is_batched(p, t) for p, t in zip(leaves(primal), leaves(tangent)))


def _item(tangent: Any, i: int) -> Any:
    return NoTangent if tangent is NoTangent else tangent[i]


def _real(tangent: Any, like: Any) -> Any:
    return zero_tangent(like) if tangent is NoTangent else tangent


class Directional:
    """`Directional(f, v, kwargs)(*xs)` is the directional derivative of
    `f(*xs, **kwargs)` at xs along v (the tangent output of jvp); it has a rule, so
    jacfwd can differentiate it again. The keyword arguments are constants."""

    def __init__(self, f: Callable[..., Any], tangents: Sequence[Any],
                 keywords: Optional[dict[Any, Any]] = None) -> None:
        self.f, self.tangents, self.keywords = f, tuple(tangents), keywords or {}

    def __call__(self, *primals: Any) -> Any:
        f = functools.partial(self.f, **self.keywords) if self.keywords else self.f
        return api.jvp(f, primals, self.tangents)[1]


@frule(Directional.__call__)
def _directional(self: Directional, *primals: Dual) -> Dual:
    packed = Dual(tuple(p.primal for p in primals), tuple(p.tangent for p in primals))
    out = jvp_with_keywords(Dual(self.f, NoTangent), packed,
                             Dual(self.tangents, NoTangent), self.keywords)
    return Dual(out.primal[1], out.tangent[1])


# ---- the public functions ------------------------------------------------------------
def hvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        holomorphic: bool = False) -> Tuple[Any, ...]:
    """The Hessian of a scalar function `f` at `primals`, times `tangents`.

    Forward over reverse: the jvp of f's gradient, one reverse pass run on Dual values
    (fwdad/over_reverse.py), so its cost is a small constant times a gradient whatever
    the number of inputs. Forward over forward (jacfwd of `x -> jvp(f, x, v)[1]`, the
    cost of a Jacobian) when f's output is not a real scalar, or when reverse mode
    refuses something f does; f then runs a second time (the first attempt leaves the
    arguments as they were: fwdad/over_reverse.py, nesting._level2_jacobians).

    With `holomorphic=True` (complex arguments and output, f holomorphic in them): the
    complex second derivative times `tangents`, forward over forward (docs/complex.md).
    Without it a complex argument is refused.

    Returns:
        A tuple with one array per argument, shaped like it (for a non-scalar f, each
        has the output's shape in front).
    """
    api_checks.check_callable(f, "hvp")
    args, directions = api_checks.check_sequences(f, primals, tangents)
    check_call("hvp", f, args)
    argnums = tuple(range(len(args)))
    complex_args.check_arguments("hvp", f, args, argnums, holomorphic)
    if holomorphic:
        _check_holomorphic_output("hvp", f, args, {})
        return tuple(jacobians.jacfwd(Directional(f, directions), argnums=argnums,
                                      holomorphic=True)(*args))
    try:
        return tuple(api.jvp(reverse_api.grad(f, argnums), args, directions)[1])
    except InternalError:
        raise
    except FwdadError:
        pass
    return tuple(jacobians.jacfwd(Directional(f, directions), argnums=argnums)(*args))


def _check_holomorphic_output(api_name: str, f: Callable[..., Any], args: Sequence[Any],
                              kwargs: dict[Any, Any]) -> None:
    """holomorphic=True needs a complex output: one call of f, on copies, to see it (the
    forward-over-forward passes see only its derivatives)."""
    copies = [jacobians.copy_argument(a) for a in args]
    complex_args.check_outputs(api_name, f, f(*copies, **kwargs))


def hessian(f: Callable[..., Any], argnums: int = 0, progress: bool = False,
            chunk_size: Optional[int] = None, memory_budget: Optional[float] = None,
            holomorphic: bool = False) -> Transformed:
    """The function that computes the Hessian of `f` with respect to argument `argnums`
    (negative counts from the end). For a float or float array x: shape
    `output.shape + x.shape + x.shape`. For a tuple, list, dict or instance of a user
    class holding them (a tree): a tree of trees, as jacfwd of f's gradient nests them
    (and JAX's hessian): `H[i][j]` has shape `x_i.shape + x_j.shape` for the leaves x_i
    and x_j, an instance's fields are a `fwdad.Tangent`, and a leaf that is not a float
    (an int, a string) gets None in its row and its column. The trees jacfwd refuses
    (an instance reached twice, arrays of instances that share memory) are refused
    alike. Keyword arguments of the call are passed to f as constants. With
    `progress=True`, the passes are shown as they run (a tqdm bar when tqdm is
    installed, else a line on stderr now and then).

    The tangents (one per entry of x) go in passes of `chunk_size`, or, when it is
    None, of as many as `memory_budget` bytes hold (None: `fwdad.get_memory_budget()`,
    1 GiB unless set), measured as `jacfwd` measures them.

    Forward over reverse: one batched jvp (jacfwd) of f's gradient, a reverse pass run
    on Dual values that carry a tangent per entry of x. When f's output is not a real
    scalar, or reverse mode refuses something f does: forward over forward, one batched
    pass (jacfwd) of a directional derivative per entry of x (f then runs again).

    For a tree, forward over reverse as above when reverse mode takes f and the tree (a
    tuple, list or dict of floats and arrays); else (an instance, or a refusal of reverse
    mode) one jacfwd of a directional derivative per float entry of the tree.

    With `holomorphic=True` (a complex x and output, f holomorphic in x): the complex
    second derivative d2f/dz2, forward over forward (docs/complex.md). Without it a
    complex x is refused; a tree is refused with it.
    """
    api_checks.check_callable(f, "hessian")
    check_argnums_type("hessian", f, argnums)
    options = chunked.Options(chunk_size, memory_budget, None, progress).check("hessian")
    if isinstance(argnums, (tuple, list)):
        raise FwdadError("hessian takes one argument number (argnums=int); for several "
                         "arguments, use hvp or jacfwd of a function of their tuple.")

    def compute(*args: Any, **kwargs: Any) -> Any:
        check_call("hessian", f, args, kwargs)
        (at,) = positions("hessian", f, argnums, args, kwargs)
        x = args[at]
        if is_tree(x):
            return _of_a_tree(f, at, args, kwargs, options, holomorphic)
        if not isinstance(zero_tangent(x), (float, complex, np.ndarray)):
            raise FwdadError(f"hessian({describe(f)}) differentiates with respect to a "
                             f"float or float array, not {a_type(x)}.")
        complex_args.check_arguments("hessian", f, args, (at,), holomorphic)
        if holomorphic:
            _check_holomorphic_output("hessian", f, args, kwargs)
        try:
            if not holomorphic:  # (a holomorphic gradient is not differentiated again)
                gradient = reverse_api.grad(f, at)
                return jacobians.value_and_jacobian(gradient, at, args, kwargs,
                                                    f"hessian of {describe(f)}", options)[1]
        except InternalError:
            raise
        except FwdadError:
            pass
        columns = []
        # (an empty x: one zero direction, for the shape of the empty result)
        eye = np.eye(int(np.size(x))) if np.size(x) else np.zeros((1, 0))
        with steps(f"hessian of {describe(f)}", len(eye), "column", progress) as done:
            for e in eye:
                direction = [zero_tangent(a) for a in args]
                e = e.astype(np.result_type(x, float))  # (a complex x: complex seeds)
                direction[at] = matched(x, e.reshape(np.shape(x))) if np.ndim(x) \
                    else e[0].item()  # (laid out as x: rules/layout.py)
                column = jacobians.jacfwd(Directional(f, direction, kwargs), argnums=at,
                                          chunk_size=chunk_size,
                                          memory_budget=memory_budget,
                                          holomorphic=holomorphic)(*args)
                columns.append(np.asarray(column))
                done()
        stacked = np.stack(columns, axis=-1)[..., :np.size(x)]
        return stacked.reshape(stacked.shape[:-1] + np.shape(x))
    compute.__name__ = f"hessian_{probe(f, '__name__', 'f')}"
    return Transformed("hessian", f, argnums, compute)


def _of_a_tree(f: Callable[..., Any], at: int, args: Tuple[Any, ...], kwargs: dict[Any, Any],
               options: chunked.Options, holomorphic: bool) -> Any:
    if holomorphic:
        raise FwdadError(f"hessian({describe(f)}, holomorphic=True) differentiates with "
                         f"respect to a complex scalar or array, not {a_type(args[at])}: "
                         f"pass its complex leaves as separate arguments.")
    complex_args.check_arguments("hessian", f, args, (at,), holomorphic)
    return tree_hessian(f, at, args, kwargs, options)
