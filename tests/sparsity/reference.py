"""The reference a detected pattern is checked against: the nonzeros of dense jacfwd,
as one (output size, input size) matrix ordered as jacobian_sparsity orders it."""
import numpy as np

import fwdad


def jacobian_matrix(f, *args, argnums=0):
    """Dense jacfwd of f at args, outputs (a tuple's one after another) by inputs."""
    out = f(*_copies(args))
    jac = fwdad.jacfwd(f, argnums)(*_copies(args))
    outs, jacs = (out, jac) if isinstance(out, tuple) else ((out,), (jac,))
    wrt = argnums if isinstance(argnums, tuple) else (argnums,)
    rows = []
    for o, j in zip(outs, jacs):
        blocks = j if isinstance(argnums, tuple) else (j,)
        rows.append(np.hstack([np.reshape(b, (np.size(o), np.size(args[i])))
                               for b, i in zip(blocks, wrt)]))
    return np.vstack(rows)


def pattern_and_nonzeros(f, *args, mode="local", argnums=0, at=None):
    """(the detected pattern as a dense bool array, the nonzeros of the Jacobian at
    `at`, by default at args)."""
    pattern = fwdad.jacobian_sparsity(f, *_copies(args), mode=mode, argnums=argnums)
    jac = jacobian_matrix(f, *(args if at is None else at), argnums=argnums)
    return pattern.toarray(), jac != 0


def _copies(args):
    return tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in args)
