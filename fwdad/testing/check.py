"""test_rule: check any rule (registered or derived) against the primal function and
against central finite differences.

It checks, in order:
1. a primitive's registered frule is what dispatch calls (not a derived rule), and a
   derived rule is built once and then reused;
2. the primal output, and the state of every argument afterwards, match a plain call;
3. the output tangent and the tangents of the arguments afterwards, paired with a
   random cotangent, match central finite differences along a random tangent;
4. a batch of tangents gives what each tangent gives on its own;
5. in both runs, an output tangent shares memory with an argument's tangent only when
   the output's value shares memory with that argument's value (a view).
The dot-product test against reverse mode joins these when reverse mode exists.
"""
from __future__ import annotations

import copy
import pickle
from collections import abc
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from fwdad.core.duals import const, iterate
from fwdad.dual import Dual
from fwdad.errors import a_type, describe
from fwdad.forward import dispatch
from fwdad.forward.cache import derived_rules
from fwdad.probe import probe
from fwdad.rules import batching
from fwdad.rules.registry import get_frule, is_primitive
from fwdad.source import python_function
from fwdad.tangents import NoTangent, Tangent, inner, random_tangent, stack, unstack
from fwdad.testing.aliasing import first_alias
from fwdad.testing.finite_differences import (
    default_rtol,
    default_step,
    directional,
    run_on_copies,
)


def test_rule(f: Callable[..., Any], *args: Any, rtol: Optional[float] = None,
              atol: float = 1e-8, batch: int = 3, seed: int = 0, h: Optional[float] = None,
              **kwargs: Any) -> None:
    """Check the forward rule of `f` at `args` (keyword arguments are constants).

    Args:
        f: a function with a registered frule, or a Python function to derive one for.
        args: the point; floats and float arrays (in containers, too) are perturbed.
        rtol: relative tolerance of the finite-difference comparison; by default 1e-6
            for float64 arguments, and for less precise ones 10 eps^(2/3) of the
            coarsest dtype among them (float32: 1.7e-4), the error of the differences.
        atol: absolute tolerance of the finite-difference comparison.
        batch: how many tangents to push through at once in the batch check (0: skip).
        seed: seeds the random tangents and cotangents.
        h: the finite-difference step; by default 1e-6 for float64 arguments, and for
            less precise ones the cube root of the coarsest dtype's eps (float32:
            4.9e-3), where rounding the perturbed point and the truncation error of
            central differences balance (1e-6 moves a float32 near 1 by a step rounded
            to 6%).

    Raises:
        AssertionError: with a report naming the function, the argument shapes, what
            was expected and what came out.
    """
    rng = np.random.default_rng(seed)
    rule = _rule_of(f)
    report = _Report(f, args)
    direction = [random_tangent(a, rng) for a in args]

    out, after = _run_rule(rule, args, direction, kwargs)
    expected_out, expected_after = run_on_copies(f, args, kwargs)
    expected_out = _settle(expected_out)
    report.same("primal output", expected_out, out.primal)
    report.shaped("the output", out.primal, out.tangent)
    report.unshared("", out, after)
    for i, (want, got) in enumerate(zip(expected_after, after)):
        report.same(f"argument {i} after the call", _settle(copy.deepcopy(want)),
                    _settle(copy.deepcopy(got.primal)))

    cotangent = (random_tangent(expected_out, rng),
                 [random_tangent(a, rng) for a in expected_after])
    ad = inner(cotangent, (out.tangent, [d.tangent for d in after]))
    fd = directional(f, args, kwargs, direction, cotangent, default_step(args, h))
    rtol = default_rtol(args, rtol)
    report.close("<cotangent, tangent> against finite differences", fd, ad, rtol, atol)
    if batch:
        _check_batch(rule, f, args, kwargs, rng, batch, report)
    _check_cached(f, rule, report)


def _rule_of(f: Callable[..., Any]) -> Callable[..., Any]:
    if is_primitive(f):
        rule = dispatch.static_rule(f, "")
        assert rule is get_frule(f), \
            f"{describe(f)} is a primitive, but dispatch does not call its frule"
        return rule
    if python_function(f) is None:
        raise AssertionError(f"{describe(f)} has no registered frule and no Python "
                             f"source: there is no rule to test.")
    return dispatch.derived_rule(f)


