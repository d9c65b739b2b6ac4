"""lin.T as the recorded linear program run backwards (fwdad/transposition.py): against
the Jacobian (jacfwd) on the corpus, the dot-product test on programs with views and
in-place writes, batches of cotangents, and the fallback for an op with no rule."""
import copy
import pathlib

import numpy as np
import pytest

import fwdad
from fwdad.tangents import inner, random_tangent
from fwdad.testing import vjp_by_transposition
from tests.corpus import CORPUS
from tests.util import assert_close


def _jacobian_vjp(f, primals, cotangent):
    """<ct, J> per argument, from jacfwd: the reference."""
    out = f(*copy.deepcopy(primals))
    got = []
    for i, p in enumerate(primals):
        jac = fwdad.jacfwd(f, argnums=i)(*copy.deepcopy(primals))
        got.append(np.tensordot(cotangent, jac, axes=np.ndim(out)))
    return got


@pytest.mark.parametrize("example", [pytest.param(e, id=str(e)) for e in CORPUS
                                     if all(isinstance(a, (float, np.ndarray))
                                            for a in e.args)])
def test_transpose_runs_the_program_backwards_and_matches_the_jacobian(example):
    out, lin = fwdad.linearize(example.fn, *copy.deepcopy(example.args))
    if not isinstance(out, (float, np.ndarray)):
        pytest.skip("a structured output")
    assert lin.T.method == "transpose", lin.T.why
    cotangent = random_tangent(out, np.random.default_rng(4))
    for got, want in zip(lin.T(cotangent), _jacobian_vjp(example.fn, example.args,
                                                         cotangent)):
        assert_close(got, want, rtol=1e-9, atol=1e-12)


def views_and_writes(x):
    b = x * 1.0
    v = b[1:]               # a view: writing into it writes into b
    v[0] = x[4] * 3.0
    c = b.reshape(2, 3).copy()
    c[0] *= 2.0             # c[0] = (c[0] *= 2): a value written onto itself
    c += c * x[0]           # in place, reading what it overwrites
    z = np.zeros((2, 3))
    z[1, 1:] = c[0, :2]
    np.add(z, x[5], out=z)
    return c.T @ x[:2] + z.sum(axis=0).reshape(3, 1) * x[[0, 0, 2]]


def picks_and_reductions(x):
    m = x.reshape(2, 3)
    i = np.argsort(m, axis=1)
    s = np.take_along_axis(m, i, axis=1)
    return np.mean(s * s, axis=0) + np.where(m[0] > 0.3, m[1], -m[0]) + m.ravel("F")[:3]


def repeated_index_writes(x):
    """NumPy keeps the last of repeated writes: b[0] is x[4] * 2, and x[3] is lost."""
    b = x * 1.0
    b[[0, 0, 1]] = x[3:] * 2.0
    b[[2, 2]] += x[:2] * x[5]
    return b


@pytest.mark.parametrize("f", [views_and_writes, picks_and_reductions,
                               repeated_index_writes])
def test_dot_product_through_views_writes_and_picks(f):
    x = np.linspace(0.1, 1.2, 6)
    rng = np.random.default_rng(9)
    out, lin = fwdad.linearize(f, x.copy())
    assert lin.T.method == "transpose", lin.T.why
    for _ in range(3):
        t, ct = rng.standard_normal(6), random_tangent(out, rng)
        assert inner(ct, lin(t)) == pytest.approx(inner(lin.T(ct), (t,)), rel=1e-12)
    assert_close(lin.T(ct)[0], _jacobian_vjp(f, (x,), ct)[0], rtol=1e-10)


def test_a_batch_of_cotangents_is_one_backward_pass_each():
    out, lin = fwdad.linearize(views_and_writes, np.linspace(0.1, 1.2, 6))
    cts = np.random.default_rng(2).standard_normal((4,) + np.shape(out))
    (got,) = lin.T(cts)
    for b in range(4):
        assert_close(got[b], lin.T(cts[b])[0], rtol=1e-14)


def test_an_op_without_a_transpose_rule_falls_back_to_the_jacobian():
    def f(x):
        return np.kron(x, x)  # kron: no transpose rule yet
    x = np.array([0.5, -1.0, 2.0])
    out, lin = fwdad.linearize(f, x)
    assert lin.T.method == "jacobian" and "kron" in lin.T.why
    ct = np.arange(9.0)
    assert_close(lin.T(ct)[0], _jacobian_vjp(f, (x,), ct)[0], rtol=1e-12)


def test_cotangents_are_shaped_like_the_arguments():
    def f(a, b, n):
        return a * b[0] + n
    out, lin = fwdad.linearize(f, 2.0, np.array([3.0, 4.0]), 5)
    ca, cb, cn = lin.T(1.5)
    assert isinstance(ca, float) and ca == 4.5
    np.testing.assert_array_equal(cb, [3.0, 0.0])
    assert cn is fwdad.NoTangent


# ---- the programs as docs/linearize.md shows them ---------------------------------------
DOC = pathlib.Path(__file__).parent.parent / "docs" / "linearize.md"


