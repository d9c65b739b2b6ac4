"""The second-order table: which row checks each registered rule's second derivative
(tests/rules/second_order.py), and why the rules without one have none.

Rows come from the first-order tables (cases.py): the first row of each function that
has a float argument and is not in SKIPPED_ROWS. Rules that no such row reaches get a
row here (EXTRA_ROWS, functions that build what the rule needs from x), or a reason in
NO_SECOND_ORDER_ROW. Rules declared with def_nondiff (or frule(nondiff=True)) need
neither: their Hessian is zero by declaration, and the rows of those that take floats
(floor, sign, comparisons) check that it is.
"""
from __future__ import annotations

import itertools
import operator

import numpy as np

from fwdad import lang
from tests.rules import infinite_iterators as iterators
from tests.rules import loop_cases as loops
from tests.rules import scipy_integrate_cases as ode
from tests.rules.case import unwrap
from tests.rules.cases import CASES, Point
from tests.rules.fft_cases import FFT_SECOND_ORDER_ROWS
from tests.rules.linalg_cases import _nanstd_holes
from tests.rules.random_cases import RANDOM_CASES
from tests.rules.scipy_cases import SCIPY_SECOND_ORDER_ROWS
from tests.rules.scipy_linalg_cases import SCIPY_LINALG_SECOND_ORDER_ROWS
from tests.rules.scipy_optimize_cases import COVERS as _SOLVERS
from tests.rules.scipy_optimize_cases import SCIPY_OPTIMIZE_CASES
from tests.rules.second_order import entries

# Rows whose function is differentiated by another row, and why this one cannot be.
SKIPPED_ROWS = {
    "ndarray.astype(float64[2, 3], np.float32)":
        "a float32 result: its differences are too coarse (the complex row checks astype)",
    "scipy.linalg._decomp.eigh(float64[3, 3])":
        "an eigenvector's sign flips within the differences' step (scipy_linalg_cases."
        "eigh_signed differentiates the same call with the signs fixed)",
}
# Functions (not rules) whose rows sit where the second derivative does not exist.
SKIPPED_FUNCTIONS = {
    _nanstd_holes: "its holes leave groups of one value, where std has no derivative "
                   "(np.nanstd has its own row)",
}
# np.vectorize: made outside and called through its object; its row calls the unbound
# np.vectorize.__call__, which forward dispatch confuses with the bound method other
# tests call (an AttributeError, in the whole suite only). The Hessian through the object
# is compared with its closed form in tests/rules/test_numpy_loops.py.
_VECTORIZE = "called through a np.vectorize object (tests/rules/test_numpy_loops.py)"
SKIPPED_FUNCTIONS[np.vectorize.__call__] = _VECTORIZE
# SciPy's solvers and quad: their rules refuse to be differentiated again
# (tests/rules/test_scipy_optimize.py checks the message).
_FIRST_ORDER_ONLY = "solves on primal values: a second derivative is refused"
SKIPPED_FUNCTIONS.update({unwrap(row).fn: _FIRST_ORDER_ONLY for row in SCIPY_OPTIMIZE_CASES})
# The ODE solvers and the rows that call them: second order through them is refused
# (tests/rules/test_scipy_integrate.py::test_second_order_is_refused checks the message).
_ODE_REFUSED = "second order through scipy.integrate's solvers is refused"
_ODE_SOLVERS = [] if ode.si is None else [ode.si.solve_ivp, ode.si.odeint]
SKIPPED_FUNCTIONS.update(dict.fromkeys(_ODE_SOLVERS + ([] if ode.si is None else [
    ode.lv_tightly, ode.robertson_tightly, ode.lv_odeint_tightly, ode.lv_dense_tightly]),
    _ODE_REFUSED))

# Their rows pass a generator, whose next call draws another permutation: the
# differences would compare two; EXTRA_ROWS make a fresh generator in each call.
_PERMUTING = {np.random.Generator.shuffle, np.random.Generator.permutation,
              np.random.RandomState.shuffle, np.random.RandomState.permutation,
              # (and draws: tests/test_random_location_scale.py)
              np.random.Generator.normal, np.random.Generator.uniform,
              np.random.RandomState.normal, np.random.RandomState.uniform}


def _usable(case) -> bool:
    point = entries(case.args)  # (NaN holes in it: their differences are NaN)
    return str(case) not in SKIPPED_ROWS and case.fn not in _PERMUTING \
        and case.fn not in SKIPPED_FUNCTIONS \
        and point.size > 0 and not np.isnan(point).any()


def _first_rows() -> list:
    seen, rows = set(), []
    for row in CASES:
        case = unwrap(row)
        if getattr(row, "marks", None) or case.fn in seen or not _usable(case):
            continue
        seen.add(case.fn)
        rows.append((case.fn, case.fn, case.args, case.kwargs))
    return rows


# ---- rows for rules that need their arguments built from x -----------------------------
def getattribute_of(x, y):
    p = Point(x, y)
    return object.__getattribute__(p, "x") * p.y


def delattr_of(x, y):
    p = Point(x, y * y)
    delattr(p, "x")
    p.x = y
    return p.x * p.y


def next_of(x, y):
    items = iter([x * y, y])
    return next(items) * next(items)


def super_of(x, y):
    return _Child(x).value() * y


