"""The tape (order, zeroing, nested regions, memory), the API on containers, the
generated reverse code, and the errors reverse mode raises."""
import math
import re

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError, MissingRuleError
from fwdad.reverse import Var, VarMat, nested, tape, to_matvar
from fwdad.reverse.dispatch import derived_rrule, derived_rrules


def test_callbacks_run_last_first_and_zeroing_touches_both_stacks():
    order, var, out = [], Var(1.0, 2.0), VarMat(np.ones(2), np.ones(2))
    with nested() as region:
        region.keep(var)
        region.push(lambda: order.append("first"), out)
        region.push(lambda: order.append("second"))
    region.backward()
    assert order == ["second", "first"]
    region.zero_adjoints()
    assert var.adjoint == 0.0 and not out.adjoint.any()


def _cube(y):
    return y * y * y


def _uses_an_inner_gradient(x):
    slope = fwdad.grad(_cube)(2.0)  # a nested region, at a constant point
    return x * slope


def test_gradient_inside_a_gradient():
    assert fwdad.grad(_uses_an_inner_gradient)(1.5) == pytest.approx(12.0)
    assert len(tape.regions()) == 1


def _inner_gradient_at_a_variable(x):
    return fwdad.grad(_cube)(x)


def test_grad_of_a_gradient_at_a_variable_is_taken_in_forward_mode():
    """The inner region never sees the outer variable (docs/higher_order.md): d/dx 3x^2."""
    assert fwdad.grad(_inner_gradient_at_a_variable)(1.5) == pytest.approx(6 * 1.5)


def test_grad_releases_its_region_and_vjp_keeps_it_until_release():
    _, pullback = fwdad.vjp(_cube, 1.5)
    assert pullback.region.chain
    assert pullback(1.0) == (pytest.approx(3 * 1.5 ** 2),)
    pullback.release()
    assert not pullback.region.chain
    with pytest.raises(FwdadError, match="released"):
        pullback(1.0)


def _containers(p):
    return p["w"] * p["pair"][0] + np.sum(p["pair"][1] ** 2) + p["n"]


def test_vjp_over_nested_containers():
    point = {"w": 2.0, "pair": (0.5, np.array([1.0, -2.0])), "n": 3}
    out, pullback = fwdad.vjp(_containers, point)
    (ct,) = pullback(1.0)
    assert out == pytest.approx(2.0 * 0.5 + 5.0 + 3)
    assert ct["w"] == pytest.approx(0.5) and ct["pair"][0] == pytest.approx(2.0)
    np.testing.assert_allclose(ct["pair"][1], [2.0, -4.0])
    assert ct["n"] is fwdad.NoTangent


def _two(x, y):
    return x * math.sin(y)


def test_grad_and_value_and_grad_with_argnums():
    value, (dx, dy) = fwdad.value_and_grad(_two, argnums=(0, 1))(0.5, 0.3)
    assert value == pytest.approx(0.5 * math.sin(0.3))
    assert (dx, dy) == (pytest.approx(math.sin(0.3)), pytest.approx(0.5 * math.cos(0.3)))
    assert fwdad.grad(_two, argnums=1)(0.5, 0.3) == pytest.approx(dy)


def test_grad_needs_a_float_output():
    with pytest.raises(FwdadError, match="float output"):
        fwdad.grad(lambda x: x * np.ones(2))(1.0)


def test_reverse_code_is_readable_and_derived_once():
    rule = derived_rrule(_two)
    assert "reverse rule of _two" in rule.source
    assert "_fw_mul1 = _fw_mul(x, _fw_sin1)" in rule.source
    before = derived_rrules.counters.hits
    fwdad.grad(_two)(0.5, 0.3)
    assert derived_rrule(_two) is rule and derived_rrules.counters.hits > before


def _mixed_layouts(a):
    return to_matvar(a) + a


def test_mixing_layouts_is_an_error():
    with pytest.raises(FwdadError, match="convert one explicitly"):
        fwdad.vjp(_mixed_layouts, np.ones(3))


def test_a_variable_never_becomes_a_plain_number_silently():
    with pytest.raises(FwdadError, match="drop its derivative"):
        float(Var(1.0))
    with pytest.raises(FwdadError, match="drop its derivative"):
        np.asarray(VarMat(np.ones(2)))


