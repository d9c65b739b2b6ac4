"""SciPy and linear algebra as users write them, which the other statements do not draw
(numerics.py draws a few of scipy.special's functions, habits.py numpy.linalg):
scipy.linalg's `expm`, `solve_triangular`, `cho_factor`/`cho_solve`,
`lu_factor`/`lu_solve` and `solve` (with `assume_a=` and `transposed=`); scipy.special's
`gammaln`, `digamma`, `polygamma`, `betaln`, `erfc`, `xlogy`, `entr`, `logsumexp` (with
`axis=` and `b=`), `softmax` and `log_softmax`; `scipy.integrate.solve_ivp` on a small
smooth system; scipy.optimize's root finders (`brentq`, `newton`, `root_scalar`,
`fsolve`, `root`), whose roots fwdad differentiates by the implicit function theorem;
and `np.fft` (`rfft`/`irfft`, `fft` read through `np.abs`).

Each program of the `scientific` subset (about one in four of the fuzzer's programs,
drawn from the seed by its own random stream, so the rest of the program is drawn as
before; `generate(seed, scientific=True)`) rebinds one variable through one of them
after one of its top-level statements:

    sc3 = np.tanh(np.mean(np.reshape(v3 * np.ones(3), (-1, 3)), axis=0) * 0.7 + ...)
    sc4 = np.outer(sc3, np.cos(sc3)) * 0.3 + np.diag([0.1, -0.2, 0.3])
    sc5 = scipy.linalg.expm(sc4) @ sc3
    v3 = v3 * 0.5 + np.sum(sc5 * sc3) * 0.25
    ...
    return <the output> + 0.25 * np.sum(v3)

Every value stays in the function's smooth domain: the first line bounds a vector `{u}`
of three entries in (-1, 1) made from the variable and a scalar, the matrices built from
it are far from singular (a dominant diagonal, or positive definite), with pivots far
from ties and the arguments of gammaln, digamma, xlogy and entr far from their poles
and from 0; the ODE runs for a short time with tolerances near rounding (the tangents
share the solver's error control, so a batch of other directions moves them by about
the tolerance: jacfwd's first call, in passes of 1 and 16 tangents, differed from its
later calls, in one pass, by 1e-11 at rtol 1e-10, past the repeat oracle's bound), and
the equations solved have one simple root (a monotone function), found to rounding.
`np.abs` reads an FFT whose bins stay far from 0.

fwdad differentiates the solvers (solve_ivp and the root finders) once, not twice: the
higher-order oracles refuse those programs (docs/scipy.md), which is documented, so they
count as refusals. Their functions are defined at module level and take the program's
values through `args=`: reverse mode refuses a function defined inside the
differentiated one (its captured values are out of a reverse rule's reach), so a
closure would only be refused by every reverse oracle.
"""
from __future__ import annotations

import importlib.util

from tests.fuzz.own_stream import OncePattern

FRACTION = 4     # one program in FRACTION draws a scientific call
SALT = 7451      # the construct's own random stream: random.Random(seed * SALT + 31)
HAS_SCIPY = importlib.util.find_spec("scipy") is not None

LINALG, SPECIAL = "import scipy.linalg", "import scipy.special"
# y'' = -k sin(y) - 0.2 y' (a damped pendulum) and a linear system with a forcing term
ODE = ("import scipy.integrate\n"
       "\n"
       "\n"
       "def {name}(t, y, k):\n"
       "    return np.array([y[1], -k * np.sin(y[0]) - 0.2 * y[1]])\n"
       "\n"
       "\n"
       "def forced_{n}(t, y, a, b):\n"
       "    return -a * y + b * np.cos(t)")
# monotone in x (derivatives 3x^2 + 1 and 1 + 0.3 cos(x), both positive): one simple root
ROOTS = ("import scipy.optimize\n"
         "\n"
         "\n"
         "def {name}(x, p):\n"
         "    return x ** 3 + x - p\n"
         "\n"
         "\n"
         "def vector_{n}(x, p):\n"
         "    return x + 0.3 * np.sin(x) - p")

# three entries in (-1, 1) from the variable (of any shape) and the scalar {s}
BOUNDED = ("{u} = np.tanh(np.mean(np.reshape({v} * np.ones(3), (-1, 3)), axis=0) * 0.7 + "
           "np.tanh({s}) * 0.2 + np.array([0.1, 0.2, -0.4]))")
READ = "{v} = {v} * 0.5 + np.sum({w} * {u}) * 0.25"

