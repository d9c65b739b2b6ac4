"""The derivative table (fwdad/rules/derivatives.py): each row's text becomes the right
code in each family, and every function of every row has a case in both modes."""
import ast
import math

import numpy as np
import pytest

from fwdad.errors import InternalError
from fwdad.reverse.registry import get_rrule
from fwdad.rules import derivatives
from fwdad.rules.derivative_code import (
    MATH,
    NUMPY_ON_FLOATS,
    UFUNC_RULE,
    chain_rule,
    expression,
    inline_template,
)
from fwdad.rules.registry import entry_of
from tests.reverse.cases import CASES as REVERSE_CASES
from tests.rules.cases import CASES, unwrap

ROWS = derivatives.UNARY + derivatives.BINARY


def _functions(row):
    return [fn for fn in (row.numpy, row.math) if fn is not None]


@pytest.mark.parametrize("text, family, code", [
    ("cos(x)", MATH, "math.cos(x)"),
    ("cos(x)", UFUNC_RULE, "np.cos(x)"),
    ("pi / 180.0", MATH, "math.pi / 180.0"),
    ("y * LN2", NUMPY_ON_FLOATS, "y * LN2"),
    # ufunc rules see NumPy values only: plain division everywhere
    ("divide(0.5, y)", UFUNC_RULE, "0.5 / y"),
    # Python floats: divide where the denominator may be one, `/` where it is NumPy's
    ("1.0 / x", NUMPY_ON_FLOATS, "divide(1.0, x)"),
    ("divide(0.5, y)", NUMPY_ON_FLOATS, "0.5 / y"),
    ("1.0 / sqrt(x)", NUMPY_ON_FLOATS, "1.0 / np.sqrt(x)"),
    # math: as written (math.log(0.0) raises before its derivative could divide by 0)
    ("1.0 / (1.0 + x)", MATH, "1.0 / (1.0 + x)"),
    ("divide(0.5, y)", MATH, "divide(0.5, y)"),
    ("sign(x)", MATH, "sign(x)"),
])
def test_expression_in_each_family(text, family, code):
    assert ast.unparse(expression(text, family, ("x",))) == code


def test_a_name_no_family_has_is_refused():
    with pytest.raises(InternalError, match="'erfcx'"):
        expression("erfcx(x)", MATH, ("x",))


def test_partials_of_zero_and_one_cost_nothing():
    tangent = chain_rule(("1", "-floor_divide(a, b)"), ("a", "b"), ("da", "db"), UFUNC_RULE)
    assert ast.unparse(tangent) == "da + -np.floor_divide(a, b) * db"
    tangent = chain_rule(("sign(a)", "0"), ("a", "b"), ("da", "db"), UFUNC_RULE)
    assert ast.unparse(tangent) == "np.sign(a) * da"


def test_inline_rows_give_templates_in_both_families():
    row = next(r for r in derivatives.UNARY if r.math is math.sqrt)
    assert ast.unparse(inline_template(row, math.sqrt).tangent) == "divide(0.5, out) * dx"
    assert ast.unparse(inline_template(row, np.sqrt).tangent) == "0.5 / out * dx"
    assert entry_of(np.sqrt).template is not None and entry_of(math.sqrt).template is not None


@pytest.mark.parametrize("row", ROWS, ids=lambda r: _functions(r)[0].__name__)
def test_every_row_has_rules_and_cases_in_both_modes(row):
    """Adding a row is adding one case per function in each mode's table: a row whose
    function has no case fails here (and in the registries' meta-tests)."""
    forward = {unwrap(case).fn for case in CASES}
    reverse = {case.fn for case in REVERSE_CASES}
    for fn in _functions(row):
        assert entry_of(fn) is not None and get_rrule(fn) is not None
        assert fn in forward, f"{fn} has no row in tests/rules/cases.py"
        assert fn in reverse, f"{fn} has no row in tests/reverse/cases.py"


def _twice_sin(x):
    return math.sin(x) * 2.0


def test_a_rule_registered_over_a_row_replaces_its_template_too():
    """The template is a field of the entry: a user's frule for math.sin is what the
    optimized rule runs (it once inlined fwdad's own template instead)."""
    import fwdad
    from fwdad.rules.registry import rules_restored
    with rules_restored():
        @fwdad.frule(math.sin)
        def _steep_sin(x: fwdad.Dual) -> fwdad.Dual:
            return fwdad.Dual(math.sin(x.primal), 10.0 * x.tangent)
        assert fwdad.jvp(_twice_sin, (0.3,), (1.0,))[1] == 20.0
    assert fwdad.jvp(_twice_sin, (0.3,), (1.0,))[1] == pytest.approx(2.0 * math.cos(0.3))
