"""docs/coverage.md, NumPy's functions and what fwdad differentiates of each: no function
the committed page shows as covered loses its rule or its tests, every refusal has a
reason and is still one, and the page is what docs/gen_coverage.py writes today."""
import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_coverage",
                                                  ROOT / "docs" / "gen_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _load_generator()
COMMITTED = gen.committed_rows(gen.PAGE.read_text())
NOW = {row.name: row for row in gen.rows()}
COVERED = {"forward": "-", "reverse": "-", "batched": "-", "second": "-"}


def test_the_committed_page_lists_functions():
    assert len(COMMITTED) > 300 and "numpy.fft.fft" in COMMITTED


def test_no_covered_function_loses_its_rule_or_its_tests():
    lost = [f"{name}: {field} was {getattr(row, field)!r}, is "
            f"{getattr(NOW[name], field) if name in NOW else 'gone'!r}"
            for name, row in COMMITTED.items() for field, uncovered in COVERED.items()
            if getattr(row, field) != uncovered and name in NOW
            and getattr(NOW[name], field) == uncovered]
    assert not lost, "functions that were covered lost coverage:\n" + "\n".join(lost)


def test_every_refusal_has_a_reason_and_is_still_one():
    refused = [row for row in NOW.values() if row.name in gen.REFUSED]
    assert refused and all(row.note for row in refused)
    stale = [row.name for row in refused if row.forward != "-"]
    assert not stale, f"refused in docs/gen_coverage.py but now with a rule: {stale}"
    gone = sorted(set(gen.REFUSED) - set(NOW))
    assert not gone, f"refused in docs/gen_coverage.py but not a NumPy function: {gone}"


def test_the_page_is_up_to_date():
    version = re.search(r"in NumPy (\S+)\)", gen.PAGE.read_text()).group(1)
    if version != np.__version__:
        pytest.skip(f"the page was written with NumPy {version}, this is {np.__version__}")
    assert gen.render(gen.rows()) == gen.PAGE.read_text(), \
        "docs/coverage.md is out of date: run python docs/gen_coverage.py"
