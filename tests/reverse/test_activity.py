"""Reverse rules specialized on which arguments hold variables (fwdad/reverse/kinds.py,
activity.py, specialize.py): lines that only see constants and data arguments run as
plain NumPy, and the gradients stay exact. Each function is checked against forward
mode (the dot product <grad, t> == jvp along t, the data given no tangent) and finite
differences, with its data passed as an argument left out of argnums."""
import ast

import numpy as np
import pytest

import fwdad
from fwdad import frontend
from fwdad.reverse import activity
from fwdad.reverse.dispatch import derived_rrule
from fwdad.reverse.kinds import OTHER, PLAIN, VARIABLE, signature
from fwdad.reverse.specialize import SpecializedRule, rule_for, specialized_rrules
from fwdad.reverse.var import Var, VarMat
from tests.util import assert_close

DATA = np.array([0.5, -1.2, 2.0, 0.8])
STORE = []  # a global list the functions below may write into


# ---- each function: w a float array variable, data a constant array argument ---------
def least_squares(w, data):
    t = np.arange(data.shape[0]) / data.shape[0]
    muls = np.cumprod(np.repeat(t[:, None] + 1.0, w.shape[0], axis=1), axis=1)
    return 0.5 * np.sum((np.sign(np.sin(6.0 * t)) + data - muls @ w) ** 2)


def built_from_linspace(w, data):
    grid = np.linspace(0.0, 1.0, len(data)) * data
    return np.sum(np.tanh(grid * w[0]) + np.exp(grid) * w[1])


def written_into_zeros(w, data):
    z = np.zeros(len(data))     # a variable is written into it: made by its rule
    scale = np.ones(2) * 3.0    # constants only
    z[1] = w[0] * data[1]
    z[2:] = data[2:] * scale * w[1]
    return np.sum(z * data)


def written_into_a_product_of_ones(w, data):
    z = 0.5 * np.ones(len(data))  # a variable, as np.ones makes one: x is written in
    z[1] = w[0] * data[1]
    z += w[1]
    return np.sum(z * z)


def written_through_a_view(w, data):
    s = np.array(data * 2.0)    # made here (a product of constants is a constant)
    v = s[1:3]                  # a view of s: the write below makes s a variable too
    v[0] = w[0] * 3.0
    return np.sum(s * s) + w[1] * np.sum(v)


def constant_written_after_it_was_read(w, data):
    c = data + 1.0
    y = w * c[:2]               # the rule keeps c for the way back...
    c[0] = 5.0                  # ...so this write is undone there (its rule stays)
    return np.sum(y * y) + np.sum(c) * w[0]


def appended_by_a_closure(w, data):
    acc = []

    def push(v):
        acc.append(v)
    push(w[0] * data[0])
    for item in data[1:]:
        push(item)
    return sum(acc) * w[1]


def through_a_list(w, data):
    parts = [data[0], data[1]]
    holder = [parts]
    holder[0].append(w[0])      # parts now holds a variable
    return np.sum(np.array(parts) * w[1])


def through_a_helper(w, data):
    return _helper(w, data, data.shape[0]) + _helper(data[:2], w, 2)


def _helper(a, b, n):
    total = np.sum(a * b[:2]) / n
    return total * total


def through_a_global(w, data):
    STORE.clear()
    STORE.append(w[0] * data[0])
    return _from_the_store(data) * w[1]


def _from_the_store(data):
    return STORE[0] * np.sum(data)


def loop_with_constants(w, data):
    out, scale = 0.0, 1.0
    for i in range(len(data)):
        scale = scale * 0.5 + i
        out = out + np.sin(w[i % 2] * scale) * data[i]
    return out


ROWS = [least_squares, built_from_linspace, written_into_zeros,
        written_into_a_product_of_ones, written_through_a_view,
        constant_written_after_it_was_read, appended_by_a_closure, through_a_list,
        through_a_helper, loop_with_constants]
W = np.array([0.3, -0.7])


@pytest.mark.parametrize("fn", ROWS, ids=lambda f: f.__name__)
def test_gradient_with_a_data_argument_matches_forward_mode(fn):
    data = DATA.copy()
    value, gradient = fwdad.value_and_grad(fn)(W.copy(), data)
    assert value == pytest.approx(fn(W.copy(), DATA.copy()), rel=1e-12)
    assert_close(data, DATA, rtol=0, atol=0)  # the data are left as they were
    t = np.random.default_rng(0).standard_normal(W.shape)
    _, along = fwdad.jvp(fn, (W.copy(), DATA.copy()), (t, None))
    assert np.sum(gradient * t) == pytest.approx(along, rel=1e-10, abs=1e-12)
    assert_close(gradient, _finite_gradient(fn), rtol=1e-6)


def test_a_variable_kept_in_a_global_list():
    """Checked against finite differences alone: forward mode refuses a derivative
    written into a global list (tests/forward/test_global_containers.py)."""
    gradient = fwdad.grad(through_a_global)(W.copy(), DATA.copy())
    assert_close(gradient, _finite_gradient(through_a_global), rtol=1e-6)


