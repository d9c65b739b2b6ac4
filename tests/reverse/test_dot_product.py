"""<vjp(ct), t> == <ct, jvp(t)> for every rrule case and every corpus function."""
import pytest

from tests.corpus import CORPUS
from tests.reverse.cases import CASES
from tests.reverse.dot_product import check_dot_product


def _with_constants(case):
    if not case.kwargs:
        return case.fn
    return lambda *args: case.fn(*args, **case.kwargs)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_rrule_dot_product(case):
    check_dot_product(_with_constants(case), case.args, forward=case.forward)


@pytest.mark.parametrize("example", CORPUS, ids=str)
def test_corpus_dot_product(example):
    check_dot_product(example.fn, example.args)
