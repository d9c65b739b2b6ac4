"""A C method bound to an object the code never writes into, held in a global
(`COUNT = WEIGHTS.count`), is called with its owner: the optimized rule once called
the entry's unbound function (list.count) without it and raised a TypeError."""
import numpy as np
import pytest

from tests.util import assert_jvp_matches_central_differences, assert_rule_matches_plain

WEIGHTS = [1.0, 2.0, 1.0]
COUNT = WEIGHTS.count
TABLE = {"a": 0.5, "b": -1.5}
LOOKUP = TABLE.get
ROW = np.array([0.5, -1.0, 2.0])
ROW_SUM = ROW.sum


def counted(x):
    return x * COUNT(1.0) + np.sin(x)


def looked_up(x):
    return np.cos(x) * LOOKUP("a") + x * LOOKUP("c", 2.0)


def row_scaled(x):
    return x * ROW_SUM() + x * x


CASES = [(counted, (0.5,)), (looked_up, (0.3,)), (row_scaled, (np.array([0.2, -0.4]),))]


@pytest.mark.parametrize("fn, args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_bound_c_method_of_a_global(fn, args):
    assert_jvp_matches_central_differences(fn, args)
    assert_rule_matches_plain(fn, args, optimized=False)
