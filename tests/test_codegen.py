"""The renderer of generated code: its text parses back to the tree it was given, its
expressions keep their meaning, and each line knows the user line it comes from."""
import ast
import math

import pytest

from fwdad import cli, codegen, frontend, tangents
from fwdad import compile as compile_
from fwdad.dual import Dual
from fwdad.errors import FwdadError
from fwdad.forward.derive import build_rule
from fwdad.reverse.derive import build_rrule
from fwdad.unparse import expression
from tests.corpus import CORPUS
from tests.forward import test_optimize_random as random_programs

SEEDS = random_programs.SEEDS[:12] + [73]  # 73: (-2.0) ** 2, a negative literal


def canonical(node):
    """A tree as nested tuples, without locations or expression contexts, a negative
    number as the minus sign and number it parses back to, an empty list as None."""
    if isinstance(node, list):
        return tuple(canonical(item) for item in node) or None
    if not isinstance(node, ast.AST):
        return node
    if isinstance(node, ast.expr_context):
        return "ctx"
    value = getattr(node, "value", None)
    if type(node) is ast.Constant and type(value) in (int, float) and \
            math.copysign(1, value) < 0:
        return canonical(ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-value)))
    return (type(node).__name__,) + tuple(
        (name, canonical(getattr(node, name, None))) for name in node._fields
        if name != "kind")


def assert_round_trip(tree, text):
    parsed = ast.parse(text).body[0]
    assert canonical(parsed) == canonical(tree), text


@pytest.fixture
def rendered(monkeypatch):
    """Every (tree, lines, user lines) codegen.lines makes while the test runs."""
    out, lines = [], codegen.lines

    def record(tree):
        text, users = lines(tree)
        out.append((tree, text, users))
        return text, users
    monkeypatch.setattr(codegen, "lines", record)
    return out


def _build_both(fn):
    """The optimized rule, its plain rule and the plain rule built directly, with the
    normalized code of each build (rendered when read)."""
    rule = build_rule(fn, optimized=True)
    getattr(rule.unoptimized, "source")
    plain = build_rule(fn, optimized=False)
    str(rule.normalized_source), str(plain.normalized_source)


# ---- round trip: every rule of the corpus and of random programs ---------------------
@pytest.mark.parametrize("example", CORPUS, ids=str)
def test_corpus_rules_parse_back_to_their_trees(rendered, example):
    _build_both(example.fn)
    assert len(rendered) >= 4  # normalized code and rule, twice at least
    for tree, lines, _ in rendered:
        assert_round_trip(tree, "\n".join(lines))


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    return random_programs.load_programs(tmp_path_factory.mktemp("programs"), SEEDS,
                                         "codegen_programs")


@pytest.mark.parametrize("kind", ["program", "scalar"])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_program_rules_parse_back_to_their_trees(rendered, programs, seed, kind):
    _build_both(getattr(programs, f"{kind}_{seed}"))
    for tree, lines, _ in rendered:
        assert_round_trip(tree, "\n".join(lines))


# ---- expressions: parentheses where precedence needs them -----------------------------
def _number(value):
    return ast.Constant(value=value)


def _bin(left, op, right):
    return ast.BinOp(left=left, op=op, right=right)


