"""Differentiate an ordinary Python + NumPy function and show the code fwdad made.

Run: python examples/quickstart.py
"""
import math

import numpy as np

import fwdad


@fwdad.derive_frule
def damped_response(x, k):
    """Plain numerical code: a loop, a branch on a value, an in-place update."""
    y = x * math.sin(k * x)
    if y > 0:
        y = y + 1.0
    state = np.array([x, k, 1.0])
    for step in range(3):
        state[step] *= y          # in-place update of an array
    return state.sum() / (1.0 + k * k)


def main() -> None:
    x, k = 0.7, 1.3
    print("The forward rule fwdad derived for damped_response:\n")
    print(damped_response.frule.source)

    value, dvalue = fwdad.jvp(damped_response, (x, k), (1.0, 0.0))
    h = 1e-6
    fd = (damped_response(x + h, k) - damped_response(x - h, k)) / (2 * h)
    print(f"damped_response({x}, {k})  = {value:.10f}")
    print(f"d/dx by fwdad.jvp          = {dvalue:.10f}")
    print(f"d/dx by finite differences = {fd:.10f}")
    assert abs(dvalue - fd) < 1e-6 * max(1.0, abs(fd)), "derivative mismatch"


if __name__ == "__main__":
    main()
