"""The shift rules (np.roll, np.diff) against the primal and finite differences, with
batches of tangents (fwdad.testing.test_rule)."""
import numpy as np
import pytest

from fwdad.testing import test_rule as check_rule

GRID = np.arange(12.0).reshape(3, 4) / 7

CASES = [  # (function, point, constant keyword arguments)
    (np.roll, np.linspace(0.0, 1.0, 5), dict(shift=2)),
    (np.roll, GRID, dict(shift=-1)),
    (np.roll, GRID, dict(shift=1, axis=0)),
    (np.roll, GRID, dict(shift=(1, 2), axis=(0, 1))),
    (np.roll, GRID, dict(shift=7, axis=-1)),
    (np.roll, np.arange(3.0), dict(shift=-4)),
    (np.diff, np.linspace(0.0, 1.0, 5) ** 2, dict()),
    (np.diff, GRID ** 2, dict(axis=0)),
    (np.diff, GRID ** 2, dict(n=2)),
    (lambda a: np.stack([a, 2.0 * a, np.ones(4)]), np.arange(4.0), dict()),
    (lambda a: np.stack([a[0], a[1]], axis=-1), GRID, dict()),
]


@pytest.mark.parametrize("fn, x, kwargs", CASES,
                         ids=lambda v: getattr(v, "__name__", None) or str(v)[:30])
def test_shift_rule(fn, x, kwargs):
    check_rule(fn, x, **kwargs)
