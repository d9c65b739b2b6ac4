"""NumPy reverse rules outside their domain raise clear fwdad errors."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.reverse.dot_product import check_dot_product


def _complex(x):
    return np.complex128(x) * (1.0 + 2.0j)


def _complex64(x):
    return np.complex64(x) * (1.0 + 2.0j)


def _pad_mean(a):
    return np.pad(a, 1, mode="mean")


def _power_reduce(a):
    return np.power.reduce(a)


def _logaddexp_accumulate(a):
    return np.logaddexp.accumulate(a)


def _maximum_reduceat(a):
    return np.maximum.reduceat(a, [0, 2])


# ---- complex intermediates: differentiated (docs/complex.md), never a zero ---------------
def _reported_complex(a):  # the true gradient is 2 cos(2a)
    b = a + 1j
    return np.sum(np.sin(np.real(a + b)))


def _complex_scalar(x):
    return (x * 1j).real * x


def _complex_astype(x):
    return np.sum(x.astype(complex).imag + x)


def _complex_array(x):
    return np.sum(np.array([x[0], 1j]).real)


def _complex_power(x):
    return (x ** 0.5).real  # x < 0: Python's power is complex


def _complex_from_a_view(x):
    y = np.zeros(2)
    y[0] = x[0]  # y now depends on x
    return np.sum((y[:1] * 1j).imag)


COMPLEX = [(_complex, (0.5,)), (_reported_complex, (np.array([1.0, 2.0]),)),
           (_complex_scalar, (1.5,)),
           (_complex_astype, (np.ones(2),)), (_complex_array, (np.ones(2),)),
           (_complex_power, (-1.5,)), (_complex_from_a_view, (np.ones(2),))]


@pytest.mark.parametrize("fn, args", COMPLEX, ids=lambda v: getattr(v, "__name__", ""))
def test_complex_values_made_from_variables_are_differentiated(fn, args):
    check_dot_product(fn, args, forward=False)  # against central finite differences


def test_complex64_of_a_variable_against_forward_mode():
    """np.complex64 computes in float32: forward mode (its rule tested against
    differences by test_rule) is the reference."""
    check_dot_product(_complex64, (0.5,), rtol=1e-6)


def _uncovered_complex(x):
    return np.ptp(x * (1.0 + 1.0j)).real  # ptp: no complex rule


def _interp_in_the_period(x):
    return np.interp(1.3, [0.0, 1.0, 2.5], [1.0, 3.0, 2.0], period=x[0])


def _uncovered_complex_constant(x):
    return x * np.ptp(np.arange(2.0) * (1.0 + 1.0j)).real


def _uncovered_imaginary(x):
    """x * 1j: a real seed reaches no real x through it (a zero gradient before)."""
    return np.interp(np.array([0.5, 2.0]), np.array([0.0, 1.0, 2.5]), x * 1j).imag.sum()


def _uncovered_imaginary_periodic(x):
    return np.interp(np.array([0.5, 2.7]), np.array([0.0, 1.0, 2.5]), x * 1j,
                     period=3.0).imag.sum()


@pytest.mark.parametrize("fn, name", [(_uncovered_complex, "numpy.ptp"),
                                      (_uncovered_imaginary, "numpy.interp"),
                                      (_uncovered_imaginary_periodic, "numpy.interp")])
def test_complex_values_in_uncovered_rules_are_refused(fn, name):
    with pytest.raises(fwdad.NonDifferentiableError, match=f"{name} got or made a "
                                                           "complex value that depends on"):
        fwdad.vjp(fn, np.array([0.5, 2.0, 1.2]))


def test_complex_constants_in_uncovered_rules_stay_constants():
    check_dot_product(_uncovered_complex_constant, (1.5,), forward=False)


def _complex_constants(x):
    """Complex values made from arrays built inside f (variables of the tape that do not
    depend on x): constants, as in a plain call."""
    w = np.exp(1j * np.arange(3.0))
    z = np.ones(3) * 1j
    return x * np.sum(w.real) + np.sum(x * z.imag) + np.sum((x * 0.0 + np.ones(3)) * 2j).imag


@pytest.mark.parametrize("x", [np.array([0.5, -1.0, 2.0])])
def test_complex_constants_made_inside_are_constants(x):
    check_dot_product(_complex_constants, (x,), forward=False)


@pytest.mark.parametrize("fn, args, message", [
    (_pad_mean, (np.ones(3),), "mode='mean' has no reverse rule"),
    (_power_reduce, (np.ones(3),), "reduce has no reverse rule"),
    (_logaddexp_accumulate, (np.ones(3),), "logaddexp.accumulate has no reverse rule; "
                                           "reverse mode has add.accumulate"),
    (_maximum_reduceat, (np.ones(3),), "maximum.reduceat has no reverse rule"),
    (_interp_in_the_period, (np.ones(3),),
     r"np.interp in _interp_in_the_period at .*test_numpy_rules.py:\d+: .* not in period="),
], ids=lambda v: getattr(v, "__name__", ""))
def test_clear_errors(fn, args, message):
    with pytest.raises(FwdadError, match=message):
        fwdad.vjp(fn, *args)


SHAPES = [((2, 3), (3,)), ((1, 3), (2, 1)), ((), (2,)), ((2, 0), (1,))]


def _binary_rows():
    from fwdad.reverse.rules_ufuncs import BINARY
    from fwdad.rules import derivatives
    ufuncs = list(BINARY) + [row.numpy for row in derivatives.BINARY if row.numpy]
    return [(ufunc, shapes) for ufunc in ufuncs if ufunc is not np.ldexp
            for shapes in SHAPES]


@pytest.mark.parametrize("ufunc, shapes", _binary_rows(),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_binary_ufunc_rows_broadcast(ufunc, shapes):
    """Each binary row with broadcast (0-d, empty) arguments: the wrapper sums the
    cotangent back to each argument's shape."""
    rng = np.random.default_rng(1)
    a, b = (np.abs(rng.standard_normal(s)) + 0.5 for s in shapes)
    check_dot_product(ufunc, (a, b))


