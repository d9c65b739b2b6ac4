"""Property tests of np.fft's forward rules: shapes, axes, lengths and norms drawn by
Hypothesis; jvp along a real and an imaginary direction against central finite
differences (float64), and a batch of those directions against one at a time."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import fwdad
from fwdad.testing.strategies import REAL, array_shapes, values_in

RANDOM = settings(max_examples=25, deadline=None, database=None)
NORMS = st.sampled_from([None, "backward", "ortho", "forward"])
fft = np.fft
REAL_INPUT_ONLY = {fft.rfft, fft.ihfft, fft.rfft2, fft.rfftn}
ONE_DIMENSIONAL = [fft.fft, fft.ifft, fft.rfft, fft.irfft, fft.hfft, fft.ihfft]
N_DIMENSIONAL = [fft.fft2, fft.ifft2, fft.rfft2, fft.irfft2, fft.fftn, fft.ifftn, fft.rfftn,
                 fft.irfftn]
H = 1e-3  # the transforms are linear: the differences are exact but for rounding


def _point(data, fn, shape):
    """A float64 point, complex where `fn` takes complex input."""
    x = data.draw(values_in(REAL, shape), label="re")
    if fn in REAL_INPUT_ONLY:
        return x
    return x + 1j * data.draw(values_in(REAL, shape), label="im")


def _one_dimensional_args(data, shape):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    n = data.draw(st.one_of(st.none(), st.integers(2, 6)), label="n")
    return {"n": n, "axis": axis}


def _n_dimensional_args(data, fn, shape):
    two = fn in (fft.fft2, fft.ifft2, fft.rfft2, fft.irfft2)
    count = 2 if two else data.draw(st.integers(1, len(shape)), label="count")
    order = data.draw(st.permutations(range(len(shape))), label="axes")[:count]
    negative = data.draw(st.lists(st.booleans(), min_size=count, max_size=count))
    picked = tuple(a - len(shape) if neg else a for a, neg in zip(order, negative))
    s = data.draw(st.one_of(st.none(), st.lists(st.integers(2, 5), min_size=count,
                                                max_size=count).map(tuple)), label="s")
    if s is None and fn in (fft.irfft2, fft.irfftn) and shape[picked[-1]] < 2:
        s = (2,) * count  # (the default length 2 (m - 1) would be zero)
    if not two and s is None and data.draw(st.booleans(), label="axes=None"):
        return {"axes": None}  # every axis
    return {"s": s, "axes": picked}


def _differences(transform, x, t):
    return (transform(x + H * t) - transform(x - H * t)) / (2 * H)


def _check(fn, x, kwargs, data):
    def transform(x):
        return fn(x, **kwargs)

    t = data.draw(values_in(REAL, x.shape), label="t")
    directions = [t] if fn in REAL_INPUT_ONLY else [t, 1j * t]  # real and imaginary
    for direction in directions:
        out, tangent = fwdad.jvp(transform, (x,), (direction,))
        np.testing.assert_allclose(out, transform(x))
        np.testing.assert_allclose(tangent, _differences(transform, x, direction),
                                   rtol=1e-7, atol=1e-9)
        assert tangent.dtype == out.dtype
    _, batched = fwdad.batched_jvp(transform, (x,), (np.stack(directions),))
    for one, direction in zip(batched, directions):
        np.testing.assert_allclose(one, fwdad.jvp(transform, (x,), (direction,))[1])


@RANDOM
@given(data=st.data(), fn=st.sampled_from(ONE_DIMENSIONAL), norm=NORMS)
def test_one_dimensional_transforms(data, fn, norm):
    shape = data.draw(array_shapes(1, 3, 2, 5), label="shape")
    x = _point(data, fn, shape)
    _check(fn, x, {**_one_dimensional_args(data, shape), "norm": norm}, data)


@RANDOM
@given(data=st.data(), fn=st.sampled_from(N_DIMENSIONAL), norm=NORMS)
def test_n_dimensional_transforms(data, fn, norm):
    shape = data.draw(array_shapes(2, 3, 2, 4), label="shape")
    x = _point(data, fn, shape)
    _check(fn, x, {**_n_dimensional_args(data, fn, shape), "norm": norm}, data)


@RANDOM
@given(data=st.data(), fn=st.sampled_from([fft.fftshift, fft.ifftshift]))
def test_shifts(data, fn):
    shape = data.draw(array_shapes(1, 3, 1, 5), label="shape")
    axes = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)),
                     label="axes")
    _check(fn, _point(data, fn, shape), {"axes": axes}, data)
