"""Build the site and screenshot three pages of it in headless Chromium.

    python docs/screenshots.py      (needs the docs extra, and chromium on the PATH)

Writes docs/screenshots/{index,api,guide}.png: the home page, the API reference (each
entry's docstring rendered as text), and a guide page with highlighted code. The site
is read from file://, so the pictures show it as it renders offline. Not run by CI:
Chromium is not a dependency of the project.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
PAGES = {"index": "index.html", "api": "api.html", "guide": "batching.html"}
SIZE = "1280,1400"


def build(site: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                    "-d", str(site)], cwd=ROOT, env=env, check=True)


def screenshot(browser: str, page: Path, png: Path) -> None:
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--no-first-run",
                    "--hide-scrollbars", f"--window-size={SIZE}",
                    f"--screenshot={png}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)


def main() -> int:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("screenshots.py needs chromium on the PATH (apt-get install chromium)",
              file=sys.stderr)
        return 2
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build(site)
        for name, page in PAGES.items():
            screenshot(browser, site / page, OUT / f"{name}.png")
            print(f"wrote {(OUT / f'{name}.png').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