a, b, c = (ast.Name(id=n, ctx=ast.Load()) for n in "abc")
BUILT = [  # trees no parse makes: (tree, text)
    (_bin(_number(-2.0), ast.Pow(), ast.Constant(2)), "(-2.0) ** 2"),
    (_bin(ast.UnaryOp(ast.USub(), ast.Constant(1.0)), ast.Pow(), b), "(-1.0) ** b"),
    (_bin(a, ast.Pow(), _number(-2.0)), "a ** -2.0"),
    (_bin(a, ast.Mult(), _number(-3)), "a * -3"),
    (ast.UnaryOp(ast.USub(), _number(-1.5)), "--1.5"),
    (ast.Attribute(value=_number(-1), attr="real", ctx=ast.Load()), "(-1).real"),
    (ast.Attribute(value=ast.Constant(3), attr="real", ctx=ast.Load()), "(3).real"),
    (_bin(a, ast.Sub(), _bin(b, ast.Sub(), c)), "a - (b - c)"),
    (_bin(_bin(a, ast.Pow(), b), ast.Pow(), c), "(a ** b) ** c"),
    (ast.Constant(float("inf")), "1e309"),
]
PARSED = [  # source, parsed then rendered, comes back as itself
    "dk * a + k * da", "-da", "a ** 2.0", "(-1.0) ** b", "a - (b - c)", "a - b - c",
    "math.cos(a) * da * e", "(a, b)", "a ** b ** c", "(a + b) * c", "a / (b * c)",
    "-a ** 2", "(-a) ** 2", "a ** -b", "not a and b or c", "a and (b or c)",
    "not (a and b)", "a < b < c", "(a < b) == c", "a if b else c", "(a if b else c) + 1",
    "a if (b if c else a) else c", "f(*a, b, k=1, **kw)", "f(a)(b).c[d]", "a[1:2, ::3]",
    "a[b:]", "a[:, None]", "a[()]", "a[(1, 2)]", "a[b,]", "[a, *b]", "{a: b, **c}",
    "{a, b}", "set()", "(a,)", "()", "'it\\'s'", "b'x'", "None", "...", "a.b.c",
    "~a & b | c ^ d", "a << 1 >> 2", "a @ b", "a // b % c", "-(a * b)", "+a", "1.5e-10",
    "(lambda x: x + 1)(a)", "[x * 2 for x in a if x]", "f(x for x in a)",
    "f'{a!r:>3} {b}'", "a is not b", "a not in b", "(a := 3) + 1", "3 .real + 1",
    "(a, b) if c else ()", "f(a, (b, c))", "x[1:2][3]",
]
NAMES = dict(a=2.0, b=3, c=0.5, d=1, e=4.0, k=1.5, da=0.25, dk=-1.0, kw={"z": 1},
             math=math, f=lambda *args, **kwargs: (args, kwargs))


@pytest.mark.parametrize("tree, text", BUILT, ids=[t for _, t in BUILT])
def test_built_expressions_render_with_the_parentheses_they_need(tree, text):
    assert expression(tree) == text
    assert canonical(ast.parse(text, mode="eval").body) == canonical(tree)
    _same_value(tree, text, dict(a=2.0, b=3.0, c=0.5))


@pytest.mark.parametrize("source", PARSED)
def test_expressions_parse_back_to_themselves(source):
    tree = ast.parse(source, mode="eval").body
    text = expression(tree)
    assert canonical(ast.parse(text, mode="eval").body) == canonical(tree), text
    if "f'" not in source and ":=" not in source:
        _same_value(tree, text, dict(NAMES))


def _same_value(tree, text, names):
    """The text evaluates to what the tree compiled directly evaluates to."""
    code = compile(ast.fix_missing_locations(ast.Expression(body=tree)), "<tree>", "eval")
    try:
        want = eval(code, dict(names))
    except Exception as error:
        with pytest.raises(type(error)):
            eval(text, dict(names))
        return
    got = eval(text, dict(names))
    assert got == want or (got != got and want != want), (text, got, want)


# ---- statements -----------------------------------------------------------------------
STATEMENTS = [
    "def f(x, y=1, *args, z, w=2, **kw) -> int:\n    return x, y",
    "@dec(1)\ndef f(a, /, b):\n    global g\n    nonlocal h\n    del a, b[0], (c, d)",
    "async def f():\n    async for i in a:\n        await b\n    async with a as (b, c), d:\n"
    "        pass",
    "if a:\n    b = 1\nelif c:\n    b = 2\nelif d:\n    pass\nelse:\n    b = 3",
    "if a:\n    pass\nelse:\n    if b:\n        pass\n    c = 1",
    "for i, j in a, b:\n    continue\nelse:\n    break",
    "while a < 3:\n    a += 1\nelse:\n    a **= 2",
    "try:\n    a = 1\nexcept (A, B) as e:\n    raise X from e\nexcept C:\n    raise\n"
    "except:\n    pass\nelse:\n    b = 2\nfinally:\n    c = 3",
    "with a as b, c:\n    x = y = 1\n    x, *y = z\n    [p, q] = r",
    "class A(B, metaclass=M):\n    'doc'\n    x: int = 3\n\n    def f(self):\n"
    "        return lambda: (yield)",
    "def f():\n    import a.b as c\n    from . import d\n    assert a, 'm'\n"
    "    x = yield a\n    y = yield from b\n    print(x)",
    "match a:\n    case 1:\n        pass",
]


