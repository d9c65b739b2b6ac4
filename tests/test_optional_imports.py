"""`import fwdad` imports none of its optional dependencies (SciPy, Dask, tqdm, ...):
each is imported where it is asked for. Each check runs in a fresh interpreter, where
nothing imported them before fwdad (this test session's other modules may have)."""
import pytest

from tests.fresh import run_fresh

OPTIONAL = ("scipy", "dask", "distributed", "tqdm", "mpmath", "matplotlib", "cloudpickle")


def test_import_fwdad_imports_no_optional_dependency(tmp_path):
    out = run_fresh(tmp_path, f"""
        import sys
        import fwdad
        print(sorted(m for m in {OPTIONAL!r} if m in sys.modules))
        """)
    assert out.strip() == "[]"


def test_differentiating_numpy_code_imports_no_optional_dependency(tmp_path):
    """A lookup that finds no rule (a plain Python function, a NumPy function without
    one) loads SciPy's rules only for a function of SciPy's."""
    out = run_fresh(tmp_path, f"""
        import sys
        import numpy as np
        import fwdad

        def helper(x):
            return x * np.tanh(x)

        def f(x):
            return np.sum(helper(x) ** 2) + np.linalg.norm(np.outer(x, x))

        x = np.array([0.3, -1.2, 0.7])
        fwdad.jvp(f, (x,), (x,)), fwdad.grad(f)(x), fwdad.hessian(f)(x)
        fwdad.jacfwd(helper, progress=False)(x), fwdad.jacrev(helper)(x)
        y, lin = fwdad.linearize(helper, x)
        lin(x), lin.T(x)
        print(sorted(m for m in {OPTIONAL!r} if m in sys.modules))
        """)
    assert out.strip() == "[]"


def test_tqdm_is_imported_when_progress_is_shown(tmp_path):
    pytest.importorskip("tqdm")
    out = run_fresh(tmp_path, """
        import sys
        import numpy as np
        import fwdad

        def f(x):
            return np.sin(x)

        fwdad.jacfwd(f, progress=False)(np.ones(3))
        print("tqdm" in sys.modules)
        fwdad.jacfwd(f, progress=True)(np.ones(3))
        print("tqdm" in sys.modules)
        """)
    assert out.split() == ["False", "True"]
