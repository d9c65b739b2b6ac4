"""Run a script in a new interpreter, where nothing was imported before it (this test
session imports SciPy, tqdm, ... early, which would hide what `import fwdad` imports)."""
import subprocess
import sys
import textwrap
from pathlib import Path


def run_fresh(folder: Path, code: str) -> str:
    """Run `code` as a script in `folder` (fwdad reads the source of the functions it
    differentiates, so not with -c) in a new interpreter: its stdout. Fails the test
    with the script's stderr when it fails."""
    script = folder / "fresh.py"
    script.write_text(textwrap.dedent(code))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=folder)
    assert done.returncode == 0, done.stderr
    return done.stdout
