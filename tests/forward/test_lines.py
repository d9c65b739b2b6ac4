"""The Lines the forward transform records for the optimizer (forward/optimizer/lines.py): each
statement of the rule's body has one, saying what the transform knew when it wrote it,
and the optimizer's passes leave no flags on the syntax tree."""
import ast
import contextlib
import math
import operator

import numpy as np
import pytest

from fwdad import frontend
from fwdad.astwalk import walk
from fwdad.forward import dispatch
from fwdad.forward.optimizer import optimize as optimize_module
from fwdad.forward.optimizer.lines import walk_lines
from fwdad.forward.transform.dual_code import transform_lines
from fwdad.rules.registry import entry_of
from tests.corpus import CORPUS

LIMIT = 2.0


def branchy(x, k):
    y = x * math.sin(k)
    if y > 0.5:
        y = y + 1.0
    return y


def with_block(x, manager):
    with manager:
        z = x * 2.0
    return z + 1.0


def with_target(x, manager):
    with manager as m:
        pass
    return m + x


def kept_statements(x):
    try:
        z = x * 2.0
    except ValueError as err:
        z = x + len(str(err))
    with contextlib.nullcontext(z) as m:
        w = m + 1.0

    def inner(v):
        u = v * w
        return u
    return inner(z)


def swapped(a, b):
    a, b = b, a
    return a - b


def calls(x, f):
    buf = np.zeros(3)
    np.sin(x, out=buf)
    return f(buf) + np.sum(x)


def asserted_loop(x):
    assert x > 0, "positive"
    while not x > LIMIT:
        x = x * 2.0
    return x


def _lines(fn):
    src, normalized = frontend.normalized(fn)
    tree, constants, lines = transform_lines(normalized, src)
    return tree, constants, lines


def _calls_of(lines, primal):
    return [line for line in walk_lines(lines.body)
            if line.entry is not None and line.entry.primal is primal]


def test_a_call_line_holds_its_callee_entry_and_operands():
    _, constants, lines = _lines(branchy)
    sin, = _calls_of(lines, math.sin)
    assert sin.kind == "template" and sin.entry is entry_of(math.sin)
    assert constants.values[sin.func] is sin.callee and sin.pure
    assert [(a.kind, a.name) for a in sin.operands] == [("local", "k")]
    add, = _calls_of(lines, operator.add)
    assert add.targets == ["y"] and add.operands[1].kind == "const"
    assert add.operands[1].value.primal == 1.0
    assert add.source_line == branchy.__code__.co_firstlineno + 3


def test_a_branch_holds_its_test_and_the_lines_of_its_block():
    _, _, lines = _lines(branchy)
    branch, = [line for line in lines.body if line.control is ast.If]
    assert branch.kind == "use" and not branch.orelse
    (field, test), = branch.tests
    assert field == "test" and test.atom.kind == "local" and not test.negated
    assert [line.kind for line in branch.body] == ["template"]
    assert branch.body[0] in walk_lines(lines.body)


def test_an_assert_tests_its_primal_and_keeps_its_message():
    _, _, lines = _lines(asserted_loop)
    guard, loop = [line for line in lines.body if line.kind == "use"][:2]
    assert guard.control is ast.If and guard.tests[0][1].negated  # `if not t:`
    check, = guard.body
    assert check.control is ast.Assert
    assert [name for name, _ in check.tests] == ["test", "msg"]
    test, msg = check.tests[0][1], check.tests[1][1]
    assert test.atom is guard.tests[0][1].atom and not test.negated
    assert msg.atom is None and msg.literal.value == "positive"
    assert loop.control is ast.While and len(loop.body) == 3


def test_a_with_keeps_its_header_and_holds_the_lines_of_its_body():
    """The header is kept as it is (an unknown line whose statement's body is `pass`),
    with the names it reads and binds; its body's Lines are read as any block's."""
    _, _, lines = _lines(with_block)
    held = lines.body[0]
    assert held.kind == "unknown" and isinstance(held.node, ast.With)
    assert [type(s) for s in held.node.body] == [ast.Pass]
    assert [line.kind for line in held.body] == ["template"]
    assert held.body[0].targets == ["z"] and held.body[0] in walk_lines(lines.body)
    assert "z" not in held.opaque.mentioned and "manager" in held.opaque.loads


