"""fwdad's version: from the installed package's metadata, else from pyproject.toml.

Example: `fwdad.__version__ == "0.1.0"`; `fwdad --version` prints `fwdad 0.1.0`.
"""
from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path


def installed_version() -> str:
    """The version pip installed; for a source tree that is not installed (imported
    from a checkout), the one pyproject.toml declares."""
    try:
        return metadata.version("fwdad")
    except metadata.PackageNotFoundError:
        return pyproject_version(Path(__file__).resolve().parent.parent / "pyproject.toml")


def pyproject_version(path: Path) -> str:
    """The `version = "..."` of the [project] table of `path`; "0+unknown" without one.
    Note: a regular expression rather than tomllib, which Python 3.10 does not have."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return "0+unknown"
    project = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    found = project and re.search(r'^version\s*=\s*"([^"]+)"', project.group(1), re.M)
    return found.group(1) if found else "0+unknown"
