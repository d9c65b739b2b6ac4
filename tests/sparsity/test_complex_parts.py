"""The real and imaginary parts of complex arrays in sparsity detection
(fwdad/sparsity/complex_parts.py), against the nonzeros of dense jacfwd.

Before, `z.imag` of an array of sets was NumPy's zeros for an object array: the pattern
of `np.fft.fft(x).imag` came out empty, though its Jacobian is not."""
import warnings

import numpy as np
import pytest

from tests.sparsity.reference import pattern_and_nonzeros

X = np.array([0.3, 0.5, 0.9, -0.4])


def imag_of_fft(x):
    return np.fft.fft(x).imag * 2.0


def imag_attribute_of_a_product(x):
    return (x * 1j).imag


def imag_function(x):
    """A superset by design: one set per complex item, for both of its parts."""
    return np.imag(x[:2] * 1j + x[2:])


def real_attribute(x):
    return (x[::-1] * (1.0 + 2j)).real


def part_read_before_a_write(x):
    """c is a view of z: the later write into z reaches it."""
    z = np.fft.fft(x)
    c = z.imag
    z[0] = x[1] * 1j
    return c * 1.0


def write_into_the_imaginary_part(x):
    z = np.zeros(4, dtype=complex)
    z.imag[1:] = x[:3]
    return z.real * 1.0 + 2.0 * z.imag


def write_into_each_part(x):
    """The second write leaves the imaginary parts' dependencies in place."""
    z = np.zeros(4, dtype=complex)
    z.imag[:] = x
    z.real[1:] = x[0]
    return np.abs(z) ** 2


def update_of_a_part(x):
    z = x * (1.0 + 1j)
    z.real[:2] += x[2:]
    return z.imag * 1.0 + z.real


def parts_of_a_number_made_an_array(x):
    """A 0-d complex array (its sets are one item), made by np.asarray of a complex
    number: fuzzer seed 100,080,482, shrunk."""
    z = np.asarray(1j * x[0] + 0.25)
    return x * (np.real(z) + np.imag(z) * x[1])


FUNCTIONS = [imag_of_fft, imag_attribute_of_a_product, imag_function, real_attribute,
             part_read_before_a_write, write_into_the_imaginary_part, write_into_each_part,
             update_of_a_part, parts_of_a_number_made_an_array]


SUPERSETS = (imag_function, imag_of_fft, part_read_before_a_write)  # (fft: every item)


@pytest.mark.parametrize("mode", ["local", "global"])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_a_part_keeps_the_dependencies_of_its_items(f, mode):
    pattern, nonzeros = pattern_and_nonzeros(f, X, mode=mode)
    assert nonzeros.any()
    assert not (nonzeros & ~pattern).any(), (pattern, nonzeros)
    if f not in SUPERSETS:
        assert (pattern == nonzeros).all(), (pattern, nonzeros)


def test_the_real_part_of_constant_items_is_a_real_zero():
    """The complex zeros of z's constant items reached a real scalar's tangent, cast
    with a ComplexWarning (fuzzer seed 100,021,526, shrunk)."""
    def f(x):
        c = np.fft.ifft(np.fft.fft(x[:2]) * (1.0 + 0.5j)).real
        return np.sin(c[-1]) * x[2:]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pattern, nonzeros = pattern_and_nonzeros(f, X, argnums=0)
    assert nonzeros.any()
    assert not (nonzeros & ~pattern).any(), (pattern, nonzeros)  # (fft: every item)
