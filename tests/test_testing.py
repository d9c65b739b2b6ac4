"""fwdad.testing.test_rule fails for rules that are wrong: a wrong derivative, a wrong
primal, a tangent of the wrong shape, batched tangents that differ from single ones."""
import re

import numpy as np
import pytest

import fwdad
from fwdad import Dual, testing


def spread(x):
    """x (n,) -> (1, n): the kind of shape change a rule can get wrong."""
    return 2.0 * x[None, :]


def _good(x: Dual) -> Dual:
    return Dual(2.0 * x.primal[None, :], 2.0 * np.asarray(x.tangent)[..., None, :])


def _wrong_derivative(x: Dual) -> Dual:
    return Dual(2.0 * x.primal[None, :], 3.0 * np.asarray(x.tangent)[..., None, :])


def _wrong_primal(x: Dual) -> Dual:
    return Dual(x.primal[None, :], 2.0 * np.asarray(x.tangent)[..., None, :])


def _wrong_shape(x: Dual) -> Dual:
    return Dual(2.0 * x.primal[None, :], 2.0 * x.tangent)


def _wrong_batch(x: Dual) -> Dual:
    """Right for one tangent; for a batch, every item gets the first one's tangent."""
    t = np.asarray(x.tangent)
    return Dual(2.0 * x.primal[None, :], 2.0 * (t[..., None, :] if t.ndim == 1 else
                                                np.broadcast_to(t[:1, None, :],
                                                                (len(t), 1, t.shape[-1]))))


WRONG = {"against finite differences": _wrong_derivative, "primal output": _wrong_primal,
         "has shape (3,), but its value has shape (1, 3)": _wrong_shape,
         "tangent 1 of a batch of 3": _wrong_batch}


def test_a_right_rule_passes(restore_rules):
    fwdad.frule(spread)(_good)
    testing.test_rule(spread, np.array([0.3, -1.2, 0.5]))


@pytest.mark.parametrize("message", list(WRONG))
def test_a_wrong_rule_fails_with_what_is_wrong(restore_rules, message):
    fwdad.frule(spread)(WRONG[message])
    with pytest.raises(AssertionError, match=re.escape(message)):
        testing.test_rule(spread, np.array([0.3, -1.2, 0.5]))
