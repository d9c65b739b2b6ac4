"""NumPy complex scalars in reverse mode (docs/complex.md)."""
from __future__ import annotations

import numpy as np

from fwdad.reverse.adjoints import accumulate
from fwdad.reverse.var import Var


# ---- the matvar layout: a complex Var keeps the imaginary part of its cotangent -------
def test_a_matvar_holding_a_complex_var_keeps_its_complex_cotangent():
    """A 0-d matvar held a complex scalar for its methods, and every cotangent added into
    a matvar lost its imaginary part: z.conjugate() * w, declared complex_ready on that
    path, had a wrong gradient. A real Var keeps the real part, as a real argument does."""
    held = np.empty(2, dtype=object)
    held[0], held[1] = Var(0.3 - 0.7j, 0j), Var(1.5)
    accumulate(held, np.array([2.0 + 3.0j, 4.0 - 5.0j]))
    assert held[0].adjoint == 2.0 + 3.0j
    assert held[1].adjoint == 4.0 and not np.iscomplexobj(held[1].adjoint)
