"""In-place updates of array locals in optimized rules (forward/optimizer/inplace.py):
the optimized rule and its batched variant against the plain rule, finite differences
and jacfwd, on slices, int and fancy indices, masks, whole-array updates, updates in
loops and branches; and the locals that must stay boxed (views, copies, arguments)."""
import copy

import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from tests.util import assert_close, assert_optimized_matches_plain, fd_jvp

C = np.array([0.5, -1.0, 2.0, 0.25, 1.5])


# ---- updates of a local nothing else holds: split, updated in place --------------------
def slice_update(x):
    r = np.sin(x) * 2.0
    r[1:-1] += x[2:] * x[:-2]
    return r


def element_updates(x):
    r = x * x
    r[0] = x[1] * 3.0
    r[-1] -= np.sum(x) * 0.5
    return r


def fancy_updates(x):
    r = x + 1.0
    r[[0, 2]] += x[[1, 3]] ** 2
    r[np.array([1, 3])] = x[:2] * x[2:4]
    return r


def mask_update(x):
    r = x * 2.0
    r[x > 0.5] = 0.25
    return r * x


def whole_updates(x):
    r = x * 3.0
    r += np.exp(x)
    r *= x
    r -= x * x
    r /= 2.0 + x * x
    return r


def loop_updates(x):
    r = x * 1.0
    for i in range(3):
        r[i] += x[i + 1] ** 2
        r[i + 1] *= 0.5
    return r


def branch_updates(x):
    r = np.tanh(x) * 1.0
    if x[0] > 0:
        r[0] = 5.0
    else:
        r[1:] *= x[:-1]
    return r + x


def constant_then_update(x):
    """r starts with no tangent (a constant): the update gives it one."""
    r = C * 2.0
    r[1] = x[0] * x[2]
    r[3:] += x[3:]
    return r


def two_dimensional(x):
    g = x[:2, None] * x[None, 2:4]
    g[:, 1] += x[:2] * 3.0
    g[1, :] -= np.exp(x[2:4])
    return np.sum(g * x[4], axis=1)


def value_is_another_update(x):
    a = x * 2.0
    b = x * 3.0
    a[0] = 1.0
    b[0:5] += a
    return b


def no_derivative_written(x):
    r = x * 2.0
    r[0] = 7.0
    r[1:3] += C[:2]
    return r


def copies_in_a_loop(x):
    """s's tangent is a copy of r's (`+dr`): the next update of r must not reach it."""
    r = x * 1.0
    out = x * 0.0
    for i in range(3):
        r[0] += x[1]
        s = r + 0.0
        out = out + s * x
        r = r * 1.5
    return out + r


def update_then_rebind(x):
    r = x * 2.0
    r[1:3] -= x[:2]
    r = r * r
    r[0] = x[4]
    return r


def out_argument(x):
    r = x * 2.0
    np.add(r, x, out=r)
    return r


def outs_of_ufuncs(x):
    """`ufunc(a, b, out=r)` on a local nothing else holds: joined, r's primal and
    tangent written in place by the ufunc's frule (forward/optimizer/updates.py)."""
    r = x * 0.0
    y = np.sin(x)
    np.add(y, x * x, out=r)
    r += y
    r = np.multiply(r, x, out=r)  # (the result bound to r again)
    np.exp(r, out=r)
    np.subtract(C, r, out=r)  # (inputs with no tangent)
    return r * x


def out_in_a_loop(x):
    r = x * 1.0
    for i in range(3):
        np.multiply(r, 1.0 + 0.1 * x, out=r)
        r[i] += x[i + 1]
    return r


SPLIT = [copies_in_a_loop, update_then_rebind, slice_update, element_updates,
         fancy_updates, mask_update, whole_updates, loop_updates, branch_updates,
         constant_then_update, two_dimensional, value_is_another_update,
         no_derivative_written, out_argument, outs_of_ufuncs, out_in_a_loop]


# ---- a local with no tangent, and one boxed for another reason, updated in place ------
def constant_updated(x):
    """c never depends on x: its updates run on primals alone."""
    c = C * 2.0
    c[1:3] += 1.0
    c *= 0.5
    c[0] = 4.0
    return x * c


def boxed_by_a_method_call(x):
    """(r * 1.0).astype(float) is a dynamic call (not one of the methods known pure on
    float arrays, forward/optimizer/methods.py), which may mutate what it is called on,
    and so, for the analysis, what that was made from: r stays boxed, and its updates
    call the plain rule's frules."""
    r = x * 2.0
    r[1:] += x[:-1]
    r[0] = x[4] * x[4]
    return (r * 1.0).astype(float)


def updated_number(x):
    s = np.sum(x) * 1.0
    s += x[0]
    s *= x[1]
    return s


def constant_out(x):
    """c never depends on x: `out=c` runs on primals alone."""
    c = C * 2.0
    np.multiply(c, 0.5, out=c)
    return x * c


OTHERS = [constant_updated, boxed_by_a_method_call, updated_number, constant_out]


@pytest.mark.parametrize("fn, helper", [(constant_updated, "_fw_update_primal"),
                                        (boxed_by_a_method_call, "_fw_update_boxed"),
                                        (updated_number, "_fw_update_owned"),
                                        (constant_out, "_fw_out_primal")],
                         ids=lambda v: getattr(v, "__name__", v))  # (names, not addresses:
