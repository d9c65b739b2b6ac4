"""Every error fwdad raises on purpose, checked by its message."""
import contextlib
import re

import numpy as np
import pytest

import fwdad


def calls_histogram(x):  # (np.histogram: no rule, and NumPy's code fwdad does not read)
    return np.histogram(np.array([1.0, x, 0.25]), bins=2)[1][0]


def test_missing_rule_names_the_callee_the_line_and_how_to_register():
    with pytest.raises(fwdad.MissingRuleError) as info:
        fwdad.jvp(calls_histogram, (1.5,), (1.0,))
    message = str(info.value)
    assert "numpy.histogram" in message
    assert re.search(r" in calls_histogram at \S*test_errors\.py:\d+: ", message), message
    assert "@fwdad.frule(numpy.histogram)" in message


def defines_a_class(x):
    class Local:
        pass
    return x * 2


def test_unsupported_syntax_names_the_construct_and_the_line():
    with pytest.raises(fwdad.UnsupportedSyntaxError) as info:
        fwdad.jvp(defines_a_class, (0.5,), (1.0,))
    message = str(info.value)
    assert "class defined inside the function" in message
    assert "defines_a_class" in message
    assert re.search(r"test_errors\.py:\d+", message)


def refused_inside(x):
    return np.poly(x + 1j)


def test_messages_name_the_users_function_file_and_line_with_one_phrase():
    """The fence, at build time, and a rule refusing at run time both say
    ` in <function> at <file>:<line>` (fwdad.errors.user_code)."""
    with pytest.raises(fwdad.UnsupportedSyntaxError, match=r"a class defined inside the "
                       r"function in defines_a_class at \S*test_errors\.py:\d+: "):
        fwdad.jvp(defines_a_class, (0.5,), (1.0,))
    with pytest.raises(fwdad.FwdadError, match=r"np.poly in refused_inside at "
                       r"\S*test_errors\.py:\d+: "):
        fwdad.jvp(refused_inside, (np.array([0.5, 2.0]),), (np.ones(2),))


def generator(x):
    yield x


def test_generators_are_rejected():
    with pytest.raises(fwdad.UnsupportedSyntaxError, match="generator"):
        fwdad.derive_frule(generator).frule.source


@contextlib.contextmanager
def doubled(x):
    yield x * 2.0


def in_a_generator_manager(x):
    with doubled(x) as y:
        return y * x


def test_a_generator_made_a_context_manager_is_refused_saying_to_write_a_class():
    """(not "return a list instead of yielding items": a manager is no list)"""
    for differentiate in (lambda f: fwdad.jvp(f, (0.5,), (1.0,)), lambda f: fwdad.grad(f)(0.5)):
        with pytest.raises(fwdad.UnsupportedSyntaxError, match=r"generator \(yield\) in "
                           r"doubled at \S*test_errors\.py:\d+: write the context manager "
                           r"as a class whose __enter__"):
            differentiate(in_a_generator_manager)


def in_an_exit_stack(x):
    with contextlib.ExitStack():  # (built on a collections.deque, which fwdad refuses)
        y = x * x
    return np.sin(y)


def _third(f):
    def second(y):
        return fwdad.jvp(lambda z: fwdad.jvp(f, (z,), (1.0,))[1], (y,), (1.0,))[1]
    return fwdad.jvp(second, (0.5,), (1.0,))


def test_a_class_fwdad_does_not_build_is_refused_alike_at_every_order():
    """(at third order the refusal's own message builder had no rule, and the error
    named it: "no rule to differentiate fwdad.construction.refusal")"""
    for differentiate in (lambda f: fwdad.jvp(f, (0.5,), (1.0,)), _third):
        with pytest.raises(fwdad.MissingRuleError, match=r"creating a collections.deque "
                           r"in \S*__init__ at \S*contextlib.py:\d+: its instances are made"):
            differentiate(in_an_exit_stack)


def reserved_name(x):
    _fw_t1 = x
    return _fw_t1


def test_reserved_names_are_rejected():
    with pytest.raises(fwdad.UnsupportedSyntaxError, match="reserved"):
        fwdad.jvp(reserved_name, (0.5,), (1.0,))


