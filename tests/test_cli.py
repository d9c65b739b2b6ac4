"""The fwdad command line: `show` and `check`, their output and exit codes."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fwdad.cli import main

ROOT = Path(__file__).resolve().parent.parent

MODULE = '''
import math
import numpy as np
import fwdad

SCALE = 3.0


def wave(x, k):
    y = x * math.sin(k * x)
    if y > 0:
        y = y + 1.0
    return y


def total(v):
    return (v * v).sum()


def power(x, n):
    return x ** n


def halve(x):
    return 1.0 / x


def wrong(x):
    return x * x


@fwdad.frule(wrong)
def _wrong(x: fwdad.Dual) -> fwdad.Dual:
    return fwdad.Dual(x.primal * x.primal, x.tangent)  # should be 2 x dx


def brittle(x):
    return x * 2.0


@fwdad.frule(brittle)
def _brittle(x: fwdad.Dual) -> fwdad.Dual:
    raise ValueError("a rule with a bug")


def defines_a_class(x):
    class Local:
        pass
    return x * 2.0


class Spring:
    @staticmethod
    def energy(x):
        return 0.5 * x * x


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def scaled(self, k):
        return (self.x * k) ** 2 + self.y * k


point = Point(1.0, 2.0)


if __name__ == "__main__":
    raise RuntimeError("the __main__ block must not run")
'''


@pytest.fixture
def module(tmp_path, restore_rules):
    """The target file; the rules its import registers (wrong, brittle) are gone after
    the test."""
    path = tmp_path / "cli_target.py"
    path.write_text(MODULE)
    return path


@pytest.fixture
def broken(tmp_path):
    path = tmp_path / "broken_target.py"
    path.write_text("import math\nraise RuntimeError('boom at import')\n")
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---- show -------------------------------------------------------------------------
SHOW_CASES = [  # (function, options, text expected in the output)
    ("wave", [], ["# optimized forward rule of wave", "def wave_frule(x, k):", "# line "]),
    ("Point.scaled", [], ["def scaled_frule(self, k):"]),
    ("wave", ["--unoptimized"], ["# forward rule of wave", "if _fw_gt1.primal:"]),
    ("wave", ["--normalized"], ["def wave(x, k):", "operator.mul(k, x)", "math.sin("]),
    ("Spring.energy", [], ["def energy_frule(x):"]),
    ("wrong", [], ["is a primitive", "def _wrong(x: fwdad.Dual)"]),
]


@pytest.mark.parametrize("name, options, expected", SHOW_CASES,
                         ids=[f"{c[0]}{''.join(c[1])}" for c in SHOW_CASES])
def test_show_prints_the_code(capsys, module, name, options, expected):
    code, out, err = run(capsys, "show", f"{module}:{name}", *options)
    assert (code, err) == (0, "")
    for text in expected:
        assert text in out


@pytest.mark.parametrize("options", [[], ["--reverse"]], ids=["forward", "reverse"])
def test_show_ends_with_the_build_time_and_size(capsys, module, options):
    code, out, err = run(capsys, "show", f"{module}:wave", *options)
    assert (code, err) == (0, "")
    code_lines, _, last = out.rstrip("\n").rpartition("\n")
    match = re.fullmatch(r"# built in \d+\.\d{3} s: (\d+) lines, (\d+) characters", last)
    assert match, last
    assert int(match.group(1)) == len(code_lines.splitlines())
    assert int(match.group(2)) == len(code_lines) + 1  # (the rule's closing newline)


def test_show_reverse_prints_the_reverse_rule(capsys, module):
    code, out, err = run(capsys, "show", f"{module}:wave", "--reverse")
    assert code == 0 and err == ""
    assert out.startswith("# reverse rule of wave") and "def wave" in out


def test_show_reports_unsupported_syntax_without_a_traceback(capsys, module):
    code, out, err = run(capsys, "show", f"{module}:defines_a_class")
    assert code == 1 and out == ""
    assert "class defined inside" in err and "cli_target.py:" in err
    assert "Traceback" not in err


# ---- check ------------------------------------------------------------------------
CHECK_CASES = [  # (function, point, exit code, text expected in stdout)
    ("wave", ["0.7", "1.3"], 0, "ok   cli_target.wave at (0.7, 1.3)"),
    ("total", ["[1.0, -2.0, 0.5]"], 0, "ok   cli_target.total"),
    ("power", ["1.5", "3"], 0, "ok   cli_target.power at (1.5, 3)"),
    ("Spring.energy", ["2.0"], 0, "ok"),
    ("wrong", ["1.5"], 1, "against finite differences differs"),
    ("defines_a_class", ["1.5"], 1, "class defined inside"),
    ("halve", ["0.0"], 1, "calling it raised ZeroDivisionError"),
    ("brittle", ["1.5"], 1, "its rule (a plain call at this point works) raised ValueError"),
    ("point.scaled", ["0.5"], 0, "ok   cli_target.Point.scaled at (0.5)"),
    ("Point.scaled", ["--self", "Point(1.0, 3.0)", "--at", "0.5"], 0,
     "ok   cli_target.Point.scaled at (0.5)"),
]


@pytest.mark.parametrize("name, point, exit_code, expected", CHECK_CASES,
                         ids=[c[0] + "-" + "-".join(c[1]) for c in CHECK_CASES])
def test_check_reports_pass_or_failure(capsys, module, name, point, exit_code, expected):
    point = point if "--at" in point else ["--at"] + point
    code, out, err = run(capsys, "check", f"{module}:{name}", *point)
    assert code == exit_code, out + err
    assert expected in out
    assert out.startswith("ok   " if exit_code == 0 else "FAIL ")


# ---- usage errors: exit code 2, one line on stderr, no traceback --------------------
TARGET_ERRORS = [  # (target, text expected in stderr), for show and check alike
    ("{dir}/missing.py:wave", "no such file"),
    ("{module}:nope", "has no function 'nope'"),
    ("{module}:Spring.nope", "has no function 'Spring.nope'"),
    ("{module}:SCALE", "is a float, not a function"),
    ("{module}", "expected path/to/file.py:function"),
    ("{broken}:f", "RuntimeError: boom at import"),
]
POINT_ERRORS = [  # (function, point, text expected in stderr)
    ("wave", ["0.7", "k"], "cannot read 'k' as a value"),
    ("wave", ["0.7", "1.2.3"], "cannot read '1.2.3'"),
    ("total", ["[1.0, 'a']"], "a list must hold numbers"),
    ("total", ["[[1.0], [2.0, 3.0]]"], "a list must hold numbers"),
]


def assert_usage_error(command, code, out, err, expected):
    assert code == 2 and out == ""
    assert expected in err and "Traceback" not in err
    assert err.startswith(f"fwdad {command}: error: ")


@pytest.mark.parametrize("target, expected", TARGET_ERRORS, ids=[c[1] for c in TARGET_ERRORS])
@pytest.mark.parametrize("command", ["show", "check"])
def test_bad_targets_exit_2_without_a_traceback(capsys, module, broken, tmp_path,
                                                command, target, expected):
    target = target.format(dir=tmp_path, module=module, broken=broken)
    argv = ["show", target] if command == "show" else ["check", target, "--at", "1.0"]
    assert_usage_error(command, *run(capsys, *argv), expected)


@pytest.mark.parametrize("name, point, expected", POINT_ERRORS, ids=[c[2] for c in POINT_ERRORS])
def test_bad_points_exit_2_without_a_traceback(capsys, module, name, point, expected):
    code, out, err = run(capsys, "check", f"{module}:{name}", "--at", *point)
    assert_usage_error("check", code, out, err, expected)


CALL_ERRORS = [  # (function, arguments after the target, text expected in stderr)
    ("wave", ["--at", "0.7"], "cli_target.wave(x, k) cannot take 1 value(s) from --at: "
                              "missing a required argument: 'k'. Give one value per argument."),
    ("halve", ["--at", "0.7", "2.0"], "cli_target.halve(x) cannot take 2 value(s)"),
    ("Point.scaled", ["--at", "0.5"],
     "cli_target.Point.scaled(self, k) cannot take 1 value(s) from --at: missing a required "
     "argument: 'k'. Give one value per argument (for a method, give the instance with "
     "--self or name one in the file: file.py:obj.method)."),
    ("point.scaled", ["--self", "Point(1.0, 3.0)", "--at", "0.5"],
     "point.scaled is already bound to an instance: drop --self"),
    ("wave", ["--self", "Point(1.0, 3.0)", "--at", "0.5"],
     "--self is for a method (file.py:Class.method), but cli_target.wave is not one"),
    ("Point.scaled", ["--self", "Pointe(1.0)", "--at", "0.5"],
     "--self 'Pointe(1.0)' failed: NameError"),
]


@pytest.mark.parametrize("name, argv, expected", CALL_ERRORS,
                         ids=[f"{c[0]}-{len(c[1])}" for c in CALL_ERRORS])
def test_calls_the_function_cannot_take_exit_2(capsys, module, name, argv, expected):
    code, out, err = run(capsys, "check", f"{module}:{name}", *argv)
    assert_usage_error("check", code, out, err, expected)


@pytest.mark.parametrize("command", ["show", "check"])
def test_the_target_may_follow_at(capsys, module, command):
    extra = ["--linear"] if command == "show" else []
    code, out, err = run(capsys, command, "--at", "0.7", "1.3", f"{module}:wave", *extra)
    assert (code, err) == (0, ""), err
    assert out.startswith("ok   cli_target.wave at (0.7, 1.3)") if command == "check" \
        else out.startswith("# inputs: t0, t1\n")


def test_show_of_a_class_or_a_c_function_names_it(capsys, module):
    code, out, err = run(capsys, "show", f"{module}:Point")
    assert code == 1 and out == ""
    assert "cli_target.Point is a class, not a function" in err
    assert "Name one (e.g. Point.__init__ or Point.method)" in err
    assert "None" not in err
    code, out, err = run(capsys, "show", f"{module}:np.frompyfunc")
    assert code == 1 and "numpy.frompyfunc has no Python source (written in C)" in err
    assert "Register one with `@fwdad.frule(numpy.frompyfunc)`" in err


def test_bare_fwdad_prints_the_help_and_exits_2(capsys):
    code, out, err = run(capsys)
    assert code == 2 and out == ""
    assert err.startswith("usage: fwdad [-h] [--version] {show,check} ...")
    for text in ("show ", "check ", "--version", "Show or check the derivative code"):
        assert text in err


def test_version(capsys):
    import fwdad
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"fwdad {fwdad.__version__}\n"


def test_check_needs_a_point(capsys, module):
    with pytest.raises(SystemExit) as info:
        main(["check", f"{module}:wave"])
    assert info.value.code == 2
    assert "--at" in capsys.readouterr().err


# ---- as a program --------------------------------------------------------------------
def test_python_dash_m_fwdad_show():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-m", "fwdad", "show", "examples/quickstart.py:damped_response"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# optimized forward rule of damped_response (")
    assert "def damped_response_frule(x, k):" in result.stdout
    assert "for step in _fw_iterate(_fw_range1):" in result.stdout


def test_console_script_is_declared():
    text = (ROOT / "pyproject.toml").read_text()
    assert '[project.scripts]\nfwdad = "fwdad.cli:main"' in text


def test_show_names_a_c_function_once(tmp_path, capsys):
    path = tmp_path / "c_target.py"
    path.write_text("import numpy as np\nfrompyfunc = np.frompyfunc\n")
    assert main(["show", f"{path}:frompyfunc"]) == 1
    err = capsys.readouterr().err
    assert err.count("numpy.frompyfunc has no Python source") == 1 and \
        not err.startswith("fwdad show: numpy.frompyfunc: numpy.frompyfunc"), err
