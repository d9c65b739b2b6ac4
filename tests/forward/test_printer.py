"""The optimizer's records (forward/optimizer/records.py): the printer turns each into
the statement it stands for, at the user's line, and cleanup works on records alone
(source in, records through cleanup, source out)."""
import ast

from fwdad import codegen
from fwdad.forward.optimizer.cleanup import cleanup
from fwdad.forward.optimizer.printer import statements
from fwdad.forward.optimizer.records import (
    CALL,
    PRIMAL,
    TANGENT,
    UNPACK,
    Assign,
    Block,
    Del,
    Expr,
    Guard,
    Raw,
    Return,
    Split,
)


def expr(text):
    return ast.parse(text, mode="eval").body


def printed(records):
    """The lines of the printed statements, as fwdad renders generated code."""
    return codegen.lines(ast.Module(body=statements(records), type_ignores=[]))[0]


def no_args():
    return ast.parse("def f(): pass").body[0].args


def test_each_record_prints_as_its_statement():
    loop = Block(ast.For, {"target": ast.Name("i", ast.Store()), "iter": expr("xs")},
                 [Split("i", "di")], [])
    records = [Guard(expr("batched(x)"), expr("plain(x)")), Split("x", "dx"),
               Split("k", None), Assign(["a", "b"], expr("f(x)"), UNPACK),
               Assign(["c"], expr("g(x)"), UNPACK), Assign(["d"], expr("g(x)"), CALL),
               Expr(expr("h(x)")), Del(["_fw_t1", "_fw_t2"]), loop, Raw(ast.Pass()),
               Return(expr("y"))]
    assert printed(records) == [
        "if batched(x):", "    return plain(x)", "x, dx = x.primal, x.tangent",
        "k = k.primal", "a, b = f(x)", "c, = g(x)", "d = g(x)",
        "h(x)", "del _fw_t1, _fw_t2", "for i in xs:", "    i, di = i.primal, i.tangent",
        "pass", "return y"]


def test_a_record_prints_at_its_users_line():
    record = Assign(["y"], expr("x * 2"), PRIMAL)
    record.lineno = 7
    assert statements([record, Expr(expr("f()"))])[0].lineno == 7


def test_cleanup_drops_dead_tangents_and_splits_moves_and_frees():
    records = [Split("x", "dx"),
               Assign(["_fw_s"], expr("f(x)"), CALL), Split("_fw_s", "_fw_ds"),
               Assign(["_fw_dead"], expr("dx * 2.0"), TANGENT),
               Assign(["_fw_m"], expr("x * _fw_s"), PRIMAL),
               Assign(["_fw_d1"], expr("cos(x) * dx"), TANGENT),
               Assign(["_fw_dm"], expr("_fw_d1 * 3.0"), TANGENT),
               Return(expr("D(_fw_m, _fw_dm)"))]
    assert printed(cleanup(records, no_args())) == [
        "x, dx = x.primal, x.tangent", "_fw_s = f(x)", "_fw_s = _fw_s.primal",
        "_fw_m = x * _fw_s", "del _fw_s", "_fw_dm = cos(x) * dx * 3.0",
        "return D(_fw_m, _fw_dm)"]
