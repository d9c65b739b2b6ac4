"""Shared test helpers: golden pass tests, a finite-difference reference, and the
comparison of two rules' results (run_rule, assert_same)."""
from __future__ import annotations

import ast
import copy
import textwrap
from typing import Any, Callable, Sequence, Tuple

import numpy as np

from fwdad.dual import Dual
from fwdad.normalize.names import Namer
from fwdad.tangents import NoTangent, Tangent, perturb


def parse_function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def render(tree: ast.AST) -> str:
    return ast.unparse(tree).strip()


def assert_transforms(pass_fn: Callable, before: str, after: str, *extra: Any) -> None:
    """Golden test of one pass: source in, source out."""
    tree = pass_fn(parse_function(before), Namer(), *extra)
    got = render(tree)
    want = render(parse_function(after))
    assert got == want, f"\n--- got ---\n{got}\n--- want ---\n{want}"


def fd_jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any],
           h: float = 1e-6) -> Any:
    """Central finite difference (float64) of f along tangents: the reference."""
    plus = f(*[perturb(p, t, h) for p, t in zip(primals, tangents)])
    minus = f(*[perturb(p, t, -h) for p, t in zip(primals, tangents)])
    return _tree_map(lambda a, b: (_inexact(a) - _inexact(b)) / (2 * h), plus, minus)


def central_difference(f: Callable, x: Any, t: Any, h: float = 1e-6) -> Any:
    """(f(x + h t) - f(x - h t)) / 2h: the derivative of f at x along t, by central
    differences (float64): fd_jvp of one argument. The helpers below but
    central_hessian are made of it."""
    return fd_jvp(f, (x,), (t,), h)