def _erfi_energy(x):
    import scipy.special
    return np.sum(scipy.special.erfi(x) ** 2)


def test_a_forward_primitive_without_a_reverse_rule_is_refused_saying_how_to_write_one():
    """grad of a function with an frule and no rrule names it, shows the rule to write,
    the page that explains it, and forward mode, which has the frule."""
    import scipy.special

    from fwdad.rules.registry import rules_restored

    with rules_restored():
        @fwdad.frule(scipy.special.erfi)
        def _erfi(x: fwdad.Dual) -> fwdad.Dual:
            y = scipy.special.erfi(x.primal)
            return fwdad.Dual(y, 2.0 / np.sqrt(np.pi) * np.exp(x.primal ** 2) * x.tangent)
        with pytest.raises(fwdad.MissingRuleError, match=(
                r"(?s)no reverse rule for erfi\(VarMat\): it has a forward rule but no "
                r"reverse rule yet\. Register one:\n    @fwdad\.reverse\.rrule\(erfi\).*"
                r"docs/writing-rules\.md, \"Reverse rules\"\), or use forward mode.*raised "
                r"in the derivative of .*test_numpy_rules\.py")):
            fwdad.grad(_erfi_energy)(np.array([0.3, -1.2]))


# ---- np.random draws: constants, in the generator they come from --------------------------
def _module_level_draw(x):
    """np.random.normal reaches its rule without the generator (the unbound method ran
    on x instead: a crash of the interpreter)."""
    np.random.seed(0)
    return np.random.normal(x) @ x + np.random.dirichlet(x) @ x


def _draw_from_a_list(x):
    """A list holding variables (an unclear error before)."""
    return np.random.default_rng(0).dirichlet([x[0], 1.0, x[1]]) @ x


@pytest.mark.parametrize("fn", [_module_level_draw, _draw_from_a_list],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["jacfwd", "grad"])
def test_draws_whose_parameters_carry_a_derivative_are_refused_in_both_modes(fn, mode):
    """(the sample moves with its parameters, which both modes took as constants:
    tests/test_random_parameters.py)"""
    with pytest.raises(FwdadError, match=rf"np.random's .* in {fn.__name__} at .*: its "
                                         rf"argument 1 has a derivative"):
        getattr(fwdad, mode)(fn)(np.array([0.3, 0.5, 1.2]))
