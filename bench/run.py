"""Run every benchmark once: print one table of medians and ratios, write it to
docs/performance.md with the machine and the library versions.

    python bench/run.py            # about two minutes on 2 cores, peers included
    python bench/run.py --quick    # 3 repeats: a smoke test of the runner

Workloads: W1-W3 (bench/jvp_overhead.py), small calls, rule building, memory and
static_graph (bench/small_ops.py), reverse schedules (bench/reverse_schedule.py), and
those of the other issues: jacfwd and linearize
(bench/jacobian.py), reverse mode (bench/reverse.py), hvp and hessian
(bench/higher_order.py), solve_ivp's sensitivities (bench/ode.py), sparse Jacobians by
colouring (bench/sparse.py), memory budgets and Dask (bench/memory_budget.py,
bench/distributed.py), a dataclass state against plain locals
(bench/dataclass_state.py). Peers (JAX, PyTorch, autograd) are timed when they are
installed (`pip install fwdad[bench]`) and reported as absent otherwise. Within a group
the callables are sampled in turn, so that load on a shared machine hits all alike.
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import linecache
import math
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from typing import Callable, Dict, List, Optional

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fwdad  # noqa: E402
from bench import arguments, dataclass_state, peers, report, reverse_schedule, small_ops  # noqa: E402
from bench import jvp_overhead as jo  # noqa: E402
from bench.companion_rows import (  # noqa: E402
    higher_order_rows,
    jacobian_rows,
    ode_rows,
    reverse_rows,
    sparse_rows,
)
from bench.higher_order import HVP_N  # noqa: E402
from bench.scaling_rows import budget_rows, distributed_rows  # noqa: E402
from fwdad.dual import Dual  # noqa: E402
from fwdad.forward.derive import build_rule, collector_paused  # noqa: E402

MIN_SAMPLE = 0.02  # seconds; a fast callable runs several times per sample


Row = report.Row


def medians(group: Dict[str, Optional[Callable]], repeats: int) -> Dict[str, float]:
    """Median seconds per call of each callable (None: absent), sampled in turn."""
    live = {k: f for k, f in group.items() if f is not None}
    numbers = {}
    for name, f in live.items():
        f()  # (a first call may build rules or fill caches: it would set too few calls)
        start = time.perf_counter()
        f()
        numbers[name] = max(1, math.ceil(MIN_SAMPLE / max(time.perf_counter() - start, 1e-9)))
    samples: Dict[str, List[float]] = {k: [] for k in live}
    for _ in range(repeats):
        for name, f in live.items():
            start = time.perf_counter()
            for _ in range(numbers[name]):
                f()
            samples[name].append((time.perf_counter() - start) / numbers[name])
    return {k: statistics.median(v) for k, v in samples.items()}


def seconds(t: float) -> str:
    return f"{t * 1e3:.3g} ms" if t >= 1e-3 else f"{t * 1e6:.3g} us"


def verdict(value: float, limit: float, at_most: bool = True) -> str:
    ok = value <= limit if at_most else value >= limit
    return f"{'<=' if at_most else '>='} {limit:g}: {'met' if ok else 'MISSED'}"


# ---- W1-W3: jvp time / primal time ------------------------------------------------
def jvp_rows(workload: jo.Workload, peer_make, repeats: int, target: float,
             peer_workload: Optional[jo.Workload] = None) -> List[Row]:
    f, ps, ts = workload.f, workload.primals, workload.tangents
    problem = jo.mismatch(workload, fwdad.jvp(f, ps, ts))
    if problem:
        sys.exit(f"{workload.name}: fwdad's jvp is wrong: {problem}")
    times = medians({"primal": lambda: f(*ps), "fwdad": lambda: fwdad.jvp(f, ps, ts),
                     "hand": lambda: workload.hand(*ps, *ts)}, repeats)
    name, base = workload.name, times["primal"]
    rows = [Row(name, "primal", seconds(base)),
            Row(name, "fwdad.jvp", seconds(times["fwdad"]), f"{times['fwdad'] / base:.2f}x",
                verdict(times["fwdad"] / base, target)),
            Row(name, "hand-written tangent code", seconds(times["hand"]),
                f"{times['hand'] / base:.2f}x")]
    pw = peer_workload or workload
    group = {"primal": lambda: pw.f(*pw.primals)}
    for lib, jvp in (("jax.jvp (eager)", peers.jax_jvp), ("torch.func.jvp", peers.torch_jvp),
                     ("autograd", peers.autograd_jvp)):
        group[lib] = jvp(peer_make, pw.primals, pw.tangents)
    peer_times = medians(group, max(3, repeats // 5))
    note = "" if pw is workload else f" ({pw.name.split(',')[-1].strip()})"
    for lib in ("jax.jvp (eager)", "torch.func.jvp", "autograd"):
        t = peer_times.get(lib)
        rows.append(Row(name, lib + note, seconds(t) if t else "absent",
                        f"{t / peer_times['primal']:.1f}x" if t else ""))
    return rows


def w1_rows(repeats: int) -> List[Row]:
    import math as m
    make = lambda lib: peers.rk4(lib, getattr(lib, "sin", m.sin), 50)  # noqa: E731
    return jvp_rows(jo.rk4_workload(), make, repeats, 2.5, jo.rk4_workload(50))


def w2_rows(repeats: int) -> List[Row]:
    return jvp_rows(jo.elementwise_workload(), peers.elementwise, repeats, 2.0)


def w3_rows(repeats: int) -> List[Row]:
    w = jo.mlp_workload()
    cells = w.f.__closure__
    env = {c: cell.cell_contents for c, cell in zip(w.f.__code__.co_freevars, cells)}

    def make(lib):
        name = {"jax.numpy": "jax", "torch": "torch"}.get(lib.__name__, "numpy")
        w2, w3, x = (peers.convert(name, env[k]) for k in ("w2", "w3", "x"))
        return peers.mlp(lib, w2, w3, x)
    return jvp_rows(w, make, repeats, 1.8)


# ---- small calls, rule building, memory, static_graph --------------------------------------
def small_call_rows(repeats: int) -> List[Row]:
    f, ps, ts = small_ops.tiny, (0.5, 2.0), (1.0, 0.0)
    rule = fwdad.derive_frule(f).frule
    times = medians({"fwdad": lambda: fwdad.jvp(f, ps, ts),
                     "rule": lambda: rule(Dual(0.5, 1.0), Dual(2.0, 0.0)),
                     "jax": peers.jax_jvp(peers.tiny, ps, ts),
                     "torch": peers.torch_jvp(peers.tiny, ps, ts)}, repeats)
    name = "small calls (3-op scalar f)"
    rows = [Row(name, "fwdad.jvp", seconds(times["fwdad"])),
            Row(name, "f.frule(Dual, Dual) (derive_frule)", seconds(times["rule"]))]
    for lib, label in (("jax", "jax.jvp (eager)"), ("torch", "torch.func.jvp")):
        t = times.get(lib)
        speedup = t / times["fwdad"] if t else None
        rows.append(Row(name, label, seconds(t) if t else "absent",
                        f"fwdad.jvp {speedup:.1f}x faster" if t else "",
                        verdict(speedup, 20, at_most=False) if t else ""))
    return rows


def build_rows(repeats: int) -> List[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "long_body.py")
        with open(path, "w") as out:
            out.write("import math\n\n\n" + small_ops.long_body_source(100))
        spec = importlib.util.spec_from_file_location("long_body", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fn = module.long_body
        times = medians({"optimized": lambda: _first_build(fn, path, True),
                         "plain": lambda: _first_build(fn, path, False)}, repeats)
        stages = _stages(fn, path, repeats)
    name = "rule building (100 lines, 550 operations)"
    return [Row(name, "build_rule (optimized)", seconds(times["optimized"]), "",
                verdict(times["optimized"] * 1e3, 50) + " (ms)"),
            Row(name, "build_rule (plain)", seconds(times["plain"]))] + [
        Row(name, f"stage: {stage}", seconds(t)) for stage, t in stages.items()]


def _forget_file(path: str) -> None:
    """Make the next build read and parse the user's file again, as the first one of
    its module does (fwdad keeps the parse of each file's current text)."""
    from fwdad import source
    source._parse_cached.cache_clear()
    linecache.cache.pop(path, None)


def _first_build(fn: Callable, path: str, optimized: bool) -> Callable:
    _forget_file(path)
    return build_rule(fn, optimized=optimized)


def _stages(fn: Callable, path: str, repeats: int) -> Dict[str, float]:
    """Median time of each stage of building the optimized rule."""
    samples: Dict[str, List[float]] = {}
    for _ in range(repeats):
        _forget_file(path)
        with collector_paused():  # as build_rule runs them
            marks = _stage_marks(fn)
        for stage, a, b in zip(("source + fence + normalize", "transform", "optimize",
                                "compile"), marks, marks[1:]):
            samples.setdefault(stage, []).append(b - a)
    return {k: statistics.median(v) for k, v in samples.items()}


def _stage_marks(fn: Callable) -> List[float]:
    """The times between the stages of one build of the optimized rule of `fn`."""
    from fwdad import frontend
    from fwdad.compile import compile_function
    from fwdad.forward.optimizer.optimize import optimize
    from fwdad.forward.transform.dual_code import transform_lines
    marks = [time.perf_counter()]
    src, normalized = frontend.normalized(fn)
    marks.append(time.perf_counter())
    tree, constants, lines = transform_lines(normalized, src)
    marks.append(time.perf_counter())
    better = optimize(tree, constants, lines, None)
    marks.append(time.perf_counter())
    compile_function(better, constants.values, src.cells, src.globals, (), {},
                     src.filename, "rule")
    marks.append(time.perf_counter())
    return marks


def _peak(run: Callable) -> int:
    gc.collect()
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def memory_rows() -> List[Row]:
    w = jo.elementwise_workload()
    fwdad.jvp(w.f, w.primals, w.tangents)  # build the rule first
    primal = _peak(lambda: w.f(*w.primals))
    jvp = _peak(lambda: fwdad.jvp(w.f, w.primals, w.tangents))
    name = "memory, W2 (tracemalloc peak)"
    return [Row(name, "primal", f"{primal / 2**20:.1f} MiB"),
            Row(name, "fwdad.jvp", f"{jvp / 2**20:.1f} MiB", f"{jvp / primal:.2f}x",
                verdict(jvp / primal, 2.2))]


def static_graph_rows(repeats: int) -> List[Row]:
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(8), rng.standard_normal((8, 8)) / 3
    dx, dw = rng.standard_normal(8), rng.standard_normal((8, 8))
    optimized = build_rule(small_ops.chain)
    graph = fwdad.static_graph(small_ops.chain).static_graph

    def run(rule):
        return lambda: rule(Dual(x, dx.copy()), Dual(w, dw.copy()))
    run(graph)()  # records
    times = medians({"plain": run(optimized.unoptimized), "optimized": run(optimized),
                     "replay": run(graph)}, repeats)
    name = "static_graph (200 small NumPy ops)"
    replay = times["replay"]
    return [Row(name, "derived rule, plain", seconds(times["plain"]),
                f"replay {times['plain'] / replay:.1f}x faster",
                verdict(times["plain"] / replay, 3, at_most=False)),
            Row(name, "derived rule, optimized", seconds(times["optimized"]),
                f"replay {times['optimized'] / replay:.1f}x faster"),
            Row(name, "static_graph replay", seconds(replay))]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats (a smoke test)")
    parser.add_argument("--no-write", action="store_true", help="do not write the docs")
    parser.add_argument("--hvp-n", type=int, default=None,
                        help="variables of the hvp / grad workload (default 10^5, the "
                             "target's size)")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 21
    rows = (w1_rows(repeats) + w2_rows(max(3, repeats // 2)) + w3_rows(max(3, repeats // 2))
            + arguments.rows(max(3, repeats // 2), medians, seconds, verdict)
            + dataclass_state.rows(max(3, repeats // 2), medians, seconds, verdict)
            + small_call_rows(repeats) + build_rows(repeats) + memory_rows()
            + static_graph_rows(repeats)
            + reverse_schedule.rows(max(3, repeats // 3), medians, seconds, verdict)
            + jacobian_rows(repeats)
            + reverse_rows(max(3, repeats // 3), with_peers=True,
                           size=60 if args.quick else 200)
            + higher_order_rows(max(3, repeats // 3),
                                args.hvp_n or (200 if args.quick else HVP_N))
            + ode_rows(max(3, repeats // 3))
            + sparse_rows(max(3, repeats // 3))
            + budget_rows(60 if args.quick else 250, 1 if args.quick else 2)
            + distributed_rows(1 if args.quick else 3))
    text = report.table(rows)
    print(f"fwdad benchmarks, median of {repeats} repeats; {report.machine()}\n\n{text}")
    if not args.no_write:
        report.write_docs(text, repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