def test_tangent_of_the_wrong_shape_names_the_argument():
    def f(x):
        return x.sum()
    with pytest.raises(fwdad.TangentError) as info:
        fwdad.jvp(f, (np.ones(3),), (np.ones(4),))
    message = str(info.value)
    assert "'x'" in message and "(3,)" in message and "(4,)" in message


def test_tangent_of_the_wrong_type_names_the_argument():
    def f(x):
        return x
    with pytest.raises(fwdad.TangentError, match="'x'"):
        fwdad.jvp(f, (1.5,), ("a",))


def test_derivative_with_respect_to_an_int_says_so():
    def f(n):
        return n * 2
    with pytest.raises(fwdad.NonDifferentiableError) as info:
        fwdad.jvp(f, (3,), (1.0,))
    assert "int" in str(info.value) and "float" in str(info.value)


def test_derivative_with_respect_to_a_str_says_so():
    def f(s):
        return len(s)
    with pytest.raises(fwdad.NonDifferentiableError, match="str"):
        fwdad.jvp(f, ("abc",), (1.0,))


def test_an_int_argument_with_no_tangent_is_fine():
    def f(x, n):
        return x * n
    assert fwdad.jvp(f, (1.5, 3), (1.0, None)) == (4.5, 3.0)


def hypot_of(x):
    return np.hypot(x, 2.0) * 3.0


def test_a_rule_without_dual_annotations_says_to_annotate(restore_rules):
    @fwdad.frule(np.hypot)
    def unannotated_hypot(x, y):
        out = np.hypot(x.primal, y.primal)
        return fwdad.Dual(out, (x.primal * x.tangent + y.primal * y.tangent) / out)
    with pytest.raises(fwdad.FwdadError) as info:
        fwdad.jvp(hypot_of, (1.5,), (1.0,))
    message = str(info.value)
    # (refused before the rule runs: its argument x has a tangent it would lose)
    assert "unannotated_hypot would lose it" in message and "test_errors.py" in message
    assert "parameters x, y are not annotated `Dual`" in message
    assert "def rule(x: fwdad.Dual) -> fwdad.Dual:" in message


def test_function_without_source():
    namespace = {}
    exec("def made(x):\n    return x * 2\n", namespace)
    with pytest.raises(fwdad.SourceUnavailableError, match="exec"):
        fwdad.jvp(namespace["made"], (1.0,), (1.0,))


def test_jvp_checks_its_own_arguments():
    with pytest.raises(fwdad.FwdadError, match="tuple"):
        fwdad.jvp(lambda x: x, 1.0, 1.0)
    with pytest.raises(fwdad.FwdadError, match="1 primals but 2 tangents"):
        fwdad.jvp(lambda x: x, (1.0,), (1.0, 2.0))
    with pytest.raises(fwdad.FwdadError, match="function"):
        fwdad.jvp(3.0, (1.0,), (1.0,))


def raises_inside(x):
    y = x * 2.0
    z = np.log(y) + undefined_name  # noqa: F821
    return z


def test_errors_inside_generated_code_point_back_to_the_user_line():
    import traceback
    with pytest.raises(NameError) as info:
        fwdad.jvp(raises_inside, (1.0,), (1.0,))
    text = "".join(traceback.format_exception(info.value))
    assert "raises_inside_frule" in text  # the generated line is shown
    assert re.search(r"derivative of .*test_errors\.py:\d+", text)  # and the user's


def interp_in_the_period(x):
    return np.interp(1.3, np.array([0.0, 1.0, 2.5]), np.array([1.0, 3.0, 2.0]), period=x)


def test_interp_refuses_a_period_with_a_tangent_naming_the_line():
    """The period was a plain parameter: its tangent was dropped (a zero derivative)."""
    with pytest.raises(fwdad.FwdadError,
                       match=r"np.interp in interp_in_the_period at .*test_errors\.py:\d+: "
                             r".*not in period="):
        fwdad.jvp(interp_in_the_period, (0.3,), (1.0,))
