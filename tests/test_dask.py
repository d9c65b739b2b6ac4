"""A real Dask cluster (distributed.LocalCluster, 2 worker processes): jacfwd with
executor=client.get_executor() equals the in-process Jacobian (itself checked against
the closed form), and a worker killed in the middle of the run costs a retry of its
chunk, not a wrong answer."""
import os

import numpy as np
import pytest

import fwdad
from tests.closed_forms import f, jacobian_of_f

distributed = pytest.importorskip("distributed")


def die_once(flag):
    """Kill this process the first time it runs anywhere (no file at `flag` yet)."""
    if not os.path.exists(flag):
        open(flag, "w").close()
        os._exit(1)


@fwdad.frule(die_once)  # (a side effect with no derivative: run it, as it is)
def _die_once(flag: fwdad.Dual) -> fwdad.Dual:
    return fwdad.Dual(die_once(flag.primal), fwdad.NoTangent)


def dies_once(x, flag):
    """f, but its first run on a worker kills that worker."""
    die_once(flag)
    return np.sin(x) * x[0]


X = np.linspace(-0.5, 1.5, 40)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None, worker_dashboard_address=None)
    with cluster, distributed.Client(cluster) as connected:
        yield connected


def test_jacfwd_on_a_dask_cluster_equals_the_in_process_result(client):
    here = fwdad.jacfwd(f)(X)
    np.testing.assert_allclose(here, jacobian_of_f(X), rtol=1e-12, atol=1e-14)
    for chunk_size in (None, 6):
        there = fwdad.jacfwd(f, chunk_size=chunk_size, executor=client.get_executor())(X)
        np.testing.assert_array_equal(there, here)


def test_a_closure_on_a_dask_cluster(client):
    shift = 0.5

    def shifted(x):
        return np.cos(x * shift) * x[-1]
    here = fwdad.jacfwd(shifted)(X)
    np.testing.assert_allclose(np.diag(here)[:-1], (-shift * np.sin(X * shift) * X[-1])[:-1],
                               rtol=1e-12)
    there = fwdad.jacfwd(shifted, chunk_size=10, executor=client.get_executor())(X)
    np.testing.assert_array_equal(there, here)


def test_a_worker_killed_mid_run_still_gives_the_right_answer(client, tmp_path):
    flag = str(tmp_path / "killed-once")
    executor = client.get_executor(retries=2)
    jac = fwdad.jacfwd(dies_once, chunk_size=5, executor=executor)(X, flag=flag)
    assert os.path.exists(flag)  # a worker did die
    np.testing.assert_allclose(jac, jacobian_of_f(X), rtol=1e-12, atol=1e-14)
