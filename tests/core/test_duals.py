"""The helpers on Duals that rules and generated code share (fwdad/core/duals.py)."""
import numpy as np

from fwdad.core.duals import bound_arguments, const, iterate, stream
from fwdad.dual import Dual
from fwdad.tangents import NoTangent


def test_const_gives_a_read_only_zero_tangent_to_an_array():
    d = const(np.ones(3))
    assert np.array_equal(d.tangent, np.zeros(3)) and not d.tangent.flags.writeable


def test_iterate_pairs_each_row_with_its_tangent_row():
    x = np.arange(6.0).reshape(3, 2)
    dx = np.arange(6.0, 12.0).reshape(3, 2)
    rows = list(iterate(Dual(x, dx)))
    assert [r.primal.tolist() for r in rows] == x.tolist()
    assert [r.tangent.tolist() for r in rows] == dx.tolist()


def test_a_stream_is_iterated_once_by_primal_and_dual_alike():
    d = stream(iter([Dual(1.0, 2.0), Dual(3.0, 4.0)]))
    assert next(d.primal) == 1.0  # the plain value's iterator pulls from the stream
    assert [(i.primal, i.tangent) for i in iterate(d)] == [(3.0, 4.0)]


def test_bound_arguments_keep_the_tangents_the_rule_that_made_them_gave():
    made_in_rule = Dual(None, ((5.0,), {"k": 6.0}))
    bound, named = bound_arguments(made_in_rule, (1.0,), {"k": 2.0})
    assert (bound[0].primal, bound[0].tangent) == (1.0, 5.0)
    assert (named["k"].primal, named["k"].tangent) == (2.0, 6.0)
    bound, named = bound_arguments(Dual(None, NoTangent), (1.0,), {"k": 2.0})
    assert (bound[0].tangent, named["k"].tangent) == (0.0, 0.0)  # made outside: constants
