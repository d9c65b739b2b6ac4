"""Rules specialized on constant arguments (forward/routes.Specialized): jvp given None
or zero tangents, and static calls given plain locals, literals or globals, run a
variant that treats those arguments as constants. Each derivative is checked against
central differences along the tangents actually given (zeros for the constants)."""
import gc
import math

import numpy as np
import pytest

import fwdad
from fwdad.forward import routes
from tests.util import assert_close, fd_jvp

DATA = np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def scaled_sum(x, h, y0):
    y, t = y0, 0.0
    for _ in range(3):
        y = y + h * (math.sin(t) * x - y)
        t = t + h
    return y


def layer(w, x, b):
    return np.tanh(x @ w + b)


def fill(buf, k):
    buf[0] = k * 2.0  # a constant argument written with an active value
    view = buf[1:]
    view *= k
    return np.sum(buf * buf)


def helper(u, s=1.0):
    return np.sin(u) * s + u


def calls_with_constants(x, h):
    c = 0.5 * h  # a plain local: its tangent is zero whatever the inputs
    a = helper(x, c)
    b = helper(DATA[0], s=x[0])  # a global array as the first argument
    return a + helper(x, 2.0) + b


def returns_constant(x, y0):
    return y0 * 3.0, x


def _zeros_for(args, tangents):
    return [np.zeros(np.shape(a)) if t is None and np.ndim(a) else
            0.0 if t is None and isinstance(a, float) else t for a, t in zip(args, tangents)]


def _keys_of(fn):
    """The keys of the variants built for `fn`'s optimized rule, without their kinds."""
    return [routes.unkinded_key(key)[0] for key in _variants_of(fn)]


def _variants_of(fn):
    """The keys of the variants built for `fn`'s optimized rule."""
    rule = fwdad.derive_frule(fn).frule
    built = routes.routes_of(rule)
    return set(built.variants) if built else set()


CASES = [
    (scaled_sum, (0.7, 0.1, 1.0), (1.0, None, None)),
    (scaled_sum, (0.7, 0.1, 1.0), (None, 1.0, 0.0)),
    (scaled_sum, (0.7, 0.1, 1.0), (0.0, 0.0, 1.0)),
    (layer, (np.eye(3) * 0.5, DATA, np.ones(3)), (np.ones((3, 3)), None, None)),
    (layer, (np.eye(3) * 0.5, DATA, np.ones(3)), (None, np.ones((2, 3)), np.zeros(3))),
    (layer, (np.eye(3) * 0.5, DATA, np.ones(3)), (None, None, np.ones(3))),
    (calls_with_constants, (np.array([0.3, -0.2, 0.9]), 0.4), (np.ones(3), None)),
    (calls_with_constants, (np.array([0.3, -0.2, 0.9]), 0.4), (None, 1.0)),
    (returns_constant, (np.array([1.0, 2.0]), 2.5), (np.ones(2), None)),
]


@pytest.mark.parametrize("fn, args, tangents", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_constant_arguments_give_the_derivative_along_the_rest(fn, args, tangents):
    out, tangent = fwdad.jvp(fn, args, tangents)
    zeros = _zeros_for(args, tangents)
    assert_close(out, fn(*args), rtol=1e-12, atol=0)
    assert_close(tangent, fd_jvp(fn, args, zeros), rtol=1e-6, atol=1e-8)


def test_a_constant_argument_written_with_an_active_value():
    buf, k = np.array([1.0, 2.0, 3.0]), 0.5
    out, tangent = fwdad.jvp(fill, (buf.copy(), k), (None, 1.0))
    h = 1e-6
    fd = (fill(buf.copy(), k + h) - fill(buf.copy(), k - h)) / (2 * h)
    assert out == pytest.approx(fill(buf.copy(), k))
    assert tangent == pytest.approx(fd, rel=1e-6)


def test_jvp_uses_the_variant_for_none_and_zero_tangents():
    fwdad.jvp(scaled_sum, (0.7, 0.1, 1.0), (1.0, None, 0.0))
    assert (("h", routes.FLOAT), ("y0", routes.FLOAT)) in _keys_of(scaled_sum)


def test_the_variant_does_no_tangent_work_for_constants():
    fwdad.jvp(layer, (np.eye(3), DATA, np.ones(3)), (np.ones((3, 3)), None, None))
    rule = fwdad.derive_frule(layer).frule
    variant, = [v for key, v in routes.routes_of(rule).variants.items()
                if routes.unkinded_key(key)[0] == (("x", ""), ("b", ""))]
    assert "x @ dw" in variant.source and "dx" not in variant.source
    assert "db" not in variant.source


def test_a_static_call_with_constant_arguments_runs_the_callee_variant():
    fwdad.jvp(calls_with_constants, (np.array([0.3, -0.2, 0.9]), 0.4), (np.ones(3), None))
    assert (("s", routes.FLOAT),) in _keys_of(helper)


def test_a_zero_tangent_of_the_wrong_shape_is_still_refused():
    with pytest.raises(fwdad.TangentError):
        fwdad.jvp(layer, (np.eye(3), DATA, np.ones(3)), (np.ones((3, 3)), None, np.zeros(4)))


def test_variants_are_built_once():
    for _ in range(3):
        fwdad.jvp(scaled_sum, (0.7, 0.1, 1.0), (1.0, None, None))
    gc.collect()
    assert len(_variants_of(scaled_sum)) >= 1
    before = len(_variants_of(scaled_sum))
    fwdad.jvp(scaled_sum, (0.9, 0.2, 1.5), (2.0, None, None))
    assert len(_variants_of(scaled_sum)) == before
