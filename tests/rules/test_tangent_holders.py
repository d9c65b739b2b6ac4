"""tangent_holders.holders: every place that holds a tangent, found so that a widened
one can replace it in all of them, or refused. A tangent that pairs with two arrays (two
Duals with different primals) must be refused: replacing it in both would write one
array's derivative into the other's, a silent wrong derivative."""
import numpy as np

from fwdad.dual import Dual
from fwdad.rules import tangent_holders
from fwdad.tangents import Tangent


class Box:
    def __init__(self, field):
        self.field = field


def _replaced(primal, duals):
    """holders of the tangent of `primal` (held by duals[0]), replaced by a marker."""
    found = tangent_holders.holders(primal, duals[0].tangent, 0)
    if found.slots is None:
        return None, found.refusal
    new = np.full(3, 7.0)
    tangent_holders.replace(found.slots, new)
    return new, found.refusal


def test_a_list_a_dict_a_tuple_and_a_field_are_all_replaced():
    p, t = np.zeros(3), np.zeros(3)
    box = Box(p)
    x = Dual(p, t)
    in_list = Dual([p, 1.0], [t, 0.0])
    in_dict = Dual({"k": p}, {"k": t})
    in_tuple = Dual((p, p), (t, t))
    in_field = Dual(box, Tangent(field=t))
    del t
    new, _ = _replaced(p, [x])
    assert x.tangent is new and in_list.tangent[0] is new and in_dict.tangent["k"] is new
    assert in_tuple.tangent == (new, new) and in_field.tangent.field is new


def test_a_tangent_that_two_arrays_share_is_refused():
    p, q, t = np.zeros(3), np.zeros(3), np.zeros(3)
    x, other = Dual(p, t), Dual(q, t)
    del t
    new, refusal = _replaced(p, [x])
    assert new is None and "another array" in refusal
    assert x.tangent is other.tangent


def test_a_list_pairing_it_with_another_array_is_refused():
    p, q, t = np.zeros(3), np.zeros(3), np.zeros(3)
    x, pair = Dual(p, t), Dual([p, q], [np.zeros(3), t])  # (q's tangent is p's)
    del t
    new, refusal = _replaced(p, [x])
    assert new is None and "another array" in refusal
    assert pair.tangent[1] is x.tangent


def test_a_view_or_a_closure_holding_it_is_refused():
    p, t = np.zeros(3), np.zeros(3)
    x = Dual(p, t)
    view = t[1:]
    del t
    assert _replaced(p, [x])[0] is None
    del view
    t = x.tangent

    def closure():
        return t
    assert _replaced(p, [x])[0] is None and closure is not None


def test_a_tuple_held_by_a_local_is_refused():
    p, t = np.zeros(3), np.zeros(3)
    x, pair = Dual(p, t), Dual((p, 1), (t, None))
    local = pair.tangent
    del t
    new, refusal = _replaced(p, [x])
    assert new is None and "tuple" in refusal and local[0] is x.tangent