def _calls_histogram(x):  # (np.histogram: no rule, and NumPy's code fwdad does not read)
    return np.histogram(np.array([1.0, x, 0.25]), bins=2)[1][0] * x


def test_missing_rule_names_the_callee_the_line_and_the_fix():
    with pytest.raises(MissingRuleError) as info:
        fwdad.grad(_calls_histogram)(1.5)
    message = str(info.value)
    assert "histogram" in message, message
    assert re.search(r" in _calls_histogram at \S*test_tape\.py:\d+: ", message), message
    assert "fwdad.reverse.rrule" in message


def _edge_of_constants(x):  # the edges of 2 bins over [-4, 0]: -4, -2, 0
    return np.histogram(np.array([-4.0, -3.0, 0.0]), bins=2)[1][0] * x


def test_a_call_without_a_rule_runs_on_constants():
    assert fwdad.grad(_edge_of_constants)(0.7) == pytest.approx(-4.0)


def _scales_a_constant(x, table):
    table[0] = 5.0  # table is a constant here (not in argnums): a plain write
    return x * table[0] + np.sum(table)


def test_grad_leaves_constant_arguments_as_a_plain_call_leaves_them():
    table, plain = np.array([1.0, 2.0]), np.array([1.0, 2.0])
    _scales_a_constant(0.5, plain)
    assert fwdad.grad(_scales_a_constant)(0.5, table) == pytest.approx(5.0)
    np.testing.assert_array_equal(table, plain)


def _helper(v):
    return v * 2.0


def _three_kinds(x, fn):
    return fn(_helper(math.exp(x)))


def test_the_three_kinds_of_call_in_reverse_code():
    source = derived_rrule(_three_kinds).source
    assert "_fw_exp1 = _fw_exp(x)" in source  # primitive: the rrule, bound
    assert "_fw_helper(_fw_exp1)" in source  # static call: a derived rule
    assert "_fw_call(fn, _fw_helper1)" in source  # dynamic call: the runtime cache
    assert fwdad.grad(_three_kinds)(0.3, math.sin) == pytest.approx(
        math.cos(2 * math.exp(0.3)) * 2 * math.exp(0.3))


def test_complex_arguments_get_complex_adjoints():
    """A holomorphic function's pullback of 1 is its derivative (docs/complex.md)."""
    z = 1.0 + 2.0j
    value, pullback = fwdad.vjp(_cube, z)
    (ct,) = pullback(1.0 + 0.0j)
    assert value == _cube(z) and isinstance(ct, complex)
    assert np.isclose(ct, 3 * z * z)


def _slogdet_of(x):
    sign, logabsdet = np.linalg.slogdet(np.diag(np.exp(x)) + 0.1 * np.outer(x, x))
    return logabsdet * np.cos(x)


def _eigh_of(x):
    w, _ = np.linalg.eigh(np.diag(np.exp(x)) + 0.1 * np.outer(x, x))
    return w


def _svd_of(x):
    return np.linalg.svd(np.diag(np.exp(x)) + 0.1 * np.outer(x, x))[1]


def _qr_of(x):
    return np.linalg.qr(np.outer(x, x) + np.eye(3)).R[0]


@pytest.mark.parametrize("f", [_slogdet_of, _eigh_of, _svd_of, _qr_of],
                         ids=lambda f: f.__name__)
def test_a_pullback_through_a_named_tuple_runs_again(f):
    """np.linalg's results are named tuples: zeroing the tape must reach their
    variables, or each call of a pullback adds the cotangents of the calls before it
    (jacrev calls it once a row)."""
    x = np.array([0.1, 0.4, -0.3])
    _, pullback = fwdad.vjp(f, x)
    ct = np.array([1.0, -0.5, 2.0])
    first, second = pullback(ct)[0], pullback(ct)[0]
    np.testing.assert_allclose(second, first, rtol=1e-12)
    np.testing.assert_allclose(fwdad.jacrev(f)(x), fwdad.jacfwd(f)(x), rtol=1e-9, atol=1e-12)
