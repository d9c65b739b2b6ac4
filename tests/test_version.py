"""fwdad.__version__: the installed package's version, else pyproject.toml's; and
`fwdad.testing` after a plain `import fwdad`."""
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import fwdad
from fwdad.version import pyproject_version

ROOT = Path(__file__).resolve().parent.parent


def test_version_is_the_installed_one_and_pyproject_s():
    assert fwdad.__version__ == metadata.version("fwdad")
    assert fwdad.__version__ == pyproject_version(ROOT / "pyproject.toml")


def test_pyproject_version_reads_the_project_table_only(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.other]\nversion = "9.9"\n\n[project]\nname = "x"\n'
                    'version = "1.2.3"\n\n[build]\nversion = "7"\n')
    assert pyproject_version(path) == "1.2.3"
    path.write_text('[project]\nname = "x"\n[tool.x]\nversion = "7"\n')
    assert pyproject_version(path) == "0+unknown"
    assert pyproject_version(tmp_path / "missing.toml") == "0+unknown"


def test_fwdad_testing_after_import_fwdad():
    code = "import fwdad; print(fwdad.testing.test_rule.__name__)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, cwd=ROOT)
    assert (result.returncode, result.stdout) == (0, "test_rule\n"), result.stderr
