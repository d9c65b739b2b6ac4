"""Complex values in reverse mode (docs/complex.md): grad of real functions of complex
arguments against central finite differences in the real and imaginary directions,
holomorphic grad against the analytic derivative, and the refusals."""
import warnings

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError, NonDifferentiableError
from fwdad.reverse import layout

R = np.random.default_rng(11)
Z = R.standard_normal(4) + 1j * R.standard_normal(4)
M = R.standard_normal((3, 3)) + 1j * R.standard_normal((3, 3)) + 3.0 * np.eye(3)
X = R.standard_normal(4)


def fd_grad(f, z, h=1e-6):
    """df/dx - i df/dy by central differences, element by element (JAX's convention)."""
    z = np.asarray(z, dtype=complex)
    out = np.zeros(z.shape, dtype=complex)
    for i in np.ndindex(z.shape):
        step = np.zeros(z.shape, dtype=complex)
        step[i] = h
        dx = (f(z + step) - f(z - step)) / (2 * h)
        dy = (f(z + 1j * step) - f(z - 1j * step)) / (2 * h)
        out[i] = dx - 1j * dy
    return out


def _power(z):
    return np.sum(np.abs(z) ** 2)


def _phases(z):
    return np.sum(np.angle(z) * np.abs(z))


def _mixed(z):
    return np.real(np.sum(np.sin(z) * np.conj(z) + np.exp(1j * z.imag) / (1.0 + z * z)))


def _moments(z):
    return np.var(z) + np.std(z * 2.0) + np.linalg.norm(z, 1)


def _parts(z):
    return np.sum(z.real * z.imag + np.imag(z ** 3) - np.real(np.log(z + 3.0)))


def _matrix(a):
    return np.abs(np.linalg.det(a)) + np.real(np.trace(np.linalg.inv(a) @ a.T)) \
        + np.linalg.norm(a, "nuc") + np.sum(np.abs(np.linalg.solve(a, a[:, 0])))


def _through_arrays(z):
    y = np.zeros(5, dtype=complex)
    y[1:] = z[::-1] * 1j
    stacked = np.stack([y, np.conj(y)]).reshape(10)
    return np.real(np.einsum("i,i->", stacked, stacked)) + np.abs(np.array([z[0], 2.0]).sum())


def _spectra(a):
    """slogdet, eigvalsh (of the Hermitian matrix its lower triangle makes) and the
    singular values of a complex matrix (rules_complex_linalg.py)."""
    sign, log = np.linalg.slogdet(a)
    return log + np.real(sign * (1.0 - 2.0j)) + np.sum(np.linalg.eigvalsh(a) ** 3) \
        + np.sum(np.linalg.svd(a, compute_uv=False) ** 2.5)


def _eigenvectors(a):
    """A loss that depends on the eigenvectors' phases: differentiated as NumPy computes
    it, in LAPACK's phase convention (rules_complex_linalg._eigh)."""
    w, v = np.linalg.eigh(a)
    _, u = np.linalg.eigh(a, UPLO="U")
    return np.real(v[1, 0] * (1.0 - 0.5j)) + np.imag(v[2, 1]) + np.sum(w ** 2) \
        + np.real(u[0, 2]) + np.sum(np.abs(u[:, 1]) ** 3)


