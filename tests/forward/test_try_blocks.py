"""The optimizer inside `try`: the body, handlers, else and finally are Lines it reads
(forward/optimizer/lines.py), so their templates are inlined; a handler finds every
local and its tangent as the plain rule leaves them when the body raised. Each case runs
where the body raises and where it does not, against the plain rule and central
differences."""
import math

import numpy as np
import pytest

from fwdad.forward.derive import build_rule
from tests.util import (
    assert_jvp_matches_central_differences,
    assert_rule_matches_plain,
    case_id,
)


def log_or_linear(x):
    """The primal raises (log of 0 or less) on its own line."""
    try:
        y = math.log(x)
    except ValueError:
        y = x * 3.0
    return y * x


def self_update_raises(x):
    """x = log(x) raises: the handler reads x and its tangent as they were."""
    try:
        x = math.log(x)
    except ValueError:
        x = x * 3.0 + 1.0
    return x


def divides(x, a):
    try:
        y = a / math.floor(x) * x  # (no division on [0, 1))
    except ZeroDivisionError:
        y = a * 2.0
    return y + x


def raises_on_values(x):
    """sqrt raises on a value; an else and a finally run on the way."""
    total = 0.0
    try:
        y = math.sin(x) * 2.0
        z = math.sqrt(1.0 - y) * y
    except ValueError as err:
        z = x * x + len(str(err))
    else:
        z = z + math.cos(x)
    finally:
        total = total + x * 0.5
    return total + z


def in_a_loop(x, n):
    """break, continue and the handler, in a loop; the running total is carried."""
    total = 0.0
    for i in range(n):
        try:
            t = math.sin(x * i)
            if t < -0.9:
                continue
            if i == 4:
                break
            total = total + math.sqrt(t + 0.5)  # (raises for t in [-0.9, -0.5))
        except ValueError:
            total = total - x * i
    return total


def returns_inside(x):
    """return from the body and from the handler; finally runs before each."""
    acc = [0.0]
    try:
        y = math.exp(x)
        if y > 2.0:
            return y * x
        y = math.acos(y)  # raises where exp(x) > 1
    except ValueError:
        return x * x * 5.0
    finally:
        acc.append(x)
    return y + acc[-1]


def arrays(w, x):
    try:
        h = np.tanh(w @ x)
        out = h * math.sqrt(np.sum(h))  # (raises where the sum is negative)
    except ValueError:
        out = np.sin(w @ x)
    return out


def raises_explicitly(x):
    """An exception the function makes itself (a rule that builds one stays plain)."""
    try:
        y = math.sin(x) * 2.0
        if y > 1.0:
            raise ValueError("large")
        z = y * y
    except ValueError as err:
        z = x * x + len(str(err))
    return z


def finally_continues(x):
    """A handler that raises in its turn (x = log(x - 2) with x < 2), whose exception
    the finally's `continue` drops: the finally reads x and its tangent as they were."""
    total = 0.0
    for i in range(3):
        try:
            y = math.log(x - i)
            total = total + y
        except ValueError:
            x = math.log(x - 2.0)
        finally:
            total = total + x
            continue
    return total


def nested(x):
    try:
        try:
            y = math.log(x)
        except ValueError:
            y = math.sqrt(-x)
        z = y * x
    except ValueError:
        z = x
    return z


CASES = [
    (log_or_linear, (2.5,)), (log_or_linear, (-1.5,)),
    (self_update_raises, (2.5,)), (self_update_raises, (-1.5,)),
    (divides, (0.5, 2.0)), (divides, (2.5, 2.0)),
    (raises_on_values, (0.3,)), (raises_on_values, (1.2,)),
    (in_a_loop, (0.7, 3)), (in_a_loop, (0.7, 8)), (in_a_loop, (2.3, 6)),
    (returns_inside, (1.1,)), (returns_inside, (-0.5,)), (returns_inside, (0.3,)),
    (arrays, (np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([1.0, -2.0]))),
    (arrays, (np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([-1.0, -2.0]))),
    (nested, (2.0,)), (nested, (-2.0,)),
    (finally_continues, (2.5,)), (finally_continues, (1.5,)), (finally_continues, (0.5,)),
]
EXPLICIT = [(raises_explicitly, (0.3,)), (raises_explicitly, (1.2,))]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_optimized_rule_matches_the_plain_rule(case):
    assert_rule_matches_plain(*case)


@pytest.mark.parametrize("case", CASES + EXPLICIT, ids=case_id)
def test_derivatives_match_central_differences(case):
    fn, args = case
    assert_jvp_matches_central_differences(fn, args)


def test_templates_are_inlined_inside_the_try():
    source = build_rule(raises_on_values).source
    body = source.split("    try:\n")[1].split("    except ValueError as err:\n")[0]
    assert "_fw_math_sin(x)" in body and "* 2.0" in body, source
    assert "dy = " in body and "_fw_mul(" not in body and "_fw_sin(" not in body, source
    handler = source.split("    except ValueError as err:\n")[1].split("    else:\n")[0]
    assert "err = _fw_const(err)" in handler, source  # the exception: kept as it is


def test_a_self_update_keeps_its_new_value_aside_inside_a_try():
    """`x = log(x)`: outside a try the tangent may be written first (it reads the old
    x); inside, the primal runs first and x changes last, so that a handler that
    catches what log raises finds x and its tangent as they were."""
    source = build_rule(self_update_raises).source
    body = source.split("    try:\n")[1].split("    except ValueError:\n")[0]
    statements = [s.strip() for s in body.splitlines() if not s.strip().startswith("#")]
    statements = [s for s in statements if s]
    assert statements[0].startswith("_fw_x_new = ") and statements[-1] == "x = _fw_x_new", \
        source
