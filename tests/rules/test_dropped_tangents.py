"""Plain parameters and their tangents: every plain parameter of fwdad's rules is on the
table of rules/dropped_tangents.py (its tangent dropped, or refused), a tangent that
would be lost is refused at the user's line, and the parameters that carry one now are
differentiated (against central differences)."""
import inspect

import numpy as np
import pytest

import fwdad
from fwdad import testing
from fwdad.dual import Dual
from fwdad.errors import FwdadError, describe
from fwdad.rules import registry, scipy_support
from fwdad.rules.dropped_tangents import DROPPED, REFUSED, key_of
from fwdad.rules.plain_params import Adapter, _AllBut, with_plain_params
from fwdad.tangents import NoTangent
from tests.util import fd_jvp

scipy_support.load()  # (SciPy's rules register on first use: the walk sees them all)


def _adapters(c, seen=None):
    """The Adapters a registered callable calls (out= and list wrappers hold one)."""
    seen = set() if seen is None else seen
    if c is None or id(c) in seen:
        return []
    seen.add(id(c))
    found = [c] if isinstance(c, Adapter) else []
    inner = [getattr(c, "__wrapped__", None), getattr(c, "rule", None)]
    for cell in getattr(c, "__closure__", None) or ():
        inner.append(cell.cell_contents)
    return found + [a for i in inner if callable(i) for a in _adapters(i, seen)]


def _plain(adapter: Adapter) -> list:
    """The plain parameters of an adapter's rule ("*", "**" for its catch-alls)."""
    plain = []
    for i, p in enumerate(inspect.signature(adapter.rule).parameters.values()):
        if p.kind == p.VAR_POSITIONAL:
            plain += [] if adapter.dual_star else ["*"]
        elif p.kind == p.VAR_KEYWORD:
            plain += [] if isinstance(adapter.dual_kw, _AllBut) else ["**"]
        elif not (i in adapter.dual_at and p.kind != p.KEYWORD_ONLY
                  or p.kind != p.POSITIONAL_ONLY and p.name in adapter.dual_kw):
            plain.append(p.name)
    return plain


def _fwdads_rules():
    for entry in registry.entries():
        if entry.kind == "nondiff":
            continue
        for adapter in _adapters(entry.callable):
            if getattr(adapter.rule, "__module__", "").startswith("fwdad."):
                yield entry, adapter


def test_every_plain_parameter_is_dropped_or_refused_on_the_table():
    missing = []
    for entry, adapter in _fwdads_rules():
        key = key_of(adapter.rule)
        listed = DROPPED.get(key, "").split() + REFUSED.get(key, "").split()
        missing += [f"{describe(entry.primal)} ({key}): {name}"
                    for name in _plain(adapter) if name not in listed]
    assert not missing, "plain parameters on neither list of rules/dropped_tangents.py: " \
        + "; ".join(missing)


def test_every_key_of_the_table_names_a_registered_rule():
    keys = {key_of(adapter.rule) for _, adapter in _fwdads_rules()}
    stale = sorted((set(DROPPED) | set(REFUSED)) - keys)
    assert not stale, f"rules/dropped_tangents.py names rules not registered: {stale}"


# ---- at run time ---------------------------------------------------------------------
def _scale(x: Dual, c) -> Dual:  # a user's rule that takes c as a constant
    return Dual(x.primal * c, x.tangent * c)


def test_a_users_plain_parameter_refuses_a_tangent_and_takes_a_zero_one():
    rule = with_plain_params(_scale, fn=np.multiply)
    x = Dual(np.ones(2), np.ones(2))
    with pytest.raises(FwdadError, match=r"numpy.multiply: its argument c has a derivative"):
        rule(x, Dual(2.0, 1.0))
    with pytest.raises(FwdadError, match="its argument c= has a derivative"):
        rule(x, c=Dual(2.0, np.array([0.0, 1.0])))  # (a batch: one non-zero)
    for zero in (NoTangent, 0.0, np.zeros(3)):
        assert np.all(rule(x, Dual(2.0, zero)).tangent == 2.0)


def test_a_rule_without_a_derivative_drops_every_tangent():
    rule = with_plain_params(_scale, fn=np.multiply, nondiff=True)
    assert rule(Dual(1.0, 1.0), Dual(2.0, 1.0)).primal == 2.0


def _fixed(x):
    return np.sin(x) * 2.0


def test_a_rule_with_nothing_to_check_checks_nothing():
    """The common path: plain parameters all on DROPPED (sum's axis), or none."""
    sum_adapters = [a for e, a in _fwdads_rules() if e.primal is np.sum]
    assert sum_adapters and not any(a.checks for a in sum_adapters)


# ---- parameters the result depends on: refused ---------------------------------------
X = np.array([0.7, 1.3, 2.1])

