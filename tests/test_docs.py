"""The documentation: it builds without warnings, its Python blocks run, its generated
parts are up to date, and the API reference covers every public name."""
import importlib
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, List

import pytest

import fwdad
import fwdad.testing

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
NO_RUN = "<!-- no-run -->"
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(page: Path):
    """(line number, code, runnable) for each ```python block of a page. A block is not
    run when the line before it is `<!-- no-run -->`."""
    text = page.read_text()
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        yield line, match.group(1), before.strip() != NO_RUN


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- every Python block runs ---------------------------------------------------------
RUNNER = """
import runpy, sys
for path in sys.argv[1:]:
    print("running", path, flush=True)
    runpy.run_path(path, run_name="__main__")
"""


WITH_CODE = [p for p in PAGES if any(run for _, _, run in python_blocks(p))]
# pages whose blocks need an optional dependency
OPTIONAL = {"scipy.md": "scipy", "sparse.md": "scipy", "scaling.md": "distributed"}


@pytest.mark.parametrize("page", WITH_CODE, ids=[p.name for p in WITH_CODE])
def test_python_blocks_run(page, tmp_path):
    """Each block runs in a fresh namespace, from a file of its own (fwdad reads the
    source of the functions it differentiates), in one process per page so that rules
    a page registers stay out of this process's rule table."""
    if page.name in OPTIONAL:
        pytest.importorskip(OPTIONAL[page.name])
    files = []
    for line, code, runnable in python_blocks(page):
        if runnable:
            path = tmp_path / f"{page.stem.replace('-', '_')}_line{line}.py"
            path.write_text(code)
            files.append(str(path))
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    result = subprocess.run([sys.executable, "-c", RUNNER, *files], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, \
        f"a block of {page.name} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"


def test_no_run_is_used_sparingly():
    skipped = [(p.name, line) for p in PAGES for line, _, run in python_blocks(p) if not run]
    assert len(skipped) <= 3, skipped


# ---- generated parts are up to date ----------------------------------------------------
def test_how_it_works_matches_what_fwdad_generates():
    generator = load(DOCS / "gen_how_it_works.py")
    page = generator.PAGE.read_text()
    assert generator.update(page) == page, \
        "docs/how-it-works.md is out of date: run python docs/gen_how_it_works.py"


PUBLIC = [(f"fwdad.{name}", getattr(fwdad, name)) for name in fwdad.__all__] + \
         [(f"fwdad.testing.{name}", getattr(fwdad.testing, name))
          for name in fwdad.testing.__all__]


def api_entries() -> List[str]:
    """The `::: path` lines of docs/api.md: mkdocstrings renders each from its docstring
    (`fwdad.linearize.linearize`: `fwdad.linearize` would be the module of that name)."""
    return re.findall(r"^::: (\S+)$", (DOCS / "api.md").read_text(), re.M)


def resolve(path: str) -> Any:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("name, value", PUBLIC, ids=[p[0] for p in PUBLIC])
def test_public_names_have_docstrings_and_a_reference_entry(name, value):
    doc = inspect.getdoc(value)
    assert doc and doc.strip(), f"{name} has no docstring"
    assert any(resolve(path) is value for path in api_entries()), \
        f"{name} is not in docs/api.md: add a line `::: {name}`"


# ---- the site builds ------------------------------------------------------------------
def test_every_page_is_in_the_nav():
    config = (ROOT / "mkdocs.yml").read_text()
    for page in PAGES:
        assert f": {page.name}" in config, f"{page.name} is missing from mkdocs.yml's nav"


def build_site(site: Path) -> subprocess.CompletedProcess:
    """mkdocs build --strict into `site` (skipped without the `docs` extra)."""
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason="the docs extra is not installed")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")  # (a notice about MkDocs' future)
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_mkdocs_builds_without_warnings(tmp_path):
    result = build_site(tmp_path / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    site = tmp_path / "site"
    api = (site / "api.html").read_text()
    for path in api_entries():  # each entry rendered, with the anchor guides link to
        assert f'id="{path}"' in api, f"{path} has no entry in the built API page"
    assert '<div class="highlight">' in (site / "getting-started.html").read_text()
    for page in site.glob("*.html"):  # offline: no script or stylesheet from elsewhere
        text = page.read_text()
        remote = re.findall(r'<script[^>]*src="(https?:[^"]*)"', text) + \
            re.findall(r'<link[^>]*rel="stylesheet"[^>]*href="(https?:[^"]*)"', text)
        assert not remote, (page.name, remote)


def test_readme_shows_the_code_fwdad_generates():
    """The README's generated-code listing is what `fwdad show` prints for it today."""
    from fwdad.cli import load_function
    from fwdad.forward.dispatch import derived_rule
    fn = load_function(f"{ROOT / 'examples' / 'quickstart.py'}:damped_response")
    source = derived_rule(fn).source.replace(str(ROOT) + "/", "")
    blocks = [b.strip() for b in FENCE.findall((ROOT / "README.md").read_text())]
    assert source.strip() in blocks, \
        f"README.md's generated code is out of date; fwdad now generates:\n{source}"


def test_ci_runs_the_readme_s_test_command():
    """.ci/run runs exactly the test command the README and the guide give."""
    command = ('python3 -m venv .venv && .venv/bin/pip install -q -e ".[test]" && '
               '.venv/bin/python -m pytest -n auto')
    assert command in (ROOT / "README.md").read_text()
    assert command in (ROOT / "docs" / "getting-started.md").read_text()
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("\n" + command)
    extra = re.search(r"^test = \[(.*?)\]$", (ROOT / "pyproject.toml").read_text(),
                      re.M | re.S)
    assert '"pytest-xdist' in extra.group(1)
