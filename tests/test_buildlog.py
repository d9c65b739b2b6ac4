"""Each derived rule's build is logged at DEBUG on the `fwdad` logger, with its time and
size, and the rule keeps those numbers as `rule.build`."""
import logging
import math
import re

import fwdad
from fwdad.buildlog import Build
from fwdad.forward.dispatch import derived_rule
from fwdad.reverse import build_rule as reverse_rule

BUILT = re.compile(r"built the (.*) in (\d+\.\d{3}) s: (\d+) lines, (\d+) characters$")


def records(caplog, name):
    """The build records of the rules of functions called `name`."""
    return [BUILT.match(r.getMessage()) for r in caplog.records
            if r.name == "fwdad" and r.levelno == logging.DEBUG and
            f".<locals>.{name} (" in r.getMessage()]


def test_a_forward_rule_build_is_logged_with_its_time_and_size(caplog):
    def wobble(x):
        return math.sin(x) * x + 1.0
    with caplog.at_level(logging.DEBUG, logger="fwdad"):
        value, tangent = fwdad.jvp(wobble, (0.8,), (1.0,))
    assert math.isclose(tangent, math.cos(0.8) * 0.8 + math.sin(0.8))  # closed form
    (match,) = records(caplog, "wobble")
    rule = derived_rule(wobble)
    assert match.group(1) == rule.source.partition("\n")[0].lstrip("# ")
    assert match.group(1).startswith("optimized forward rule of test_")
    assert isinstance(rule.build, Build) and rule.build.seconds > 0
    assert (int(match.group(3)), int(match.group(4))) == \
        (rule.build.lines, rule.build.characters) == \
        (rule.source.count("\n"), len(rule.source))


def test_a_reverse_rule_build_is_logged_too(caplog):
    def ripple(x):
        return math.cos(x) * x
    with caplog.at_level(logging.DEBUG, logger="fwdad"):
        gradient = fwdad.grad(ripple)(0.3)
    assert math.isclose(gradient, -math.sin(0.3) * 0.3 + math.cos(0.3))  # closed form
    (match,) = records(caplog, "ripple")
    assert match.group(1).startswith("reverse rule of test_")
    assert int(match.group(3)) == reverse_rule(ripple).build.lines


def test_a_cached_rule_is_not_logged_again(caplog):
    def twice(x):
        return x * x
    with caplog.at_level(logging.DEBUG, logger="fwdad"):
        first = fwdad.jvp(twice, (3.0,), (1.0,))
        second = fwdad.jvp(twice, (3.0,), (1.0,))
    assert first == second == (9.0, 6.0)  # closed form: d(x^2) = 2x
    assert len(records(caplog, "twice")) == 1


def test_nothing_is_logged_above_debug(caplog):
    def quiet(x):
        return x + 2.0
    with caplog.at_level(logging.INFO, logger="fwdad"):
        assert fwdad.jvp(quiet, (1.0,), (1.0,)) == (3.0, 1.0)
    assert not records(caplog, "quiet")
