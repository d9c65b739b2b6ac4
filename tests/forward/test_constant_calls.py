"""Tangent work and rules only where a derivative can flow (forward/constant_calls.py,
forward/optimizer/constant_lines.py, activity.py): a number read from a constant array
leaves the array constant; a call with no active operand runs its primal alone, with no
rule (none needed when it has none); calls that can reach a Dual another way (a closure,
a callable, an active operand) still ask for their rule. Each derivative is checked
against central differences and the unoptimized rule."""
import copy
import math
import types

import numpy as np
import pytest

import fwdad
from fwdad.errors import MissingRuleError
from fwdad.forward import dispatch
from fwdad.forward.constant_calls import is_data, is_zero_tangent
from fwdad.forward.derive import build_rule
from fwdad.tangents import NoTangent
from tests.util import assert_close, assert_same, fd_jvp, run_rule

X = np.array([0.3, -0.7, 1.1])
C = np.array([1.5, 2.0, -0.5])
DATA = np.linspace(0.0, 1.0, 7)


def _fresh(fn):
    return types.FunctionType(fn.__code__, fn.__globals__)


def _variant_sources(fn):
    return [v.source for v in dispatch.derived_rule(fn).routes.variants.values()]


def _against_references(fn, args, tangents, fd_tangents):
    """jvp of a fresh copy of fn: the finite differences' derivative and the plain
    rule's (given the same zero tangents as Duals)."""
    f = _fresh(fn)
    out, tangent = fwdad.jvp(f, copy.deepcopy(args), tangents)
    assert_close(tangent, fd_jvp(fn, copy.deepcopy(args), fd_tangents))
    plain = run_rule(build_rule(fn, optimized=False), args,
                     [NoTangent if t is None else t for t in tangents])
    assert not isinstance(plain, type), f"the plain rule raised {plain.__name__}"
    assert_same(tangent, plain[0][1])
    return f


# ---- a number read from a constant array ----------------------------------------------
def _doubled(v):
    return v * 2.0


def read_then_call(x, c):
    a = c[0]
    s = _doubled(a)
    return np.sum(np.sin(x) * s) + np.sum(np.cos(c) * x)


def loop_reads(x, c, n):
    for i in range(n):
        x = x + c[i] * np.sin(x)
    return x * np.cos(c)


def test_a_number_read_from_a_constant_array_leaves_it_constant():
    """`a = c[0]` passed to a helper (a call that may mutate its operands) kept c boxed
    and active: the variant computed np.sin(c) * c.tangent. A number cannot be mutated
    nor be a view, so c stays plain: no tangent work for it, and c[0] is read plainly."""
    f = _against_references(read_then_call, (X, C), (np.ones(3), None),
                            (np.ones(3), np.zeros(3)))
    source, = _variant_sources(f)
    assert "c.tangent" not in source and "np_sin(c" not in source
    assert "a = c[0]" in source


def test_items_of_a_constant_array_read_in_a_loop_over_a_range():
    """`for i in range(n)`: i is an int (kind_flow), so c[i] is a plain item read."""
    f = _against_references(loop_reads, (X, C, 3), (np.ones(3), None, None),
                            (np.ones(3), np.zeros(3), 0))
    source, = _variant_sources(f)
    assert "_fw_item1 = c[i]" in source


def row_to_helper(x, c):
    r = c[0]
    s = _doubled(r)
    return np.sum(np.cos(c) * x) + np.sum(s * x)


def test_a_row_of_a_constant_matrix_passed_to_a_helper_is_still_right():
    """A row is a view, which the helper could write into: the matrix stays as the
    analysis had it, and the derivative is right."""
    c = np.arange(6.0).reshape(2, 3) + 1.0
    _against_references(row_to_helper, (X, c), (np.ones(3), None),
                        (np.ones(3), np.zeros((2, 3))))


# ---- calls with no active operand -----------------------------------------------------
def edges_of_data(x, n):
    w = np.histogram_bin_edges(DATA, bins=n)
    return np.sum(w[:3] * x)


def edges_of_local(x):
    w = np.histogram_bin_edges(np.linspace(0.0, 1.0, 7), 2)
    return np.sum(w * x)


def edges_of_argument(x):
    return np.sum(np.histogram_bin_edges(x, 2))


def table_over_closure(x):
    return np.sum(np.fromfunction(lambda i: i * x[0], (3,)))


def _scaled_index(i):
    return i * 2.0


def table_over_function(x):
    return np.sum(np.fromfunction(_scaled_index, (3,)) * x)


@pytest.mark.parametrize("fn", [edges_of_data, edges_of_local])
def test_a_call_with_no_rule_on_constants_needs_none(fn):
    """np.histogram_bin_edges has no rule; on data alone its result has no derivative,
    so the call runs (it raised MissingRuleError)."""
    _against_references(fn, (X, 3) if fn is edges_of_data else (X,),
                        (np.ones(3), None) if fn is edges_of_data else (np.ones(3),),
                        (np.ones(3), 0) if fn is edges_of_data else (np.ones(3),))


