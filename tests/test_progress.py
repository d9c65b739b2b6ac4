"""progress=True on jacfwd, jacrev and hessian: a tqdm bar, or plain lines on stderr
without tqdm; the derivatives are the same as without it."""
import re

import numpy as np
import pytest

import fwdad
from fwdad import progress
from tests.closed_forms import f, jacobian_of_f, total


def hessian_of_total(x):  # closed form of total's Hessian
    hess = np.diag(-np.sin(x) * x[0])
    hess[0, :] += np.cos(x)
    hess[:, 0] += np.cos(x)
    return hess


X = np.array([0.3, -1.2, 0.7, 2.0, 0.1])
RUNS = [  # (what, the call, its closed form, how many steps the progress counts)
    ("jacfwd", lambda shown: fwdad.jacfwd(f, chunk_size=2, progress=shown)(X),
     jacobian_of_f(X), "5/5 directions"),
    ("jacrev", lambda shown: fwdad.jacrev(f, progress=shown)(X), jacobian_of_f(X),
     "5/5 rows"),
    ("hessian", lambda shown: fwdad.hessian(total, progress=shown)(X),
     hessian_of_total(X), "5/5 directions"),
]


@pytest.fixture
def plain(monkeypatch):
    monkeypatch.setattr(progress, "_tqdm", None)


@pytest.mark.parametrize("what, run, expected, count", RUNS, ids=[r[0] for r in RUNS])
def test_plain_lines_on_stderr_without_tqdm(plain, capsys, what, run, expected, count):
    np.testing.assert_allclose(run(True), expected, rtol=1e-12, atol=1e-12)
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and lines, err
    assert lines[0].startswith(f"{what} of ") and re.search(r": [1-9][0-9]*/[0-9]+ ", lines[0])
    assert lines[-1].startswith(f"{what} of ") and f": {count} (" in lines[-1], err


@pytest.mark.parametrize("what, run, expected, count", RUNS, ids=[r[0] for r in RUNS])
def test_a_tqdm_bar_when_tqdm_is_installed(capsys, what, run, expected, count):
    pytest.importorskip("tqdm")
    np.testing.assert_allclose(run(True), expected, rtol=1e-12, atol=1e-12)
    err = capsys.readouterr().err
    done = count.split()[0]
    assert f"{what} of " in err and "100%" in err and done in err, err


@pytest.mark.parametrize("what, run, expected, count", RUNS, ids=[r[0] for r in RUNS])
def test_silent_by_default(plain, capsys, what, run, expected, count):
    np.testing.assert_allclose(run(False), expected, rtol=1e-12, atol=1e-12)
    assert capsys.readouterr() == ("", "")


def test_plain_lines_are_paced(plain, capsys, monkeypatch):
    """The first and last steps get a line; the ones between only once a second."""
    monkeypatch.setattr(progress, "EVERY_SECONDS", 3600.0)
    with progress.steps("work", 4, "row", shown=True) as step:
        for _ in range(4):
            step()
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in lines] == ["work: 1/4 rows", "work: 4/4 rows"]


def test_hessian_by_forward_over_forward_counts_its_columns(plain, capsys):
    """A vector output makes hessian take forward over forward: one jacfwd per column,
    and the progress counts the columns."""
    x = np.array([0.4, -0.9, 1.3])
    n = len(x)
    expected = np.zeros((n, n, n))  # closed form: d2 (sin(x_i) x_0) / dx_j dx_k
    for i in range(n):
        expected[i, i, i] -= np.sin(x[i]) * x[0]
        expected[i, 0, i] += np.cos(x[i])
        expected[i, i, 0] += np.cos(x[i])
    np.testing.assert_allclose(fwdad.hessian(f, progress=True)(x), expected,
                               rtol=1e-12, atol=1e-12)
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("hessian of ") and ": 3/3 columns (" in lines[-1], lines
