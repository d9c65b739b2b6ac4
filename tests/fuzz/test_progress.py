"""The campaign's progress lines (progress.py) go to stderr and change no result."""
import io

from tests.fuzz.campaign import run
from tests.fuzz.progress import Progress

SEEDS = range(300, 301)


def _summary(results):
    return [(r.seed, r.source, r.discard, {n: o.status for n, o in r.outcomes.items()})
            for r in results]


def test_progress_is_reported_and_changes_no_result():
    stream = io.StringIO()
    counted = run(SEEDS, 1, progress=Progress(len(SEEDS), every=0.0, stream=stream))
    assert _summary(counted) == _summary(run(SEEDS, 1))
    lines = stream.getvalue().splitlines()
    assert len(lines) == len(SEEDS)
    assert lines[-1].startswith(f"{len(SEEDS)}/{len(SEEDS)} programs, 0 wrong, 0 crash (")


def test_a_failing_program_is_named_as_it_comes():
    from tests.fuzz.check import Result
    from tests.fuzz.outcome import Outcome
    stream = io.StringIO()
    progress = Progress(2, every=1e9, stream=stream)
    progress.add(Result(7, "", outcomes={"hvp": Outcome("wrong", "hvp value")}))
    assert stream.getvalue().splitlines() == ["seed 7: hvp wrong: hvp value"]
