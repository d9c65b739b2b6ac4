"""jacfwd, jacrev, hessian and hvp of complex arguments (fwdad/holomorphic.py), as JAX:
refused without holomorphic=True; with it, the complex derivative df/dz, against closed
forms and central differences in the real and the imaginary direction (for a holomorphic
f, df/dz = df/dx = -i df/dy), and jacfwd against jacrev."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError, NonDifferentiableError

Z = np.array([0.3 + 1.1j, -1.2 + 0.7j, 0.5 - 0.2j])
W = np.array([0.8 - 0.3j, 0.1 + 0.4j])
V = np.array([0.2 - 0.4j, 1.0 + 0.3j, -0.5j])
H = 1e-6


def mixing(z):
    return np.sin(z) * z[::-1] + np.arctan(z / 2.0)


def two(z, w):
    return np.exp(z[:2] * w) + np.sum(z) * w ** 2


def scalar(z):
    return np.sum(np.sin(z) * z[::-1]) + z[0] ** 3 * np.log(z[1] + 3.0)


def _differences(f, z, step):
    """Columns of central differences of f along step * e_j."""
    cols = [(f(z + H * step * e) - f(z - H * step * e)) / (2 * H) for e in np.eye(z.size)]
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("jac", [fwdad.jacfwd, fwdad.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobian_is_df_dz(jac):
    J = jac(mixing, holomorphic=True)(Z)
    assert J.dtype == np.complex128 and J.shape == (3, 3)
    closed = np.diag(np.cos(Z) * Z[::-1] + 0.5 / (1 + Z * Z / 4)) + np.diag(np.sin(Z))[:, ::-1]
    np.testing.assert_allclose(J, closed, rtol=1e-12)
    np.testing.assert_allclose(J, _differences(mixing, Z, 1.0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(J, -1j * _differences(mixing, Z, 1j), rtol=1e-6, atol=1e-8)


def test_jacfwd_and_jacrev_agree_on_several_arguments():
    forward = fwdad.jacfwd(two, argnums=(0, 1), holomorphic=True)(Z, W)
    reverse = fwdad.jacrev(two, argnums=(0, 1), holomorphic=True)(Z, W)
    for a, b, arg, i in zip(forward, reverse, (Z, W), (0, 1)):
        np.testing.assert_allclose(a, b, rtol=1e-12)
        f = (lambda z: two(z, W)) if i == 0 else (lambda w: two(Z, w))
        np.testing.assert_allclose(a, -1j * _differences(f, arg, 1j), rtol=1e-6, atol=1e-8)


def test_scalar_argument():
    assert fwdad.jacfwd(np.exp, holomorphic=True)(0.5 - 1j) == pytest.approx(np.exp(0.5 - 1j))
    assert fwdad.jacrev(np.tan, holomorphic=True)(0.5 - 1j) == pytest.approx(
        1 / np.cos(0.5 - 1j) ** 2)


def test_hessian_and_hvp_are_the_complex_second_derivative():
    Hz = fwdad.hessian(scalar, holomorphic=True)(Z)
    assert Hz.shape == (3, 3) and Hz.dtype == np.complex128
    gradient = fwdad.jacfwd(scalar, holomorphic=True)
    np.testing.assert_allclose(Hz, _differences(gradient, Z, 1.0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(Hz, -1j * _differences(gradient, Z, 1j), rtol=1e-6, atol=1e-8)
    (hv,) = fwdad.hvp(scalar, (Z,), (V,), holomorphic=True)
    np.testing.assert_allclose(hv, Hz @ V, rtol=1e-12)
    assert fwdad.hessian(lambda z: z ** 3, holomorphic=True)(0.5 + 1j) == pytest.approx(
        6 * (0.5 + 1j))


def test_real_arguments_are_unchanged():
    x = np.array([0.3, -1.2, 0.5])
    np.testing.assert_allclose(fwdad.jacfwd(np.sin)(x), np.diag(np.cos(x)))
    np.testing.assert_allclose(fwdad.hessian(lambda x: np.sum(x ** 3))(x), np.diag(6 * x))


APIS = {"jacfwd": lambda f, **k: fwdad.jacfwd(f, **k)(Z),
        "jacrev": lambda f, **k: fwdad.jacrev(f, **k)(Z),
        "hessian": lambda f, **k: fwdad.hessian(f, **k)(Z),
        "hvp": lambda f, **k: fwdad.hvp(f, (Z,), (V,), **k)}


@pytest.mark.parametrize("api", list(APIS))
def test_a_complex_argument_without_holomorphic_is_refused(api):
    with pytest.raises(FwdadError, match=f"{api}\\(.*scalar\\): argument 0 is complex.*"
                                         f"Pass holomorphic=True.*real and imaginary parts"):
        APIS[api](scalar)


@pytest.mark.parametrize("api", list(APIS))
def test_holomorphic_needs_complex_outputs(api):
    with pytest.raises(FwdadError, match="needs complex outputs"):
        APIS[api](lambda z: np.sum(np.abs(z) ** 2), holomorphic=True)


@pytest.mark.parametrize("jac", [fwdad.jacfwd, fwdad.jacrev, fwdad.hessian])
def test_holomorphic_needs_complex_arguments(jac):
    with pytest.raises(NonDifferentiableError, match="needs complex arguments"):
        jac(scalar, holomorphic=True)(Z.real)