def _finite_gradient(fn, step=1e-6):
    return np.array([(fn(W + step * e, DATA.copy()) - fn(W - step * e, DATA.copy()))
                     / (2 * step) for e in np.eye(len(W))])


@pytest.mark.parametrize("fn", ROWS, ids=lambda f: f.__name__)
def test_gradient_with_respect_to_the_data_too(fn):
    """Both arguments variables: the general case of the same code."""
    gradients = fwdad.grad(fn, argnums=(0, 1))(W.copy(), DATA.copy())
    t = [np.random.default_rng(1).standard_normal(a.shape) for a in (W, DATA)]
    _, along = fwdad.jvp(fn, (W.copy(), DATA.copy()), tuple(t))
    assert sum(np.sum(g * d) for g, d in zip(gradients, t)) == pytest.approx(
        along, rel=1e-10, abs=1e-12)


# ---- what the rule runs -------------------------------------------------------------
def test_constant_lines_run_the_plain_primal_and_variable_lines_their_rules():
    fwdad.grad(least_squares)(W.copy(), DATA.copy())
    rule = rule_for(SpecializedRule(least_squares), (VarMat(W.copy()), DATA), {})
    source = rule.source
    assert "for w variable, data plain" in source
    assert "_fw_arange1 = _fw_plain_arange(" in source
    assert "muls = _fw_plain_cumprod(_fw_repeat1, axis=1)" in source
    assert "_fw_shape3 = _fw_getattr(w, 'shape')" in source  # (w a variable: its rule)
    assert "_fw_matmul1 = _fw_matmul(muls, w)" in source


def test_the_general_rule_runs_only_what_constants_alone_compute_plainly():
    source = derived_rrule(least_squares).source
    assert "_fw_plain_cumprod" not in source and "_fw_plain_arange" not in source
    assert "_fw_slice1 = _fw_plain_build_slice(None, None, None)" in source


def test_rules_are_cached_per_signature():
    fwdad.grad(_only_here)(W.copy(), DATA.copy())
    fwdad.grad(_only_here)(W.copy(), DATA.copy())
    table = specialized_rrules.get(_only_here, dict)
    assert list(table) == [(VARIABLE, PLAIN)]  # (one rule for the one signature)
    fwdad.grad(_only_here, argnums=(0, 1))(W.copy(), DATA.copy())
    assert list(table) == [(VARIABLE, PLAIN), (VARIABLE, VARIABLE)]


def _only_here(w, data):
    return np.sum(w[0] * data)


def test_signature_reads_kinds():
    assert signature((Var(1.0), VarMat(np.ones(2)), 2, 1.5, np.ones(2), [1.0],
                      np.array([Var(1.0)], dtype=object))) == (
        VARIABLE, VARIABLE, PLAIN, PLAIN, PLAIN, OTHER, OTHER)


def test_keyword_arguments_run_the_general_rule():
    site = SpecializedRule(least_squares)
    assert rule_for(site, (VarMat(W.copy()),), {"data": DATA}) is derived_rrule(
        least_squares)
    assert fwdad.grad(lambda w: least_squares(w, data=DATA))(W.copy()) == \
        pytest.approx(_finite_gradient(least_squares), rel=1e-6)


# ---- the analysis: source in, active names out --------------------------------------
def _active(fn, **kinds):
    return activity.analyse(frontend.normalized(fn)[1], kinds).active


def test_a_closure_makes_what_it_reads_active():
    assert "acc" in _active(appended_by_a_closure, w=VARIABLE, data=PLAIN)


def test_writes_reach_back_through_containers_and_views():
    assert {"parts", "holder"} <= _active(through_a_list, w=VARIABLE, data=PLAIN)
    assert {"s", "v"} <= _active(written_through_a_view, w=VARIABLE, data=PLAIN)
    active = _active(written_into_zeros, w=VARIABLE, data=PLAIN)
    assert "z" in active and "scale" not in active


def test_shapes_of_variables_are_plain_but_attributes_of_others_are_not():
    assert {"t", "muls"}.isdisjoint(_active(least_squares, w=VARIABLE, data=PLAIN))
    active = _active(least_squares, w=OTHER, data=PLAIN)  # (w.shape: anything)
    assert "muls" in active and "t" not in active


def test_mutable_globals_and_closure_cells_are_active():
    cell = [1.0]

    def reads_a_global(w):
        a = STORE[0]
        b = cell[0]
        return a + b + w
    active = _active(reads_a_global, w=PLAIN)
    assert {"a", "b"} <= active


def test_every_call_of_a_constant_only_line_is_direct():
    tree = frontend.normalized(built_from_linspace)[1]
    result = activity.analyse(tree, {"w": VARIABLE, "data": PLAIN})
    calls = {ast.unparse(c): id(c) in result.direct for c in ast.walk(tree)
             if type(c) is ast.Call}
    assert calls["np.linspace(0.0, 1.0, _fw_len1)"] and calls["len(data)"]
    assert not calls["np.tanh(_fw_mul1)"] and calls["np.exp(grid)"]
