"""<vjp(ct), t> == <ct, jvp(t)> for every rrule case, every corpus function and the
extra examples (finite differences stand in where forward mode has no rule)."""
import pytest

from tests.corpus import CORPUS
from tests.reverse.cases import CASES
from tests.reverse.examples import EXAMPLES
from tests.reverse.dot_product import check_dot_product


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
