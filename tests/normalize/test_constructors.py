"""Golden tests: displays, slices and f-strings become constructor calls."""
import pytest

from fwdad.normalize import constructors
from tests.util import assert_transforms

CASES = [
    ("list with star", "def f(a, b):\n    return [a, *b]",
     "def f(a, b):\n    return fwdad.build_list(a, *b)"),
    ("tuple", "def f(a, b):\n    return a, b",
     "def f(a, b):\n    return fwdad.build_tuple(a, b)"),
    ("tuple target stays", "def f(t):\n    a, b = t",
     "def f(t):\n    a, b = t"),
    ("dict", "def f(a, b):\n    return {'a': a, 'b': b}",
     "def f(a, b):\n    return fwdad.build_dict('a', a, 'b', b)"),
    ("set", "def f(a, b):\n    return {a, b}",
     "def f(a, b):\n    return fwdad.build_set(a, b)"),
    ("slice", "def f(x, n):\n    return x[1:n]",
     "def f(x, n):\n    return x[fwdad.build_slice(1, n, None)]"),
    ("slice with step in a tuple index", "def f(x):\n    return x[::2, 0]",
     "def f(x):\n    return x[fwdad.build_tuple(fwdad.build_slice(None, None, 2), 0)]"),
    ("f-string", "def f(x):\n    return f'{x:.2f} {x!r} {{}}'",
     "def f(x):\n    return str.format('{:.2f} {!r} {{}}', x, x)"),
]


@pytest.mark.parametrize("name,before,after", CASES, ids=[c[0] for c in CASES])
def test_constructors(name, before, after):
    assert_transforms(constructors.run, before, after)
