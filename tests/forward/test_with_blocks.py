"""The optimizer inside `with`: the header is kept as it is (the manager and what it
binds stay Duals), the body's Lines are read as any block's, so its templates are
inlined. A manager's `__exit__` may suppress what the body raises, and the rule runs on
after the with: there each template's primal runs before its tangent is assigned, as in
a try. Each case runs where the body raises (and is suppressed) and where it does not,
against the plain rule and central differences."""
import contextlib
import math
import warnings

import numpy as np
import pytest

import fwdad
from fwdad.forward.derive import build_rule
from tests.util import (
    assert_close,
    assert_jvp_matches_central_differences,
    assert_rule_matches_plain,
    case_id,
)

SUPPRESS = contextlib.suppress(ValueError)  # (a manager built in the rule keeps it plain)


class Scaled:
    """A manager of the user's that holds a float: entering gives `scale * 2`."""

    def __init__(self, scale):
        self.scale = scale

    def __enter__(self):
        return self.scale * 2.0

    def __exit__(self, *exc):
        return False


def quiet_division(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sin(x) * y / x
        s = np.where(x == 0, y, r)
    return s * s + 1.0


def suppressed(x):
    """log raises for x <= 1: suppressed, y keeps what sqrt gave it."""
    y = x * 2.0
    with SUPPRESS:
        y = math.sqrt(x) * y
        y = math.log(x - 1.0) + y
    return y * 3.0


def self_update_suppressed(x):
    """x = log(x) raises for x <= 0: x and its tangent are as they were after it."""
    with SUPPRESS:
        x = math.exp(x) - 3.0
        x = math.log(x)
    return x * x


def in_a_loop(x, n):
    total = 0.0
    for i in range(n):
        with SUPPRESS:
            t = math.sin(x * i)
            if t < -0.9:
                continue
            if i == 5:
                break
            total = total + math.sqrt(t + 0.5) * x  # (raises for t in [-0.9, -0.5))
    return total


def returns_inside(x):
    with np.errstate(all="ignore"):
        y = math.exp(x)
        if y > 2.0:
            return y * x
        y = math.cos(y) * x
    return y


def nested(x):
    with np.errstate(all="ignore"):
        with SUPPRESS:
            y = math.log(x)
            y = y * x
        z = math.sin(x) * x
    return z + x


def bound_value(x):
    """`as v`: the manager's value is a Dual with its derivative."""
    with Scaled(x) as v:
        y = math.sin(v) * x
    return y + v


def warns_in_the_body(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = np.log(x) * x  # (nan where x < 0, without a warning)
    return np.nan_to_num(y) + x


CASES = [
    (quiet_division, (np.array([-1.0, 0.5, 2.0]), np.array([1.0, 2.0, 3.0]))),
    (suppressed, (2.5,)), (suppressed, (0.5,)),
    (self_update_suppressed, (1.5,)), (self_update_suppressed, (0.5,)),
    (in_a_loop, (0.7, 3)), (in_a_loop, (0.7, 8)), (in_a_loop, (2.3, 7)),
    (returns_inside, (1.1,)), (returns_inside, (0.3,)),
    (nested, (2.0,)), (nested, (-2.0,)),
    (bound_value, (0.4,)),
    (warns_in_the_body, (np.array([0.5, 1.5, 2.0]),)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_optimized_rule_matches_the_plain_rule(case):
    fn, args = case
    # (bound_value and warns_in_the_body build an instance of a Python class: such
    # rules are kept as they are)
    assert_rule_matches_plain(fn, args, fn not in (bound_value, warns_in_the_body))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_derivatives_match_central_differences(case):
    fn, args = case
    assert_jvp_matches_central_differences(fn, args)


def _with_body(source):
    """The statements of the first with's body in a rule's source."""
    lines = source.split("    with _fw_entered(")[1].splitlines()[1:]
    body = []
    for line in lines:
        if not line.startswith("        "):
            break
        if not line.strip().startswith("#"):
            body.append(line.strip())
    return body


def test_templates_are_inlined_inside_the_with():
    source = build_rule(suppressed).source
    body = "\n".join(_with_body(source))
    assert "_fw_math_sqrt(x)" in body and "dy = " in body, source
    assert "_fw_mul(" not in body and "_fw_log(" not in body, source


def test_a_self_update_keeps_its_new_value_aside_inside_a_with():
    """`x = log(x)` inside a with whose manager may suppress what log raises: the
    primal runs first and x changes last, so that after the with x and its tangent
    are as they were."""
    source = build_rule(self_update_suppressed).source
    statements = _with_body(source)
    assert statements[-3].startswith("_fw_x_new = _fw_math_log(x)"), source
    assert statements[-2].startswith("dx = ") and statements[-1] == "x = _fw_x_new", source


def test_the_manager_entered_and_left_once_per_call():
    """The header is kept as it is: the manager's methods run once per call, in the
    optimized rule as in the plain one."""
    calls = []

    class Counted:
        def __enter__(self):
            calls.append("enter")

        def __exit__(self, *exc):
            calls.append("exit")
            return False

    counted = Counted()

    def f(x):
        with counted:
            y = math.sin(x) * x
        return y

    assert_close(fwdad.jvp(f, (0.3,), (1.0,))[1], math.cos(0.3) * 0.3 + math.sin(0.3))
    assert calls == ["enter", "exit"]