@pytest.mark.parametrize("fn", [edges_of_argument])
def test_a_call_with_no_rule_that_can_reach_a_derivative_still_raises(fn):
    """An active operand among the arguments: the missing rule is still an error."""
    with pytest.raises(MissingRuleError, match="numpy"):
        fwdad.jvp(_fresh(fn), (X,), (np.ones(3),))


@pytest.mark.parametrize("fn", [table_over_closure, table_over_function])
def test_np_fromfunction_of_a_closure_or_a_function_is_differentiated(fn):
    """(np.fromfunction has a rule now: fwdad/rules/numpy_loops.py)"""
    out, tangent = fwdad.jvp(_fresh(fn), (X,), (np.ones(3),))
    assert np.isclose(out, fn(X))
    h = 1e-6
    assert np.isclose(tangent, (fn(X + h) - fn(X - h)) / (2 * h), rtol=1e-6)


def mapped_over_closure(x):
    rows = np.apply_along_axis(lambda r: r * x[0], 0, np.ones(3))
    return np.sum(rows)


def test_a_rule_reached_through_a_closure_still_differentiates():
    """Every explicit operand constant, the derivative flows through the closure."""
    _against_references(mapped_over_closure, (X,), (np.ones(3),), (np.ones(3),))


def test_the_variant_reads_constants_plainly():
    """c[0] of a constant vector needs neither a rule nor a zero tangent."""
    source, = _variant_sources(_against_references(
        read_then_call, (X, C), (np.ones(3), None), (np.ones(3), np.zeros(3))))
    assert "_fw_getitem(_fw_const(c)" not in source


@pytest.mark.parametrize("value, data", [
    (1.5, True), ("a", True), (None, True), (np.ones(2), True), (np.arange(3), True),
    ((1, [2.0, np.ones(1)]), True), ({"a": 1.0}, True), (slice(1), True),
    (np.array([object()]), False), (len, False), (float, True), (lambda: 0, False), (np, False),
    ([[[[1.0]]]], False), (object(), False)])
def test_what_counts_as_data(value, data):
    assert is_data(value) is data


@pytest.mark.parametrize("tangent, zero", [
    (NoTangent, True), (0.0, True), (np.zeros(3), True), ([0.0, np.zeros(2)], True),
    (1e-300, False), (np.array([0.0, 1.0]), False), ({"a": np.ones(1)}, False)])
def test_what_counts_as_a_zero_tangent(tangent, zero):
    assert is_zero_tangent(tangent) is zero


# ---- math.log's template ------------------------------------------------------------------
def logs(x, b):
    return math.log(x) * math.lgamma(x) + math.log(x, b)


def test_math_log_and_lgamma_are_inlined():
    """One-argument math.log inlines np.log's row (its rule, which takes a base too, is
    written by hand); math.lgamma its own row; log(x, base) still runs its rule."""
    f = _against_references(logs, (2.0, 3.0), (1.0, 0.5), (1.0, 0.5))
    source = dispatch.derived_rule(f).source
    assert "_fw_math_log(x)" in source and "_fw_math_lgamma(x)" in source
    assert "_fw_log(_fw_Dual(x, dx), _fw_Dual(b, db))" in source


# ---- dicts in the signature -----------------------------------------------------------------
def layer(p, x):
    h = np.tanh(p["W"] @ x + p["b"])
    return np.sum(h * p["s"])


def layer_written(p, x):
    p["W"] = p["W"] * 2.0
    return np.sum(np.tanh(p["W"] @ x) * p["s"])


PARAMS = {"W": np.array([[0.1, -0.3, 0.2], [0.4, 0.1, -0.2]]), "b": np.array([0.1, 0.2]),
          "s": 2.0}


def _params(**changed):
    return {**{k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in PARAMS.items()},
            **changed}


def test_kind_of_a_dict_has_its_keys_and_items_kinds():
    from fwdad.forward.optimizer.kinds import FLOAT, OTHER, kind_of
    assert kind_of({"w": 0.5, "v": np.ones(2)}) == (
        "dict", (("w", FLOAT), ("v", ("array", 1, np.dtype("float64")))))
    assert kind_of({1: 0.5}) == OTHER and kind_of(dict.fromkeys("abcdefghij", 1.0)) == OTHER


def test_a_constant_dict_of_arrays_is_read_plainly_and_its_items_inlined():
    """The variant for a dict of these kinds reads p["W"] plainly and inlines the NumPy
    functions of what it read (np.tanh, np.sum); right against both references."""
    f = _against_references(layer, (_params(), X), (None, np.ones(3)),
                            ({"W": np.zeros((2, 3)), "b": np.zeros(2), "s": 0.0},
                             np.ones(3)))
    source, = _variant_sources(f)
    assert "p['W']" in source and "_fw_np_tanh(" in source and "_fw_tanh(" not in source


