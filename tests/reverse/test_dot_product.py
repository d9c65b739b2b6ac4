"""<vjp(ct), t> == <ct, jvp(t)> for every rrule case, every corpus function and the
extra examples (finite differences stand in where forward mode has no rule)."""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.corpus import CORPUS
from tests.reverse.cases import CASES
from tests.reverse.dot_product import check_dot_product
from tests.reverse.examples import EXAMPLES


def _with_constants(case):
    if not case.kwargs:
        return case.fn
    return lambda *args: case.fn(*args, **case.kwargs)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_rrule_dot_product(case):
    check_dot_product(_with_constants(case), case.args, forward=case.forward,
                      rtol=case.rtol)


@pytest.mark.parametrize("example", CORPUS, ids=str)
def test_corpus_dot_product(example):
    check_dot_product(example.fn, example.args)


@pytest.mark.parametrize("row", EXAMPLES, ids=lambda row: row[0].__name__)
def test_example_dot_product(row):
    fn, args, forward = row
    check_dot_product(fn, args, forward=forward)


# ---- einsum: random subscripts and shapes, ellipses that broadcast ---------------------
_SIZES = {"a": 2, "b": 3, "c": 1, "d": 4}


@st.composite
def einsum_calls(draw):
    """(subscripts, operands): 1-3 operands whose subscripts use a, b, c, d (repeats
    make diagonals), and maybe an ellipsis at any place; a labelled axis or an axis
    under ... may be 1 where the others are longer (einsum broadcasts it)."""
    ellipsis = draw(st.lists(st.integers(1, 3), max_size=3))
    specs, shapes = [], []
    for _ in range(draw(st.integers(1, 3))):
        letters = draw(st.lists(st.sampled_from("abcd"), max_size=3))
        ones = draw(st.sets(st.sampled_from("abcd")))
        sizes = [1 if c in ones else _SIZES[c] for c in letters]
        if draw(st.booleans()):
            at = draw(st.integers(0, len(letters)))
            rank = draw(st.integers(0, len(ellipsis)))
            under = [n if draw(st.booleans()) else 1 for n in ellipsis[len(ellipsis) - rank:]]
            letters = letters[:at] + ["..."] + letters[at:]
            sizes = sizes[:at] + under + sizes[at:]
        specs.append("".join(letters))
        shapes.append(tuple(sizes))
    subscripts = ",".join(specs)
    if draw(st.booleans()):  # explicit output: some of the letters, in any order
        used = sorted(set("".join(specs).replace(".", "")))
        kept = draw(st.permutations(used).flatmap(
            lambda p: st.integers(0, len(p)).map(lambda n: p[:n])))
        dots = "..." if "..." in subscripts else ""
        at = draw(st.integers(0, len(kept)))
        subscripts += "->" + "".join(kept[:at]) + dots + "".join(kept[at:])
    rng = np.random.default_rng(len(subscripts))
    return subscripts, [rng.standard_normal(s) for s in shapes]


@given(einsum_calls())
@settings(max_examples=300)
def test_einsum_dot_product_on_random_subscripts(call):
    subscripts, operands = call
    try:
        np.einsum(subscripts, *operands)
    except ValueError:  # e.g. a diagonal of unequal axes: not einsum's domain
        assume(False)
    check_dot_product(lambda *ops: np.einsum(subscripts, *ops), operands)


# the reported subscripts, at shapes where ... is empty, broadcasts, or has size-1 axes
@pytest.mark.parametrize("subscripts, shapes", [
    ("j...k,lj...->lk...", ((3, 2), (4, 3))), ("j...k,lj...->lk...", ((3, 1, 2), (4, 3, 5))),
    ("j...k,lj...->lk...", ((3, 5, 2), (4, 3, 1))),
    ("j...k,lj...->lk...", ((3, 2, 2), (4, 3, 1, 2))),
    ("jk...,lj...->lk...", ((3, 2), (2, 3, 4))), ("jk...,lj...->lk...", ((3, 2, 1), (2, 3, 4))),
    ("...ii->...i", ((2, 1, 3, 3),)), ("i...,i...->...", ((3, 1), (3, 2, 4)))], ids=str)
def test_einsum_reported_subscripts(subscripts, shapes):
    rng = np.random.default_rng(1)
    operands = [rng.standard_normal(s) for s in shapes]
    check_dot_product(lambda *ops: np.einsum(subscripts, *ops), operands)
