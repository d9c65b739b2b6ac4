"""The rows of np.fft's rules (fwdad/rules/fft.py): every transform with `n` or `s`,
`axis` or `axes` and each `norm`, on complex input where the transform takes it (rfft,
ihfft, rfft2 and rfftn take real input only); the shifts; the sample frequencies.

Rows are `Case(fn, *args, **kwargs)`, as in cases.py. The first row of each function is
real, and the second-order table (second_order_cases.py) differentiates it again;
FFT_SECOND_ORDER_ROWS add complex rows there.
"""
from __future__ import annotations

import numpy as np

from tests.rules.case import C3, C23, M23, M34, T223, V3, Case

fft = np.fft
V5 = np.array([0.3, -1.2, 0.5, 1.1, -0.4])
C5 = V5 + 1j * V5[::-1] * 0.7
C34 = M34 + 0.6j * M34[::-1]
C223 = T223 + 0.4j * T223[::-1]
NORMS = ("backward", "ortho", "forward")

ONE_DIMENSIONAL_CASES = [
    Case(fft.fft, V5), Case(fft.fft, C5), Case(fft.fft, C23, axis=0),
    Case(fft.fft, C23, 5), Case(fft.fft, C34, 2, 0, "ortho"),
    Case(fft.ifft, V5), Case(fft.ifft, C23, n=4, axis=-2, norm="forward"),
    Case(fft.rfft, V5), Case(fft.rfft, M34, axis=0), Case(fft.rfft, M23, 6, norm="ortho"),
    Case(fft.irfft, V3), Case(fft.irfft, C3), Case(fft.irfft, C23, 5),
    Case(fft.irfft, C34, axis=0, norm="forward"),
    Case(fft.hfft, V3), Case(fft.hfft, C3), Case(fft.hfft, C34, 4, 0, "ortho"),
    Case(fft.ihfft, V5), Case(fft.ihfft, M34, axis=0, norm="forward"),
] + [Case(fn, C5, norm=norm) for fn in (fft.fft, fft.ifft) for norm in NORMS]

MULTI_DIMENSIONAL_CASES = [
    Case(fft.fft2, M23), Case(fft.fft2, C223), Case(fft.fft2, C223, (3, 2), (0, 2)),
    Case(fft.ifft2, M34), Case(fft.ifft2, C34, norm="ortho"),
    Case(fft.rfft2, M34), Case(fft.rfft2, T223, axes=(0, 1), norm="forward"),
    Case(fft.irfft2, C23), Case(fft.irfft2, C223, s=(2, 4), axes=(1, 2)),
    Case(fft.fftn, T223), Case(fft.fftn, C223), Case(fft.fftn, C223, axes=(0, 2)),
    Case(fft.fftn, C34, (4, 3), (1, 0), "ortho"),
    Case(fft.ifftn, C223), Case(fft.ifftn, C223, axes=(1,), norm="forward"),
    Case(fft.rfftn, T223), Case(fft.rfftn, T223, s=(3, 4), axes=(0, 2)),
    Case(fft.irfftn, C223), Case(fft.irfftn, C34, s=(2, 5), axes=(0, 1), norm="ortho"),
]

SHIFT_CASES = [
    Case(fft.fftshift, V5), Case(fft.fftshift, C34), Case(fft.fftshift, T223, axes=1),
    Case(fft.ifftshift, M34), Case(fft.ifftshift, C223, axes=(0, -1)),
    Case(fft.fftfreq, 6, 0.3), Case(fft.fftfreq, 5), Case(fft.rfftfreq, 7, 1.7),
]

FFT_CASES = ONE_DIMENSIONAL_CASES + MULTI_DIMENSIONAL_CASES + SHIFT_CASES

# (what it covers, function, arguments, keyword arguments): second order at complex points
FFT_SECOND_ORDER_ROWS = [(fn, fn, args, kwargs) for fn, args, kwargs in [
    (fft.fft, (C5,), {"norm": "ortho"}), (fft.ifft, (C23,), {"n": 4, "axis": 0}),
    (fft.irfft, (C23,), {"n": 5}), (fft.hfft, (C3,), {}), (fft.fftn, (C223,), {}),
    (fft.irfftn, (C223,), {"s": (2, 4), "axes": (1, 2)}), (fft.fftshift, (C34,), {})]]