@pytest.mark.parametrize("later", [
    dict(s=3),                                   # an int where a float was seen
    dict(b=np.array([[0.1, 0.2]])),              # another number of axes
    dict(W=[[0.1, -0.3, 0.2], [0.4, 0.1, -0.2]]),  # a list where an array was
    dict(extra=1.0),                             # another key
], ids=["int", "rank", "list", "key"])
def test_a_dict_of_other_kinds_runs_its_own_variant(later):
    f = _fresh(layer)
    fwdad.jvp(f, (_params(), X), (None, np.ones(3)))
    p = _params(**later)
    _, tangent = fwdad.jvp(f, (p, X), (None, np.ones(3)))
    assert_close(tangent, fd_jvp(layer, (p, X), ({k: 0.0 * np.asarray(v, dtype=float)
                                                     for k, v in p.items()}, np.ones(3))))
    assert len(dispatch.derived_rule(f).routes.variants) == 2


def test_a_dict_written_by_the_rule_is_right():
    """p["W"] = ... may change what the dict holds (its items' kinds are not trusted
    where a line may write into a dict): the derivative is right."""
    _against_references(layer_written, (_params(), X), (None, np.ones(3)),
                        ({"W": np.zeros((2, 3)), "b": np.zeros(2), "s": 0.0}, np.ones(3)))


def test_item_kinds_of_a_dict_only_where_nothing_writes_into_one():
    import operator

    from fwdad.forward.optimizer import kind_flow
    from fwdad.forward.optimizer.kinds import FLOAT, OTHER, kind_of
    from fwdad.forward.optimizer.lines import Atom, Line
    from fwdad.rules.registry import entry_of
    key = Atom("const", "_fw_s_s", "s")
    read = Line("call", targets=["v"], args=[(Atom("local", "p"), False), (key, False)],
                entry=entry_of(operator.getitem))
    params = {"p": kind_of({"s": 1.0})}
    assert kind_flow.propagate([read], params)["v"] == FLOAT
    write = Line("call", targets=[], args=[(Atom("local", "p"), False)], pure=False)
    assert kind_flow.propagate([read, write], params)["v"] == OTHER


# ---- impure calls on data -------------------------------------------------------------
def grid_sum(x, a):
    t = np.linspace(0.0, a, 5)
    return x * np.sum(np.sin(t))


def grid_of_a_local(x, a):
    b = a * 2.0
    t = np.linspace(b, 1.0, 4)
    return x * np.sum(t * t)


@pytest.mark.parametrize("fn", [grid_sum, grid_of_a_local], ids=lambda f: f.__name__)
def test_an_impure_call_on_data_gives_data(fn):
    """np.linspace (not pure) of a literal and a constant number: its result has no
    tangent, so np.sin of it and its sum need no rule; right against both references."""
    f = _against_references(fn, (1.5, 0.7), (1.0, None), (1.0, 0.0))
    source, = _variant_sources(f)
    assert "_fw_sum(" not in source and "t, dt" not in source, source


def test_an_impure_call_on_an_active_number_is_still_differentiated():
    _against_references(grid_sum, (1.5, 0.7), (1.0, 1.0), (1.0, 1.0))


# ---- a sum with a constant array: shaped inline -----------------------------------------
def plus_constant(x, b):
    return np.sin(x + b) * 2.0


@pytest.mark.parametrize("x, b", [
    (X, C),                                     # same shapes
    (np.array([0.4]), C),                       # b gives the result its shape
    (X, np.array([[1.5, 2.0, -0.5], [0.1, 0.2, 0.3]])),  # b adds an axis
    (X, 2.0),                                   # a number
], ids=["same", "broadcast", "new-axis", "number"])
def test_a_sum_with_a_constant_array_is_inlined_and_shaped(x, b):
    """`x + b`, b a constant float64 array: `dx` broadcast to the result's shape inline
    (rules/operators.summed), not the rule of `+`; right against both references."""
    f = _against_references(plus_constant, (x, b), (np.ones_like(x), None),
                            (np.ones_like(x), np.zeros_like(b)))
    source, = _variant_sources(f)
    assert "_fw_add(" not in source, source


def test_the_dict_layer_adds_its_bias_inline():
    f = _against_references(layer, (_params(), X), (None, np.ones(3)),
                            ({"W": np.zeros((2, 3)), "b": np.zeros(2), "s": 0.0},
                             np.ones(3)))
    source, = _variant_sources(f)
    assert "_fw_add(" not in source, source


def test_a_float32_array_plus_a_constant_still_calls_the_rule():
    """(The rule promotes dx to float64 with the result: the plain rule's answer.)"""
    f, x = _fresh(plus_constant), X.astype(np.float32)
    _, tangent = fwdad.jvp(f, (x, C), (np.ones(3, np.float32), None))
    plain = run_rule(build_rule(plus_constant, optimized=False), (x, C),
                     (np.ones(3, np.float32), NoTangent))
    assert_same(tangent, plain[0][1])
    assert tangent.dtype == plain[0][1].dtype
    source, = _variant_sources(f)
    assert "_fw_add(" in source
