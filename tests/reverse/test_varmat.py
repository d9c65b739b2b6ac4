"""varmat and matvar agree (fwdad.testing.varmat.test_varmat_matvar) on every rrule
case, the in-place rows, the corpus and the GMM objective; the explicit conversions."""
import numpy as np
import pytest

import fwdad
from fwdad.reverse import to_matvar, to_varmat
from fwdad.testing.varmat import test_varmat_matvar
from tests.corpus import CORPUS
from tests.reverse.cases import CASES
from tests.reverse.examples import EXAMPLES
from tests.reverse.gmm import gmm_inputs, gmm_objective
from tests.reverse.inplace_cases import INPLACE


def _with_constants(case):
    return case.fn if not case.kwargs else (lambda *args: case.fn(*args, **case.kwargs))


@pytest.mark.parametrize("case", [c for c in CASES if c.varmat], ids=str)
def test_rrule_cases(case):
    test_varmat_matvar(_with_constants(case), *case.args)


@pytest.mark.parametrize("row", INPLACE, ids=lambda row: row[0].__name__)
def test_in_place_rows(row):
    test_varmat_matvar(row[0], *row[1])


@pytest.mark.parametrize("example", CORPUS, ids=str)
def test_corpus(example):
    test_varmat_matvar(example.fn, *example.args)


@pytest.mark.parametrize("row", EXAMPLES, ids=lambda row: row[0].__name__)
def test_examples(row):
    test_varmat_matvar(row[0], *row[1])


def test_gmm_objective_small():
    test_varmat_matvar(gmm_objective, *gmm_inputs(d=3, k=4, n=20), rtol=1e-10)


def _wrong_shapes(a, b):
    return a @ b


def test_errors_agree():
    test_varmat_matvar(_wrong_shapes, np.ones((2, 3)), np.ones((2, 3)))


def _round_trip(a):
    m = to_matvar(a * 2.0)
    v = to_varmat(m * m)
    return np.sum(v) + np.sum(m)


def test_explicit_conversions_keep_the_gradient():
    a = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(fwdad.grad(_round_trip)(a), 8.0 * a + 2.0)


@pytest.mark.parametrize("operate", [lambda v: v * 2.0, lambda v: 1.0 - v, lambda v: -v,
                                     lambda v: v < 3.0, lambda v: v @ v, abs],
                         ids=["mul", "rsub", "neg", "lt", "matmul", "abs"])
@pytest.mark.parametrize("variable", [fwdad.reverse.Var(1.5), fwdad.reverse.VarMat(np.ones(2))],
                         ids=["Var", "VarMat"])
def test_an_operator_outside_reverse_code_is_an_fwdad_error(operate, variable):
    """Library code that computes on a variable as it is (no rule, not traced) raises
    an fwdad error naming the operator, not Python's TypeError."""
    with pytest.raises(fwdad.FwdadError, match=r"reached `.*` in code that fwdad runs"):
        operate(variable)
