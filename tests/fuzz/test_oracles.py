"""The repeat, hvp, sparse, jacrev, revfwd, revjvp, lingrad, jacswap and held oracles on programs
written for them: each passes a right program and flags the failure it is for."""
import copy
import warnings

import numpy as np

import fwdad
from fwdad.tangents import Tangent
from tests.fuzz import subsets
from tests.fuzz.case import Case
from tests.fuzz.generate import HEADER, Program
from tests.fuzz.instance_oracle import held
from tests.fuzz.jacobian_oracles import hvp, jacrev, sparse
from tests.fuzz.nested_oracles import jacswap, lingrad, revjvp
from tests.fuzz.outcome import attempt
from tests.fuzz.repeat_oracle import repeat
from tests.fuzz.reverse_over_forward import revfwd

X = np.array([0.3, -0.5, 0.7])
T = np.array([1.0, 0.5, -0.25])

CHANGES_AFTER_THE_FIRST_CALL = HEADER + """CALLS = [0]


def f(x0):
    CALLS[0] += 1
    return np.sum(x0 * x0) * (1.0 if CALLS[0] <= 3 else 2.0)
"""

MEMO = HEADER + """def stash(a, memo={}):
    memo['last'] = a * 1.0
    return memo['last'] + 0.5 * np.sin(memo['last'])


def f(x0):
    return np.sum(stash(x0 * x0))
"""

BRANCH_ON_VALUES = HEADER + """def f(x0):
    y = x0 * 2.0
    if x0[0] > 0:
        y[1] = y[1] * x0[2]
    return y
"""


def _case(source, seed):
    return Case(Program(seed, source, (X.copy(),), (T.copy(),), frozenset()))


def test_repeat_flags_a_derivative_that_changes_after_the_first_call():
    """(The oracle loads the program again: the first round's jvp, vjp and jacfwd are
    its module's first three calls, the second round's jvp its fourth.)"""
    outcome = attempt(lambda: repeat(_case(CHANGES_AFTER_THE_FIRST_CALL, 0)))
    assert outcome.status == "wrong" and outcome.kind.startswith("jvp call 2")


def test_repeat_passes_a_mutable_default_written_then_read():
    assert attempt(lambda: repeat(_case(MEMO, 2))).status == "pass"


def test_hvp_and_jacrev_pass_a_right_program():
    case = _case(MEMO, 3)  # (seed % 4 == 3: in the hvp subset)
    assert attempt(lambda: hvp(case)).status == "pass"
    assert attempt(lambda: jacrev(case)).status == "pass"


def test_sparse_notes_a_global_mode_refusal_and_passes():
    outcome = attempt(lambda: sparse(_case(BRANCH_ON_VALUES, 0)))
    assert outcome.status == "pass" and outcome.kind.startswith("global mode refused")


def test_revfwd_passes_a_right_program_with_a_vector_output():
    case = _case(BRANCH_ON_VALUES, 5)  # (seed % 8 == 5: in the revfwd subset)
    assert attempt(lambda: revfwd(case)).status == "pass"
    assert attempt(lambda: revfwd(_case(MEMO, 5))).status == "pass"
    assert attempt(lambda: revfwd(_case(MEMO, 4))).status == "skipped"


SCALAR_QUARTIC = HEADER + """def f(x0):
    return np.sum(x0 ** 4) + x0[0] * x0[1] * x0[2]
"""


def test_nested_oracles_pass_a_right_program_in_their_subsets_only():
    for oracle, seed in ((revjvp, 6), (lingrad, 10), (jacswap, 14)):
        assert attempt(lambda: oracle(_case(SCALAR_QUARTIC, seed))).status == "pass"
        assert attempt(lambda: oracle(_case(SCALAR_QUARTIC, seed + 1))).status == "skipped"
    assert attempt(lambda: jacswap(_case(BRANCH_ON_VALUES, 14))).status == "pass"


def test_higher_turns_the_subsets_off():
    try:
        subsets.set_higher(True)
        for oracle in (revjvp, lingrad, jacswap, revfwd, hvp):
            assert attempt(lambda: oracle(_case(SCALAR_QUARTIC, 1))).status == "pass"
    finally:
        subsets.set_higher(False)


