"""Random programs (tests/fuzz/generate.py): a detected pattern is never missing a
nonzero of dense jacfwd, in local mode at the program's arguments, and in global mode
(when it does not refuse) at other arguments too."""
import warnings

import numpy as np
import pytest

import fwdad
from tests.fuzz.generate import generate, load
from tests.sparsity.reference import jacobian_matrix

SEEDS = range(0, 300)


def _perturbed(args, rng):
    return tuple(a * rng.uniform(0.5, 1.5, np.shape(a)) if np.ndim(a) else
                 a * float(rng.uniform(0.5, 1.5)) for a in args)


def _missing(pattern, jac):
    return np.argwhere((jac != 0) & ~pattern.toarray())


QUICK = 60  # the default run checks these; the rest are marked `long` (pyproject.toml)


@pytest.mark.parametrize("seed", [pytest.param(s, id=f"seed{s}", marks=[pytest.mark.long]
                                               if s >= QUICK else []) for s in SEEDS])
def test_pattern_contains_the_nonzeros_of_jacfwd(seed):
    program = generate(seed)
    f = load(program.source).f
    argnums = tuple(range(len(program.args)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fwdad.DenseFallbackWarning)
        local = fwdad.jacobian_sparsity(f, *program.fresh_args(), argnums=argnums)
        try:
            global_ = fwdad.jacobian_sparsity(f, *program.fresh_args(), mode="global",
                                              argnums=argnums)
        except fwdad.ValueDependentPatternError:
            global_ = None
    jac = jacobian_matrix(f, *program.fresh_args(), argnums=argnums)
    assert not len(_missing(local, jac)), f"local misses {_missing(local, jac)}\n{program.source}"
    if global_ is None:
        return
    rng = np.random.default_rng(seed)
    for args in (program.fresh_args(), _perturbed(program.fresh_args(), rng)):
        jac = jacobian_matrix(f, *args, argnums=argnums)
        assert not len(_missing(global_, jac)), \
            f"global misses {_missing(global_, jac)}\n{program.source}"
