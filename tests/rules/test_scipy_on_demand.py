"""SciPy's rules are registered when first needed (fwdad/rules/scipy_support.py): in a
fresh interpreter that imports SciPy after fwdad, each mode finds SciPy's rules on its
first lookup, whichever comes first, and a function derived before anything touched
SciPy calls the registered rules. Each check runs in a new interpreter: this test
session has imported SciPy (and loaded its rules) long before."""
import inspect
import textwrap

import pytest

from fwdad.rules.all import HAS_SCIPY
from tests import util
from tests.fresh import run_fresh

pytestmark = pytest.mark.skipif(not HAS_SCIPY, reason="SciPy is not installed")

# The script cannot import tests.util (it runs in a new interpreter, where that would
# import more than the check allows): it gets the source of its central differences.
_CENTRAL = textwrap.indent("".join(inspect.getsource(fn) + "\n" for fn in (
    util.fd_jvp, util._inexact, util._tree_map, util.central_difference,
    util.central_gradient, util.central_jacobian)), "    ")

# A model of scipy.special and scipy.linalg, and central differences to check it against.
MODEL = """
    from __future__ import annotations
    import sys
    import numpy as np
    import fwdad
    from fwdad.tangents import perturb

""" + _CENTRAL + """
    central = central_jacobian

    def close(got, expected):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)

    X = np.array([0.3, 1.2, 0.7])
"""
USES = """
    import scipy.linalg as sl
    import scipy.special as sc

    def model(x):
        a = np.eye(3) * 4.0 + np.outer(x, x)
        return sc.erf(x) * sc.logsumexp(x) + sl.solve(a, sc.gammaln(x + 1.0))

    def total(x):
        return np.sum(model(x) ** 2)
"""


def test_every_mode_after_scipy_is_imported_after_fwdad(tmp_path):
    out = run_fresh(tmp_path, MODEL + """
    import scipy.special, scipy.linalg
    assert "scipy.optimize" not in sys.modules  # (loading special and linalg needs none)
    """ + USES + """
    jac = central(model, X)
    close(fwdad.jvp(model, (X,), (np.ones(3),))[1], jac @ np.ones(3))
    close(fwdad.jacfwd(model)(X), jac)
    close(fwdad.jacrev(model)(X), jac)
    close(fwdad.grad(total)(X), central(total, X))
    close(fwdad.hessian(total)(X), central(fwdad.grad(total), X))
    y, lin = fwdad.linearize(model, X)
    close(lin(np.ones(3)), jac @ np.ones(3))
    close(lin.T(np.ones(3))[0], np.ones(3) @ jac)
    print(fwdad.is_primitive(sc.erf), fwdad.is_primitive(sl.solve),
          "scipy.optimize" in sys.modules)
    """)
    assert out.split() == ["True", "True", "False"]


@pytest.mark.parametrize("first", ["jvp", "grad", "derive_frule", "jacobian_sparsity"])
def test_a_function_derived_first_calls_the_registered_rules(tmp_path, first):
    """The first lookup of a SciPy function comes while fwdad builds the rule of a
    user's function: it must find the registered rule (logsumexp has Python source,
    which fwdad would otherwise derive a rule from; erf has none)."""
    out = run_fresh(tmp_path, MODEL + USES + f"""
    from fwdad.forward.cache import derived_rules
    first = {first!r}
    if first == "jvp":
        close(fwdad.jvp(model, (X,), (np.ones(3),))[1], central(model, X) @ np.ones(3))
    elif first == "grad":
        close(fwdad.grad(total)(X), central(total, X))
    elif first == "derive_frule":
        rule = fwdad.derive_frule(model).frule
        close(rule(fwdad.Dual(X, np.ones(3))).tangent, central(model, X) @ np.ones(3))
    else:
        pattern = fwdad.jacobian_sparsity(model, X).toarray()
        assert pattern.all(), pattern  # (solve mixes every item)
    close(fwdad.jacfwd(model)(X), central(model, X))
    print(sc.logsumexp in derived_rules, fwdad.is_primitive(sc.logsumexp))
    """)
    assert out.split() == ["False", "True"]


def test_is_primitive_after_importing_scipy_special_only(tmp_path):
    """Loading scipy.special's rules imports no other part of SciPy (scipy.linalg's
    import took half a second) than scipy.special imports itself (SciPy 1.18 and later
    import scipy.linalg with it)."""
    out = run_fresh(tmp_path, """
    import sys
    import fwdad
    import scipy.special
    before = set(sys.modules)
    print(fwdad.is_primitive(scipy.special.erf), fwdad.is_primitive(scipy.special.gammaln),
          [m for m in ("scipy.linalg", "scipy.optimize") if m in set(sys.modules) - before])
    """)
    assert out.split() == ["True", "True", "[]"]


def test_a_reverse_lookup_first(tmp_path):
    out = run_fresh(tmp_path, """
    import fwdad
    import scipy.special
    from fwdad.reverse.registry import get_rrule
    print(get_rrule(scipy.special.erf) is not None)
    """)
    assert out.split() == ["True"]