REFUSED_CALLS = [
    ("numpy.nan_to_num", "nan=", lambda x: np.nan_to_num(np.array([np.nan, 1.0]) * x[1],
                                                         nan=x[0])),
    ("numpy.nan_to_num", "posinf=", lambda x: np.nan_to_num(np.array([np.inf, 1.0]),
                                                            posinf=x[0])),
    ("numpy.cov", "ddof=", lambda x: np.cov(np.outer(x, x), ddof=x[0] * 0.5)),
]


@pytest.mark.parametrize("name, what, f", REFUSED_CALLS, ids=[c[0] + c[1] for c in
                                                             REFUSED_CALLS])
def test_a_tangent_the_rule_would_drop_is_refused_at_the_users_line(name, what, f):
    """These gave a wrong derivative, silently (the argument's own term missing)."""
    with pytest.raises(FwdadError, match=rf"{name} in <lambda> at .*test_dropped_tangents"
                                         rf".py:\d+: its argument {what} has a derivative"):
        fwdad.jvp(f, (X,), (np.array([0.3, -0.2, 0.5]),))


def test_the_same_arguments_as_constants_still_differentiate():
    def f(x):
        return (np.var(x, ddof=1.5) + np.linalg.norm(x, ord=3.5) + np.trapezoid(x, dx=0.5)
                + np.sum(np.logspace(x[0], 1.0, 3, base=2.0)))
    v = np.array([0.3, -0.2, 0.5])
    assert np.allclose(fwdad.jvp(f, (X,), (v,))[1], fd_jvp(f, (X,), (v,)), rtol=1e-6)


# ---- parameters now differentiated ---------------------------------------------------
def _ramp(x, ends):
    return np.pad(x, (1, 2), "linear_ramp", end_values=ends)


def _ramp_2d(x, ends):
    return np.pad(x, ((1, 2), (2, 1)), "linear_ramp", end_values=ends)


def _trapezoid(y, dx):
    return np.trapezoid(y, dx=dx)


def _trapezoid_rows(y, dx):
    return np.trapezoid(y, dx=dx, axis=0)


def _logspace(start, base):
    return np.logspace(start, 1.5, 4, base=base)


def _norm(x, p):
    return np.linalg.norm(x, ord=p)


def _norm_rows(x, p):
    return np.linalg.norm(x, p, 1, True)


def _vector_norm(x, p):
    return np.linalg.vector_norm(x, axis=(0, 1), ord=p)


def _unwrap(p, period):
    return np.unwrap(p, period=period)


def _unwrap_rows(p, period):
    return np.unwrap(p, 0.4 * period, 1, period=period)


PHASES = np.array([0.1, 3.5, 6.6, 1.2, -4.0])
M23 = np.array([[0.3, -1.2, 0.5], [2.0, 0.0, -0.7]])  # (a zero entry)
ROWS = [
    (_trapezoid, (np.array([0.3, -1.2, 0.5, 2.0]), 0.7)),
    (_trapezoid_rows, (M23, 1.3)),
    (_logspace, (0.3, 2.5)),
    (_logspace, (np.array([0.3, -0.4]), 0.5)),
    (_norm, (np.array([0.3, -1.2, 0.5]), 3.5)),
    (_norm, (np.array([0.3, -1.2, 0.5]), 0.7)),
    (_norm, (np.array([0.3, -1.2, 0.5]), -1.5)),
    (_norm_rows, (M23, 2.5)),
    (_vector_norm, (np.stack([M23, M23 * 2]), 1.5)),
    (_ramp, (np.array([0.3, -1.2, 0.5]), 1.5)),
    (_ramp, (np.array([0.3, -1.2, 0.5]), np.array([1.5, -0.4]))),
    (_ramp_2d, (np.full((2, 3), 0.4), np.array([[1.5, 0.2], [0.3, 0.7]]))),
    (_unwrap, (PHASES, 2.5)),
    (_unwrap, (PHASES, 2 * np.pi)),
    (_unwrap_rows, (np.stack([PHASES, PHASES[::-1]]), 3.0)),
]


@pytest.mark.parametrize("f, args", ROWS, ids=[f"{f.__name__}{i}" for i, (f, _) in
                                               enumerate(ROWS)])
def test_rules_differentiate_the_parameters_they_took_as_constants(f, args):
    testing.test_rule(f, *args)


def test_ord_at_zero_and_infinity():
    """At ord = 0 (a count) the norm has no derivative in ord; at +-inf (max, min)
    that derivative tends to 0."""
    with pytest.raises(FwdadError, match=r"numpy.linalg.norm in .*<lambda> at .*py:\d+: ord=0.0 "
                                         r"has a derivative, and the norm has none"):
        fwdad.jvp(lambda x: np.linalg.norm(x[:2], ord=x[2] - X[2]), (X,), (X,))
    for p in (np.inf, -np.inf):
        moving = fwdad.jvp(lambda x: np.linalg.norm(x, ord=p + x[2]), (X,), (X,))[1]
        assert moving == fwdad.jvp(lambda x: np.linalg.norm(x, ord=p), (X,), (X,))[1]


