"""One program under test: its function, reference, and the jvp the oracles share."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

import fwdad
from fwdad.forward import dispatch
from fwdad.reverse import dispatch as reverse_dispatch
from fwdad.reverse.specialize import specialized_rrules
from tests.fuzz.compare import fresh, leaves, mismatch
from tests.fuzz.generate import Program, load
from tests.fuzz.reference import Reference, reference

JVP_TOLERANCE = dict(rtol=1e-5, atol=1e-6)   # jvp against central differences
EXACT = dict(rtol=1e-11, atol=1e-12)          # the same computation, another way


class Case:
    """A loaded program with its plain-run reference; `jvp()` is computed once."""

    def __init__(self, program: Program) -> None:
        reset_caches()
        self.program = program
        self.module = load(program.source)
        self.f = self.module.f
        self.filename = self.module.__file__
        self.args, self.tangents = program.args, program.tangents
        self.ref: Reference = reference(self.f, self.args, self.tangents, self.filename)
        self._jvp: Optional[tuple] = None

    def jvp(self) -> tuple:
        """(output, tangent, arguments after) of fwdad.jvp on fresh copies; raises what
        jvp raises (every time it is asked)."""
        if self._jvp is None:
            copies = fresh(self.args)
            out, tangent = fwdad.jvp(self.f, copies, fresh(self.tangents))
            self._jvp = (out, tangent, copies)
        return self._jvp

    def reference_tangent(self) -> tuple:
        """The tangent other modes are compared with: jvp's when it runs and matches the
        finite differences (the independent reference), else the finite differences; and
        the tolerance that goes with it."""
        try:
            tangent = self.jvp()[1]
        except Exception:  # noqa: BLE001 (jvp's own failure is oracle a's to report)
            return self.ref.fd, JVP_TOLERANCE, "finite differences"
        if mismatch(tangent, self.ref.fd, **JVP_TOLERANCE):
            return self.ref.fd, JVP_TOLERANCE, "finite differences"
        return tangent, EXACT, "jvp"

    def cotangent(self, salt: int = 0) -> Any:
        """A random cotangent shaped like the output (seeded by the program)."""
        rng = np.random.default_rng([self.program.seed, 7 + salt])
        return _like(self.ref.out, rng)

    def more_tangents(self, count: int) -> list:
        rng = np.random.default_rng([self.program.seed, 11])
        return [tuple(_like(a, rng) for a in self.args) for _ in range(count)]

    def scalar_output(self) -> bool:
        return not isinstance(self.ref.out, (tuple, list)) and np.ndim(self.ref.out) == 0

    def output_leaves(self) -> list:
        return leaves(self.ref.out)


def _like(x: Any, rng: np.random.Generator) -> Any:
    if isinstance(x, (tuple, list)):
        return type(x)(_like(item, rng) for item in x)
    if np.ndim(x) == 0:
        return float(rng.standard_normal())
    return rng.standard_normal(np.shape(x))


def reset_caches() -> None:
    """Forget every derived rule, so that each program is checked on its own (and the
    caches do not grow over a campaign)."""
    dispatch._forget_derived_rules(None)
    reverse_dispatch.derived_rrules.clear()
    specialized_rrules.clear()
    reverse_dispatch._RUNTIME.clear()
