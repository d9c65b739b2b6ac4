"""Rules for np.random: draws are constants (no tangent), and a float draw whose
parameter has a derivative is refused (an integer one is piecewise constant), but for
normal and uniform, which are differentiated (rules/random_params.py); shuffles and
permutations of a differentiable array move its tangent along with its values.

`rng.normal(...)` reaches its rule with the generator first (dispatch passes `self`);
`np.random.normal(...)` is a method of NumPy's global RandomState reached through the
module, and reaches it without. The rules accept both.
"""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.rules import random_params as params
from fwdad.rules.batching import fit, is_batched, lift
from fwdad.rules.plain_params import carries
from fwdad.rules.registry import def_nondiff, frule
from fwdad.rules.widening import overwrite
from fwdad.tangents import NoTangent

SOURCES = (np.random.Generator, np.random.RandomState)
NOT_DRAWS = {"bit_generator", "spawn", "shuffle", "permutation", "permuted"}


def moves_with_parameters(sample) -> bool:
    """Whether a sample moves continuously with the draw's parameters: a float one
    (normal's is loc + scale z); an integer one (poisson, binomial, integers, ...) is
    piecewise constant in them, with derivative 0 almost everywhere."""
    return np.asarray(sample).dtype.kind in "fc"


def draw_parameter_error(call: str, what: str) -> FwdadError:
    """A draw whose parameter has a derivative (both modes): the sample moves with it
    (normal's is loc + scale z), which fwdad does not differentiate here."""
    return FwdadError(
        f"np.random's {call}{in_user_code()}: its {what} has a derivative, and fwdad takes "
        f"random draws as constants, so the derivative of the sample with respect to it "
        f"would be lost. Draw standard values and transform them with the parameters "
        f"(loc + scale * rng.standard_normal(size), low + (high - low) * rng.random(size); "
        f"for choice of an array, a[rng.integers(0, len(a), size)]), which fwdad "
        f"differentiates exactly.")


def source_and_args(args: tuple):
    """(the generator, the remaining arguments) for a bound or a module-level call."""
    if args and isinstance(args[0], SOURCES):
        return args[0], args[1:]
    return np.random.mtrand._rand, args


def _draw(cls: type, name: str) -> None:
    def rule(*duals: Dual, **keywords: Dual) -> Dual:
        first = 1 if duals and isinstance(duals[0].primal, SOURCES) else 0
        moved = [f"argument {i + 1 - first}" for i, d in enumerate(duals)
                 if carries(d.tangent)] + \
            [f"{k}=" for k, d in keywords.items() if carries(d.tangent)]
        source, args = source_and_args(tuple(d.primal for d in duals))
        out = getattr(source, name)(*args, **{k: d.primal for k, d in keywords.items()})
        if moved and name in params.FAMILIES:
            return Dual(out, _location_scale_tangent(f"{cls.__name__}.{name}", out,
                                                     *params.bind(name, duals[first:],
                                                                  keywords)))
        if moved and moves_with_parameters(out):
            raise draw_parameter_error(f"{cls.__name__}.{name}", moved[0])
        return Dual(out, NoTangent)
    rule.__name__ = f"_{name}"
    frule(getattr(cls, name))(rule)


def _location_scale_tangent(call: str, out, a, b, size):
    """da * d out / da + db * d out / db, a and b Duals or the plain defaults."""
    name = call.split(".")[-1]
    a, b = (v if isinstance(v, Dual) else Dual(v, NoTangent) for v in (a, b))
    if params.degenerate(name, a.primal, b.primal) and (
            carries(b.tangent) or name == "uniform" and carries(a.tangent)):
        raise params.degenerate_error(call)
    by_a, by_b = params.partials(name, params.unit_draw(name, out, a.primal, b.primal))
    tangent = 0.0
    for d, partial in ((a, by_a), (b, by_b)):
        if carries(d.tangent):
            tangent = tangent + lift(d.primal, d.tangent, np.ndim(out)) * partial
    return fit(tangent, out)


for _cls in SOURCES:
    for _name in dir(_cls):
        if not _name.startswith("_") and _name not in NOT_DRAWS and \
                callable(getattr(_cls, _name)):
            _draw(_cls, _name)

# generators and their bit generators: constants
def_nondiff(np.random.default_rng, np.random.seed, np.random.Generator, np.random.RandomState,
            np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox,
            np.random.SFC64, np.random.SeedSequence)


# ---- shuffles: the same permutation of values and tangents ---------------------------------
def _shuffle_together(source, x: Dual, axis: int, in_place: bool) -> Dual:
    """Shuffle x along `axis` (0 for RandomState); its tangent (moved to a last axis,
    after the values) rides along in the same rows, so it moves exactly as they do."""
    moved = np.moveaxis(x.primal, axis, 0)
    dx = x.tangent
    if dx is NoTangent:
        shuffled = getattr(source, "shuffle" if in_place else "permutation")(
            x.primal, *(() if isinstance(source, np.random.RandomState) else (axis,)))
        return Dual(None if in_place else shuffled, NoTangent)
    dx = np.moveaxis(dx, 0, -1) if is_batched(x.primal, dx) else dx[..., None]
    both = np.concatenate([moved[..., None], np.moveaxis(dx, axis, 0)], axis=-1)
    source.shuffle(both)
    values = np.moveaxis(both[..., 0], 0, axis)
    tangent = np.moveaxis(both[..., 1:], 0, axis)
    tangent = np.moveaxis(tangent, -1, 0) if is_batched(x.primal, x.tangent) else tangent[..., 0]
    if not in_place:
        return Dual(values, tangent)
    x.primal[...] = values
    overwrite(x, tangent, "shuffle(x)")
    return Dual(None, NoTangent)


def _shuffle_rule(cls: type, in_place: bool):
    def rule(*args: Dual, axis=0) -> Dual:
        source, rest = (args[0].primal, args[1:]) if isinstance(args[0].primal, SOURCES) \
            else (np.random.mtrand._rand, args)
        x = rest[0]
        if not isinstance(x.primal, np.ndarray):  # permutation(n): a constant
            return Dual(source.permutation(x.primal), NoTangent)
        return _shuffle_together(source, x, axis, in_place)
    rule.__name__ = "_shuffle" if in_place else "_permutation"
    return rule


for _cls in SOURCES:
    frule(_cls.shuffle)(_shuffle_rule(_cls, True))
    frule(_cls.permutation)(_shuffle_rule(_cls, False))
