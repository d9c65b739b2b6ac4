"""rules/fresh_results.py lists NumPy functions whose rules are pure by default: each
must write into none of its arguments and return arrays that share no memory with
them, on every row of the rule tables that calls it (and each has such a row); and its
rule, run on Duals, must leave their primals and tangents as they were."""
import copy

import numpy as np
import pytest

from fwdad import api
from fwdad.dual import Dual
from fwdad.rules.fresh_results import FRESH_RESULTS
from fwdad.rules.registry import entry_of
from fwdad.tangents import random_tangent
from tests.rules.case import unwrap
from tests.rules.cases import CASES

ROWS = [case for case in map(unwrap, CASES) if case.fn in FRESH_RESULTS]


def _arrays(value):
    """The arrays in a value (a result may be a tuple or a named tuple of them)."""
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (tuple, list)):
        return [a for item in value for a in _arrays(item)]
    return []


def test_every_listed_function_has_a_row_and_a_pure_rule():
    covered = {case.fn for case in ROWS}
    missing = [fn.__name__ for fn in FRESH_RESULTS if fn not in covered]
    assert not missing, f"no row in the rule tables calls {missing}"
    assert all(entry_of(fn) is not None and entry_of(fn).pure for fn in FRESH_RESULTS)


@pytest.mark.parametrize("case", ROWS, ids=lambda c: c.fn.__name__)
def test_writes_into_no_argument_and_returns_new_arrays(case):
    args, kwargs = copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
    if "out" in kwargs or len(args) > 3 and case.fn is np.clip:
        pytest.skip("out given: the call's own mutation (rules/purity.call_is_pure)")
    result = case.fn(*args, **kwargs)
    for given, before in zip(args + tuple(kwargs.values()),
                             case.args + tuple(case.kwargs.values())):
        np.testing.assert_equal(given, before)
        for arg in _arrays(given):
            for made in _arrays(result):
                assert not np.shares_memory(made, arg), case.fn.__name__


@pytest.mark.parametrize("case", ROWS, ids=lambda c: c.fn.__name__)
def test_the_rule_leaves_its_duals_as_they_were(case):
    if "out" in case.kwargs or len(case.args) > 3 and case.fn is np.clip:
        pytest.skip("out given: the call's own mutation (rules/purity.call_is_pure)")
    rng = np.random.default_rng(5)
    given = [(a, random_tangent(a, rng)) for a in case.args]
    duals = [Dual(copy.deepcopy(a), copy.deepcopy(t)) for a, t in given]
    keywords = {k: Dual(copy.deepcopy(v), random_tangent(v, rng))
                for k, v in case.kwargs.items()}
    api.call(case.fn, duals, keywords)
    for dual, (primal, tangent) in zip(duals, given):
        np.testing.assert_equal(dual.primal, primal)
        np.testing.assert_equal(dual.tangent, tangent)
