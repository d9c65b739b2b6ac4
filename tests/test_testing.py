"""fwdad.testing.test_rule fails for rules that are wrong: a wrong derivative, a wrong
primal, a tangent of the wrong shape, batched tangents that differ from single ones,
a new value that shares an argument's tangent."""
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


def _wrong_dtype(x: Dual) -> Dual:
    return Dual(2.0 * x.primal[None, :], 2.0 * x.tangent[None, :].astype(np.float32))


def _wrong_batch(x: Dual) -> Dual:
    """Right for one tangent; for a batch, every item gets the first one's tangent."""
    t = np.asarray(x.tangent)
    return Dual(2.0 * x.primal[None, :], 2.0 * (t[..., None, :] if t.ndim == 1 else
                                                np.broadcast_to(t[:1, None, :],
                                                                (len(t), 1, t.shape[-1]))))


WRONG = {"against finite differences": _wrong_derivative, "primal output": _wrong_primal,
         "has shape (3,), but its value has shape (1, 3)": _wrong_shape,
         "has dtype float32, but its value has dtype float64": _wrong_dtype,
         "tangent 1 of a batch of 3": _wrong_batch}


def test_a_right_rule_passes(restore_rules):
    fwdad.frule(spread)(_good)
    testing.test_rule(spread, np.array([0.3, -1.2, 0.5]))


@pytest.mark.parametrize("message", list(WRONG))
def test_a_wrong_rule_fails_with_what_is_wrong(restore_rules, message):
    fwdad.frule(spread)(WRONG[message])
    with pytest.raises(AssertionError, match=re.escape(message)):
        testing.test_rule(spread, np.array([0.3, -1.2, 0.5]))


# ---- a new array's tangent is its own: shared only where the value is a view ----------
def fresh(x):
    """A new array with x's values: its tangent must be new as well."""
    return x.copy()


def tail(x):
    """A view of x: its tangent may (and should) view x's tangent."""
    return x[1:]


def fresh_list(xs):
    return list(xs)


def _copied(x: Dual) -> Dual:
    return Dual(x.primal.copy(), np.array(x.tangent))


def _viewed(x: Dual) -> Dual:
    return Dual(x.primal[1:], x.tangent[..., 1:])


def _passed_through(x: Dual) -> Dual:
    return Dual(x.primal.copy(), x.tangent)


def _viewed_for_a_copy(x: Dual) -> Dual:
    return Dual(x.primal.copy(), x.tangent[..., :])


def _passed_through_in_a_batch(x: Dual) -> Dual:
    """Right for one tangent, not for a batch."""
    return Dual(x.primal.copy(), x.tangent if x.tangent.ndim > 1 else x.tangent.copy())


def _list_copied(xs: Dual) -> Dual:
    return Dual(list(xs.primal), list(xs.tangent))


def _list_passed_through(xs: Dual) -> Dual:
    return Dual(list(xs.primal), xs.tangent)


SHARED = "the tangent of the output shares memory with the tangent of argument 0"
X, XS = np.array([0.3, -1.2, 0.5]), [np.array([0.3, -1.2]), np.array([2.0])]
SHARING = [  # (function, its rule, argument, what test_rule says: None if it passes)
    (fresh, _copied, X, None),
    (tail, _viewed, X, None),
    (fresh, _passed_through, X, SHARED + ", but"),
    (fresh, _viewed_for_a_copy, X, SHARED + ", but"),
    (fresh, _passed_through_in_a_batch, X, SHARED + " (a batch of 3), but"),
    (fresh_list, _list_copied, XS, None),
    (fresh_list, _list_passed_through, XS, SHARED + ", but"),  # (append changes both)
]


@pytest.mark.parametrize("fn, rule, arg, message", SHARING)
def test_a_new_value_with_an_arguments_tangent_fails(restore_rules, fn, rule, arg, message):
    fwdad.frule(fn)(rule)
    if message is None:
        testing.test_rule(fn, arg)
        return
    with pytest.raises(AssertionError, match=re.escape(message)):
        testing.test_rule(fn, arg)


@pytest.mark.parametrize("x", [np.array([0.3, -1.2, 0.5], dtype=np.float32),
                               np.float32(0.7), [np.float32(0.2), np.float32(1.1)]])
def test_float32_arguments_get_a_step_their_precision_resolves(x):
    """A step of 1e-6 moved a float32 near 1 by a step rounded to 6%: a right rule
    failed against the differences (np.sin: a 4.7% error)."""
    testing.test_rule(np.sin, np.asarray(x))
    testing.test_rule(lambda v: np.sum(np.tanh(np.asarray(v) * 3.0)), x)


def test_the_default_step_and_tolerance_follow_the_coarsest_dtype():
    from fwdad.testing.finite_differences import default_rtol, default_step
    wide, narrow = np.ones(2), np.ones(2, dtype=np.float32)
    assert default_step([wide, 1.5]) == 1e-6 and default_rtol([wide]) == 1e-6
    eps = float(np.finfo(np.float32).eps)
    assert default_step([wide, {"a": narrow}]) == pytest.approx(eps ** (1 / 3))
    assert default_rtol([narrow]) == pytest.approx(10 * eps ** (2 / 3))
    assert default_step([narrow], h=1e-3) == 1e-3  # given: kept
