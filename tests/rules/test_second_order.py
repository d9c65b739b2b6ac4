"""Second derivatives of every rule family: each row's Hessian (fwdad.hessian and
fwdad.hvp, forward over forward, which differentiates the rule's own code again) against
central differences of the gradient from fwdad.jacfwd (tests/rules/second_order.py);
a meta-test that every registered rule has a row or a reason; random shapes for the
elementwise and reduction families."""
import functools
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fwdad
from fwdad.errors import describe
from fwdad.rules import registry, scipy_support
from fwdad.testing.strategies import REAL, array_shapes, values_in
from tests.rules.second_order import check_second_order
from tests.rules.second_order_cases import NO_SECOND_ORDER_ROW, ROWS
from tests.rules.test_registry_coverage import _fwdads_own

scipy_support.load()  # (SciPy's rules register on first use: the walk sees them all)


def _id(row) -> str:
    covers, fn, args, _ = row
    return describe(fn) if covers is fn else f"{describe(covers)} by {describe(fn)}"


@pytest.mark.parametrize("row", ROWS, ids=[_id(r) for r in ROWS])
def test_hessian_of_rule_matches_differences_of_its_gradient(row):
    _, fn, args, kwargs = row
    check_second_order(fn, args, kwargs)


def _has_no_derivative(entry: registry.RuleEntry) -> bool:
    """def_nondiff and frule(nondiff=True): the Hessian is zero by declaration."""
    return entry.kind == "nondiff"


def test_every_registered_rule_has_a_second_order_row_or_a_reason():
    covered = {covers for covers, *_ in ROWS}
    missing = [describe(entry.primal) for entry in registry.entries()
               if _fwdads_own(entry) and not _has_no_derivative(entry)
               and entry.primal not in covered and entry.primal not in NO_SECOND_ORDER_ROW]
    assert not missing, (f"registered rules with no row in tests/rules/"
                         f"second_order_cases.py and no reason: {missing}")


def test_reasons_are_not_kept_for_rules_that_have_rows():
    covered = {covers for covers, *_ in ROWS}
    stale = [describe(fn) for fn in NO_SECOND_ORDER_ROW if fn in covered]
    assert not stale, f"rules with a row and a reason for having none: {stale}"


# ---- random shapes ------------------------------------------------------------------
RANDOM = settings(max_examples=4, deadline=None, database=None)
ELEMENTWISE = [np.sin, np.exp, np.tanh, np.arctan, np.square, np.abs, np.cbrt]
REDUCTIONS = [np.sum, np.prod, np.var, np.max, np.linalg.norm]


@RANDOM
@given(data=st.data(), fn=st.sampled_from(ELEMENTWISE + REDUCTIONS))
def test_second_order_at_random_shapes(data, fn):
    shape = data.draw(array_shapes(1, 2, 1), label="shape")
    x = data.draw(values_in(REAL, shape), label="x")
    # away from kinks (abs at 0, ties of max) and where cbrt is smooth
    x = np.where(np.abs(x) < 0.2, 0.2, x) + np.arange(x.size).reshape(shape) * 0.01
    check_second_order(fn, (x,), {})


# ---- refused ------------------------------------------------------------------------
def _calls_a_methodcaller(x):
    return np.sum(operator.methodcaller("dot", x * x)(x))


def _calls_a_partial(x):
    return np.sum(functools.partial(np.dot, x * x)(x))


def test_calling_a_callable_object_of_the_library_is_refused_at_second_order():
    x = np.array([0.3, -1.2])
    f = _calls_a_methodcaller
    np.testing.assert_allclose(fwdad.jacfwd(f)(x), 3 * x * x, rtol=1e-12)  # first order
    with pytest.raises(fwdad.FwdadError, match="object .* are not supported yet"):
        fwdad.hessian(f)(x)


def test_calling_a_partial_at_second_order():
    """sum(x * x * x): a partial has a level-2 rule (tests/test_higher_order_callables.py)."""
    x = np.array([0.3, -1.2])
    np.testing.assert_allclose(fwdad.hessian(_calls_a_partial)(x), np.diag(6 * x),
                               rtol=1e-12)


class _Callable:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return np.sum(self.k * x ** 3)


def test_hessian_of_an_instance_with_a_python_call():
    x = np.array([0.3, -1.2])
    np.testing.assert_allclose(fwdad.hessian(_Callable(2.0))(x), np.diag(12.0 * x),
                               rtol=1e-12)
