"""Fit the parameters of an ODE model to noisy data: Lotka-Volterra through solve_ivp.

    prey'     = alpha prey - beta prey predator
    predator' = delta prey predator - gamma predator

Noisy observations of both populations come from known parameters; least_squares then
recovers the parameters from a guess. Its Jacobian, d(residuals)/d(parameters), comes
from fwdad through scipy.integrate.solve_ivp (fwdad.optimize.jac: jacfwd, which solves
the forward sensitivity equations of the model alongside it, one direction per
parameter). A central finite difference checks that Jacobian once.

Run: python examples/ode_fit.py [--quick]
(saves ode_fit.png when matplotlib is installed)
"""
import sys

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import least_squares

import fwdad

TRUE = np.array([1.1, 0.4, 0.1, 0.4])  # alpha, beta, delta, gamma
GUESS = np.array([0.8, 0.3, 0.15, 0.6])
Y0 = np.array([10.0, 5.0])
NAMES = ("alpha", "beta", "delta", "gamma")


def lotka_volterra(t, y, alpha, beta, delta, gamma):
    prey, predator = y
    return [alpha * prey - beta * prey * predator, delta * prey * predator - gamma * predator]


def simulate(params, times):
    """Both populations at `times` (2 x len(times))."""
    res = solve_ivp(lotka_volterra, (0.0, times[-1]), Y0, t_eval=times, method="DOP853",
                    args=(params[0], params[1], params[2], params[3]), rtol=1e-8,
                    atol=1e-10)
    return res.y


def residuals(params, times, data):
    return np.ravel(simulate(params, times) - data)


def main(quick=False):
    times = np.linspace(0.5, 15.0, 15 if quick else 40)
    rng = np.random.default_rng(3)
    data = simulate(TRUE, times) * (1.0 + 0.05 * rng.standard_normal((2, len(times))))

    jac = fwdad.optimize.jac(residuals)
    check_jacobian(jac, times, data)
    fit = least_squares(residuals, GUESS, jac=jac, args=(times, data), bounds=(0.0, 5.0))
    print(f"least_squares: {fit.message} ({fit.nfev} evaluations, {fit.njev} Jacobians)")
    print(f"{'':8s}{'true':>8s}{'guess':>8s}{'fit':>8s}")
    for name, true, guess, found in zip(NAMES, TRUE, GUESS, fit.x):
        print(f"{name:8s}{true:8.3f}{guess:8.3f}{found:8.3f}")
    def rms(params):
        return np.sqrt(np.mean(residuals(params, times, data) ** 2))
    print(f"rms residual: fit {rms(fit.x):.3f}, true parameters {rms(TRUE):.3f}, "
          f"guess {rms(GUESS):.3f}")
    assert rms(fit.x) <= rms(TRUE) + 1e-9, "the fit is worse than the true parameters"
    plot(times, data, fit.x)


def check_jacobian(jac, times, data, h=1e-6):
    """fwdad's Jacobian against central differences, at the guess."""
    ad = jac(GUESS, times, data)
    fd = np.stack([(residuals(GUESS + h * e, times, data) -
                    residuals(GUESS - h * e, times, data)) / (2 * h) for e in np.eye(4)],
                  axis=-1)
    error = np.max(np.abs(ad - fd)) / np.max(np.abs(fd))
    assert error < 1e-4, error
    print(f"Jacobian {ad.shape} through solve_ivp agrees with finite differences "
          f"(relative error {error:.1e})")


def plot(times, data, params):
    """Save data, the initial guess and the fit as a PNG, if matplotlib is there."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fine = np.linspace(times[0], times[-1], 300)
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (name, color) in enumerate((("prey", "C0"), ("predator", "C1"))):
        ax.plot(times, data[i], "o", color=color, label=f"{name} data")
        ax.plot(fine, simulate(GUESS, fine)[i], ":", color=color, label=f"{name} guess")
        ax.plot(fine, simulate(params, fine)[i], "-", color=color, label=f"{name} fit")
    ax.set_xlabel("t")
    ax.legend(ncol=3, fontsize=8)
    fig.tight_layout()
    fig.savefig("ode_fit.png", dpi=120)
    print("saved ode_fit.png")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
