"""Getting a function's AST, globals and closure cells."""
import ast
import inspect
import linecache

import numpy as np
import pytest

import fwdad
from fwdad import source
from fwdad.forward import dispatch
from fwdad.source import get_source, has_source

double = lambda v: v * 2.0  # noqa: E731
pair = [lambda v: v + 1.0, lambda w: w * 3.0]


class Model:
    scale = 2.0

    def __init__(self, weight):
        self.weight = weight

    def predict(self, x):
        return self.weight * x * self.scale

    @staticmethod
    def twice(x):
        return 2.0 * x


def make_adder(k):
    def add(x):
        return x + k
    return add


def test_module_function_and_lambda():
    tree = get_source(double).tree
    assert isinstance(tree, ast.FunctionDef)
    assert tree.lineno == double.__code__.co_firstlineno  # the line in this file
    assert isinstance(tree.body[0], ast.Return)


def test_lambdas_on_one_line_with_different_arguments():
    assert get_source(pair[0]).tree.args.args[0].arg == "v"
    assert get_source(pair[1]).tree.args.args[0].arg == "w"


def run(thunk):
    return thunk()


def test_a_lambda_inside_a_lambda_without_arguments_on_one_line():
    assert run(lambda: fwdad.jvp(lambda y: y * 3.0, (1.0,), (1.0,))) == (3.0, 3.0)
    assert run(lambda *a: fwdad.jvp(lambda y, *r, k=2.0, **kw: y * k, (1.0,), (1.0,))) \
        == (2.0, 2.0)


@pytest.mark.parametrize("fn, words", [
    (Model, r"tests.test_source.Model is a class, not a function: .* Name one \(e.g. "
            r"Model.__init__ or Model.method\)"),
    (np.frexp, r"numpy.frexp has no Python source \(written in C\).* "
               r"`@fwdad.frule\(numpy.frexp\)`"),
    (len, r"^len has no Python source \(written in C\).* `@fwdad.frule\(len\)`"),
], ids=["class", "ufunc", "builtin"])
def test_no_source_names_what_was_given(fn, words):
    with pytest.raises(fwdad.SourceUnavailableError, match=words):
        dispatch.derived_rule(fn)


def test_method_and_closure_cells():
    assert get_source(Model.predict).tree.name == "predict"
    assert get_source(Model(1.0).predict).tree.name == "predict"
    adder = make_adder(5.0)
    src = get_source(adder)
    assert src.cells["k"].cell_contents == 5.0


def test_builtins_are_foreign():
    assert not has_source(len) and has_source(make_adder)


def test_jvp_of_methods_lambdas_and_closures():
    assert fwdad.jvp(Model(3.0).predict, (1.5,), (1.0,)) == (9.0, 6.0)
    assert fwdad.jvp(Model.twice, (1.5,), (1.0,)) == (3.0, 2.0)
    assert fwdad.jvp(double, (1.5,), (1.0,)) == (3.0, 2.0)
    assert fwdad.jvp(make_adder(5.0), (1.5,), (1.0,)) == (6.5, 1.0)


def test_closures_read_their_cells_live():
    adder = make_adder(5.0)
    fwdad.jvp(adder, (1.0,), (1.0,))
    adder.__closure__[0].cell_contents = 7.0
    assert fwdad.jvp(adder, (1.0,), (1.0,)) == (8.0, 1.0)


def test_generated_lines_are_registered_with_linecache():
    rule = dispatch.derived_rule(Model.predict)
    code = rule.__code__
    text = "".join(linecache.getline(code.co_filename, n)
                   for n in range(code.co_firstlineno, code.co_firstlineno + 3))
    assert "def predict_frule(self, x):" in text


def test_jvp_over_nested_containers():
    def f(params, scale):
        a, b = params["ab"]
        return {"sum": (a + b) * scale, "parts": [a * scale, b]}
    out, tangent = fwdad.jvp(f, ({"ab": (1.0, 2.0)}, 3.0), ({"ab": (1.0, 0.5)}, 0.0))
    assert out == {"sum": 9.0, "parts": [3.0, 2.0]}
    assert tangent == {"sum": 4.5, "parts": [3.0, 0.5]}