def test_a_try_holds_the_lines_of_its_body_and_of_each_part():
    """The optimizer reads a try's blocks: its body's Lines, and a `part` Line for each
    handler, for its else and its finally; an except clause tests its type and starts
    with `err = _fw_const(err)`, kept as it is (so err stays a Dual)."""
    _, _, lines = _lines(kept_statements)
    tried = lines.body[0]
    assert tried.kind == "try" and tried.control is ast.Try
    assert [line.kind for line in tried.body] == ["template"]
    handler, = tried.orelse
    assert (handler.kind, handler.clause, handler.caught) == ("part", "except", "err")
    assert handler.tests[0][1].literal.id == "ValueError"
    rebind = handler.body[0]
    assert rebind.kind == "unknown" and rebind.opaque.bound == {"err"}
    assert tried.body[0] in walk_lines(lines.body) and rebind in walk_lines(lines.body)


def test_a_kept_statement_s_line_says_what_it_does_with_names():
    """with and a nested def are kept as Dual code; their Lines carry the names each
    reads, stores and binds (optimizer/opaque.py), which the analyses read."""
    _, _, lines = _lines(kept_statements)
    kept = {type(line.node): line.opaque for line in lines.body if line.kind == "unknown"}
    held, nested = kept[ast.With], kept[ast.FunctionDef]
    assert held.bound == {"m"} and held.stores == {"m": 1}  # (w: its body's Line)
    assert held.reads[:1] == ("_fw_entered",)  # the manager entered through its rules
    assert nested.bound == {"inner"}  # its own locals are its own
    assert {"u", "v", "w"} <= set(nested.mentioned) and nested.loads["w"] == 1
    assert not (held.scoped or nested.scoped)


def test_the_analyses_read_a_kept_statement_s_names_not_its_syntax():
    """With its statement's names taken away from the analyses (the statement itself
    still printed), the optimizer no longer sees that the with's header binds m, and
    takes m for a plain local (wrong code, which is the point: nothing walks the
    statement)."""
    src, normalized = frontend.normalized(with_target)
    tree, constants, lines = transform_lines(normalized, src)
    rule = optimize_module.optimize(tree, constants, lines, None)
    assert "_fw_add(m, " in ast.unparse(rule)  # m stays a Dual: the header binds it
    tree, constants, lines = transform_lines(normalized, src)
    kept = lines.body[0].opaque
    kept.mentioned, kept.bound = (), set()
    rule = optimize_module.optimize(tree, constants, lines, None)
    assert "_fw_add(_fw_const(m), " in ast.unparse(rule)


def test_a_tuple_swap_becomes_copies_made_at_once():
    src, normalized = frontend.normalized(swapped)
    tree, constants, lines = transform_lines(normalized, src)
    rule = optimize_module.optimize(tree, constants, lines, None)
    assert [line.kind for line in lines.body][:2] == ["skip", "copies"]
    assert "build_tuple" not in ast.unparse(rule)


def test_purity_and_dynamic_calls():
    _, constants, lines = _lines(calls)
    into_buf, = _calls_of(lines, np.sin)
    total, = _calls_of(lines, np.sum)
    assert not into_buf.pure and total.pure
    dynamic, = [line for line in walk_lines(lines.body) if line.callee is dispatch.call]
    assert dynamic.entry is None and not dynamic.pure
    assert dynamic.operands[0].name == "f"  # the callee is the first operand


_FLAGS = ("fw_tangent", "fw_split", "fw_pure", "fw_reads", "fw_copy_of")


@pytest.mark.parametrize("example", CORPUS, ids=str)
def test_the_optimizer_leaves_no_flags_on_the_tree(example):
    src, normalized = frontend.normalized(example.fn)
    tree, constants, lines = transform_lines(normalized, src)
    rule = optimize_module.optimize(tree, constants, lines, None)
    if rule is None:
        pytest.skip("not optimized")
    flagged = [type(n).__name__ for n in walk(rule) if any(f in n.__dict__ for f in _FLAGS)]
    assert not flagged
