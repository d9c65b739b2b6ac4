"""A rule resolves the globals its calls go through when it is built; rebinding one
later (a notebook cell run again, a monkeypatch) makes the rule rebuild itself instead
of calling the old function (core/rebinding.py). Each derivative is checked against
central differences of the function as it now is."""
import sys

import numpy as np
import pytest

import fwdad
from tests.util import assert_close

THIS = sys.modules[__name__]


def helper(x):
    return x * x


class Model:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return self.k * x


def calls_a_helper(w):
    return helper(w[0]) * np.sin(w[1])


def builds_a_model(w):
    model = Model(w[0])
    return model(w[1]) * w[0]


def _cubed(x):
    return x * x * x


class _SquaredModel:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return self.k * self.k * x


def _differences(f, w, step=1e-6):
    return np.array([(f(w + step * e) - f(w - step * e)) / (2 * step) for e in np.eye(len(w))])


def _hessian_by_differences(f, w, step=1e-4):
    columns = [(fwdad.grad(f)(w + step * e) - fwdad.grad(f)(w - step * e)) / (2 * step)
               for e in np.eye(len(w))]
    return np.array(columns).T


@pytest.mark.parametrize("f, name, new", [(calls_a_helper, "helper", _cubed),
                                          (builds_a_model, "Model", _SquaredModel)],
                         ids=["function", "class"])
def test_a_rebound_global_is_called_as_it_now_is(monkeypatch, f, name, new):
    w = np.array([0.3, -0.7])
    for _ in range(2):  # built before the rebinding, then after it
        out, tangent = fwdad.jvp(f, (w,), (np.array([1.0, 0.5]),))
        assert out == pytest.approx(f(w))
        assert_close(tangent, _differences(f, w) @ np.array([1.0, 0.5]), rtol=1e-6)
        assert_close(fwdad.jacfwd(f)(w), _differences(f, w), rtol=1e-6)
        assert_close(fwdad.grad(f)(w), _differences(f, w), rtol=1e-6)
        assert_close(fwdad.hessian(f)(w), _hessian_by_differences(f, w), rtol=1e-5,
                     atol=1e-8)
        monkeypatch.setattr(THIS, name, new)


def _scheduled(w):
    return helper(w[0]) * np.sin(w[1])


@pytest.mark.usefixtures("restore_rules")  # (static_graph registers a rule: put the table
def test_a_static_schedule_records_again_after_a_rebinding(monkeypatch):  # back after)
    """The recorded schedules read the globals their rules resolved live: a replay
    after the rebinding falls back, and the next call records anew."""
    w = np.array([0.3, -0.7])
    scheduled = fwdad.static_graph(_scheduled)
    for _ in range(2):
        for _ in range(3):  # recorded, then replayed
            _, tangent = fwdad.jvp(scheduled, (w,), (np.array([1.0, 0.5]),))
            gradient = fwdad.grad(scheduled)(w)
        want = _differences(scheduled, w)
        assert_close(tangent, want @ np.array([1.0, 0.5]), rtol=1e-6)
        assert_close(gradient, want, rtol=1e-6)
        monkeypatch.setattr(THIS, "helper", _cubed)
    assert scheduled.static_graph.counts["records"] == 2
    assert scheduled.static_graph.reverse.counts["records"] == 2


def test_the_rule_shows_its_check():
    source = fwdad.derive_frule(calls_a_helper).frule.source
    assert "if helper is not _fw_was_helper" in source
