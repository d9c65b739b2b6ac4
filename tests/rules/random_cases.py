"""The case rows of np.random's rules. Generators compare by identity, so test_rule
cannot compare their state after a call: the rows are in CASES (for the coverage
meta-test) but run by tests/rules/test_numpy_random.py."""
from __future__ import annotations

import numpy as np

from tests.rules.case import M23, V3, Case, xfail


def _generator():
    return np.random.default_rng(7)


def _random_state():
    return np.random.RandomState(7)


_DRAWS = [
    ("normal", (0.0, 1.0, 3)), ("uniform", (0.0, 1.0, (2, 2))), ("standard_normal", (2,)),
    ("random", (2,)), ("choice", (V3,)), ("exponential", (1.0, 2)),
    ("poisson", (2.0, 2)), ("binomial", (5, 0.5)), ("gamma", (2.0,)), ("beta", (2.0, 3.0)),
    ("lognormal", ()), ("multivariate_normal", (V3, np.eye(3))), ("laplace", ()),
    ("logistic", ()), ("gumbel", ()), ("rayleigh", ()), ("weibull", (2.0,)),
    ("pareto", (2.0,)), ("power", (2.0,)), ("chisquare", (2.0,)), ("standard_t", (3.0,)),
    ("standard_cauchy", ()), ("standard_exponential", ()), ("standard_gamma", (2.0,)),
    ("triangular", (0.0, 0.5, 1.0)), ("vonmises", (0.0, 1.0)), ("wald", (1.0, 1.0)),
    ("f", (2.0, 3.0)), ("noncentral_chisquare", (2.0, 1.0)),
    ("noncentral_f", (2.0, 3.0, 1.0)), ("geometric", (0.5,)), ("zipf", (2.0,)),
    ("logseries", (0.5,)), ("negative_binomial", (2, 0.5)), ("hypergeometric", (5, 5, 3)),
    ("multinomial", (5, [0.5, 0.5])), ("dirichlet", ([1.0, 2.0],)), ("bytes", (4,)),
]
_GENERATOR_ONLY = [("multivariate_hypergeometric", ([3, 2], 2)), ("integers", (5,))]
_RANDOM_STATE_ONLY = [("rand", (2,)), ("randn", (2,)), ("randint", (5,)),
                      ("random_sample", ()), ("random_integers", (5,)), ("tomaxint", ()),
                      ("seed", (3,)), ("get_state", ())]
_SHUFFLES = [("shuffle", (M23.copy(),)), ("permutation", (M23,)), ("permutation", (4,))]
RANDOM_ROWS = (
    [Case(getattr(np.random.Generator, name), _generator(), *args)
     for name, args in _DRAWS + _GENERATOR_ONLY + _SHUFFLES]
    + [Case(getattr(np.random.RandomState, name), _random_state(), *args)
       for name, args in _DRAWS + _RANDOM_STATE_ONLY + _SHUFFLES]
    + [Case(np.random.RandomState.set_state, _random_state(), _random_state().get_state()),
       Case(np.random.default_rng, 3), Case(np.random.Generator, np.random.PCG64(3)),
       Case(np.random.RandomState, 3), Case(np.random.PCG64, 3),
       Case(np.random.PCG64DXSM, 3), Case(np.random.MT19937, 3), Case(np.random.Philox, 3),
       Case(np.random.SFC64, 3), Case(np.random.SeedSequence, 3), Case(np.random.seed, 3),
       Case(np.random.get_state), Case(np.random.set_state, _random_state().get_state())])
# Draws are constants (issue 4: a draw has no derivative), but finite differences at a
# fixed seed see the pathwise derivative with respect to the distribution's parameters,
# so those rows are known to disagree; the rest (no float parameters) are checked fully,
# and so are normal and uniform, whose pathwise derivative fwdad takes
# (tests/test_random_location_scale.py).
PATHWISE = {"beta", "chisquare", "choice", "dirichlet", "exponential", "f", "gamma",
            "multivariate_normal", "noncentral_chisquare", "noncentral_f", "pareto",
            "power", "standard_gamma", "standard_t", "triangular", "vonmises", "wald",
            "weibull"}
DRAW_IS_CONSTANT = ("draws are constants, while finite differences at a fixed seed see "
                    "the pathwise derivative in the distribution's parameters")
RANDOM_CASES = [xfail(row, DRAW_IS_CONSTANT) if row.fn.__name__ in PATHWISE else row
                for row in RANDOM_ROWS]
