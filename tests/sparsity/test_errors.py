"""What jacobian_sparsity refuses, and what its errors say."""
import numpy as np
import pytest

import fwdad


def test_an_integer_argument_has_no_columns():
    with pytest.raises(fwdad.NonDifferentiableError, match="float scalar or a float array"):
        fwdad.jacobian_sparsity(lambda n: n * 2.0, np.arange(3))


def test_argnums_must_name_an_argument():
    with pytest.raises(fwdad.FwdadError, match="argnums"):
        fwdad.jacobian_sparsity(lambda x: x, np.ones(2), argnums=3)


def test_an_output_that_is_not_floats_is_an_error():
    with pytest.raises(fwdad.FwdadError, match="must return a float array"):
        fwdad.jacobian_sparsity(lambda x: "text", np.ones(2))


def test_an_output_without_dependencies_gives_empty_rows():
    pattern = fwdad.jacobian_sparsity(lambda x: (np.ones(2), x[0]), np.ones(3))
    np.testing.assert_array_equal(pattern.toarray(), [[0, 0, 0], [0, 0, 0], [1, 0, 0]])


def test_detections_in_threads_run_one_after_the_other():
    from concurrent.futures import ThreadPoolExecutor

    def stencil(u):
        return u[:-2] - 2.0 * u[1:-1] + u[2:]

    def detect(n):
        return fwdad.jacobian_sparsity(stencil, np.ones(n), mode="global" if n % 2 else
                                       "local").nnz

    sizes = range(5, 45)
    with ThreadPoolExecutor(4) as pool:
        counts = list(pool.map(detect, sizes))
    assert counts == [3 * (n - 2) for n in sizes]
