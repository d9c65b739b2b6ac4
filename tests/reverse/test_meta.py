"""Meta-tests over the rule tables: every rrule has a case, and every forward primitive
with a derivative has an rrule."""
import numpy as np

import fwdad
from fwdad.errors import describe
from fwdad.reverse import registry, to_matvar, to_varmat, value_of
from fwdad.reverse.registry import forward_primitives_without_rrule
from fwdad.rules import polynomials, scipy_support
from fwdad.transformed import Transformed
from tests.reverse.cases import CASES
from tests.reverse.cases_api import API_COVERS
from tests.reverse.cases_numpy import COVERS as NUMPY_COVERS
from tests.reverse.cases_scipy_optimize import COVERS as SCIPY_OPTIMIZE_COVERS
from tests.reverse.examples import ITERATION_COVERS
from tests.reverse.inplace_cases import COVERS
from tests.rules.infinite_iterators import COVERS as ITERATOR_COVERS

scipy_support.load()  # (SciPy's rules register on first use: the walks see them all)

# Exercised by their own tests: layout conversions (test_varmat.py), and the array
# creation functions, which make variables (test_inplace.py: fill_zeros), super
# (test_objects.py); fwdad's own transformations, whose rrules hand the outer derivative
# to forward mode (tests/test_higher_order_compose.py: every pair of modes).
ELSEWHERE = [super, to_matvar, to_varmat, value_of, np.ones, np.empty, np.zeros_like,
             np.ones_like, np.empty_like, np.eye, np.identity, Transformed.__call__,
             fwdad.jvp, fwdad.batched_jvp, fwdad.vjp, fwdad.hvp, fwdad.linearize,
             # (draws whose parameters are variables: tests/test_random_location_scale.py)
             np.random.Generator.normal, np.random.Generator.uniform,
             np.random.RandomState.normal, np.random.RandomState.uniform,
             # (polymul's refusal of moving leading zeros: tests/rules/test_polynomials.py)
             polynomials.fixed_zeros]


def _key(fn):
    return getattr(fn, "__func__", fn)


def test_every_rrule_has_a_case():
    covered = {_key(c.fn) for c in CASES} | {_key(f) for f in COVERS + ELSEWHERE
                                                + ITERATION_COVERS + NUMPY_COVERS
                                                + API_COVERS + SCIPY_OPTIMIZE_COVERS
                                                + ITERATOR_COVERS}
    missing = [describe(e.primal) for e in registry.entries()
               if e.kind != "nondiff" and _key(e.primal) not in covered]
    assert not missing, f"rrules without a case in tests/reverse/cases.py: {missing}"


def _machinery(fn) -> bool:
    """Rules for fwdad's own functions serve second-order forward mode only."""
    module = getattr(fn, "__module__", "") or ""
    return module.startswith("fwdad.") and module != "fwdad.lang"


def test_every_forward_primitive_has_an_rrule():
    missing = sorted(describe(fn) for fn in forward_primitives_without_rrule()
                     if not _machinery(fn))
    assert not missing, (f"{len(missing)} forward primitives have no reverse rule (reverse "
                         f"mode raises MissingRuleError on them): {', '.join(missing)}")
