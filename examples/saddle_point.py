"""A min-max problem solved through an unrolled inner loop: gradients of gradients.

Player x minimizes and player y maximizes the payoff f(x, y) (convex in x, strongly
concave in y). For a given x, y's best response is approximated by K steps of gradient
ascent, each taking fwdad.grad of f in y:

    y_0 = 0,   y_{k+1} = y_k + lr * grad_y f(x, y_k),   outer(x) = f(x, y_K(x))

outer(x) depends on x directly and through all K inner steps, so its total derivative
differentiates the inner gradients again. fwdad.grad(outer) gives it; it is checked
against central finite differences of outer (float64) and against fwdad.jvp along a
random direction, and then gradient descent on outer finds the saddle point, where both
partial gradients of f vanish.

Run: python examples/saddle_point.py
"""
import numpy as np

import fwdad

RNG = np.random.default_rng(0)
COUPLING = 0.5 * RNG.standard_normal((2, 3))     # y has 2 entries, x has 3
X_CENTER = np.array([1.0, -0.5, 0.3])
Y_CENTER = np.array([0.2, -0.4])


def payoff(x, y):
    """f(x, y): convex in x (log cosh), strongly concave in y, coupled through sin(x)."""
    own_x = np.sum(np.log(np.cosh(x - X_CENTER)))
    own_y = 0.5 * np.sum((y - Y_CENTER) ** 2) + 0.25 * np.sum(y ** 4)
    return own_x + np.sin(x) @ (COUPLING.T @ y) - own_y


def best_response(x, y, steps=3, lr=0.3):
    """y_K(x): K steps of gradient ascent on f(x, .) from y, each by fwdad.grad."""
    for _ in range(steps):
        y = y + lr * fwdad.grad(lambda y: payoff(x, y))(y)
    return y


def outer(x, y):
    """The loss x minimizes: the payoff at y's response after K steps from y."""
    return payoff(x, best_response(x, y))


def central_differences(f, x, h=1e-6):
    """The gradient of f at x, entry by entry (the independent check)."""
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


def check_total_derivative(x, y):
    """fwdad.grad of outer against finite differences and fwdad.jvp, at a y far from
    the best response, where y_K moves with x and the partial df/dx is not enough."""
    total = fwdad.grad(outer)(x, y)
    reference = central_differences(lambda x: outer(x, y), x)
    error = np.max(np.abs(total - reference))
    partial = fwdad.grad(payoff)(x, best_response(x, y))
    print(f"d outer/dx by fwdad.grad:         {np.round(total, 6)}")
    print(f"d outer/dx by finite differences: {np.round(reference, 6)}"
          f"  (largest difference {error:.1e})")
    print(f"partial df/dx at y_K (y_K held fixed): {np.round(partial, 6)}")
    assert error <= 1e-7 * max(1.0, np.max(np.abs(reference)))
    assert np.max(np.abs(total - partial)) > 1e3 * error  # the check sees the inner loop
    direction = RNG.standard_normal(x.size)
    _, along = fwdad.jvp(lambda x: outer(x, y), (x,), (direction,))  # forward over grads
    assert abs(along - total @ direction) <= 1e-9 * max(1.0, abs(along))


def descend(x, y, steps, lr=1.0, tol=1e-9):
    """Unrolled gradient descent-ascent: x steps along -d outer/dx, y moves on to its
    K-step response (warm start). Returns x, y and the norms of the total gradients."""
    norms = []
    for _ in range(steps):
        total = fwdad.grad(outer)(x, y)
        norms.append(np.linalg.norm(total))
        if norms[-1] <= tol:
            break
        x, y = x - lr * total, best_response(x, y)
    return x, y, norms


def main():
    x, y = np.array([0.3, 0.1, -0.2]), np.zeros(2)
    check_total_derivative(x, y)
    x, y, norms = descend(x, y, steps=40)
    for step, norm in enumerate(norms):
        print(f"  step {step}: |d outer/dx| = {norm:.3e}")
    # At a fixed point y = y_K(x, y), so df/dy = 0, and then d outer/dx = df/dx = 0.
    grad_x, grad_y = fwdad.grad(payoff, argnums=(0, 1))(x, y)
    print(f"saddle point: x = {np.round(x, 6)}, y = {np.round(y, 6)}")
    print(f"|df/dx| = {np.linalg.norm(grad_x):.1e}, |df/dy| = {np.linalg.norm(grad_y):.1e}")
    assert norms[-1] <= 1e-9, "gradient descent on outer did not converge"
    assert max(np.linalg.norm(grad_x), np.linalg.norm(grad_y)) <= 1e-7
    print(f"saddle point found in {len(norms) - 1} outer steps")


if __name__ == "__main__":
    main()  # under a second: --quick (as the tests pass it) changes nothing
