"""normalize/sealed.py: which functions can run nothing that reaches their instance
arguments, and which of those may keep written fields in locals; and
normalize/param_locals.py's rewrite of one (source in, source out)."""
import ast
import random

import numpy as np
import pytest

from fwdad.frontend import normalized
from fwdad.normalize.instance_params import instance_params
from fwdad.normalize.names import names_in, unused
from fwdad.normalize.param_locals import unbox_parameters
from fwdad.normalize.sealed import sealed

G = np.ones(3)


def helper(v):
    return v * 2.0


def reads(s, k):
    return k * np.sum(s.pos ** 2) + s.t


def writes(s, h):
    s.pos = s.pos + h * np.sin(s.pos)
    s.t += h


def calls_a_python_function(s, k):
    s.t = helper(s.t) * k


def reads_a_global(s, k):
    s.t = s.t * np.sum(G) * k


def mutates_a_field_array(s, k):
    s.pos[0] = k  # (pure it is not: writes stay out of locals, reads may not)
    return s.t


def draws_random_numbers(s, k):
    s.t = s.t + np.random.normal() * k


def draws_from_random(s, k):  # (a foreign call: random.random has no rule)
    s.t = s.t + random.random() * k


def prints(s, k):
    print(k)
    s.t = s.t * k


def has_a_lambda(s, k):
    f = lambda v: v * k  # noqa: E731
    s.t = f(s.t)


def has_a_try(s, k):
    try:
        s.t = s.t / k
    except ZeroDivisionError:
        s.t = 0.0


def takes_more(s, *rest):
    s.t = s.t * len(rest)


SEALED = [  # (function, None: not sealed, else whether it may keep writes in locals)
    (reads, True), (writes, True), (calls_a_python_function, None),
    (reads_a_global, None), (mutates_a_field_array, False), (draws_random_numbers, False),
    (draws_from_random, None), (prints, False), (has_a_lambda, None), (has_a_try, None),
    (takes_more, None),
]


@pytest.mark.parametrize("fn, want", SEALED, ids=lambda v: getattr(v, "__name__", ""))
def test_sealed(fn, want):
    found = sealed(normalized(fn)[1], {"s"})
    assert (found if found is None else found.writes) == want


def test_only_a_sealed_function_gives_a_parameter_it_writes():
    assert instance_params(normalized(writes)[1]) == {"s": {"pos", "t"}}
    assert instance_params(normalized(draws_random_numbers)[1]) == {}
    assert instance_params(normalized(mutates_a_field_array)[1]) == {"s": {"pos", "t"}}


def test_fields_in_locals():
    tree = normalized(writes)[1]
    assert unbox_parameters(tree, ["s"]) == [("s", "pos"), ("s", "t")]
    want = """def writes(s, h):
    _fw_s__pos = getattr(s, 'pos')
    _fw_s__t = getattr(s, 't')
    _fw_pos1 = _fw_s__pos
    _fw_pos2 = _fw_s__pos
    _fw_sin1 = np.sin(_fw_pos2)
    _fw_mul1 = operator.mul(h, _fw_sin1)
    _fw_value1 = operator.add(_fw_pos1, _fw_mul1)
    _fw_s__pos = _fw_value1
    _fw_t1 = _fw_s__t
    _fw_iadd1 = operator.add(_fw_t1, h)
    _fw_s__t = _fw_iadd1
    _fw_returned = fwdad.build_tuple(None, _fw_s__pos, _fw_s__t)
    return _fw_returned"""
    assert ast.unparse(tree) == want


def writes_then_returns_on_a_branch(s, h):
    s.t += h
    if h > 0.5:
        return s.t
    return -s.t


def test_each_return_gives_its_own_fresh_result():
    """A second return's result takes the next fresh name (normalize/names.unused), never
    one the function has."""
    tree = normalized(writes_then_returns_on_a_branch)[1]
    assert unbox_parameters(tree, ["s"]) == [("s", "t")]
    text = ast.unparse(tree)
    assert "_fw_returned = fwdad.build_tuple(" in text, text
    assert "_fw_returned_2 = fwdad.build_tuple(" in text, text


def test_a_fresh_name_is_none_of_the_names_taken():
    taken = names_in(ast.parse("def f(x, _fw_t):\n    _fw_t_2 = x"))
    assert taken == {"x", "_fw_t", "_fw_t_2"}
    assert unused("_fw_t", taken) == "_fw_t_3" and unused("_fw_u", taken) == "_fw_u"
    assert {"_fw_t_3", "_fw_u"} <= taken
