"""Golden tests: operators, subscripts and attributes become calls."""
import pytest

from fwdad.normalize import intrinsics
from tests.util import assert_transforms

CASES = [
    ("binary", "def f(a, b):\n    return a + b * 2",
     "def f(a, b):\n    return operator.add(a, operator.mul(b, 2))"),
    ("unary and negative literal", "def f(a):\n    return -a + -1.5",
     "def f(a):\n    return operator.add(operator.neg(a), -1.5)"),
    ("not", "def f(a):\n    return not a", "def f(a):\n    return operator.not_(a)"),
    ("compare", "def f(a, b):\n    return a <= b",
     "def f(a, b):\n    return operator.le(a, b)"),
    ("chained compare evaluates the middle once", "def f(a, b, c):\n    return a < g(b) < c",
     "def f(a, b, c):\n    return operator.lt(a, (_fw_cmp1 := g(b))) and "
     "operator.lt(_fw_cmp1, c)"),
    ("in and not in", "def f(a, b):\n    return a in b, a not in b",
     "def f(a, b):\n    return operator.contains(b, a), "
     "operator.not_(operator.contains(b, a))"),
    ("getitem", "def f(x, i):\n    return x[i]",
     "def f(x, i):\n    return operator.getitem(x, i)"),
    ("setitem", "def f(x, i, v):\n    x[i] = v",
     "def f(x, i, v):\n    operator.setitem(x, i, v)"),
    ("setitem evaluates the value first", "def f(x, v):\n    x[0] = g(v)",
     "def f(x, v):\n    _fw_value1 = g(v)\n    operator.setitem(x, 0, _fw_value1)"),
    ("augmented name keeps in-place meaning", "def f(x, v):\n    x += v",
     "def f(x, v):\n    x = operator.iadd(x, v)"),
    ("augmented item", "def f(x, v):\n    x[g(1)] *= v",
     "def f(x, v):\n    operator.setitem(x, (_fw_key1 := g(1)), "
     "operator.imul(operator.getitem(x, _fw_key1), v))"),
    ("attributes: the value is evaluated first", "def f(o, v):\n    o.a = o.b",
     "def f(o, v):\n    _fw_value1 = getattr(o, 'b')\n    setattr(o, 'a', _fw_value1)"),
    ("augmented attribute", "def f(o, v):\n    o.a -= v",
     "def f(o, v):\n    setattr(o, 'a', operator.isub(getattr(o, 'a'), v))"),
    ("delete", "def f(x, o):\n    del x[0], o.a",
     "def f(x, o):\n    operator.delitem(x, 0)\n    delattr(o, 'a')"),
    ("annotated assignment", "def f(a):\n    b: float = a\n    return b",
     "def f(a):\n    b = a\n    return b"),
]


@pytest.mark.parametrize("name,before,after", CASES, ids=[c[0] for c in CASES])
def test_intrinsics(name, before, after):
    assert_transforms(intrinsics.run, before, after)
