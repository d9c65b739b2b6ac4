"""The NumPy and SciPy floors: fwdad/requirements.py says what to install below them,
and pyproject.toml declares the same ones."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from fwdad import requirements
from fwdad.errors import FwdadError

PYPROJECT = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()


@pytest.mark.parametrize("version, release", [
    ("2.2.6", (2, 2)), ("1.15.0rc1", (1, 15)), ("2.5.0.dev0+git20261101", (2, 5)),
    ("2.10.1", (2, 10))])
def test_release_reads_major_and_minor(version, release):
    assert requirements.release(version) == release


@pytest.mark.parametrize("name, floor", [("numpy", requirements.NUMPY),
                                         ("scipy", requirements.SCIPY)])
def test_pyproject_declares_the_floors_checked(name, floor):
    declared = set(re.findall(rf'"{name}>=(\d+\.\d+)"', PYPROJECT))
    assert declared == {".".join(map(str, floor))}


def test_an_older_numpy_is_refused_saying_what_to_install():
    with pytest.raises(ImportError, match=r"NumPy 2\.4 or later, and this is NumPy 2\.2\.6: "
                                          r"pip install -U 'numpy>=2\.4'"):
        requirements.check_numpy("2.2.6")
    for version in ("2.4.0", "2.10.0", "3.0.0rc1"):
        requirements.check_numpy(version)
    requirements.check_numpy()  # (the NumPy installed here)


def test_an_older_scipy_is_refused_saying_what_to_install():
    with pytest.raises(FwdadError, match=r"SciPy 1\.17 or later, and this is SciPy 1\.15\.3"):
        requirements.check_scipy("1.15.3")
    requirements.check_scipy("1.17.0")
