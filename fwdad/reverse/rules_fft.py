"""Reverse rules for np.fft's one-dimensional transforms; the n-dimensional ones, fft2
and the Hermitian ones are NumPy code over these, derived (docs/complex.md).

Under JAX's convention (a cotangent pairs with a tangent as Re(sum(ct * t))), a linear
map's pullback is its transpose, not its adjoint: the DFT matrix is symmetric, so the
pullback of fft is fft of the cotangent with the same norm, and that of ifft is ifft.
`n` crops or zero-pads the input first; the pullback undoes that shape change.

    rfft   = the first n // 2 + 1 entries of fft(x):  Re(fft(ct zero-padded to n))
    irfft  reads a Hermitian half spectrum y (the imaginary parts of y[0] and, for an
           even n, of y[n // 2] are ignored; the others count twice):
           conj(w * rfft(ct)) * scale, w = [1, 2, ..., 2, (1 if n even)]
"""
from __future__ import annotations

import numpy as np

from fwdad.reverse.registry import complex_ready, composed_rrule, rrule


def _resized(ct: np.ndarray, length: int, axis: int) -> np.ndarray:
    """ct cut or zero-padded to `length` along `axis`: the transpose of the zero-pad or
    cut that `n` applies to the input."""
    have = ct.shape[axis]
    if have > length:
        return np.take(ct, np.arange(length), axis=axis)
    if have < length:
        pad = [(0, 0)] * ct.ndim
        pad[axis] = (0, length - have)
        return np.pad(ct, pad)
    return ct


