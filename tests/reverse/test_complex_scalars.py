"""NumPy complex scalars made from real arguments, in reverse mode: their methods
(z.conjugate(), z.astype(...), z.item(), ...; fwdad/reverse/rules_scalar_methods.py),
attributes and Python complex arithmetic, each program checked in grad against central
finite differences and forward mode, in jacrev against jacfwd, in vjp by the dot-product
test against jvp, and in hvp against finite differences of forward mode's gradient.
Methods not modelled for complex values are refused at the user's line
(docs/complex.md)."""
from __future__ import annotations

import numpy as np
import pytest

import fwdad
from fwdad.errors import NonDifferentiableError
from fwdad.reverse.adjoints import accumulate
from fwdad.reverse.var import Var
from tests.reverse.dot_product import check_dot_product
from tests.util import central_partials

ARGS = (np.float64(0.3), np.float64(-0.7), np.float64(1.1), np.float64(0.4))
DIRECTION = (0.2, 0.5, -0.4, 0.9)
C = 0.5 + 0.25j  # (so that the real output reads both parts of a complex value)


# ---- how the complex scalar is made from two real arguments --------------------------
def from_arithmetic(x, y):
    return x + 1j * y  # a np.complex128


def from_0d_array(x, y):
    return np.asarray(x + 1j * y)[()]


def from_indexed_array(x, y):
    return (np.array([x, y]) * (1.0 + 2.0j))[1]


# ---- what is done with it: z and w complex scalars, the result complex ---------------
def conjugate(z, w):
    return z.conjugate() * w


def conj(z, w):
    return z.conj() * w + abs(z.conj())


def conjugate_twice(z, w):
    return z.conjugate().conjugate() * w.conj()


def astype(z, w):
    return z.astype(complex) * w


def item(z, w):
    return z.item() * w + w.tolist()


def copy(z, w):
    return z.copy() * w


def reductions(z, w):
    return z.sum() * w.prod() + z.mean()


def reshaped(z, w):
    return z.reshape(1)[0] * w.ravel()[0] + z.cumsum()[0] * w.squeeze()


def selections(z, w):
    return z.take(0) * w.repeat(2)[1]


def real_cast_to_complex(z, w):
    return np.float64(np.real(z)).astype(complex) * w


def parts(z, w):
    return z.real * w.imag + 1j * z.imag * abs(w)


def python_complex(z, w):
    return (2.0 - 3.0j) - z * w / (1.0 + 1.0j) - (1.0 + 2.0j) / z + z ** 2 - (-w)


MAKERS = [from_arithmetic, from_0d_array, from_indexed_array]
OPERATIONS = [conjugate, conj, conjugate_twice, astype, item, copy, reductions, reshaped,
              selections, real_cast_to_complex, parts, python_complex]
PROGRAMS = [(make, op) for make in MAKERS for op in OPERATIONS]
IDS = [f"{make.__name__}-{op.__name__}" for make, op in PROGRAMS]


def complex_output(make, op):
    def f(x, y, a, b):
        z = make(x, y)
        return op(z, make(a, b)) * z
    return f


def real_output(make, op):
    def f(x, y, a, b):
        return np.real(complex_output(make, op)(x, y, a, b) * C)
    return f


def vector_output(make, op):
    def f(x, y, a, b):
        out = complex_output(make, op)(x, y, a, b)
        return np.array([np.real(out), np.imag(out) * x])
    return f


ALL = (0, 1, 2, 3)


@pytest.mark.parametrize("make, op", PROGRAMS, ids=IDS)
def test_grad_matches_finite_differences_and_forward_mode(make, op):
    f = real_output(make, op)
    got = np.array(fwdad.grad(f, argnums=ALL)(*ARGS))
    np.testing.assert_allclose(got, central_partials(f, ARGS), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, fwdad.jacfwd(f, argnums=ALL)(*ARGS), rtol=1e-12)


@pytest.mark.parametrize("make, op", PROGRAMS, ids=IDS)
def test_jacrev_matches_jacfwd(make, op):
    f = vector_output(make, op)
    np.testing.assert_allclose(fwdad.jacrev(f, argnums=ALL)(*ARGS),
                               fwdad.jacfwd(f, argnums=ALL)(*ARGS), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("make, op", PROGRAMS, ids=IDS)
def test_vjp_of_the_complex_output_passes_the_dot_product_test(make, op):
    check_dot_product(complex_output(make, op), ARGS)


@pytest.mark.parametrize("make, op", PROGRAMS, ids=IDS)
def test_hvp_matches_finite_differences_of_the_gradient(make, op):
    """(Forward over reverse refuses complex values, fwdad/over_reverse_rules.py: hvp
    falls back to forward over forward for these.)"""
    f = real_output(make, op)
    got = np.array(fwdad.hvp(f, ARGS, DIRECTION))

    def gradient_along(s):
        return np.array(fwdad.jacfwd(f, argnums=ALL)(
            *(a + s * d for a, d in zip(ARGS, DIRECTION))))
    np.testing.assert_allclose(got, central_partials(gradient_along, [0.0])[0],
                               rtol=1e-6, atol=1e-8)


# ---- the matvar layout: a complex Var keeps the imaginary part of its cotangent -------
def test_a_matvar_holding_a_complex_var_keeps_its_complex_cotangent():
    """A 0-d matvar held a complex scalar for its methods, and every cotangent added into
    a matvar lost its imaginary part: z.conjugate() * w, declared complex_ready on that
    path, had a wrong gradient. A real Var keeps the real part, as a real argument does."""
    held = np.empty(2, dtype=object)
    held[0], held[1] = Var(0.3 - 0.7j, 0j), Var(1.5)
    accumulate(held, np.array([2.0 + 3.0j, 4.0 - 5.0j]))
    assert held[0].adjoint == 2.0 + 3.0j
    assert held[1].adjoint == 4.0 and not np.iscomplexobj(held[1].adjoint)


# ---- what is not modelled is refused, in the name the user called, at the line --------
def largest(x, y):
    z = x + 1j * y
    return np.real(z.max())


def clipped(x, y):
    z = x + 1j * y
    return np.real(z.clip(-1.0, 1.0))


@pytest.mark.parametrize("f, name", [(largest, "max"), (clipped, "clip")])
def test_methods_not_modelled_for_complex_values_are_refused_at_the_line(f, name):
    with pytest.raises(NonDifferentiableError,
                       match=rf"^numpy\.complex128\.{name} got or made a complex value") as info:
        fwdad.grad(f, argnums=(0, 1))(*ARGS[:2])
    line = f.__code__.co_firstlineno + 2
    assert any(note.endswith(f"test_complex_scalars.py:{line}")
               for note in info.value.__notes__)