class _Base:
    def __init__(self, v):
        self.v = v

    def value(self):
        return self.v * self.v


class _Child(_Base):
    def value(self):
        return super().value() + self.v


def shuffled_by_a_fresh_generator(x):
    out = x.copy()
    np.random.default_rng(3).shuffle(out)
    return out * np.random.default_rng(3).permutation(x)


def shuffled_by_a_fresh_state(x):
    out = x.copy()
    np.random.RandomState(3).shuffle(out)
    return out * np.random.RandomState(3).permutation(x)


V = np.array([0.3, -1.2, 0.5, 0.9])
EXTRA_ROWS = [  # (what it covers, function, arguments, keyword arguments)
    (object.__getattribute__, getattribute_of, (0.3, 1.2), {}),
    (delattr, delattr_of, (0.3, 1.2), {}),
    (next, next_of, (0.3, 1.2), {}),
    (super, super_of, (0.3, 1.2), {}),
    (np.random.Generator.shuffle, shuffled_by_a_fresh_generator, (V,), {}),
    (np.random.Generator.permutation, shuffled_by_a_fresh_generator, (V,), {}),
    (np.random.RandomState.shuffle, shuffled_by_a_fresh_state, (V,), {}),
    (np.random.RandomState.permutation, shuffled_by_a_fresh_state, (V,), {}),
    # endless iterators, ended inside the function
    (itertools.count, iterators.counted_steps, (0.7, 0.2), {}),
    (itertools.cycle, iterators.cycled_weights, (V[:2], V), {}),
    (itertools.takewhile, iterators.selected, (V, 1.1), {}),
    (itertools.dropwhile, iterators.selected, (V, 1.1), {}),
    (itertools.filterfalse, iterators.selected, (V, 1.1), {}),
    (itertools.compress, iterators.selected, (V, 1.1), {}),
    # the function of np.fromfunction closes over x (its row's function takes indices)
    (np.fromfunction, loops.grid_of, (V,), {}),
]

ROWS = _first_rows() + EXTRA_ROWS + SCIPY_SECOND_ORDER_ROWS + SCIPY_LINALG_SECOND_ORDER_ROWS \
    + FFT_SECOND_ORDER_ROWS


# ---- rules with no second-order row, and why -----------------------------------------
_INTEGERS = "takes and gives integers or booleans only: nothing to differentiate"
_DRAWS = "a draw with no float parameter: its values do not depend on any input"
_SETS = "sets hold no values with a derivative (items with one are refused)"
_SLICES = "a slice holds ints"

NO_SECOND_ORDER_ROW = {
    **dict.fromkeys([np.logical_not, np.invert, np.logical_and, np.logical_or,
                     np.logical_xor, np.bitwise_and, np.bitwise_or, np.bitwise_xor,
                     np.left_shift, np.right_shift, np.gcd, np.lcm, np.bitwise_count,
                     np.isnat], _INTEGERS),
    **dict.fromkeys([set, frozenset, set.add, lang.build_set], _SETS),
    **dict.fromkeys([slice, lang.build_slice], _SLICES),
    # the call of one is refused at second order (test_second_order.py checks the
    # message); itemgetter and attrgetter are def_nondiff, and refused alike
    operator.methodcaller: "calling a methodcaller is refused at second order",
    **dict.fromkeys(_SOLVERS + [unwrap(row).fn for row in SCIPY_OPTIMIZE_CASES
                                if unwrap(row).fn.__module__.startswith("scipy.")],
                    _FIRST_ORDER_ONLY),
}
NO_SECOND_ORDER_ROW.update(dict.fromkeys(_ODE_SOLVERS, _ODE_REFUSED))
_RANDOM_METHODS = {  # the draws whose every parameter is an int, a shape or a dtype
    np.random.Generator: ["bytes", "gumbel", "hypergeometric", "integers", "laplace",
                          "logistic", "lognormal", "multivariate_hypergeometric", "random",
                          "rayleigh", "standard_cauchy", "standard_exponential",
                          "standard_normal"],
    np.random.RandomState: ["bytes", "get_state", "gumbel", "hypergeometric", "laplace",
                            "logistic", "lognormal", "rand", "randint", "randn", "random",
                            "random_integers", "random_sample", "rayleigh", "seed",
                            "standard_cauchy", "standard_exponential", "standard_normal",
                            "tomaxint"],
}
NO_SECOND_ORDER_ROW.update({getattr(cls, name): _DRAWS for cls, names in
                            _RANDOM_METHODS.items() for name in names})
# draws with float parameters: a draw is a constant (its tangent is zero), so its rows
# are known gaps at first order already (random_cases.py)
NO_SECOND_ORDER_ROW.update({unwrap(row).fn: "a draw is a constant: " + row.marks[0].kwargs[
    "reason"] for row in RANDOM_CASES if getattr(row, "marks", None)})
# normal and uniform are differentiated, but their rows share one generator, which each
# evaluation of the differences advances (their Hessian: tests/test_random_location_scale.py)
NO_SECOND_ORDER_ROW.update({getattr(cls, name): "a draw from the row's shared generator, "
                            "which each evaluation advances" for cls in
                            (np.random.Generator, np.random.RandomState)
                            for name in ("normal", "uniform")})
NO_SECOND_ORDER_ROW.update(dict.fromkeys([np.vectorize, np.vectorize.__call__], _VECTORIZE))
