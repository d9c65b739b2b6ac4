"""The plain rule is printed from the transform's Lines (forward/transform/plain_code.py),
through the optimizer's printer: source in, the Lines' kinds and the printed rule out."""
import ast
import math

import numpy as np

from fwdad import codegen, frontend
from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.forward.transform.dual_code import plain_rule, transform_lines

LIMIT = 3.0


def every_kind(x, *rest, **named):
    a, b = x, 2.0
    for item in rest:
        a = a + item * LIMIT
    while not a > 10.0:
        a = a * 2.0
    assert a > 0, "positive"
    if b:
        b = math.sin(a)
    total = np.sum(np.array([a, b]), **named)
    try:
        total = total + 1.0
    except ValueError:
        pass
    return total


def _printed(fn):
    src, normalized = frontend.normalized(fn)
    tree, constants, lines = transform_lines(normalized, src)
    assert tree.body == []  # (the def alone: its body is printed from the Lines)
    rule = plain_rule(tree, constants, lines)
    return lines, codegen.lines(ast.Module(body=[rule], type_ignores=[]))[0]


def test_every_kind_of_line_prints_as_the_dual_statement_it_stands_for():
    lines, printed = _printed(every_kind)
    assert [line.kind for line in lines.body] == [
        "call", "call", "call", "unpack", "for", "call", "call", "use", "call", "use",
        "use", "call", "call", "call", "try", "use"]
    assert printed == [
        "def every_kind_frule(x, *rest, **named):",
        "    rest = _fw_pack(rest)",
        "    named = _fw_pack_kw(named)",
        "    _fw_tuple1 = _fw_build_tuple(x, _fw_2_0)",
        "    a, b = _fw_unpack(_fw_tuple1, 2)",
        "    for item in _fw_iterate(rest):",
        "        _fw_mul1 = _fw_mul(item, _fw_global(LIMIT))",
        "        a = _fw_add(a, _fw_mul1)",
        "    _fw_gt1 = _fw_gt(a, _fw_10_0)",
        "    _fw_not1 = _fw_not(_fw_gt1)",
        "    while _fw_not1.primal:",
        "        a = _fw_mul(a, _fw_2_0)",
        "        _fw_gt1 = _fw_gt(a, _fw_10_0)",
        "        _fw_not1 = _fw_not(_fw_gt1)",
        "    _fw_gt2 = _fw_gt(a, _fw_0)",
        "    if not _fw_gt2.primal:",
        "        assert _fw_gt2.primal, 'positive'",
        "    if b.primal:",
        "        b = _fw_sin(a)",
        "    _fw_list1 = _fw_build_list(a, b)",
        "    _fw_array1 = _fw_array(_fw_list1)",
        "    total = _fw_sum(_fw_array1, **_fw_unbox_kw(named))",
        "    try:",  # (a try Line: its body's Lines, and a part Line for the handler)
        "        total = _fw_add(total, _fw_1_0)",
        "    except ValueError:",
        "        pass",
        "    return total"]


def test_the_plain_rule_runs_with_the_users_lines():
    rule = build_rule(every_kind, optimized=False)
    assert build_rule(every_kind).unoptimized.source == rule.source
    first = every_kind.__code__.co_firstlineno
    for offset, text in ((9, "total = np.sum(np.array([a, b]), **named)"),
                         (4, "while not a > 10.0:"), (11, "total = total + 1.0")):
        assert f"# line {first + offset}: {text}" in rule.source, rule.source
    out = rule(Dual(1.5, 1.0), Dual(0.5, 0.0))
    assert math.isclose(out.primal, every_kind(1.5, 0.5))
    step = 1e-6  # (central differences in x)
    slope = (every_kind(1.5 + step, 0.5) - every_kind(1.5 - step, 0.5)) / (2 * step)
    assert math.isclose(out.tangent, slope, rel_tol=1e-6)


CALLS = 0


def updates_a_global_counter(x):
    global CALLS
    CALLS = CALLS + 1
    r = x * 2.0
    r[0] += x[1] * x[2]
    return r


def test_a_rule_the_optimizer_gives_up_on_is_the_plain_rule():
    # (`global`: the optimizer gives up after joining `r[0] += ...` into one update line
    # in place, so the plain rule is printed from Lines made again)
    rule = build_rule(updates_a_global_counter)
    plain = build_rule(updates_a_global_counter, optimized=False)
    assert rule.source == plain.source and "_fw_setitem(r, _fw_0, " in rule.source
    x, dx = np.array([0.5, -1.0, 2.0]), np.array([0.3, 0.7, -0.2])
    out = rule(Dual(x.copy(), dx.copy()))
    step = 1e-6
    slope = (updates_a_global_counter(x + step * dx) -
             updates_a_global_counter(x - step * dx)) / (2 * step)
    np.testing.assert_allclose(out.tangent, slope, rtol=1e-6)
