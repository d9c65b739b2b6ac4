"""Every primitive fwdad registers has a row in the case tables, and is_primitive
knows the registered functions from plain Python ones."""
import math

import numpy as np

from fwdad.errors import describe
from fwdad.rules import registry, scipy_support
from tests.rules.cases import CASES, unwrap
from tests.rules.infinite_iterators import COVERS as ITERATOR_COVERS
from tests.rules.scipy_optimize_cases import COVERS

scipy_support.load()  # (SciPy's rules register on first use: the walks see them all)


# Rules for fwdad's own machinery (Dual, const, call, jvp itself, ...) are used when a
# generated rule is differentiated again; tests/test_higher_order.py checks them through
# jvp of jvp against finite differences on the whole corpus. The helpers that normalized
# code calls (fwdad.lang) are user-facing and keep their rows here.
def _machinery(entry: registry.RuleEntry) -> bool:
    module = getattr(entry.primal, "__module__", "") or ""
    return module.startswith("fwdad.") and module != "fwdad.lang"


def _fwdads_own(entry: registry.RuleEntry) -> bool:
    """Rules that fwdad registers (other tests register rules of their own)."""
    return getattr(entry.rule, "__module__", "").startswith("fwdad.") \
        and not _machinery(entry)


def test_every_registered_rule_has_a_case():
    covered = {unwrap(row).fn for row in CASES} | set(COVERS) | set(ITERATOR_COVERS)
    missing = [describe(entry.primal) for entry in registry.entries()
               if _fwdads_own(entry) and entry.primal not in covered]
    assert not missing, f"registered rules with no row in tests/rules/cases.py: {missing}"


def test_is_primitive_for_registered_functions():
    assert all(registry.is_primitive(entry.primal) for entry in registry.entries())
    assert registry.is_primitive(np.sin) and registry.is_primitive(math.sin)
    assert registry.is_primitive(np.ndarray.sum) and registry.is_primitive(list.append)


def test_is_not_primitive_for_a_python_function():
    def square(x):
        return x * x
    assert not registry.is_primitive(square)
    assert not registry.is_primitive({})  # unhashable: never registered


def _template_values(template, entry):
    """The template's primal and tangent at a point where its rule is defined: floats,
    or 2x2 arrays for the rules of arrays (matmul, sum)."""
    import ast

    from fwdad.dual import Dual
    rng = np.random.default_rng(3)
    for make in (lambda: float(rng.uniform(0.2, 0.9)), lambda: rng.uniform(0.2, 0.9, (2, 2))):
        points = [(make(), make()) for _ in template.params]
        env = {**template.globals}
        for (x, dx), p, dp in zip(points, template.params, template.tangents):
            env[p], env[dp] = x, dx
        try:
            out = eval(compile(ast.Expression(template.primal), "<template>", "eval"), env)
        except (TypeError, ValueError):  # (matmul of floats)
            continue
        env["out"] = out
        tangent = eval(compile(ast.Expression(template.tangent), "<template>", "eval"), env)
        return entry.callable(*(Dual(x, dx) for x, dx in points)), out, tangent
    raise AssertionError(f"no point to evaluate the template of {describe(entry.primal)}")


def test_every_template_is_its_rules_math():
    """A template on an entry computes what the entry's rule computes (the optimizer
    inlines one in place of the other)."""
    templated = [e for e in registry.entries() if e.template is not None]
    assert len(templated) > 20
    for entry in templated:
        rule_out, out, tangent = _template_values(entry.template, entry)
        assert np.allclose(rule_out.primal, out), describe(entry.primal)
        assert np.allclose(rule_out.tangent, tangent), describe(entry.primal)
