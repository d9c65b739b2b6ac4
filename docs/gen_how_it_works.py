"""Fill the generated parts of docs/how-it-works.md from what fwdad actually produces.

The page follows docs/how_it_works_example.py:weighted_energy through fwdad. Each part
between `<!-- gen:NAME -->` and `<!-- /gen:NAME -->` is replaced by this script's output
for NAME; the prose around them is written by hand. tests/test_docs.py fails when the
committed page differs from what this script makes, so the page stays in step with the
code.

Run from the repository root:
    python docs/gen_how_it_works.py           rewrite the page
    python docs/gen_how_it_works.py --check   exit 1 if the page is out of date
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Dict

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "how-it-works.md"
EXAMPLE = ROOT / "docs" / "how_it_works_example.py"
X, K = [0.5, -1.0, 2.0], 0.8  # the point the page evaluates the derivative at

try:
    import fwdad
except ImportError:  # run from a checkout without installing it
    sys.path.insert(0, str(ROOT))
    import fwdad

import numpy as np

from fwdad.cli import load_function
from fwdad.forward.dispatch import derived_rule


def fence(language: str, text: str) -> str:
    return f"```{language}\n{text.rstrip()}\n```"


def relative(text: str) -> str:
    """Generated code names the user's file; show it relative to the repository."""
    return text.replace(str(ROOT) + "/", "")


def sections() -> Dict[str, str]:
    """NAME -> the Markdown that goes between the NAME markers."""
    energy = load_function(f"{EXAMPLE}:weighted_energy")
    soften = load_function(f"{EXAMPLE}:soften")
    rule = derived_rule(energy)
    return {
        "source": fence("python", EXAMPLE.read_text()),
        "normalized": fence("python", str(rule.normalized_source)),
        "rule": fence("python", relative(rule.source)),
        "helper": fence("python", relative(derived_rule(soften).source)),
        "run": fence("text", run(energy)),
    }


def run(energy) -> str:
    """The derivative along k, from the rule and from central finite differences."""
    x = np.array(X)
    value, dvalue = fwdad.jvp(energy, (x, K), (np.zeros(3), 1.0))
    h = 1e-6
    reference = (energy(x, K + h) - energy(x, K - h)) / (2 * h)
    return (f"weighted_energy(x={X}, k={K})  = {value:.8f}\n"
            f"d/dk by fwdad.jvp                  = {dvalue:.8f}\n"
            f"d/dk by central differences        = {reference:.8f}")


def update(page: str) -> str:
    """The page with every generated part replaced by fresh output."""
    for name, body in sections().items():
        pattern = re.compile(rf"(<!-- gen:{name} -->\n).*?(\n<!-- /gen:{name} -->)", re.S)
        if not pattern.search(page):
            raise SystemExit(f"{PAGE}: no <!-- gen:{name} --> ... <!-- /gen:{name} --> part")
        page = pattern.sub(lambda m: m.group(1) + body + m.group(2), page)
    return page


def main(argv) -> int:
    page = PAGE.read_text()
    fresh = update(page)
    if "--check" in argv:
        if fresh != page:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run python "
                  f"docs/gen_how_it_works.py")
            return 1
        return 0
    PAGE.write_text(fresh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