# (name, module text with {name} and {n}, or None; lines with {name}, {n}, {v}, {w},
# {t}, {k}, {u} and {s}; the shapes {v} may have)
PATTERNS = [
    ("expm", LINALG, [BOUNDED,
                      "{t} = np.outer({u}, np.cos({u})) * 0.3 + np.diag([0.1, -0.2, 0.3])",
                      "{w} = scipy.linalg.expm({t}) @ {u} + scipy.linalg.expm({t} * {u}[0])[0]",
                      READ], "any"),
    ("triangular", LINALG, [BOUNDED,
                            "{t} = np.tril(np.outer({u}, {u})) * 0.25 + np.eye(3) * 2.0",
                            "{w} = scipy.linalg.solve_triangular({t}, np.sin({u}) + 1.0, "
                            "lower=True) + scipy.linalg.solve_triangular({t}.T, {u}, trans=1)",
                            READ], "any"),
    ("cholesky", LINALG, [BOUNDED,
                          "{t} = np.outer({u}, {u}) * 0.5 + np.eye(3) * 1.5",
                          "{k} = scipy.linalg.cho_factor({t}, lower=True)",
                          "{w} = scipy.linalg.cho_solve({k}, np.cos({u})) + "
                          "scipy.linalg.cho_solve(scipy.linalg.cho_factor({t}), {u})",
                          READ], "any"),
    # the first column's pivot is 2 or more, the others' entries 0.6 or less: no tie
    ("lu", LINALG, [BOUNDED,
                    "{t} = np.outer({u}, np.sin({u})) * 0.3 + np.array([[2.0, 0.5, 0.1], "
                    "[0.3, -1.5, 0.2], [0.1, 0.4, 1.8]])",
                    "{k} = scipy.linalg.lu_factor({t})",
                    "{w} = scipy.linalg.lu_solve({k}, np.cos({u})) + "
                    "scipy.linalg.lu_solve({k}, {u}, trans=1)",
                    READ], "any"),
    ("solve", LINALG, [BOUNDED,
                       "{t} = np.outer({u}, {u}) * 0.5 + np.eye(3) * 1.5 + np.diag({u}) * 0.25",
                       "{w} = scipy.linalg.solve({t}, np.sin({u})) + scipy.linalg.solve({t}, "
                       "{u}, assume_a='pos') + scipy.linalg.solve({t}, {u} * {u}, "
                       "assume_a='sym', lower=True)",
                       "{w} = {w} + scipy.linalg.solve({t} + np.triu({t}, 1) * 0.2, {u}, "
                       "transposed=True)",
                       READ], "any"),
    ("special", SPECIAL, [BOUNDED,
                          "{w} = scipy.special.gammaln(1.5 + {u} * {u}) + "
                          "scipy.special.digamma(1.0 + {u} * {u}) * 0.5 + "
                          "scipy.special.erfc({u}) + scipy.special.xlogy({u} * {u} + 0.5, "
                          "1.5 + {u} * {u})",
                          "{w} = {w} + scipy.special.polygamma(1, 2.0 + {u}) * 0.1 + "
                          "scipy.special.betaln(1.0 + {u} * {u}, 2.0 + {u}) + "
                          "scipy.special.entr({u} * {u} + 0.25)",
                          READ], "any"),
    ("softmax", SPECIAL, [BOUNDED,
                          "{t} = np.outer({u}, {u} + 1.0) + np.tanh({s}) * 0.1",
                          "{w} = scipy.special.logsumexp({t}, axis=0) + "
                          "scipy.special.logsumexp({u}, b=np.cos({u}) + 1.5) + "
                          "np.sum(scipy.special.softmax({t}, axis=1) * {t}, axis=0)",
                          "{w} = {w} + scipy.special.log_softmax({u}) * 0.5 + "
                          "scipy.special.softmax({u})",
                          READ], "any"),
    ("solve_ivp", ODE, [BOUNDED,
                        "{k} = scipy.integrate.solve_ivp({name}, (0.0, 1.0), {u}[:2], "
                        "t_eval=[0.5, 1.0], args=(1.0 + 0.5 * {u}[2],), rtol=1e-13, "
                        "atol=1e-15)",
                        "{t} = scipy.integrate.solve_ivp(forced_{n}, (0.0, 0.5), {u}, "
                        "method='DOP853', t_eval=[0.25, 0.5], args=({u} * 0.5 + 1.0, "
                        "np.tanh({s})), rtol=1e-13, atol=1e-15)",
                        "{w} = {k}.y[:, 1] @ {u}[:2] + np.sum({k}.y) + {t}.y[:, -1]",
                        READ], "any"),
    ("root_scalar", ROOTS, [BOUNDED,
                            "{w} = scipy.optimize.brentq({name}, -10.0, 10.0, "
                            "args=(np.sum({u}),), xtol=1e-14) + scipy.optimize.newton("
                            "{name}, 0.0, args=({u}[0],), tol=1e-14) * {u}",
                            "{w} = {w} + scipy.optimize.root_scalar({name}, args=({u}[1],), "
                            "bracket=(-10.0, 10.0), method='brentq', xtol=1e-14).root",
                            READ], "any"),
    ("root_vector", ROOTS, [BOUNDED,
                            "{w} = scipy.optimize.fsolve(vector_{n}, np.zeros(3), "
                            "args=({u},), xtol=1e-13)",
                            "{w} = {w} + scipy.optimize.root(vector_{n}, np.zeros(3), "
                            "args=({u} * 0.5,), tol=1e-13).x",
                            READ], "any"),
    # the bins of the FFT that np.abs reads are 2 or more from 0 ([3, 1, -0.5]'s are
    # 2.75 or more, and 0.25 {u}'s 0.75 or less)
    ("fft", None, [BOUNDED,
                   "{w} = np.abs(np.fft.fft({u} * 0.25 + np.array([3.0, 1.0, -0.5])))",
                   "{t} = np.fft.rfft({u}) * np.array([1.0, 0.5])",
                   "{w} = {w} + np.fft.irfft({t}, n=3) + np.fft.irfft(np.fft.rfft({u}, "
                   "norm='ortho'), n=3, norm='ortho') * {u}",
                   READ], "any"),
]
SHAPES = {"any": [(), (3,), (2, 3)]}


class Scientific(OncePattern):
    """Whether and where the program of `seed` gets a SciPy, linear algebra or FFT
    call, and which one (`only` names the one to draw, for measuring one at a time).
    Without SciPy, no program draws one (the rest is drawn as with it)."""

    PATTERNS, SHAPES, FRESH = PATTERNS, SHAPES, ("w", "t", "k", "u")
    PREFIX, HELPER = "sc", "scientific"

    def __init__(self, seed: int, enabled: bool, only: str = "") -> None:
        super().__init__(seed, enabled and HAS_SCIPY, SALT, 31, FRACTION, "scientific",
                         only)