def test_mutating_jvp_leaves_inputs_as_a_plain_call_does():
    import numpy as np

    def f(a, x):
        a[0] = x
        a *= 2.0
        return a.sum()
    given, plain = np.array([1.0, 2.0]), np.array([1.0, 2.0])
    tangent = np.array([1.0, 1.0])
    fwdad.jvp(f, (given, 0.5), (tangent, 1.0))
    f(plain, 0.5)
    assert np.array_equal(given, plain)
    assert np.array_equal(tangent, [1.0, 1.0])  # the caller's tangent is untouched


def _functions_of(module):
    seen = []
    for value in vars(module).values():
        for fn in [value] + [v for v in vars(value).values()] \
                if isinstance(value, type) else [value]:
            fn = getattr(fn, "__func__", fn)
            if inspect.isfunction(fn) and fn.__module__ == module.__name__:
                seen.append(fn)
    return seen


def _modules():
    import fwdad.lang
    import fwdad.rules.operators
    import fwdad.structured
    from tests import corpus
    return [corpus, fwdad.lang, fwdad.rules.operators, fwdad.structured,
            __import__(__name__, fromlist=["_"])]


@pytest.mark.parametrize("module", _modules(), ids=lambda m: m.__name__)
def test_a_def_read_alone_is_the_def_found_in_the_parsed_file(module):
    checked = 0
    for fn in _functions_of(module):
        code = fn.__code__
        alone = source._def_alone(code)
        module_tree = source._parsed_file(code.co_filename)
        if alone is None or module_tree is None:  # decorated, a lambda, lines that do
            continue                              # not parse alone; made by exec
        node = source._find_node(module_tree, code)
        expected, text = source._as_function_def(node, code.co_filename)
        assert ast.dump(alone[0], include_attributes=True) == \
            ast.dump(expected, include_attributes=True), fn
        assert alone[1] == text, fn
        checked += 1
    assert checked


def _tricky_defs():
    return [
        "def f(x):\n    s = '''\ndef f(x): return 1\n'''\n    return s\n",
        "def f(x):\n    y = (x +\n1)\n    return y\n",
        "def f(x):\n    y = x + \\\n1\n    return y\n",
        "def f(x):\n    return x\n# a comment\n\n    # an indented one\nz = 1\n",
        "class C:\n    def f(self):\n# at the margin\n        return 2\n",
        "def f(x): return x\n",
    ]


@pytest.mark.parametrize("text", _tricky_defs())
def test_a_def_read_alone_where_its_lines_are_tricky(text, tmp_path):
    path = tmp_path / "tricky.py"
    path.write_text(text)
    namespace = {}
    exec(compile(text, str(path), "exec"), namespace)
    fn = namespace["f"] if "f" in namespace else namespace["C"].f
    linecache.checkcache(str(path))
    tree = get_source(fn).tree
    node = source._find_node(source._parsed_file(str(path)), fn.__code__)
    assert ast.dump(tree, include_attributes=True) == \
        ast.dump(source._as_function_def(node, str(path))[0], include_attributes=True)


@pytest.mark.parametrize("lines", [
    ["def f():\n", "\n", "    x = 1\n", "    return x"],
    ["def f():\n", "    x = 1\n", "  \n", "    return x\n"],  # spaces alone: emptied
    ["    def f():\n", "\n", "        return 1\n"],
    ["    def f():\n", "        s = '''\n", "a\n", "'''\n"],  # less indented
    ["\tdef f():\n", "\t\tx = 1\n", "\t\n"],
    ["  def f():\n", "    x = 1\n", "  \x0c\n"],
    ["  def f():\n", "   # a comment\n", "    x = 1\n"],
])
def test_dedent_is_textwraps(lines):
    import textwrap
    assert source._dedent(lines) == textwrap.dedent("".join(lines))