def _run_rule(rule: Callable[..., Any], args: Sequence[Any], direction: Sequence[Any],
              kwargs: Dict[str, Any]) -> tuple[Any, ...]:
    duals = [Dual(copy.deepcopy(a), copy.deepcopy(t)) for a, t in zip(args, direction)]
    out = rule(*duals, **{k: const(v) for k, v in kwargs.items()})
    assert isinstance(out, Dual), f"the rule returned {a_type(out)}, not a Dual"
    if isinstance(out.primal, _ONE_PASS):
        items = list(iterate(out))
        out = Dual([d.primal for d in items], [d.tangent for d in items])
    return out, duals


# Iterators and dict views are compared (and differentiated) as the lists they give.
_ONE_PASS = (abc.Iterator, abc.KeysView, abc.ValuesView, abc.ItemsView)


def _settle(value: Any) -> Any:
    return list(value) if isinstance(value, _ONE_PASS) else value


def _check_batch(rule: Callable[..., Any], f: Callable[..., Any], args: Sequence[Any],
                 kwargs: Dict[str, Any], rng: np.random.Generator, batch: int,
                 report: "_Report") -> None:
    directions = [[random_tangent(a, rng) for a in args] for _ in range(batch)]
    stacked = [stack([d[i] for d in directions]) for i in range(len(args))]
    with batching.batch(batch):  # as batched_jvp and jacfwd run it
        out, after = _run_rule(rule, args, stacked, kwargs)
    report.unshared(f" (a batch of {batch})", out, after)
    for b, direction in enumerate(directions):
        single, single_after = _run_rule(rule, args, direction, kwargs)
        report.same(f"tangent {b} of a batch of {batch}", single.tangent,
                    _item(out.tangent, single.tangent, b), tangent=True)
        for i, (one, many) in enumerate(zip(single_after, after)):
            report.same(f"tangent {b} of argument {i} after a batched call",
                        one.tangent, _item(many.tangent, one.tangent, b), tangent=True)


def _item(batched: Any, like: Any, b: int) -> Any:
    """Tangent b of a batch, shaped like `like`. A leaf with no batch axis (a zero
    tangent made inside the rule, which is the same for every tangent) is itself."""
    if isinstance(like, (list, tuple)) and isinstance(batched, (list, tuple)):
        items = [_item(m, o, b) for m, o in zip(batched, like)]
        return type(like)(*items) if hasattr(type(like), "_fields") else type(like)(items)
    if isinstance(like, dict) and isinstance(batched, dict):
        return {k: _item(batched[k], like[k], b) for k in like}
    if isinstance(like, Tangent) and isinstance(batched, Tangent):
        return Tangent(**{k: _item(getattr(batched, k), v, b) for k, v in vars(like).items()})
    if batched is NoTangent or np.shape(batched) == np.shape(like):
        return batched
    return unstack(batched, b)


def _check_cached(f: Callable[..., Any], rule: Callable[..., Any], report: "_Report") -> None:
    if is_primitive(f):
        return
    again = dispatch.derived_rule(f)
    assert again is rule, f"the derived rule of {describe(f)} was built twice"
    assert python_function(f) in derived_rules