def test_nested_oracles_flag_a_wrong_second_derivative(monkeypatch):
    """An hvp off by a factor: revjvp and lingrad (whose references are hvp) report it."""
    right = fwdad.hvp
    monkeypatch.setattr(fwdad, "hvp", lambda *a, **k: tuple(2 * h for h in right(*a, **k)))
    for oracle, seed in ((revjvp, 6), (lingrad, 10)):
        assert attempt(lambda: oracle(_case(SCALAR_QUARTIC, seed))).status == "wrong"


def test_jacswap_flags_a_wrong_composition(monkeypatch):
    right = fwdad.jacrev
    monkeypatch.setattr(fwdad, "jacrev", lambda f, argnums=0: (
        lambda *a: 2 * right(f, argnums)(*a)))
    outcome = attempt(lambda: jacswap(_case(SCALAR_QUARTIC, 14)))
    assert outcome.status == "wrong" and outcome.kind.startswith("jacfwd(jacrev)")


TWO_ARGUMENTS_TWO_OUTPUTS = HEADER + """def f(x0, x1):
    x0[1] = x0[1] * x1
    return np.sin(x0) * x1, np.sum(x0 ** 2)
"""


def _two_argument_case(seed):
    return Case(Program(seed, TWO_ARGUMENTS_TWO_OUTPUTS, (X.copy(), 0.8),
                        (T.copy(), -0.3), frozenset()))


def test_held_passes_right_programs_in_its_subset_only():
    """(seed % 3 == 1: in the subset; the program writes into its argument, which the
    holder then holds.)"""
    for case in (_case(MEMO, 1), _case(BRANCH_ON_VALUES, 4), _two_argument_case(7)):
        assert attempt(lambda: held(case)).status == "pass"
    assert attempt(lambda: held(_two_argument_case(6))).status == "skipped"


def _doubled(tree):
    if isinstance(tree, Tangent):
        return Tangent(**{k: _doubled(v) for k, v in vars(tree).items()})
    if isinstance(tree, (tuple, list)):
        return type(tree)(_doubled(v) for v in tree)
    return None if tree is None else 2 * tree  # (None: the holder's int field)


def test_held_flags_a_wrong_derivative_of_the_held_program(monkeypatch):
    """jacrev wrong for functions of instances only (by a factor): held reports it."""
    right = fwdad.jacrev
    monkeypatch.setattr(fwdad, "jacrev", lambda f, argnums=0: (
        lambda *a: _doubled(right(f, argnums)(*a)) if f.__name__ == "g" else
        right(f, argnums)(*a)))
    outcome = attempt(lambda: held(_two_argument_case(7)))
    assert outcome.status == "wrong" and outcome.kind.startswith("jacrev of the held")


def test_held_flags_a_vjp_that_leaves_the_holder_as_it_was(monkeypatch):
    """vjp of g run on a copy of the holder (its rebound field and appended item lost,
    as reverse mode lost them before): held reports the holder after vjp."""
    right = fwdad.vjp
    monkeypatch.setattr(fwdad, "vjp", lambda f, *args: right(
        f, *(copy.deepcopy(args) if f.__name__ == "g" else args)))
    outcome = attempt(lambda: held(_two_argument_case(7)))
    assert outcome.status == "wrong" and "holder after vjp" in outcome.kind


def test_an_internal_error_warning_is_a_crash(monkeypatch):
    """A bug in forward over reverse, hidden by the fallback's right answer behind an
    InternalErrorWarning, is a crash of the oracle that met it."""
    from fwdad import over_reverse

    def broken(held):
        raise TypeError("planted")
    monkeypatch.setattr(over_reverse, "_adjoints", broken)
    with warnings.catch_warnings():  # (as in a campaign: not the suite's error filter)
        warnings.simplefilter("default")
        outcome = attempt(lambda: hvp(_case(SCALAR_QUARTIC, 3)))
    assert outcome.status == "crash" and outcome.kind.startswith("InternalErrorWarning")