def _singular_vectors(a):
    """A loss that depends on the singular vectors' phases (rules_complex_linalg._svd)."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.real(u[1, 0] * (1.0 - 0.5j)) + np.imag(vh[1, 2]) + np.sum(s ** 2) \
        + np.real(u[0, 1] * vh[0, 1])


REAL_OF_COMPLEX = [(_power, Z), (_phases, Z), (_mixed, Z), (_moments, Z), (_parts, Z),
                   (_matrix, M), (_through_arrays, Z), (_power, 0.3 - 2.0j), (_spectra, M),
                   (_eigenvectors, M), (_singular_vectors, M),
                   (_singular_vectors, np.vstack([M, M[:1] * 0.5j])),
                   (_singular_vectors, np.hstack([M, M[:, :1] * 0.5j]))]


@pytest.mark.parametrize("f, z", REAL_OF_COMPLEX, ids=lambda v: getattr(v, "__name__", ""))
def test_grad_of_real_function_matches_finite_differences(f, z):
    g = fwdad.grad(f)(z)
    assert np.iscomplexobj(g) and np.shape(g) == np.shape(z)
    np.testing.assert_allclose(g, fd_grad(f, z), rtol=1e-6, atol=1e-7)


def test_grad_of_power_is_the_conjugate_of_steepest_ascent():
    """JAX's and autograd's number: grad(|z|^2)(3 + 4i) = 6 - 8i."""
    assert fwdad.grad(lambda z: np.abs(z) ** 2)(3.0 + 4.0j) == pytest.approx(6.0 - 8.0j)


def test_real_argument_through_complex_intermediates():
    def f(x, z):
        return np.sum(np.abs(np.exp(1j * x) * z + x) ** 2)
    gx, gz = fwdad.grad(f, argnums=(0, 1))(X, Z)
    assert gx.dtype == float
    np.testing.assert_allclose(gx, np.real(fd_grad(lambda x: f(np.real(x), Z), X)),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gz, fd_grad(lambda z: f(X, z), Z), rtol=1e-6, atol=1e-7)


class _Phasor:
    def __init__(self, x):
        self.z = (2.0 + np.cos(x)) + 1j * np.sin(x)

    def power(self):
        return np.sum((self.z * np.conj(self.z)).real * 0.1 + np.angle(self.z))


def _through_a_field(x):
    return _Phasor(x).power()


def test_complex_value_through_an_instance_field():
    """A complex field written in __init__ and read in a method (the fuzzer's complex
    construct: reverse mode refused the write, which only moves the variable)."""
    g = fwdad.grad(_through_a_field)(X)
    np.testing.assert_allclose(g, np.real(fd_grad(lambda x: _through_a_field(np.real(x)),
                                                  X)), rtol=1e-6, atol=1e-7)


def _zero_imag(x):
    z = np.fft.fft(x)
    z.imag[...] = 0.0
    return np.fft.ifft(z).real


def _scale_imag(x):
    z = x * (1.0 + 2.0j)
    z.imag[1:] *= 3.0
    return z.imag + z.real


def _add_to_real(x):
    z = x * (1.0 + 2.0j)
    np.real(z)[0] += x[1]
    return z.imag * z.real


def _set_imag(x):
    z = x * (1.0 + 2.0j)
    z.imag = x * x
    return np.abs(z)


@pytest.mark.parametrize("f", [_zero_imag, _add_to_real, _set_imag])
def test_writes_through_a_whole_complex_part_write_the_complex_value(f):
    """z.real and z.imag are views of z: a write through one is the write of the complex
    value it makes into z (reverse/complex_parts.py; it was refused, and before that
    changed z's value but not its derivative: the fuzzer's complex construct, seed
    100006891). Checked against central differences, and forward mode by the
    dot-product test."""
    t = np.array([0.5, 0.2, -0.4, 0.1])
    ct = np.array([0.3, -1.0, 0.7, 0.2])
    y, pullback = fwdad.vjp(f, X)
    np.testing.assert_allclose(y, f(X))
    fd = (f(X + 1e-6 * t) - f(X - 1e-6 * t)) / 2e-6
    np.testing.assert_allclose(pullback(ct)[0] @ t, ct @ fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(pullback(ct)[0] @ t, ct @ fwdad.jvp(f, (X,), (t,))[1],
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", [_scale_imag])
def test_writes_through_a_view_of_a_complex_part_are_refused(f):
    """A slice of z.imag: a write through it would change z's value but not its
    derivative; forward mode follows the write, checked here against central
    differences."""
    t = np.array([0.5, 0.2, -0.4, 0.1])
    with pytest.raises(FwdadError, match=r"test_complex.py:\d+ into a read-only.*imaginary"):
        fwdad.vjp(f, X)
    _, dy = fwdad.jvp(f, (X,), (t,))
    np.testing.assert_allclose(dy, (f(X + 1e-6 * t) - f(X - 1e-6 * t)) / 2e-6, atol=1e-7)


def _constant_parts(x):
    z = np.exp(1j * np.arange(4.0))
    z.imag[...] = 0.0
    np.real(z)[0] += 1.0
    return x * z.real


def test_writes_into_the_parts_of_a_constant_complex_array_are_allowed():
    coefficients = _constant_parts(np.ones(4))
    g = fwdad.grad(lambda x: np.sum(_constant_parts(x)))(X)
    np.testing.assert_allclose(g, coefficients)
    np.testing.assert_allclose(coefficients, np.cos(np.arange(4.0)) + [1.0, 0.0, 0.0, 0.0])


def _set_real_of_real(x):
    y = x * 2.0
    y.real = x * x
    return y * 3.0


def test_setting_the_real_part_of_a_real_array_writes_it():
    g = fwdad.grad(lambda x: np.sum(_set_real_of_real(x)))(X)
    np.testing.assert_allclose(g, 6.0 * X)


HOLOMORPHIC = [(lambda z: z ** 3, lambda z: 3 * z ** 2), (np.exp, np.exp),
               (lambda z: np.sin(z) * z, lambda z: np.cos(z) * z + np.sin(z)),
               (lambda z: 1.0 / (1.0 + z * z), lambda z: -2 * z / (1.0 + z * z) ** 2),
               (lambda z: np.log(z) * np.sqrt(z), lambda z: np.sqrt(z) / z
                + np.log(z) * 0.5 / np.sqrt(z))]


@pytest.mark.parametrize("f, derivative", HOLOMORPHIC)
@pytest.mark.parametrize("z", [0.7 - 1.2j, 2.0 + 0.5j])
def test_holomorphic_grad_is_the_complex_derivative(f, derivative, z):
    assert fwdad.grad(f, holomorphic=True)(z) == pytest.approx(derivative(z), rel=1e-12)
    value, g = fwdad.value_and_grad(f, holomorphic=True)(z)
    assert value == pytest.approx(f(z)) and g == pytest.approx(derivative(z), rel=1e-12)


def test_holomorphic_grad_of_an_array_argument():
    g = fwdad.grad(lambda z: np.sum(z ** 2 * np.exp(z)), holomorphic=True)(Z)
    np.testing.assert_allclose(g, 2 * Z * np.exp(Z) + Z ** 2 * np.exp(Z), rtol=1e-12)


def test_pullback_of_a_complex_output_gives_real_and_imaginary_parts():
    def f(z):
        return np.sum(np.conj(z) * np.exp(z))
    _, pullback = fwdad.vjp(f, Z)
    np.testing.assert_allclose(pullback(1.0)[0], fd_grad(lambda z: np.real(f(z)), Z),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(pullback(-1j)[0], fd_grad(lambda z: np.imag(f(z)), Z),
                               rtol=1e-6, atol=1e-7)


def test_complex64_arguments_get_complex64_gradients():
    g = fwdad.grad(lambda z: np.sum(np.abs(z) ** 2))(Z.astype(np.complex64))
    assert g.dtype == np.complex64
    np.testing.assert_allclose(g, 2 * np.conj(Z), rtol=1e-5)


# ---- refusals ----------------------------------------------------------------------------
def test_grad_of_a_complex_output_asks_for_holomorphic():
    with pytest.raises(FwdadError, match="pass holomorphic=True"):
        fwdad.grad(lambda z: z * z)(1.0 + 1.0j)


def test_holomorphic_grad_needs_complex_arguments_and_output():
    with pytest.raises(NonDifferentiableError, match="needs complex arguments"):
        fwdad.grad(lambda x: x * x, holomorphic=True)(1.5)
    with pytest.raises(FwdadError, match="needs a complex scalar output"):
        fwdad.grad(lambda z: np.abs(z), holomorphic=True)(1.0 + 1.0j)


def test_hermitian_svd_of_complex_matrices_is_refused_with_the_phase_named():
    """svd(hermitian=True) takes its vectors from eigh, in another phase convention."""
    with pytest.raises(NonDifferentiableError, match="up to a phase.*values alone"):
        fwdad.grad(lambda a: np.sum(np.abs(np.linalg.svd(a, hermitian=True)[0])))(M)


@pytest.mark.parametrize("f", [lambda z: np.ptp(z).real,
                               lambda z: np.sum(np.sort(z)).real])
def test_rules_not_written_for_complex_values_refuse_them(f):
    with pytest.raises(NonDifferentiableError, match="covers real values only"):
        fwdad.grad(f)(Z)


def test_the_matvar_layout_refuses_complex_arrays():
    with layout("matvar"), pytest.raises(NonDifferentiableError, match="varmat layout"):
        fwdad.grad(lambda z: np.sum(np.abs(z)))(Z)


# ---- np.fft ------------------------------------------------------------------------------
def test_grad_through_fft_is_parseval():
    """sum |fft(z)|^2 = n sum |z|^2, whose gradient is 2 n conj(z)."""
    g = fwdad.grad(lambda z: np.sum(np.abs(np.fft.fft(z)) ** 2))(Z)
    np.testing.assert_allclose(g, 2 * len(Z) * np.conj(Z), rtol=1e-12)


def _heat(kappa, u0):
    """u0 diffused for time 0.1 on a periodic grid, spectrally; its energy."""
    k = 2 * np.pi * np.fft.rfftfreq(u0.size, d=1.0 / u0.size)
    u = np.fft.irfft(np.fft.rfft(u0) * np.exp(-kappa * k ** 2 * 0.1), n=u0.size)
    return np.sum(u ** 2)


def test_grad_of_a_spectral_heat_solve_matches_finite_differences():
    u0 = np.sin(np.linspace(0, 2 * np.pi, 16, endpoint=False)) + 0.3 * R.standard_normal(16)
    g_kappa, g_u0 = fwdad.grad(_heat, argnums=(0, 1))(0.05, u0)
    h = 1e-6
    assert g_kappa == pytest.approx((_heat(0.05 + h, u0) - _heat(0.05 - h, u0)) / (2 * h),
                                    rel=1e-6)
    fd = [(_heat(0.05, u0 + h * e) - _heat(0.05, u0 - h * e)) / (2 * h) for e in np.eye(16)]
    np.testing.assert_allclose(g_u0, fd, rtol=1e-6, atol=1e-8)


def test_holomorphic_grad_through_fft():
    def f(z):
        return np.sum(np.fft.ifft(np.fft.fft(z) ** 2))  # a sum of products: holomorphic
    g = fwdad.grad(f, holomorphic=True)(Z)
    h = 1e-6
    fd = [(f(Z + h * e) - f(Z - h * e)) / (2 * h) for e in np.eye(len(Z))]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def _calls_holomorphic_grad(z):
    return fwdad.grad(lambda w: w ** 3, holomorphic=True)(z)


def test_derivatives_of_a_holomorphic_grad_are_refused():
    with pytest.raises(FwdadError, match="holomorphic=True. is not supported"):
        fwdad.jvp(_calls_holomorphic_grad, (0.5 + 1.0j,), (1.0 + 0.0j,))
    with pytest.raises(NonDifferentiableError, match="covers real values only"):
        fwdad.grad(lambda z: np.abs(_calls_holomorphic_grad(z)) ** 2)(0.5 + 1.0j)


def _complex_written_into_a_real_array(x):
    y = x * 1.0
    y[0] = x[1] * (1.0 + 2.0j)  # NumPy keeps the real part, with a ComplexWarning
    return np.sum(y * x)


@pytest.mark.parametrize("layout", ["varmat", "matvar"])
def test_a_complex_value_written_into_a_real_array_keeps_its_real_part(layout):
    """As NumPy writes it, in both layouts: the matvar held the complex variable itself,
    and reading its values dropped the imaginary part in var.gather (a ComplexWarning
    there, or a bare TypeError)."""
    x = np.array([0.3, 0.5, -1.2])
    with pytest.warns(np.exceptions.ComplexWarning):
        want = fwdad.jacfwd(_complex_written_into_a_real_array)(x)
    with pytest.warns(np.exceptions.ComplexWarning):
        assert _complex_written_into_a_real_array(x) == pytest.approx(
            x[1] * x[0] + x[1] ** 2 + x[2] ** 2)  # y = (x1, x1, x2)
    np.testing.assert_allclose(want, [x[1], x[0] + 2 * x[1], 2 * x[2]], rtol=1e-14)
    with fwdad.reverse.layout(layout), pytest.warns(np.exceptions.ComplexWarning):
        got = fwdad.grad(_complex_written_into_a_real_array)(x)
    np.testing.assert_allclose(got, want, rtol=1e-14)



def test_fuzzer_seed_100123268_reads_complex_matvar_values_as_complex():
    """z.conjugate() of a complex scalar made from a matvar item ran on a 0-d matvar
    holding it: var.gather read its values as floats, dropping the imaginary part with
    a ComplexWarning. Every oracle of that program, with the warning an error."""
    from tests.fuzz.check import check
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        result = check(100123268)
    bad = {name: o for name, o in result.outcomes.items() if o.status in ("wrong", "crash")}
    assert not bad, bad


def _python_complex_into_an_item(x):
    y = x * 1.0
    y[0] = 1j
    return np.sum(y)


def _python_complex_into_a_slice(x):
    y = x * 1.0
    y[1:] = 2j
    return np.sum(y)


def _python_complex_into_a_0d_array(x):
    y = np.zeros(())
    y[()] = 1j
    return y * x[0]


@pytest.mark.parametrize("layout", ["varmat", "matvar"])
@pytest.mark.parametrize("f", [_python_complex_into_an_item, _python_complex_into_a_slice,
                               _python_complex_into_a_0d_array],
                         ids=lambda f: f.__name__)
def test_a_python_complex_written_into_a_real_array_raises_numpys_type_error(f, layout):
    """NumPy 2 raises TypeError for a Python complex written into a float array, 0-d
    too (and only warns for a NumPy complex, above): so does reverse mode, in both
    layouts, and forward mode."""
    x = np.array([0.3, 0.5, -1.2])
    with pytest.raises(TypeError) as plain:
        f(x)
    with fwdad.reverse.layout(layout), pytest.raises(TypeError) as caught:
        fwdad.grad(f)(x)
    assert str(caught.value) == str(plain.value)
    with pytest.raises(TypeError) as caught:
        fwdad.jvp(f, (x,), (np.ones(3),))
    assert str(caught.value) == str(plain.value)