def documented(x, w):
    y = np.sin(w * x) * np.exp(x)
    y[1:] += y[:-1]
    return np.sum(y * y)


def _shown(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("# c"))


def test_the_programs_in_the_docs_are_what_fwdad_prints():
    _, lin = fwdad.linearize(documented, np.array([0.0, 0.5, 1.0, 1.5]), np.full(4, 2.0))
    blocks = DOC.read_text().split("```text\n")[1:]
    printed = [block.split("```")[0].rstrip("\n") for block in blocks]
    assert printed[:2] == [_shown(lin.source()), _shown(lin.T.source())]


def test_fwdad_show_prints_the_linear_program_and_its_transpose(tmp_path, capsys):
    from fwdad.cli import main
    path = tmp_path / "model.py"
    path.write_text("import numpy as np\n\ndef f(x):\n    return np.sum(np.sin(x) * x)\n")
    assert main(["show", f"{path}:f", "--linear", "--at", "[0.5, 1.0]"]) == 0
    assert "np.sum(t" in capsys.readouterr().out
    assert main(["show", f"{path}:f", "--transposed", "--at", "[0.5, 1.0]"]) == 0
    assert "return ct0" in capsys.readouterr().out
    assert main(["show", f"{path}:f", "--linear"]) == 2  # (no point)


@pytest.mark.parametrize("example", [pytest.param(e, id=str(e)) for e in CORPUS
                                     if all(isinstance(a, (float, np.ndarray))
                                            for a in e.args)])
def test_two_reverse_modes_agree_transposition_and_varmat(example):
    """lin.T (the forward rules' tangent program, transposed) against fwdad.vjp (the
    reverse rules on varmats): derived independently, from different rules."""
    out, by_transposition = vjp_by_transposition(example.fn, *copy.deepcopy(example.args))
    if not isinstance(out, (float, np.ndarray)):
        pytest.skip("a structured output")
    assert by_transposition.method == "transpose"
    cotangent = random_tangent(out, np.random.default_rng(6))
    _, pullback = fwdad.vjp(example.fn, *copy.deepcopy(example.args))
    for got, want in zip(by_transposition(cotangent), pullback(cotangent)):
        assert_close(got, want, rtol=1e-9, atol=1e-12)


def _complex_program(z, x):
    return np.sin(z) * x + np.conj(z) * z[0] + np.abs(z) ** 2


