"""Statements that take a real variable through complex intermediates and back to a real
one: FFTs, `np.exp(1j * x)`, complex arithmetic, `np.abs`/`np.angle` away from 0 and the
branch cut, `.real`/`.imag`, complex in-place updates, `complex(a, b)` and cmath on
scalars, and the same inside a loop, a branch on a value, a helper and an instance.

Each program of the `complex` subset (about one in three of the fuzzer's programs, drawn
from the seed by its own random stream, so the rest of the program is drawn as before;
`generate(seed, complex_values=True)`) gets one or two such statements after some of its
top-level statements, each binding a fresh real variable of the shape of the one it
reads:

    z4 = np.fft.fft(v2, axis=-1)
    z4[..., 1:] *= 0.5j
    c5 = np.fft.ifft(z4, axis=-1).real

Outputs stay real, so every oracle applies. The modulus and the phase are only taken of
values kept away from 0 (`(2.0 + np.sin(a)) * np.exp(1j * a)`, real part at least 1), as
the other constructs keep away from kinks.
"""
from __future__ import annotations

import random
from typing import List

FRACTION = 3     # one program in FRACTION draws complex intermediates
SALT = 7927      # the construct's own random stream: random.Random(seed * SALT + 2)

# a value with real part in [1, 3] (never near 0 or the branch cut of log and angle)
AWAY = "((2.0 + np.cos({a})) + 1j * np.sin({a}))"

# lines reading {a} (a float array, last axis of length 3) and binding the real {out}
# of the same shape; {z} names a complex temporary
ARRAY_PATTERNS = [
    ["{z} = np.fft.fft({a}, axis=-1)",
     "{out} = np.fft.ifft({z} * np.conj({z}), axis=-1).real"],
    ["{out} = np.real(np.fft.ifft(np.fft.fft({a}, axis=-1), axis=-1))"],
    ["{z} = np.fft.fft({a}, axis=-1)",
     "{z}[..., 1:] *= 0.5j",
     "{out} = np.fft.ifft({z}, axis=-1).real"],
    ["{z} = np.fft.rfft({a}, axis=-1)",
     "{out} = np.fft.irfft({z} * (1.0 + 0.5j), n=3, axis=-1)"],
    ["{z} = np.exp(1j * {a})",
     "{out} = (({z} * {z}).imag + np.abs({z} + 2.0)) * 0.5"],
    ["{z} = " + AWAY,
     "{out} = np.abs({z}) + np.angle({z})"],
    ["{z} = ({a} + 0.5j * np.tanh({a})) / (1 + 2j)",
     "{out} = ({z} ** 2).real + np.imag({z}) + {z}.conj().imag"],
    ["{z} = np.fft.fftshift(np.fft.fft({a}, axis=-1), axes=-1)",
     "{out} = 0.3 * {z}.imag + 0.2 * np.real({z})"],
    ["{z} = np.fft.fft({a}, axis=-1) * np.exp(-0.5j * np.arange(3))",
     "{z} += 1j * {a}",
     "{out} = np.tanh(np.fft.ifft({z}, axis=-1).real)"],
    ["{z} = " + AWAY + " * (1.0 - 0.25j)",
     "{out} = np.log({z}).imag + np.sqrt({z}).real"],
    ["{z} = {a} * np.exp(0.3j * {a})",
     "for {k} in range(2):",
     "    {z} = {z} * np.exp(0.2j * {a}) + 0.1",
     "{out} = {z}.real * 0.5"],
    ["{z} = np.fft.fft({a}, axis=-1)",
     "if np.sum(np.abs({z})) > 2.0:",
     "    {z} = {z} * (0.5 - 0.5j)",
     "else:",
     "    {z}.imag[...] = 0.0",
     "{out} = np.fft.ifft({z}, axis=-1).real"],
]
# the same for a Python float {a}: {out} is a float
SCALAR_PATTERNS = [
    ["{z} = complex({a}, 0.5)",
     "{out} = ({z} * {z}).real + abs({z}) * 0.1"],
    ["{z} = cmath.exp(1j * {a})",
     "{out} = {z}.imag + cmath.phase({z} + 2.0)"],
    ["{z} = cmath.sqrt(complex(1.5 + {a} * {a}, {a}))",
     "{out} = {z}.real * {z}.imag"],
    ["{z} = cmath.log(complex(2.0 + math.cos({a}), math.sin({a})))",
     "{out} = {z}.imag + {z}.real"],
    ["{z} = complex({a}, 0.5 * {a}) / (1 + 2j)",
     "{out} = {z}.real - {z}.imag"],
    ["{z} = ({a} + 0.5j) ** 2",
     "{out} = {z}.imag + {z}.conjugate().real * 0.1"],
    ["{z} = 1j * {a} + 0.25",
     "{z} *= (1.0 - 0.5j)",
     "{out} = float(np.real({z})) + float(np.imag({z}))"],
    ["{z} = np.sum(np.exp(1j * {a} * np.arange(3)))",
     "{out} = float({z}.real) * 0.5"],
]
# helpers and classes, registered in the module: (module text with {name}, call line)
HELPERS = [
    ("def {name}(a):\n"
     "    z = np.fft.fft(a, axis=-1)\n"
     "    z = z * np.conj(z) + 1j * z\n"
     "    return np.fft.ifft(z, axis=-1).real * 0.2",
     "{out} = {name}({a})"),
    ("class {name}:\n"
     "    def __init__(self, a):\n"
     "        self.z = (2.0 + np.cos(a)) + 1j * np.sin(a)\n\n"
     "    def power(self):\n"
     "        return (self.z * np.conj(self.z)).real * 0.1 + np.angle(self.z)",
     "{out} = {name}({a}).power()"),
]


class ComplexValues:
    """Whether and where the program of `seed` gets complex intermediates."""

    def __init__(self, seed: int, enabled: bool) -> None:
        self.rng = random.Random(seed * SALT + 2)
        self.left = self.rng.randint(1, 2) if enabled and self.rng.randrange(FRACTION) == 0 \
            else 0
        self.after = {self.rng.randint(1, 4) for _ in range(self.left)}
        self.statements = 0

    def after_statement(self, g) -> List[str]:
        """Lines binding a fresh real variable through complex values, at the drawn
        top-level positions (registering helpers with g's module)."""
        self.statements += 1
        if not self.left or self.statements not in self.after or not g.vars:
            return []
        self.left -= 1
        g.features = g.features | {"complex"}
        a = self.rng.choice(sorted(g.vars))
        shape, out, z = g.vars[a], g.fresh("c"), g.fresh("z")
        if self.rng.random() < 0.25:
            lines = self._helper(g, shape)
        elif shape == ():
            lines = self.rng.choice(SCALAR_PATTERNS)
            if not any(m.startswith("import cmath") for m in g.module):
                g.module.insert(0, "import cmath")
        else:
            lines = self.rng.choice(ARRAY_PATTERNS)
        g.vars[out] = shape
        return [line.format(a=a, out=out, z=z, k=g.fresh("k")) for line in lines]

    def _helper(self, g, shape: tuple) -> List[str]:
        text, call = HELPERS[1] if shape == () else self.rng.choice(HELPERS)
        name = f"Phasor{len(g.module)}" if text.startswith("class") else \
            f"spectrum_{len(g.module)}"
        g.module.append(text.format(name=name))
        return [call.replace("{name}", name)]
