"""Every script in examples/ runs (with small sizes) and checks its own derivatives.

Each runs in its own process, as a user runs it: custom_rule.py registers a rule, and
that must not leak into the rule table the other tests walk.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

CASES = [  # (script, text its output must contain)
    ("quickstart.py", "d/dx by finite differences"),
    ("ode_sensitivity.py", "dx(t)/dk: at t_end"),
    ("physics_inplace.py", "d(final energy)/d(v_first)"),
    ("custom_rule.py", "test_rule(scipy.special.erfi): ok"),
    ("newton_jacfwd.py", "Newton converged in"),
    ("gmm_gradient.py", "gradient agrees with forward mode and finite differences"),
    ("structured_matrices.py", "generic rules agree with AD through each class's own code"),
    ("static_schedule.py", "replayed schedule matches the full rule"),
    ("reverse_training.py", "replayed schedule matches the full reverse rule"),
    ("saddle_point.py", "saddle point found in"),
    ("newton_cg.py", "Newton-CG converged in"),
    ("ode_fit.py", "through solve_ivp agrees with finite differences"),
    ("reaction_diffusion.py", "Newton converged in"),
    ("spectral_heat.py", "du(x, T)/dD: largest"),
]


@pytest.mark.parametrize("script, expected", CASES, ids=[c[0] for c in CASES])
def test_example_runs(script, expected, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # plots, if any, land in tmp_path
    result = subprocess.run([sys.executable, str(EXAMPLES / script), "--quick"],
                            cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert expected in result.stdout


def test_every_example_has_a_case():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(c[0] for c in CASES)
