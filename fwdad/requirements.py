"""The oldest NumPy and SciPy fwdad runs with, checked where they are first used, so
that an older one gives an error saying what to install rather than a failure inside a
rule: the oldest on which the test suite passes. Older ones fail at import (NumPy 2.1
lacks np.matvec, SciPy 1.14 scipy.special.softplus) or, worse, give derivatives that
disagree with central differences (with NumPy 2.2 and SciPy 1.15, 65 tests fail: sqrtm
and logm, solve_sylvester, second-order rows of NumPy's random generators, ...).

    check_numpy()              # on import of this module, which `import fwdad` does
                               # first: ImportError below NUMPY
    check_scipy()              # before SciPy's rules load: FwdadError below SCIPY

pyproject.toml declares the same floors (tests/test_requirements.py keeps them equal).
"""
from __future__ import annotations

import re
from typing import Optional, Tuple

from fwdad.errors import FwdadError

NUMPY = (2, 4)
SCIPY = (1, 17)


def release(version: str) -> Tuple[int, int]:
    """(major, minor) of a version string ("2.2.6", "1.15.0rc1", "2.5.0.dev0+git...")."""
    found = re.match(r"(\d+)\.(\d+)", version)
    if found is None:
        raise ValueError(f"not a version: {version!r}")
    return int(found.group(1)), int(found.group(2))


def check_numpy(version: Optional[str] = None) -> None:
    """Raise ImportError when NumPy (or `version`) is older than NUMPY."""
    if version is None:
        import numpy
        version = numpy.__version__
    if release(version) < NUMPY:
        raise ImportError(
            f"fwdad needs NumPy {_dotted(NUMPY)} or later, and this is NumPy {version}: "
            f"pip install -U 'numpy>={_dotted(NUMPY)}'.")


def check_scipy(version: Optional[str] = None) -> None:
    """Raise FwdadError when SciPy (or `version`) is older than SCIPY."""
    if version is None:
        import scipy
        version = scipy.__version__
    if release(version) < SCIPY:
        raise FwdadError(
            f"fwdad's rules for SciPy's functions need SciPy {_dotted(SCIPY)} or later, and "
            f"this is SciPy {version}: pip install -U 'scipy>={_dotted(SCIPY)}' (or "
            f"'fwdad[scipy]').")


def _dotted(release: Tuple[int, int]) -> str:
    return ".".join(map(str, release))


check_numpy()  # (before fwdad's rules, which name NumPy's newer functions, load)