def test_numpy_i0_has_its_rule_without_importing_scipy(tmp_path):
    """np.i0's rule is SciPy's i1 (fwdad/rules/scipy_special.py): its lookup loads it."""
    out = run_fresh(tmp_path, MODEL + """
    def sum_i0(x):
        return np.sum(np.i0(x))

    derivative = np.diag(central(np.i0, X))
    close(fwdad.jvp(np.i0, (X,), (np.ones(3),))[1], derivative)
    close(fwdad.grad(sum_i0)(X), derivative)
    print(fwdad.is_primitive(np.i0))
    """)
    assert out.split() == ["True"]


def test_the_solvers_rules_load_with_scipy_optimize(tmp_path):
    out = run_fresh(tmp_path, MODEL + """
    import scipy.integrate as si
    import scipy.optimize as so

    def cube(x, a):
        return x ** 3 - a

    def wave(t, a):
        return np.sin(a * t)

    def f(a):
        return so.brentq(cube, 0.0, 10.0, args=(a,)) + si.quad(wave, 0.0, 1.0, args=(a,))[0]

    a = np.array([2.0])
    expected = central(lambda a: f(a[0]), a)[0]
    close(fwdad.grad(f)(2.0), expected)
    close(fwdad.jvp(f, (2.0,), (1.0,))[1], expected)
    from fwdad.rules import scipy_support
    print(sorted(scipy_support.loaded_parts()))
    """)
    assert out.split() == ["['solvers']"]


def test_threads_that_first_meet_scipy_at_once(tmp_path):
    """Eight threads start differentiating SciPy code at once: one loads the rules, the
    others wait for it, and each gets the right derivative."""
    out = run_fresh(tmp_path, MODEL + USES + """
    import threading
    barrier = threading.Barrier(8)
    expected, results = central(total, X), []

    def work(mode):
        barrier.wait()
        if mode:
            results.append(fwdad.grad(total)(X))
        else:
            results.append(fwdad.jacfwd(total)(X))

    threads = [threading.Thread(target=work, args=(i % 2,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in results:
        close(got, expected)
    print(len(results))
    """)
    assert out.split() == ["8"]


def test_scipy_imported_before_fwdad_loads_its_parts_at_import(tmp_path):
    out = run_fresh(tmp_path, """
    import scipy.linalg
    import scipy.special
    import fwdad
    from fwdad.rules import registry, scipy_support
    print(sorted(scipy_support.loaded_parts()),
          any(e.primal is scipy.special.erf for e in registry.entries()))
    """)
    assert out.split() == ["['linalg',", "'special']", "True"]


def test_each_part_registers_only_rules_of_its_own_functions(tmp_path):
    """The lookups load the part `part_of(fn)` names: every rule a part registers (forward,
    reverse, sparsity) must be of a function that part_of maps to it, or the lookup of
    that function would not find it (fwdad's own helpers are only called by the
    rules)."""
    out = run_fresh(tmp_path, """
    import fwdad
    import scipy.integrate, scipy.linalg, scipy.optimize, scipy.special
    from fwdad.reverse import registry as reverse
    from fwdad.rules import registry as forward, scipy_support
    from fwdad.sparsity import table

    def rows():
        return ({id(e.primal): e.primal for e in forward.entries()}
                | {id(e.primal): e.primal for e in reverse.entries()}
                | {id(fn): fn for fn in table.LOCAL_RULES})

    wrong = []
    for part in scipy_support.PARTS:
        before = rows()
        assert scipy_support.load_part(part)
        new = [fn for key, fn in rows().items() if key not in before]
        assert new, part
        wrong += [(part, fn) for fn in new if scipy_support.part_of(fn) != part
                  and not (getattr(fn, "__module__", None) or "").startswith("fwdad.")]
    print(wrong)
    """)
    assert out.strip() == "[]"


def test_rules_loaded_inside_rules_restored_stay(tmp_path):
    """Tests restore the rule tables (tests/conftest.py's restore_rules): SciPy's rules,
    loaded once, must not be dropped by a restore around their first use."""
    out = run_fresh(tmp_path, MODEL + USES + """
    from fwdad.reverse.registry import rrules_restored
    from fwdad.rules.registry import rules_restored
    with rules_restored(), rrules_restored():
        close(fwdad.grad(total)(X), central(total, X))
    close(fwdad.grad(total)(X), central(total, X))
    close(fwdad.jacfwd(model)(X), central(model, X))
    print(fwdad.is_primitive(sc.erf))
    """)
    assert out.split() == ["True"]


def test_a_rule_the_user_registered_before_the_load_stays_theirs(tmp_path):
    """As when SciPy's rules were registered at import, before any of the user's."""
    out = run_fresh(tmp_path, MODEL + """
    import scipy.special as sc

    @fwdad.frule(sc.erf)
    def my_erf(x: fwdad.Dual) -> fwdad.Dual:
        return fwdad.Dual(sc.erf(x.primal), 42.0 * x.tangent)

    @fwdad.reverse.rrule(sc.erf)
    def my_erf_rrule(x):
        return sc.erf(x), lambda ct: (42.0 * ct,)

    def f(x):
        return np.sum(sc.gammaln(x) + sc.erf(x))

    gammaln = central(lambda x: np.sum(sc.gammaln(x)), X)
    close(fwdad.jvp(f, (X,), (np.ones(3),))[1], np.sum(gammaln) + 42.0 * 3)
    close(fwdad.grad(f)(X), gammaln + 42.0)
    from fwdad.rules import scipy_support
    print(sorted(scipy_support.loaded_parts()))
    """)
    assert out.split() == ["['special']"]