# every xdist worker must collect the same ids)
def test_other_kinds_of_local_are_updated(fn, helper):
    assert helper in build_rule(fn).source


# ---- a second name for the memory: left as it was (boxed, the plain rule's calls) -------
def view_then_update(x):
    r = x * 2.0
    v = r[1:]
    v += x[:-1]
    return r


def copy_then_update(x):
    r = x * 2.0
    s = r
    s[0] = x[1]
    return r + s


def update_from_itself(x):
    r = x * 2.0
    r[1:] += r[:-1]
    return r


def update_an_argument(x):
    x[0] += 1.0
    return x * 2.0


def out_into_an_argument(x):
    np.multiply(x, 2.0, out=x)
    return x * 3.0


def out_result_kept(x):
    r = x * 2.0
    s = np.add(r, x, out=r)  # (s is a second name for r)
    s[0] = 1.0
    return r + s


def out_into_a_view(x):
    r = x * 2.0
    np.add(x[1:], 1.0, out=r[1:])
    return r


BOXED = [view_then_update, copy_then_update, update_from_itself, update_an_argument,
         out_into_an_argument, out_result_kept, out_into_a_view]


def _point():
    return np.array([0.3, 0.7, -0.4, 1.1, 0.9])


def _ids(fn):
    return fn.__name__


@pytest.mark.parametrize("fn", SPLIT, ids=_ids)
def test_private_locals_are_split(fn):
    source = build_rule(fn).source
    assert "_fw_update_owned" in source, source
    assert "_fw_setitem(" not in source, source


@pytest.mark.parametrize("fn", BOXED, ids=_ids)
def test_shared_memory_keeps_the_plain_calls(fn):
    assert "_fw_update_owned" not in build_rule(fn).source


@pytest.mark.parametrize("fn", SPLIT + OTHERS + BOXED, ids=_ids)
def test_optimized_rule_matches_plain_rule(fn):
    optimized, plain = build_rule(fn), build_rule(fn, optimized=False)
    args = (_point(),)
    assert_optimized_matches_plain(optimized, plain, args, np.random.default_rng(0))


@pytest.mark.parametrize("fn", SPLIT + OTHERS + BOXED, ids=_ids)
def test_jvp_and_jacfwd_match_finite_differences(fn):
    x = _point()
    tangent = np.random.default_rng(2).normal(size=x.shape)
    _, got = fwdad.jvp(fn, (x.copy(),), (tangent,))
    assert_close(got, fd_jvp(fn, (x.copy(),), (tangent,)), rtol=1e-6)
    columns = [fd_jvp(fn, (x.copy(),), (e,)) for e in np.eye(x.size)]
    assert_close(fwdad.jacfwd(fn)(x.copy()), np.stack(columns, axis=-1), rtol=1e-6)


def out_with_a_cast_refused(x):
    r = x > 0.5  # (a bool array: a float sum is not cast into it)
    np.add(x, 1.0, out=r)
    return x * 2.0


def test_an_out_refused_by_numpy_is_refused_alike():
    for rule in (build_rule(out_with_a_cast_refused),
                 build_rule(out_with_a_cast_refused, optimized=False)):
        with pytest.raises(TypeError, match="same_kind"):
            rule(Dual(_point(), np.ones(5)))


def test_update_widens_a_zero_tangent_in_a_batched_call():
    """r's tangent is a zero with no batch axis until a batched value is written."""
    x = _point()
    directions = np.eye(5)[:3]
    out, tangent = fwdad.batched_jvp(constant_then_update, (x,), (directions,))
    columns = [fd_jvp(constant_then_update, (x.copy(),), (d,)) for d in directions]
    assert_close(tangent, np.stack(columns), rtol=1e-6)
    assert_close(out, constant_then_update(x))


def test_the_caller_sees_an_updated_argument():
    x, dx = _point(), np.ones(5)
    _, got = fwdad.jvp(update_an_argument, (x,), (dx,))
    assert x[0] == pytest.approx(1.3)  # the primal was updated in place, as in Python
    assert_close(got, 2.0 * np.ones(5))


def test_benchmark_residuals_run_split():
    """residual_2d calls methods (`u.reshape(m, m)`): pure on a float array, so the
    variant for its arguments' kinds splits its locals (forward/optimizer/methods.py)."""
    from bench.sparse import residual_1d, residual_2d
    from bench.workloads_jacobian import pde_residual
    for fn in (pde_residual, residual_1d):
        assert "_fw_update_owned" in build_rule(fn).source, fn.__name__
    x = np.linspace(0.1, 0.9, 16)
    routes = build_rule(residual_2d).routes
    variant = routes.variant(routes.with_kinds((), (Dual(x, x),)))
    assert "_fw_update_owned" in variant.source and "_fw_call" not in variant.source
    assert_close(fwdad.jacfwd(residual_2d)(copy.deepcopy(x)), np.stack(
        [fd_jvp(residual_2d, (x.copy(),), (e,)) for e in np.eye(16)], axis=-1), rtol=1e-6)
