"""The package is typed and linted: mypy --strict on the public modules and ruff on the
whole tree (both configured in pyproject.toml) report nothing. Skipped when the tools
are not installed (they are in the `test` and `dev` extras)."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(tool: str, *args: str) -> subprocess.CompletedProcess:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (pip install -e '.[dev]')")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_mypy_strict_on_the_public_modules(tmp_path):
    result = run("mypy", "--cache-dir", str(tmp_path / "mypy_cache"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found"), result.stdout


def test_ruff_on_the_whole_tree():
    result = run("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_package_ships_its_type_marker():
    text = (ROOT / "pyproject.toml").read_text()
    assert (ROOT / "fwdad" / "py.typed").exists()
    assert 'fwdad = ["py.typed"]' in text