def central_gradient(f: Callable, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """The derivative of f at x along each unit vector of x in turn, stacked: shape
    x.shape + f(x).shape (the gradient of a scalar f; the transposed Jacobian of an
    array f, as JAX's jacrev(f).T)."""
    x = np.asarray(x)
    slopes = []
    for i in np.ndindex(x.shape):
        unit = np.zeros_like(x)
        unit[i] = 1
        slopes.append(central_difference(f, x, unit, h))
    return np.reshape(np.array(slopes), x.shape + np.shape(slopes[0]))


def central_jacobian(f: Callable, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """The Jacobian of f at x by central differences: shape f(x).shape + x.shape, as
    fwdad.jacfwd's."""
    rows = central_gradient(f, x, h)
    ndim = np.ndim(x)
    return np.moveaxis(rows, tuple(range(ndim)), tuple(range(rows.ndim - ndim, rows.ndim)))


def central_partials(f: Callable, args: Sequence[Any], h: float = 1e-6) -> np.ndarray:
    """The derivatives of f(*args) in each of its scalar arguments in turn (a complex
    one moved along its real axis)."""
    def moving(i: int) -> Callable:
        return lambda value: f(*args[:i], value, *args[i + 1:])
    return np.array([central_difference(moving(i), args[i], 1.0, h)
                     for i in range(len(args))])


def central_hessian(f: Callable, x: np.ndarray, h: float = 1e-4) -> np.ndarray:
    """The Hessian of a scalar f at a vector x by central differences:
    (f(x+a+b) - f(x+a-b) - f(x-a+b) + f(x-a-b)) / 4h^2 for a, b steps of h along unit
    vectors."""
    e = np.eye(len(x)) * h
    return np.array([[(f(x + a + b) - f(x + a - b) - f(x - a + b) + f(x - a - b)) /
                      (4 * h * h) for b in e] for a in e])


def assert_jvp_matches_central_differences(fn: Callable, args: Sequence[Any],
                                            seed: int = 3) -> None:
    """jvp of `fn` along random tangents of its float and array arguments (the others
    held fixed) against central differences, and its output against a plain call."""
    import fwdad
    active = [isinstance(a, (float, np.ndarray)) for a in args]
    rng = np.random.default_rng(seed)
    tangents = [rng.normal(size=np.shape(a)) if yes else 0 for a, yes in zip(args, active)]
    tangents = [t if np.ndim(t) else float(t) for t in tangents]
    primal, tangent = fwdad.jvp(fn, tuple(args), tuple(tangents))
    assert_close(primal, fn(*args))
    want = fd_jvp(lambda *a: fn(*[v if yes else args[i] for i, (v, yes) in
                                   enumerate(zip(a, active))]), args, tangents)
    assert_close(tangent, want, rtol=1e-5, atol=1e-7)


def case_id(case: Tuple[Callable, Sequence[Any]]) -> str:
    """The test id of a (function, arguments) case: the arguments shown when scalar."""
    fn, args = case
    return f"{fn.__name__}{args}" if np.ndim(args[0]) == 0 else fn.__name__


def assert_rule_matches_plain(fn: Callable, args: Sequence[Any], optimized: bool = True
                              ) -> None:
    """fn's derived rule is the optimized one (unless not `optimized`: a rule kept as it
    is) and gives what its plain rule gives, single and batched."""
    from fwdad.forward.derive import build_rule
    rule = build_rule(fn)
    if optimized:
        assert "optimized" in rule.source.splitlines()[0], rule.source
    assert_optimized_matches_plain(rule, rule.unoptimized, args, np.random.default_rng(7))


def _inexact(x: Any) -> np.ndarray:
    """float64, or complex128 for a complex value (its imaginary part counts too)."""
    return np.asarray(x, complex if np.iscomplexobj(x) else float)


def _tree_map(fn, a, b):
    if isinstance(a, (tuple, list)):
        return type(a)(_tree_map(fn, x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return {k: _tree_map(fn, a[k], b[k]) for k in a}
    return fn(a, b)


def assert_close(got: Any, want: Any, rtol: float = 1e-6, atol: float = 1e-8) -> None:
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_close(g, w, rtol, atol)
    elif isinstance(want, dict):
        assert got.keys() == want.keys()
        for k in want:
            assert_close(got[k], want[k], rtol, atol)
    elif isinstance(want, str) or want is None:  # (SciPy's results: message, sol)
        assert got == want, f"{got!r}, not {want!r}"
    else:  # assert_allclose broadcasts: a scalar tangent of an array would pass
        assert np.shape(got) == np.shape(want), f"shape {np.shape(got)}, not {np.shape(want)}"
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float),
                                   rtol=rtol, atol=atol)


def run_rule(rule: Callable, args: Sequence[Any], tangents: Sequence[Any]) -> Any:
    """What the rule gives (outputs and arguments afterwards), or the error it raises."""
    duals = [Dual(copy.deepcopy(a), copy.deepcopy(t)) for a, t in zip(args, tangents)]
    try:
        out = rule(*duals)
    except Exception as exc:  # both rules must fail alike
        return type(exc)
    return (out.primal, out.tangent), [(d.primal, d.tangent) for d in duals]


def assert_optimized_matches_plain(optimized: Callable, plain: Callable,
                                   args: Sequence[Any], rng: Any) -> list:
    """The optimized rule gives what the plain rule gives on random tangents of `args`,
    single and batched (three directions); the single tangents, for more checks."""
    from fwdad.tangents import random_tangent, stack
    tangents = [random_tangent(a, rng) for a in args]
    want = run_rule(plain, args, tangents)
    assert not isinstance(want, type), f"the plain rule raised {want.__name__}"
    assert_same(run_rule(optimized, args, tangents), want)
    batch = [stack([random_tangent(a, rng) for _ in range(3)]) for a in args]
    assert_same(run_rule(optimized, args, batch), run_rule(plain, args, batch))
    return tangents


def assert_same(got: Any, want: Any, where: str = "output") -> None:
    """Two results of rules are equal to rounding, shapes included (NoTangent is zero)."""
    if isinstance(want, type) or isinstance(got, type):
        assert got is want, f"{where}: {got} against {want}"
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}[{i}]")
    elif isinstance(want, Tangent):
        assert_same(vars(got), vars(want), where)
    elif isinstance(want, dict):
        assert got.keys() == want.keys(), where
        for k in want:
            assert_same(got[k], want[k], f"{where}[{k!r}]")
    elif want is NoTangent or got is NoTangent:
        zero = got if want is NoTangent else want
        assert zero is NoTangent or np.all(np.asarray(zero) == 0), where
    else:
        assert np.shape(got) == np.shape(want), f"{where}: shape {np.shape(got)}"
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, err_msg=where)


def copy_args(args: Sequence[Any]) -> list:
    return copy.deepcopy(list(args))


def fresh_module(path: Any, name: str) -> Any:
    """The Python file `path` loaded anew as a module of its own named `name`: its
    globals are objects fwdad has not met yet."""
    import importlib.util
    import sys
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