@pytest.mark.parametrize("source", STATEMENTS, ids=[s.split(":")[0] for s in STATEMENTS])
def test_statements_parse_back_to_themselves(source):
    tree = ast.parse(source)
    assert canonical(ast.parse(codegen.render(tree))) == canonical(tree), \
        codegen.render(tree)


# ---- the line map ---------------------------------------------------------------------
def test_each_line_knows_the_statement_it_comes_from():
    tree = ast.parse("def f(x):\n"
                     "    if x:\n"
                     "        y = 1\n"
                     "    elif x < 0:\n"
                     "        y = 2\n"
                     "    else:\n"
                     "        y = 3\n"
                     "    for i in x:\n"
                     "        pass\n"
                     "    return y\n").body[0]
    tree.body[0].body[0].lineno = None  # a statement made without a location
    lines, users = codegen.lines(tree)
    assert lines == ["def f(x):", "    if x:", "        y = 1", "    elif x < 0:",
                     "        y = 2", "    else:", "        y = 3",
                     "    for i in x:", "        pass", "    return y"]
    assert users == [None, 2, 2, 4, 5, 5, 7, 8, 9, 10]


def _statements(tree):
    """The statements below `tree`, depth first in source order (the reference)."""
    out = []
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.stmt):
            out.append(child)
        out.extend(_statements(child))
    return out


@pytest.mark.parametrize("example", CORPUS[:14], ids=str)
def test_generated_lines_map_to_the_user_line_of_their_statement(rendered, example):
    _build_both(example.fn)
    for tree, lines, users in rendered:
        again = ast.parse("\n".join(lines)).body[0]
        for new, old in zip(_statements(again), _statements(tree)):
            if getattr(old, "lineno", None) is not None:
                assert users[new.lineno - 1] == old.lineno, lines[new.lineno - 1]


def test_source_heads_each_group_of_lines_with_its_user_line():
    """`.source` has `# line N: <user code>` above the lines from user line N, and the
    map tracebacks read agrees with those headers."""
    fn = next(e.fn for e in CORPUS if e.fn.__name__ == "branch")
    rule = build_rule(fn)
    first = fn.__code__.co_firstlineno
    source_lines = rule.source.splitlines()
    assert source_lines[2].strip() == f"# line {first}: def branch(x):", rule.source
    assert f"# line {first + 2}: return x * x" in rule.source, rule.source
    filename, line_map, function = compile_.USER_LINES[rule.__code__.co_filename]
    assert filename == fn.__code__.co_filename
    assert function is not None and function.endswith("branch"), function
    user = None
    for number, line in enumerate(source_lines, 2):  # the factory's def is line 1
        if line.strip().startswith("# line "):
            user = int(line.strip()[len("# line "):].split(":")[0])
        elif not line.startswith("#"):
            assert line_map[number] == user, (number, line)


# ---- normalized code, rendered when read ----------------------------------------------
def _normalized_text(fn):
    return codegen.render(frontend.normalized(fn)[1])


@pytest.mark.parametrize("example", CORPUS, ids=str)
def test_normalized_source_is_the_normalized_code_as_it_was_before_transforming(example):
    """It is rendered on first read, from the tree the rule was made from: building and
    running the rule must leave that tree as normalize made it."""
    rules = [build_rule(example.fn, optimized=True), build_rule(example.fn, optimized=False)]
    for rule in rules:
        rule.unoptimized(*[Dual(a, tangents.zero_tangent(a)) for a in example.args])
    try:
        rules.append(build_rrule(example.fn))
    except FwdadError:
        pass
    want = _normalized_text(example.fn)
    for rule in rules:
        assert rule.normalized_source == want
        assert str(rule.normalized_source) == want
        assert rule.normalized_source.splitlines() == want.splitlines()


def test_fwdad_show_normalized_shows_the_normalized_code():
    fn = next(e.fn for e in CORPUS if e.fn.__name__ == "branch")
    assert cli._forward_source(fn, normalized=True) == _normalized_text(fn)