def _along(weights: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    """A 1-d array of weights shaped to broadcast along `axis` of an ndim array."""
    shape = [1] * ndim
    shape[axis] = weights.size
    return weights.reshape(shape)


def _inverse_scale(norm, size: int) -> float:
    """The factor the inverse transform applies (numpy.fft's norm modes)."""
    return {None: 1.0 / size, "backward": 1.0 / size, "ortho": 1.0 / np.sqrt(size),
            "forward": 1.0}[norm]


@rrule(np.fft.fft)
def _fft(x, n=None, axis=-1, norm=None):
    out = np.fft.fft(x, n, axis, norm)
    return out, lambda ct: (_resized(np.fft.fft(ct, axis=axis, norm=norm),
                                     np.shape(x)[axis], axis),)


@rrule(np.fft.ifft)
def _ifft(x, n=None, axis=-1, norm=None):
    out = np.fft.ifft(x, n, axis, norm)
    return out, lambda ct: (_resized(np.fft.ifft(ct, axis=axis, norm=norm),
                                     np.shape(x)[axis], axis),)


@rrule(np.fft.rfft)
def _rfft(x, n=None, axis=-1, norm=None):
    out = np.fft.rfft(x, n, axis, norm)
    size = np.shape(x)[axis] if n is None else n
    return out, lambda ct: (_resized(np.real(np.fft.fft(ct, size, axis, norm)),
                                     np.shape(x)[axis], axis),)


@rrule(np.fft.irfft)
def _irfft(y, n=None, axis=-1, norm=None):
    out = np.fft.irfft(y, n, axis, norm)
    size = out.shape[axis]
    weights = np.full(size // 2 + 1, 2.0)
    weights[0] = 1.0
    if size % 2 == 0:
        weights[-1] = 1.0

    def pullback(ct):
        half = np.conjugate(np.fft.rfft(ct, axis=axis)) * _along(weights, out.ndim, axis)
        return (_resized(half * _inverse_scale(norm, size), np.shape(y)[axis], axis),)
    return out, pullback


complex_ready(np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft)


# ---- over several axes, and the Hermitian pair: what NumPy computes, from the above ------
def _nd_args(x, s, axes):
    """numpy.fft's sizes and axes: all axes (the last len(s) with s), and the input's
    length where s is None or -1."""
    shape = np.shape(x)
    if axes is None:
        axes = list(range(-len(s), 0)) if s is not None else list(range(len(shape)))
    if s is None:
        s = [-1] * len(axes)
    return [shape[a] if n == -1 else n for n, a in zip(s, axes)], list(axes)


@composed_rrule(np.fft.fftn)
def _fftn(x, s=None, axes=None, norm=None):
    s, axes = _nd_args(x, s, axes)
    for i in range(len(axes) - 1, -1, -1):
        x = np.fft.fft(x, s[i], axes[i], norm)
    return x


@composed_rrule(np.fft.fft2)
def _fft2(x, s=None, axes=(-2, -1), norm=None):
    return _fftn(x, s, axes, norm)


@composed_rrule(np.fft.ifftn)
def _ifftn(x, s=None, axes=None, norm=None):
    s, axes = _nd_args(x, s, axes)
    for i in range(len(axes) - 1, -1, -1):
        x = np.fft.ifft(x, s[i], axes[i], norm)
    return x


@composed_rrule(np.fft.ifft2)
def _ifft2(x, s=None, axes=(-2, -1), norm=None):
    return _ifftn(x, s, axes, norm)


@composed_rrule(np.fft.rfftn)
def _rfftn(x, s=None, axes=None, norm=None):
    s, axes = _nd_args(x, s, axes)
    x = np.fft.rfft(x, s[-1], axes[-1], norm)
    for i in range(len(axes) - 2, -1, -1):
        x = np.fft.fft(x, s[i], axes[i], norm)
    return x


@composed_rrule(np.fft.rfft2)
def _rfft2(x, s=None, axes=(-2, -1), norm=None):
    return _rfftn(x, s, axes, norm)


@composed_rrule(np.fft.irfftn)
def _irfftn(x, s=None, axes=None, norm=None):
    last_given = s is not None and s[-1] != -1
    s, axes = _nd_args(x, s, axes)
    for i in range(len(axes) - 1):
        x = np.fft.ifft(x, s[i], axes[i], norm)
    return np.fft.irfft(x, s[-1] if last_given else None, axes[-1], norm)


@composed_rrule(np.fft.irfft2)
def _irfft2(x, s=None, axes=(-2, -1), norm=None):
    return _irfftn(x, s, axes, norm)


_SWAPPED = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


@composed_rrule(np.fft.hfft)
def _hfft(x, n=None, axis=-1, norm=None):
    """The real spectrum of a Hermitian signal: irfft of its conjugate, norm swapped."""
    return np.fft.irfft(np.conjugate(x), n, axis, _SWAPPED[norm])


@composed_rrule(np.fft.ihfft)
def _ihfft(x, n=None, axis=-1, norm=None):
    return np.conjugate(np.fft.rfft(x, n, axis, _SWAPPED[norm]))


complex_ready(np.fft.fftn, np.fft.fft2, np.fft.ifftn, np.fft.ifft2, np.fft.rfftn,
              np.fft.rfft2, np.fft.irfftn, np.fft.irfft2, np.fft.hfft, np.fft.ihfft)


# ---- fftshift, ifftshift: entries moved; the cotangent moves back ---------------------
@rrule(np.fft.fftshift)
def _fftshift(x, axes=None):
    return np.fft.fftshift(x, axes), lambda ct: (np.fft.ifftshift(ct, axes),)


@rrule(np.fft.ifftshift)
def _ifftshift(x, axes=None):
    return np.fft.ifftshift(x, axes), lambda ct: (np.fft.fftshift(ct, axes),)


complex_ready(np.fft.fftshift, np.fft.ifftshift)


# ---- sample frequencies k / (n d): differentiable in the spacing d only --------------------
def _frequencies(fn):
    def rule(n, d=1.0, device=None):
        out = fn(n, d)
        return out, lambda ct: (None, -float(np.sum(np.real(ct) * out)) / d)
    rule.__name__ = f"_{fn.__name__}"
    return rule


rrule(np.fft.fftfreq)(_frequencies(np.fft.fftfreq))
rrule(np.fft.rfftfreq)(_frequencies(np.fft.rfftfreq))