def test_transpose_of_complex_values_is_the_pullback_of_reverse_mode():
    """lin.T with complex arguments and outputs (fwdad/linearize_complex.py): the transpose
    of lin for Re(sum(ct * t)), and vjp's pullback; against differences of f too."""
    rng = np.random.default_rng(7)
    z, x = rng.standard_normal(3) + 1j * rng.standard_normal(3), rng.standard_normal(3)
    out, lin = fwdad.linearize(_complex_program, z, x)
    assert lin.T.method == "vjp"
    t = (rng.standard_normal(3) + 1j * rng.standard_normal(3), rng.standard_normal(3))
    ct = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    cts = lin.T(ct)
    assert cts[1].dtype == np.float64  # (a real argument: a real cotangent)
    h = 1e-6
    differences = (_complex_program(z + h * t[0], x + h * t[1])
                   - _complex_program(z - h * t[0], x - h * t[1])) / (2 * h)
    np.testing.assert_allclose(lin(*t), differences, rtol=1e-7, atol=1e-9)
    left = sum(np.real(np.sum(c * d)) for c, d in zip(cts, t))
    assert left == pytest.approx(np.real(np.sum(ct * differences)), rel=1e-7)
    for got, want in zip(cts, fwdad.vjp(_complex_program, z, x)[1](ct)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    batched = lin.T(np.stack([ct, 2.0 * ct]))
    np.testing.assert_allclose(batched[0][1], 2.0 * cts[0], rtol=1e-12)


def test_transpose_of_complex_values_refuses_what_reverse_mode_refuses():
    out, lin = fwdad.linearize(lambda z: np.sum(np.sort(z)), np.array([1.0 + 2.0j, 0.5j]))
    with pytest.raises(fwdad.FwdadError, match="numpy.sort"):
        lin.T(1.0 + 0j)
    np.testing.assert_allclose(lin(np.array([1.0, 1.0j])), 1.0 + 1.0j)  # lin(t) works


# ---- what the rule tables found: outputs and inputs of every structure ------------------
def test_a_named_tuple_output():
    out, lin = fwdad.linearize(lambda a: np.linalg.eigh(a + a.T), np.eye(2) * [1.0, 2.0])
    got = lin(np.array([[0.0, 1.0], [0.0, 0.0]]))
    want = fwdad.jvp(lambda a: np.linalg.eigh(a + a.T), (np.eye(2) * [1.0, 2.0],),
                     (np.array([[0.0, 1.0], [0.0, 0.0]]),))[1]
    assert type(got) is type(out)
    assert_close(got.eigenvalues, want.eigenvalues, rtol=1e-12, atol=1e-14)


def test_a_function_that_adds_keys_to_or_pops_from_its_argument():
    def grows(d):
        return d.setdefault("b", 1.5) * d["a"]

    def shrinks(xs):
        last = xs.pop()
        return last * xs[0]
    for f, x, t in ((grows, {"a": 0.3}, {"a": 1.0}), (shrinks, [0.3, 1.2, -0.5],
                                                       [1.0, 2.0, 3.0])):
        _, lin = fwdad.linearize(f, copy.deepcopy(x))
        assert lin(copy.deepcopy(t)) == pytest.approx(
            fwdad.jvp(f, (copy.deepcopy(x),), (copy.deepcopy(t),))[1], rel=1e-14)


def test_methods_and_types_of_numpy_scalars():
    def f(x):
        s = np.float64(x * 2.0)
        return s.sum() * np.float32(x)
    _, lin = fwdad.linearize(f, 0.7)
    assert lin(1.0) == pytest.approx(fwdad.jvp(f, (0.7,), (1.0,))[1], rel=1e-6)


# ---- one row per transpose rule of fwdad/transposition_rules.py ---------------------------
A = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, -0.2], [0.0, 0.4, 3.0]])
TRANSPOSED = [  # (what, f) of a vector of 6 values
    ("stack", lambda x: np.stack([x[:3], 2.0 * x[3:]], axis=1)),
    ("concatenate", lambda x: np.concatenate([x[3:], x, x[:2] * 3.0])),
    ("concatenate axis 1", lambda x: np.concatenate([x.reshape(2, 3), x.reshape(2, 3)],
                                                     axis=1)),
    ("roll", lambda x: np.roll(x * x, 2)),
    ("roll 2-d", lambda x: np.roll(x.reshape(2, 3) * 2.0, (1, -1), axis=(0, 1))),
    ("diff", lambda x: np.diff(x * x)),
    ("cumsum", lambda x: np.cumsum(x * x)),
    ("cumsum axis", lambda x: np.cumsum((x * x).reshape(2, 3), axis=1)),
    ("tril, triu", lambda x: np.tril(np.outer(x[:3], x[3:])) + np.triu(np.outer(x[:3], x[:3]), 1)),
    ("take", lambda x: np.take(x * x, [0, 0, 5])),
    ("take axis", lambda x: np.take((x * x).reshape(2, 3), [2, 0], axis=1)),
    ("pad", lambda x: np.pad(x * x, (1, 2))),
    ("repeat", lambda x: np.repeat(x * x, 2)),
    ("repeat axis", lambda x: np.repeat((x * x).reshape(2, 3), 3, axis=0)),
    ("einsum", lambda x: np.einsum("ij,j->i", A, x[:3] * x[3:])),
    ("tensordot", lambda x: np.tensordot((x * x).reshape(2, 3), A, 1)),
    ("dot", lambda x: np.dot(A, x[:3] * x[3:])),
    ("solve", lambda x: np.linalg.solve(A, x[:3] * x[3:])),
    ("trace", lambda x: np.trace(np.outer(x[:3], x[3:]))),
    ("broadcast_to", lambda x: np.broadcast_to(x[:3] * x[3:], (2, 3)) * A[:2]),
    ("inner", lambda x: np.inner((x * x).reshape(2, 3), A)),
    ("einsum with ...", lambda x: np.einsum("...i,ij->...j", (x * x).reshape(2, 3), A)),
    ("vecdot, broadcast", lambda x: np.vecdot(x[:3] * x[3:], A)),
    ("matvec", lambda x: np.matvec(A, x[:3] * x[3:])),
    ("vecmat", lambda x: np.vecmat((x * x).reshape(2, 3), A)),
    ("add.at, subtract.at", lambda x: _scatter_added(x)),
]


def _scatter_added(x):
    a = np.zeros(4)
    np.add.at(a, [0, 0, 3], x[:3] * x[3:])  # a repeated index adds twice
    np.subtract.at(a, [1], x[0] * 2.0)
    return a * x[:4]


@pytest.mark.parametrize("what, f", TRANSPOSED, ids=[r[0] for r in TRANSPOSED])
def test_each_transpose_rule_against_the_jacobian(what, f):
    x = np.linspace(0.2, 1.4, 6)
    out, lin = fwdad.linearize(f, x.copy())
    assert lin.T.method == "transpose", lin.T.why
    ct = random_tangent(out, np.random.default_rng(8))
    assert_close(lin.T(ct)[0], _jacobian_vjp(f, (x,), ct)[0], rtol=1e-10, atol=1e-12)


def test_an_op_of_several_arrays_is_replayed_and_falls_back_for_the_transpose():
    def f(x):
        first, second = np.gradient((x * x).reshape(2, 3))
        return first * second
    x = np.linspace(0.2, 1.4, 6)
    out, lin = fwdad.linearize(f, x.copy())
    t = np.arange(6.0)
    assert_close(lin(t), fwdad.jvp(f, (x.copy(),), (t,))[1], rtol=1e-12)
    assert lin.T.method == "jacobian"
    ct = np.ones((2, 3))
    assert_close(lin.T(ct)[0], _jacobian_vjp(f, (x,), ct)[0], rtol=1e-12)