def test_a_matrix_norms_ord_picks_a_norm_and_has_no_derivative():
    def f(x):
        return np.linalg.norm(np.outer(x, x[:2]), ord=round(x[2]) * x[2] / x[2])
    v = np.array([0.3, -0.2, 0.5])
    assert np.allclose(fwdad.jvp(f, (X,), (v,))[1], fd_jvp(f, (X,), (v,)), rtol=1e-6)


@pytest.mark.parametrize("f, x, v", [
    (lambda x: np.trapezoid(x, dx=x[0]), X, X[::-1]),
    (lambda x: np.logspace(0.0, 1.0, 4, base=x[1]), X, X[::-1]),
    (lambda x: np.linalg.norm(x, ord=x[2] + 1), X, X[::-1]),
    (lambda x: np.linalg.vector_norm(x, ord=x[2] + 1), X, X[::-1]),
    (lambda x: np.pad(x, 1, mode="linear_ramp", end_values=x[0] ** 2), X, X[::-1]),
    (lambda x: np.unwrap(np.array([0.0, 3.0, 6.5]) * x[0], period=x[2]), X, X[::-1]),
])
def test_parameters_taken_as_constants_against_central_differences(f, x, v):
    """trapezoid's dx=, logspace's base=, the norms' ord=, np.pad's end_values= and
    np.unwrap's period= dropped their tangents: a wrong derivative, silently."""
    assert np.allclose(fwdad.jvp(f, (x,), (v,))[1], fd_jvp(f, (x,), (v,)),
                       rtol=1e-6, atol=1e-9)


# ---- a user's rules ------------------------------------------------------------------
def _scaled(x, c):
    return x * c


def test_a_users_rule_refuses_a_tangent_at_a_plain_parameter_at_the_users_line():
    with registry.rules_restored():
        @fwdad.frule(_scaled)
        def _(x: Dual, c) -> Dual:
            return Dual(x.primal * c, x.tangent * c)

        assert fwdad.jvp(lambda x: _scaled(x, 2.0), (X,), (X,))[1] == pytest.approx(2 * X)
        with pytest.raises(FwdadError, match=r"_scaled in .*<lambda> at .*test_dropped_"
                                             r"tangents.py:\d+: its argument c has a "):
            fwdad.jvp(lambda x: _scaled(x, x[0]), (X,), (X,))


def test_def_linear_refuses_a_tangent_in_its_other_arguments():
    with registry.rules_restored():
        fwdad.def_linear(_scaled)
        assert fwdad.jvp(lambda x: _scaled(x, 2.0), (X,), (X,))[1] == pytest.approx(2 * X)
        with pytest.raises(FwdadError, match=r"its argument at position 2 has a "):
            fwdad.jvp(lambda x: _scaled(x, x[0]), (X,), (X,))


# ---- both modes ----------------------------------------------------------------------
BOTH = [
    lambda x: np.sum(np.heaviside(np.array([0.0, 1.0, -2.0]), x[0] * x[1])),  # (b at 0)
    lambda x: np.sum(np.arange(x[0], stop=3.0) ** 2),  # (x[0] is start, not stop)
    lambda x: np.sum(np.nan_to_num(np.log(x - 1.0), True, 2.0)),  # (NaN at x[0])
]


@pytest.mark.parametrize("f", BOTH, ids=["heaviside", "arange", "nan_to_num"])
def test_both_modes_against_central_differences(f):
    """heaviside's second argument had no derivative, arange(x, stop=...) took x for
    its stop, and nan_to_num with its fill value by position raised a TypeError."""
    rows = np.eye(3)
    want = np.array([fd_jvp(f, (X,), (v,)) for v in rows])
    assert np.allclose([fwdad.jvp(f, (X,), (v,))[1] for v in rows], want, rtol=1e-6)
    assert np.allclose(fwdad.grad(f)(X), want, rtol=1e-6)


def test_nan_to_num_gives_a_replaced_nan_a_zero_tangent():
    """Its tangent was NaN there (a NaN tangent times 0)."""
    def f(x):
        return np.nan_to_num(np.array([np.nan, 1.0]) * x[:2])
    with np.errstate(invalid="ignore"):
        assert np.array_equal(fwdad.jvp(f, (X,), (np.ones(3),))[1], [0.0, 1.0])


@pytest.mark.parametrize("f", [
    lambda x: np.linalg.norm(x, x[2] + 1.0),
    lambda x: np.var(x, None, None, None, x[0] * 0.5),
    lambda x: np.linalg.vector_norm(x, ord=x[2] + 1.0),
], ids=["norm-ord", "var-ddof", "vector_norm-ord"])
def test_reverse_mode_refuses_a_variable_at_a_position_it_does_not_follow(f):
    """A bare IndexError (the pullback has no cotangent for that position) before."""
    with pytest.raises(FwdadError, match=r"numpy\.(linalg\.norm|var): its argument at "
                                         r"position \d carries a derivative, which reverse"):
        fwdad.grad(f)(X)