class _Report:
    """Builds the AssertionError messages: function, shapes, expected vs got."""

    def __init__(self, f: Callable[..., Any], args: tuple[Any, ...]) -> None:
        shapes = ", ".join(_shape(a) for a in args)
        self.header = f"test_rule({describe(f)}) at arguments ({shapes})"

    def same(self, what: str, want: Any, got: Any, tangent: bool = False) -> None:
        if not _tree_close(want, got, tangent):
            raise AssertionError(f"{self.header}: {what} differs.\n"
                                 f"  expected: {want!r:.400}\n  got:      {got!r:.400}")

    def shaped(self, what: str, primal: Any, tangent: Any) -> None:
        """Each float leaf's tangent has its primal's shape and dtype (NoTangent, a zero,
        aside)."""
        wrong = _misshapen(primal, tangent, what)
        if wrong:
            kind = "shape" if isinstance(wrong[1], tuple) else "dtype"
            raise AssertionError(f"{self.header}: the tangent of {wrong[0]} has {kind} "
                                 f"{wrong[2]}, but its value has {kind} {wrong[1]}")

    def unshared(self, run: str, out: Dual, after: list[Any]) -> None:
        """No output tangent is an argument's tangent unless its value is a view."""
        alias = first_alias(out.primal, out.tangent, [(d.primal, d.tangent) for d in after])
        if alias:
            raise AssertionError(
                f"{self.header}: the tangent of {alias[0]} shares memory with the tangent "
                f"of {alias[2]}{run}, but its value is not a view of that argument's: an "
                f"in-place update of the output would change the argument's tangent too. "
                f"Copy the tangent when the value is new.")

    def close(self, what: str, want: float, got: float, rtol: float, atol: float) -> None:
        if not np.isclose(got, want, rtol=rtol, atol=atol):
            rel = abs(got - want) / max(abs(want), 1e-300)
            raise AssertionError(
                f"{self.header}: {what} differs.\n  finite differences: {want!r}\n"
                f"  rule:               {got!r}\n  relative error:     {rel:.3g} "
                f"(rtol {rtol}, atol {atol})")


def _shape(a: Any) -> str:
    if isinstance(a, np.ndarray):
        return f"{a.dtype}{list(a.shape)}"
    if isinstance(a, (list, tuple)):
        return f"{type(a).__name__}[{len(a)}]"
    return type(a).__name__


def _tree_close(want: Any, got: Any, tangent: bool) -> bool:
    if (type(want).__module__ or "").startswith("numpy.random"):  # generators, states:
        return type(got) is type(want) and pickle.dumps(want) == pickle.dumps(got)
    if tangent and (want is NoTangent or got is NoTangent):
        return _all_zero(got) and _all_zero(want)
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(want) == len(got) and \
            all(_tree_close(w, g, tangent) for w, g in zip(want, got))
    if isinstance(want, dict):
        return isinstance(got, dict) and want.keys() == got.keys() and \
            all(_tree_close(want[k], got[k], tangent) for k in want)
    if probe(want, "__dict__") is not None and not isinstance(want, np.ndarray):
        return type(want) is type(got) and _tree_close(vars(want), vars(got), tangent)
    if isinstance(want, (float, complex, np.ndarray, np.generic, int)):
        try:
            return np.shape(want) == np.shape(got) and \
                bool(np.allclose(want, got, rtol=1e-10, atol=1e-12, equal_nan=True))
        except TypeError:
            return bool(np.all(want == got))
    return bool(want == got)


def _misshapen(primal: Any, tangent: Any, where: str) -> Optional[tuple[Any, ...]]:
    """(where, primal shape, tangent shape) of the first float leaf whose tangent has
    another shape, or (where, primal dtype, tangent dtype) for another dtype, or None."""
    if tangent is NoTangent:
        return None
    if isinstance(primal, (list, tuple)) and isinstance(tangent, (list, tuple)):
        for i, (p, t) in enumerate(zip(primal, tangent)):
            wrong = _misshapen(p, t, f"{where}[{i}]")
            if wrong:
                return wrong
        return None
    if isinstance(primal, dict) and isinstance(tangent, dict):
        return next((w for k in primal if k in tangent
                     for w in [_misshapen(primal[k], tangent[k], f"{where}[{k!r}]")] if w),
                    None)
    floating = isinstance(primal, (float, np.floating)) or (
        isinstance(primal, np.ndarray) and primal.dtype.kind in "fc")
    if floating and np.shape(primal) != np.shape(tangent):
        return where, np.shape(primal), np.shape(tangent)
    if floating and isinstance(tangent, (np.ndarray, np.generic)) and \
            np.asarray(primal).dtype != tangent.dtype:  # a float32 value, a float32 tangent
        return where, np.asarray(primal).dtype, tangent.dtype
    return None


def _all_zero(t: Any) -> bool:
    if t is NoTangent:
        return True
    if isinstance(t, (list, tuple)):
        return all(_all_zero(x) for x in t)
    if isinstance(t, dict):
        return all(_all_zero(x) for x in t.values())
    try:
        return bool(np.all(np.asarray(t) == 0))
    except TypeError:
        return False
