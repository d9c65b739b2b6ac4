"""Newton-CG minimization with Hessian-vector products from fwdad.hvp.

The chained Rosenbrock function of n variables,

    f(x) = sum_i 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2,

has its minimum at x = (1, ..., 1). Each Newton step solves H p = -g approximately by
conjugate gradients, written out below: CG needs the Hessian H only through products
H v, which fwdad.hvp gives without forming H, and stops early (truncated CG) once the
residual is small relative to |g|, or when it meets a direction of negative curvature.
A backtracking line search makes each step decrease f. fwdad.grad gives g.

Before trusting them, the script checks fwdad.grad and fwdad.hvp against the closed
forms of this f's gradient and Hessian-vector product, and hvp against central finite
differences of the closed-form gradient. When SciPy is installed, it also runs
scipy.optimize.minimize(method="trust-ncg") with fwdad's grad and hvp, and checks that
both find the same minimum.

Run: python examples/newton_cg.py [--n N] [--quick]
fwdad.hvp is forward over reverse (a reverse pass run on Dual values), so each product
costs a few gradients whatever n is: the default n = 100,000 converges in a few seconds.
"""
import argparse
import time

import numpy as np

import fwdad


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


# ---- closed forms: the independent checks ----------------------------------------------
def rosenbrock_gradient(x):
    a = x[1:] - x[:-1] ** 2
    out = np.zeros_like(x)
    out[:-1] = -400.0 * x[:-1] * a - 2.0 * (1.0 - x[:-1])
    out[1:] += 200.0 * a
    return out


def rosenbrock_hvp(x, v):
    """H v for the tridiagonal Hessian of the chained Rosenbrock function."""
    out = np.zeros_like(x)
    out[:-1] = (1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0) * v[:-1] - 400.0 * x[:-1] * v[1:]
    out[1:] += 200.0 * v[1:] - 400.0 * x[:-1] * v[:-1]
    return out


def check_derivatives(x, seed=0):
    v = np.random.default_rng(seed).standard_normal(x.size)
    grad = fwdad.grad(rosenbrock)(x)
    (hv,) = fwdad.hvp(rosenbrock, (x,), (v,))
    h = 1e-6
    differences = (rosenbrock_gradient(x + h * v) - rosenbrock_gradient(x - h * v)) / (2 * h)
    scale = np.max(np.abs(rosenbrock_hvp(x, v)))
    assert np.allclose(grad, rosenbrock_gradient(x), rtol=1e-12, atol=1e-9)
    assert np.allclose(hv, rosenbrock_hvp(x, v), rtol=1e-12, atol=1e-9 * scale)
    assert np.max(np.abs(hv - differences)) <= 1e-6 * scale
    print("grad and hvp agree with the closed forms and with finite differences")


# ---- Newton-CG ----------------------------------------------------------------------
def truncated_cg(hessian_times, g, tol, max_iterations):
    """An approximate solution p of H p = -g, and the number of products H v taken.
    Stops at |H p + g| <= tol, or on negative curvature (returning the last p, or -g
    when that happens on the first direction)."""
    p, r = np.zeros_like(g), -g
    d, rr = r.copy(), r @ r
    for k in range(1, max_iterations + 1):
        hd = hessian_times(d)
        curvature = d @ hd
        if curvature <= 0.0:
            return (p if k > 1 else -g), k
        alpha = rr / curvature
        p, r = p + alpha * d, r - alpha * hd
        rr_next = r @ r
        if np.sqrt(rr_next) <= tol:
            return p, k
        d, rr = r + (rr_next / rr) * d, rr_next
    return p, max_iterations


def backtrack(f, x, fx, g, p):
    """The largest step t in 1, 1/2, 1/4, ... with sufficient decrease (Armijo)."""
    t = 1.0
    while f(x + t * p) > fx + 1e-4 * t * (g @ p) and t > 1e-12:
        t *= 0.5
    return t


def newton_cg(f, x, gtol=1e-8, max_steps=200):
    """Minimize f from x. Returns x and, per step, (|g|, CG iterations)."""
    gradient = fwdad.grad(f)
    history = []
    for _ in range(max_steps):
        g = gradient(x)
        g_norm = np.linalg.norm(g)
        if g_norm <= gtol:
            break
        def hessian_times(v, x=x):
            return fwdad.hvp(f, (x,), (v,))[0]
        forcing = min(0.5, np.sqrt(g_norm))           # tighter CG as g gets small
        p, iterations = truncated_cg(hessian_times, g, forcing * g_norm, 10 * x.size)
        x = x + backtrack(f, x, f(x), g, p) * p
        history.append((g_norm, iterations))
    return x, history


def compare_with_scipy(x0, x_newton):
    try:
        from scipy.optimize import minimize
    except ImportError:
        print("SciPy is not installed: skipping the comparison with trust-ncg")
        return
    start = time.perf_counter()
    result = minimize(rosenbrock, x0, method="trust-ncg", jac=fwdad.grad(rosenbrock),
                      hessp=lambda x, v: fwdad.hvp(rosenbrock, (x,), (v,))[0],
                      options={"gtol": 1e-8})
    elapsed = time.perf_counter() - start
    distance = np.max(np.abs(result.x - x_newton))
    print(f"scipy trust-ncg with fwdad's grad and hvp: {result.nit} iterations, "
          f"{result.nhev} Hessian-vector products, {elapsed:.2f} s; "
          f"max |x_scipy - x_newton| = {distance:.1e}")
    assert result.success, result.message
    assert distance <= 1e-6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="number of variables")
    parser.add_argument("--quick", action="store_true", help="n = 50 (a smoke test)")
    args = parser.parse_args(argv)
    n = 50 if args.quick else args.n
    x0 = 1.0 + 0.5 * np.sin(np.arange(n))
    check_derivatives(x0)
    start = time.perf_counter()
    x, history = newton_cg(rosenbrock, x0)
    elapsed = time.perf_counter() - start
    for step, (g_norm, iterations) in enumerate(history):
        print(f"  step {step:2d}: |g| = {g_norm:.3e}, {iterations} CG iterations")
    final = np.linalg.norm(rosenbrock_gradient(x))   # checked by the closed form
    print(f"n = {n}: |g| = {final:.1e} at the end, max |x - 1| = {np.max(np.abs(x - 1)):.1e}")
    assert final <= 1e-7, "Newton-CG did not converge"
    assert np.max(np.abs(x - 1.0)) <= 1e-6, "converged to a point other than the minimum"
    products = sum(iterations for _, iterations in history)
    print(f"Newton-CG converged in {len(history)} steps, {products} Hessian-vector "
          f"products, {elapsed:.2f} s")
    compare_with_scipy(x0, x)


if __name__ == "__main__":
    main()
