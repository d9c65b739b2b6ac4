"""State a differentiated function keeps outside its arguments (a global array, dict,
list or instance written by name, a mutable default) that it touches both outside and
inside a jvp (or jacfwd, grad) it calls itself. Code at each level sees the state as the
code below left it: a nested jvp sees it with a new inner perturbation of zero, the
outer derivative of what the outer code wrote kept; after it returns, the outer code
sees what it wrote with the outer derivative only; a second nested jvp starts again
from a zero inner perturbation (forward/state_levels.py, forward/defaults.close_nested).
Each was a silent wrong derivative before: the outer derivative of what the function
wrote lost inside the jvp, the inner perturbation read outside it, and a second jvp
starting from the first one's inner tangent (even the value was wrong: 0.03 for 0.01).
Every derivative is checked against central differences of the plain function."""
import numpy as np
import pytest

import fwdad

V, U, X = np.array([1.0, 0.5, -0.25]), np.array([0.2, -1.0, 0.7]), np.array([0.3, -0.4, 0.8])
G = np.zeros(3)
D = {"a": np.zeros(3)}
L = [np.zeros(3)]


class Box:
    def __init__(self) -> None:
        self.v = np.zeros(3)


B = Box()


def _read_g(y):
    return np.sum(G * y)


def written_outside_read_inside(x):
    G[...] = x * x
    return fwdad.jvp(_read_g, (x,), (V,))[1]


def _write_g(y):
    G[...] = y * y
    return np.sum(y)


def written_inside_read_outside(x):
    fwdad.jvp(_write_g, (x,), (V,))
    return np.sum(G * x)


def written_by_one_inner_jvp_read_by_another(x):
    fwdad.jvp(_write_g, (x,), (V,))
    return fwdad.jvp(_read_g, (x,), (V,))[1]


def _keep(a, buf=[]):  # noqa: B006 (the mutable default is the point)
    buf.clear()
    buf.append(a * a)
    return buf[0]


def default_written_outside_read_inside(x):
    _keep(x)
    return fwdad.jvp(lambda y: np.sum(_keep.__defaults__[0][0] * y), (x,), (V,))[1]


def _scale_g(y):
    a = np.sum(G * y)
    G[...] = G * y  # (reads what the outer code wrote, with its outer derivative)
    return a + np.sum(G)


def updated_inside_read_on_both_sides(x):
    G[...] = x
    d = fwdad.jvp(_scale_g, (x,), (V,))[1]
    return d + np.sum(G * x * x)


def _write_d(y):
    D["a"] = y * y
    return np.sum(y)


def dict_written_inside_read_outside(x):
    fwdad.jvp(_write_d, (x,), (V,))
    return np.sum(D["a"] * x)


def dict_written_outside_read_inside(x):
    D["a"] = x * np.sin(x)
    return fwdad.jvp(lambda y: np.sum(D["a"] * y * y), (x,), (V,))[1]


def _write_l(y):
    L[0] = y * y
    return np.sum(y)


def list_written_by_one_inner_jvp_read_by_another(x):
    fwdad.jvp(_write_l, (x,), (V,))
    return fwdad.jvp(lambda y: np.sum(L[0] * y), (x,), (V,))[1]


def _write_b(y):
    B.v = y * np.cos(y)
    return np.sum(y)


def instance_written_inside_read_outside(x):
    fwdad.jvp(_write_b, (x,), (V,))
    return np.sum(B.v * x)


def _middle(y):
    G[...] = G * y
    return fwdad.jvp(_read_g, (y,), (V,))[1] + np.sum(G)


def three_levels(x):
    """A jvp inside a jvp inside the function, each level writing or reading G."""
    G[...] = x * x
    return fwdad.jvp(_middle, (x,), (U,))[1] + np.sum(G * x)


def written_outside_read_by_an_inner_grad(x):
    G[...] = x * x
    return np.sum(fwdad.grad(_read_g)(x) * x)


def written_by_an_inner_grad_read_outside(x):
    fwdad.grad(_write_g)(x)
    return np.sum(G * x)


def written_outside_read_by_an_inner_jacfwd(x):
    G[...] = x * x
    return np.sum(fwdad.jacfwd(_read_g)(x) * np.cos(x))


PROGRAMS = [written_outside_read_inside, written_inside_read_outside,
            written_by_one_inner_jvp_read_by_another, default_written_outside_read_inside,
            updated_inside_read_on_both_sides, dict_written_inside_read_outside,
            dict_written_outside_read_inside, list_written_by_one_inner_jvp_read_by_another,
            instance_written_inside_read_outside, three_levels,
            written_outside_read_by_an_inner_grad, written_by_an_inner_grad_read_outside,
            written_outside_read_by_an_inner_jacfwd]
# (a hessian of a function that calls grad or jacfwd nests them three deep: refused
# for any function, fwdad/nesting.py)
SECOND_ORDER = [f for f in PROGRAMS if "grad" not in f.__name__ and "jacfwd" not in
                f.__name__]


def _gradient_by_differences(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


def _hessian_by_differences(f, x, h=1e-4):
    eye = np.eye(x.size)
    return np.array([[(f(x + h * a + h * b) - f(x + h * a - h * b) - f(x - h * a + h * b) +
                       f(x - h * a - h * b)) / (4 * h * h) for b in eye] for a in eye])


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_a_jvp_of_a_function_that_calls_jvp(f):
    h = 1e-6
    want = (f(X + h * U) - f(X - h * U)) / (2 * h)
    value, derivative = fwdad.jvp(f, (X,), (U,))
    assert value == pytest.approx(f(X), rel=1e-12)
    assert derivative == pytest.approx(want, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("transformation", [fwdad.grad, fwdad.jacfwd, fwdad.jacrev],
                         ids=["grad", "jacfwd", "jacrev"])
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_its_gradient(f, transformation):
    """grad and jacrev take the outer derivative in forward mode (reverse mode over a
    nested transformation: fwdad/nesting.py); jacfwd in one batched pass."""
    got = transformation(f)(X)
    assert got == pytest.approx(_gradient_by_differences(f, X), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("f", SECOND_ORDER, ids=lambda f: f.__name__)
def test_its_hessian(f):
    got = fwdad.hessian(f)(X)
    assert got == pytest.approx(_hessian_by_differences(f, X), rel=1e-5, abs=1e-6)


def test_a_linearize_of_it():
    f = written_by_one_inner_jvp_read_by_another
    value, linear = fwdad.linearize(f, X)
    assert value == pytest.approx(f(X), rel=1e-12)
    assert linear(U) == pytest.approx(_gradient_by_differences(f, X) @ U, rel=1e-6)


def test_a_vjp_of_it_is_refused():
    """Reverse mode over a nested transformation is refused for any function (grad,
    above, takes the outer derivative in forward mode instead)."""
    with pytest.raises(fwdad.FwdadError, match="nested transformation"):
        fwdad.vjp(written_inside_read_outside, X)


def _write_g_and_stop(y):
    G[...] = y * y
    raise ValueError("stop")


def test_a_nested_jvp_stopped_by_an_error_caught():
    """What a nested jvp stopped by an error wrote settles as a plain call leaves it;
    the next one starts from a zero inner perturbation."""
    def f(x):
        try:
            fwdad.jvp(_write_g_and_stop, (x * 2.0,), (V,))
        except ValueError:
            pass
        return fwdad.jvp(_read_g, (x,), (V,))[1] + np.sum(G * x)

    h = 1e-6
    derivative = fwdad.jvp(f, (X,), (U,))[1]
    assert derivative == pytest.approx((f(X + h * U) - f(X - h * U)) / (2 * h), rel=1e-6)
