"""np.arange with a keyword argument that has a derivative: both modes refuse it naming
arange and the user's line (reverse mode gave a generic message about `/`); by position
the step is differentiated, against central differences."""
import numpy as np
import pytest

import fwdad
from tests.util import fd_jvp


def _step_by_keyword(x):
    return np.sum(np.arange(0.0, 3.0, step=x))


def _step_by_position(x):
    return np.sum(np.arange(0.0, 3.0, x) ** 2)


@pytest.mark.parametrize("mode", ["jvp", "grad"])
def test_a_keyword_step_with_a_derivative_names_arange_and_the_line(mode):
    with pytest.raises(fwdad.FwdadError) as info:
        if mode == "jvp":
            fwdad.jvp(_step_by_keyword, (1.0,), (1.0,))
        else:
            fwdad.grad(_step_by_keyword)(1.0)
    message = str(info.value)
    assert message.startswith("numpy.arange in _step_by_keyword at ")
    assert "test_arange_keywords.py:12" in message and "step=" in message


def test_a_step_by_position_is_differentiated_in_both_modes():
    x = 0.7
    want = fd_jvp(_step_by_position, (x,), (1.0,))
    assert np.isclose(fwdad.jvp(_step_by_position, (x,), (1.0,))[1], want, rtol=1e-6)
    assert np.isclose(fwdad.grad(_step_by_position)(x), want, rtol=1e-6)
