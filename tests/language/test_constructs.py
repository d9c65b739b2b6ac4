"""Every construct of the catalogue: jvp against finite differences, vjp against jvp
(the dot-product test), or its error in each mode."""
import copy
import pathlib

import numpy as np
import pytest

import fwdad
from fwdad.tangents import NoTangent, Tangent, inner, random_tangent
from tests.language.constructs import CONSTRUCTS, catalogue
from tests.util import assert_close, fd_jvp

SUPPORTED = [c for c in CONSTRUCTS if c.error is None]
REFUSED = [c for c in CONSTRUCTS if c.error is not None]
REVERSE = [c for c in CONSTRUCTS if c.refused_in_reverse is None]
REFUSED_IN_REVERSE = [c for c in CONSTRUCTS if c.refused_in_reverse is not None]


def plain(value):
    """Objects as dicts of their fields, so outputs compare as trees."""
    if isinstance(value, Tangent) or hasattr(value, "__dict__") and \
            not isinstance(value, np.ndarray):
        return {k: plain(v) for k, v in vars(value).items() if not isinstance(v, list)}
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return value


def tangents_for(construct):
    if construct.tangents is not None:
        return construct.tangents
    rng = np.random.default_rng(3)
    return tuple(None if t is NoTangent else t
                 for t in (random_tangent(a, rng) for a in construct.args))


@pytest.mark.parametrize("construct", SUPPORTED, ids=str)
def test_supported_construct_matches_finite_differences(construct):
    tangents = tangents_for(construct)
    out, tangent = fwdad.jvp(construct.fn, copy.deepcopy(construct.args), tangents)
    want = construct.fn(*copy.deepcopy(construct.args))
    assert_close(plain(out), plain(want), rtol=1e-12)
    given = [NoTangent if t is None else t for t in tangents]
    reference = fd_jvp(lambda *a: plain(construct.fn(*a)), construct.args, given)
    assert_close(plain(tangent), reference, rtol=1e-6)


@pytest.mark.parametrize("construct", REFUSED, ids=str)
def test_refused_construct_gives_a_clear_error(construct):
    tangents = construct.tangents or tuple(1.0 for _ in construct.args)
    with pytest.raises(construct.error, match=construct.match):
        fwdad.jvp(construct.fn, construct.args, tangents)


@pytest.mark.parametrize("construct", REVERSE, ids=str)
def test_supported_construct_in_reverse_mode_passes_the_dot_product_test(construct):
    """<vjp(ct), t> == <ct, jvp(t)> for a random cotangent ct and direction t."""
    rng = np.random.default_rng(5)
    out, pullback = fwdad.vjp(construct.fn, *copy.deepcopy(construct.args))
    want = construct.fn(*copy.deepcopy(construct.args))
    assert_close(plain(out), plain(want), rtol=1e-12)
    ct = random_tangent(out, rng)
    cts = pullback(ct)
    direction = tangents_for(construct)
    _, tangent = fwdad.jvp(construct.fn, copy.deepcopy(construct.args), direction)
    left = inner(list(cts), [NoTangent if t is None else t for t in direction])
    right = inner(ct, tangent)
    assert np.isclose(left, right, rtol=1e-9, atol=1e-10), \
        f"<vjp(ct), t> = {left!r} but <ct, jvp(t)> = {right!r}"


@pytest.mark.parametrize("construct", REFUSED_IN_REVERSE, ids=str)
def test_refused_construct_in_reverse_mode_gives_a_clear_error(construct):
    with pytest.raises(construct.refused_in_reverse, match=construct.reverse_pattern):
        fwdad.grad(construct.fn)(*copy.deepcopy(construct.args))


def test_the_catalogue_in_docs_is_up_to_date():
    page = pathlib.Path(__file__).parents[2] / "docs" / "python.md"
    assert page.read_text() == catalogue(), \
        "docs/python.md is stale: run python -m tests.language.constructs > docs/python.md"


@pytest.mark.parametrize("construct", [c for c in REFUSED if "set" in c.name and
                                       c.error is fwdad.NonDifferentiableError], ids=str)
def test_sets_of_differentiable_values_are_refused_in_reverse_mode_too(construct):
    with pytest.raises(fwdad.NonDifferentiableError, match=r"at .*unsupported\.py:\d+ holds"):
        fwdad.vjp(construct.fn, *construct.args)
