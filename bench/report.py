"""The report of bench/run.py: one Markdown table, and docs/performance.md."""
from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass
from typing import List

import numpy as np

from bench import peers


@dataclass
class Row:
    workload: str
    entry: str
    value: str
    ratio: str = ""
    target: str = ""


# ---- report ---------------------------------------------------------------------------
COLUMNS = ("workload", "what", "median", "ratio", "target")


def table(rows: List[Row]) -> str:
    cells = [COLUMNS] + [(r.workload, r.entry, r.value, r.ratio, r.target) for r in rows]
    lines = ["| " + " | ".join(c) + " |" for c in cells]
    lines.insert(1, "|" + "|".join("---" for _ in COLUMNS) + "|")
    return "\n".join(lines)


def machine() -> str:
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    versions.update({k: v or "absent" for k, v in peers.versions().items()})
    libs = ", ".join(f"{k} {v}" for k, v in versions.items())
    return (f"{platform.platform()}, {os.cpu_count()} CPUs "
            f"({platform.processor() or platform.machine()}); {libs}")


def write_docs(text: str, repeats: int) -> None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.makedirs(os.path.join(root, "docs"), exist_ok=True)
    with open(os.path.join(root, "docs", "performance.md"), "w") as out:
        out.write(DOC.format(machine=machine(), repeats=repeats, table=text,
                             date=time.strftime("%Y-%m-%d")))


DOC = """# Performance

Written by `python bench/run.py` on {date}: one run, median of {repeats} repeats (fewer
for the peers and the large workloads). Ratios are what the issue's targets are about;
absolute times depend on the machine, which is shared and noisy.

Machine: {machine}

{table}

Notes:
- W1-W3 ratios are `time / primal time`. Peers differentiate the same function written
  with their own arrays, in float64; on W1 they run 50 RK4 steps (their per-step cost is
  high), against a primal of 50 steps.
- W3 differentiates with respect to the first weight matrix only; the other weights are
  closure constants, so the optimized rule computes no tangent products for them.
- fwdad.jvp includes checking the inputs and copying the tangents (fwdad/api.py); a
  function found to write into nothing (fwdad/write_free.py) gets the caller's tangent
  arrays uncopied instead, when they hold 4,096 numbers or more (W3, the MLP with
  arguments: fwdad/lent_tangents.py, measured by bench/lent_tangents.py). The
  `f.frule(Dual, Dual)` row is the derived rule alone: for small calls nearly all of
  `jvp`'s time is the checking (inspect.signature for argument names, check_tangent,
  deepcopy), not differentiation.
- Rule building: each build is a first build (the file's cached parse is dropped
  first); the stage rows time each step of building the optimized rule on its own. The
  function has 100 lines of about 6 operations each; its optimized rule has about 870
  lines. Rendering writes the text and its line map in one pass (fwdad/codegen.py), the
  passes walk trees with fwdad/astwalk.py, and the garbage collector is paused while a
  rule is built. A rule keeps no syntax tree: its plain version (for batched tangents)
  and `normalized_source` are made from the def's text when first needed, so a build
  leaves almost nothing for the collector to trace (a 100-line function's rule holds
  0.25 MB).
- static_graph rows time the rules directly (no `jvp` around them). "plain" is the
  derived rule before optimization. The optimized derived rule gains little here: a
  value whose method is called (`h.sum()`) may be mutated by that dynamic call, so it
  stays boxed. The schedule resolves such calls when it records them.

- hvp / grad: the target (at most 5) is at n = 10^5, the default (`--hvp-n` sets
  another). fwdad's hvp is forward over reverse: one reverse pass run on Dual values
  (docs/higher_order.md), so its cost is a few gradients at any n. Peers compute `jvp`
  of their `grad` (eager). The hessian rows are each library's `hessian` of the same
  function of 100 variables (JAX eager, not jitted).

- solve_ivp rows: the augmented solve takes more steps than the plain one (the
  sensitivities share the error control: the same tolerances on the whole augmented
  state), which no cost per call can undo. So the target is per right-hand side call:
  the sensitivity solve's time (`jvp` or `jacfwd` less the plain solve the rule runs for
  SciPy's own primal) per call of the augmented right-hand side, over the plain solve's
  time per call, is about 1 + directions per call; the step count ratio is the error
  control's, shown beside (in the row's name). Each step calls one rule, chosen on the
  first: the variant of the right-hand side's rule for a constant t, with no guard
  (fwdad/rules/ode_sensitivity.py).

How the optimized rule gets there (fwdad/forward/optimizer/optimize.py and its helpers): frules of
operators, `math` and common NumPy functions are inlined as templates; each local is
boxed, split into a primal and a tangent local, or plain (activity analysis: constants,
loop counters and comparisons carry no tangent, and a constant operand drops its term);
tangent statements read once move into their use and temporaries are deleted after
their last use, so NumPy reuses buffers. Batched tangents (jacfwd, batched_jvp,
sparse_jacfwd) run a variant of the optimized rule built for them
(fwdad/forward/optimizer/batched_variant.py): it inlines the elementwise templates whose other
operands are numbers with no tangent (`np.cos(x) * dx` is right for dx of shape
(B, *x.shape)), calls the frules elsewhere, and is not made for a rule with a call that
may update its operands in place (those run the plain rule). That variant is built per
*signature*: the kinds of the positional arguments (Python float, int or bool, NumPy
float scalar, float ndarray with its number of axes and dtype, or other:
fwdad/forward/optimizer/kinds.py), which Routes reads from each batched call (some 1-2
us for two arguments) and kind_flow.py propagates through the rule's lines. Where every
operand of an elementwise binary template has the same known number of axes, or of a
matrix product the same number, at least 2, the template is inlined with both operands
active too (`dx @ w + x @ dw`); a call with arguments of other kinds (another rank,
float32, a subclass of ndarray, an int) runs the variant built for those. On
`sin(x) * w + x / w` and `tanh(y) * x - w * w` with x, w of shape (4, 4) and 8
directions the rule took 52-65 us against 98-170 us before, one run each, on a loaded
machine; on 200x200 arrays the arithmetic dominates and the two are equal. On the
elementwise functions of tests/forward/test_batched_variant.py with 30 directions it
takes 0.6-0.65x the time of the plain rule.

In-place updates of array locals (`r[1:-1] += v`, `r[0] = v`, `r += v`) no longer keep
a rule boxed (fwdad/forward/optimizer/inplace.py): where the updated local is made by
templates only and nothing else can see its memory (no view such as `v = r[1:]`, no
copy `s = r`, no call or method call on it, not an argument), the three calls of
`r[k] += v` join into one update of the split primal and tangent
(fwdad/forward/optimizer/updates.py), the tangent made private first (a zero becomes an
array, a batched value widens it); with ints and slices for the index it writes
`dr[:, k] += dv` itself, otherwise it runs the plain rule's frules on the split local.
A ufunc's `out=` into such a local (`np.add(a, b, out=r)`, `np.multiply(r, s, out=r)`,
the result dropped or bound to r again) joins the same way in the rule for one tangent:
add, subtract and multiply of float64 arrays of r's shape write the primal and then
`dr[...] = da * b + a * db` themselves, and other ufuncs run their frule on the split
local. A loop of 20 `np.add(r, np.sin(x) * w, out=r)` and `np.multiply(r, 0.5, out=r)`
on 64 floats now takes 283 us a jvp, against 554 us with the calls kept (CPU-time
medians).
Any other local keeps the plain rule's calls. Reads of a parameter's `shape`, `size`,
`ndim` and `dtype` carry no tangent (fwdad/forward/optimizer/metadata.py), so a grid
spacing `h = 1.0 / (u.shape[0] + 1)` is a plain number. So the PDE residual and the 1-D
reaction-diffusion residual run their optimized rule, and their batched variant, from
end to end. In the variants built for the arguments' kinds, kind_flow.py also knows
shapes and their items (`n = u.shape[0]` is an int, `h = 1.0 / (n + 1)` a float, so
`dx / (h * h)` inlines), slices (`flux[2:]` keeps the rank: inlined as `flux[k]` and
the view `dflux[..., k]`, fwdad/forward/optimizer/array_lines.py), `np.roll` of a
vector (its tangent rolled along the last axis), int powers and `int(...)`. Methods of
a float array (reshape, ravel, transpose, copy, sum, mean, ...: forward/optimizer/methods.py)
are pure there: the call is the method's rule; its result may be a view, which the
analyses take as they take every call result, an alias of the receiver (a write through
it keeps both boxed). So the 2-D stencil's `grid = u.reshape(m, m)` runs split, with
owned updates of `lap`, in the batched variant. The one-tangent rule (the one `.source`
shows) stays the rule for any arguments, where a method call is a dynamic call: routing
every one-tangent call by kinds made `.source` a one-line stub, and would cost a direct
call of a small rule its signature. The one-tangent calls that Routes decides on anyway
(constants: `jvp` given None or a zero tangent, a static call with a constant operand;
an argument with no tangent; a list where a NumPy line reads an array) run the variant
for their signature: which parameters are constants, and the kind of each positional
argument (lists and tuples of at most 8 items with their items' kinds), with no guard of
its own (the key is its guard; a call of other kinds gets its own variant, up to 32 per
function). Known kinds free the parameters of that variant from the sequence test, so
NumPy functions of an array argument are inlined there; `jvp` of Python floats runs
the variant for float arguments, resolved once per zero pattern (forward/float_calls.py),
with no guard. By callgrind (instructions per call, one loaded run each, before and
after): `jvp` of the 3-op scalar function along x 20,031 and 20,496 (the same code:
noise), along both 22,675 and 19,747 (no guard), `f.frule(Dual, Dual)` 14,854 and
14,880 (the general rule, unchanged); the dataclass leapfrog, 200 steps, 46.1 M and
26.5 M (its variant now inlines np.sin and np.sum of the state's array fields, which
the sequence test kept as rule calls). A signature costs a call its kinds: the MLP of
8x16 arrays with three constants took 26.2 us and 27.5 us of CPU time (medians). The
leapfrog on a State given as an argument, whose fields it writes, runs the variant that
keeps the fields in locals (key FIELDS, forward/routes.py); that variant is keyed on the
kinds its fields hold on entry too, read from the values forward/plain_instances.py
checked, so its field locals have kinds as the plain code's locals do (kind_flow.py: a
field read of such an instance), and NumPy functions of them are inlined there
(np.sin, np.cos, np.sum): by callgrind, 44.6 M and 27.1 M instructions a call before
and after, the same code on locals 27.5 M; by CPU-time medians (150 runs, three
rounds, before and after in turn), 1.76x and 1.11x the plain code's jvp. What is
left: the field reads on entry are rule calls, so the optimizer cannot tell that a
float field's tangent exists, and each sum or difference of a field's tangent keeps
the rules' shaping (`summed`). A small call of a sealed function on an instance pays
for its fields' kinds: one that writes two float fields took 23.1-24.7 us with its key
left without them and 26.4-27.4 us with them (CPU-time medians, in one process), of
which computing the kinds is 0.9 us and the rest of the key 0.2 us. Later
jacfwd calls
with arrays of the same shapes and dtypes skip the checks, the leaves of the seeds and
the budget's planning, kept from the first call
(fwdad/jacobians.py). In the variant for batched tangents and kinds, the owned updates
are written inline, `r[k] += v` then `dr[..., k] += dv` (`=`, `+=` and `-=` into an int,
a slice or a tuple of slices: fwdad/forward/optimizer/batched_updates.py), where the
kinds say r is a float array and the value a float of the part's number of axes, the
guard's parameters give dr and dv tangents, and dr surely has a batch axis wherever dv
may have one (fwdad/forward/optimizer/batch_axes.py: jacfwd gives the arguments it does
not differentiate unbatched zeros, and a rule call may make a batched zero for a
constant); elsewhere updates.update_owned checks and widens at run time. Items of a
float array (`u[0]`: `du.take(0, axis=-1)`, a number or the batch's copy, as the rule
gives), whole sums and means (`du.sum(axis=-1)`) and rolls (rules/shapes.rolled) are
inlined too, and a float to an int power is a float (`h2 = h ** 2`). So the PDE row's
and the 1-D residual's batched variants call no rule; by callgrind, jacfwd of the PDE
residual went from 1,226 K to 872 K instructions a call (the primal: 175 K), and the
1-D residual's batched pass of its 3 colours (batched_jvp, n = 10^4) from 1,369 K to
1,109 K. A vector's reshape by ints (`grid = u.reshape(m, m)`) is inlined there too, as
`du.reshape(du.shape[:-1] + (m, m))`: splitting one axis never copies, so primal and
tangent are both views (array_lines.py); so the 2-D stencil's slices of `grid` and its
updates of `lap` are written inline, and its variant calls one rule, the last reshape
(two axes merged: a view or a copy by the layout, left to the rule). Last, a tangent
expression linear in one tangent, with coefficients of float64 locals and numbers
(`4.0 * du * s + m * -du`, the product rule after moves), is written as one product,
`du * (s * 4.0 - m)` (fwdad/forward/optimizer/linear_tangents.py): one pass over the
batch instead of five. The 1-D residual's variant of 4 directions went from 794 K to
586 K instructions (the hand-written batched NumPy of 3 directions: 813 K, with its
copies), the 2-D stencil's of 8 from 4,113 K to 3,543 K.

Batched passes and fresh memory: a pass whose tangent arrays pass 128 KiB (10^4 floats
times 3-7 directions, the sparse rows) has them served by mmap or from heap that glibc
gives back to the system when they are freed, so each pass touches fresh pages: the
2-D stencil's pass of 5 directions takes some 600 page faults (the hand-written batched
NumPy of the same directions some 380), and faults, not arithmetic, are most of its
time. `MALLOC_TOP_PAD_=67108864` (or `MALLOC_TRIM_THRESHOLD_` with
`MALLOC_MMAP_THRESHOLD_`) in the environment keeps freed memory in the process and took
sparse_jacfwd of the 1-D residual from about 130x to 40x the primal in one run here; it
is the user's choice (it holds that memory), not fwdad's. In sparse_jacfwd the passes
take their seeds in a copy that the pattern's plan keeps and fills again at each call
(each pass copied them afresh before), and run jacfwd's seeded pass rather than
batched_jvp's checks: in a fresh process, per call, 300 faults on the 1-D residual
without the probe and 358 with it (358 and 436 before), about 700 and 750 on the 2-D
stencil (827 and 750), counted with `getrusage`. Those left are in the batched pass
itself; the reading back faults none (the probe's check is one einsum of the passes'
output, no work array the size of it), and the result's data and index arrays are the
caller's, new at every call. Memory the pass's intermediates could reuse between calls
needs `out=` buffers in the pass itself (its generated code), or NumPy's allocator
hook, which only C code can set. How many faults a call takes depends on what the
process allocated before (glibc moves its thresholds as it goes): in bench/sparse.py's
own sampling of the 1-D residual, on a loaded machine, 167 per call with the probe
and 2 without; with one more variant timed beside them, 400 and 339 (0 with
`MALLOC_TOP_PAD_`). A ratio that moves with them says more about the allocator than
about the work. Since then the plan keeps its work arrays in fwdad/scratch.py (the
seeds' copy, the checks' row-sized arrays) and holds each call's pass output until the
next call's passes have run: that output is the last large array a pass makes, at the
top of the heap, so the temporaries freed below it are reused by the next call instead
of being given back and faulted in again. Called in a loop in a fresh process (the
primal, then sparse_jacfwd with and without the probe, in turn; `getrusage`), the 1-D
residual went from about 220 faults a call to 20-60, and from about 700 us to about
250 us a call on a loaded machine; the 2-D stencil from 420-590 faults to 50-125. In
bench/sparse.py's own sampling, where the other rows' allocations had already kept the
heap from shrinking, there were none to save (0 a call before and after).

Where a call of sparse_jacfwd on the 1-D residual goes (callgrind, thousand
instructions per call, the primal 151; before this stop's changes, then after): with
the probe 2,310 -> 2,112, without it 1,698 -> 1,573; the batched pass of 4 directions
1,391 -> 1,125 (of 3: 1,134 -> 942), of which some 400 are the copies of the seeds
(320 KB) and of the argument (80 KB), which callgrind counts a byte at a time (`rep
movsb`: a few us); reading back 503 -> 571, more instructions but less time (CPU-time
medians 21 -> 15 us: the gather returns a new array instead of filling one with
`out=` and mode="wrap"); the probe's check 356. On the 2-D stencil (primal 1,686: its
`grid ** 3` calls pow), 6,457 -> 5,957 with the probe, the pass of 8 directions 5,044 ->
4,417, reading back 778 -> 904 (35 -> 25 us). Later calls like the first run their
passes in the chunks the first one sized without the budget's bookkeeping
(compressed_passes.py). Measured and not taken: the seeds made again at each call from
the colours (an int8 compare into the work array, 6.6 us) instead of copied (2.8 us);
a gather laid out for the band (nine strided copies for the tridiagonal pattern), 18
us against np.take's 12; the probe's check by `J_sparse @ v` (15 us for the product
alone, against the einsum's 11 for the difference), or with float32 weights (no faster
once they are out of the cache). What is left of the 1-D call is mostly memory: it
reads and writes some 3 MB of arrays, past the 1 MB second-level cache, so each part
costs more in the call than alone (the probe's check 39 us against 28, reading back 20
against 15). The probe runs for a pattern found by jacobian_sparsity in global mode
too: that pattern holds for every value of the argument, but not once something
else f reads (an index array in a global, another argument) changes, which fwdad
cannot see (tests/test_sparse.py).

The probe's check now subtracts the probe's row after the product-sum of the colours'
rows instead of weighting it by -1, so its weights lose a row (240 KB instead of 320 KB
on the 1-D residual, read from memory after the pass has pushed them out of the
cache): the same instructions (361 K), about 5 us less a call in CPU-time medians (500
samples of the whole call taken in turn, on a loaded machine: 185 -> 180 us, without
the probe 124). Measured and not taken: the check as one random linear functional of
the residual (a dot product instead of a compare per row), which is weaker at the
same tolerance: the functional's bound is the sum of every row's rounding bound, so a
row that exceeds its own bound by less than that sum goes unseen (tests/test_sparse.py,
test_the_probe_compares_row_by_row: a miss of 1e-9 beside rows of 1e8); a probe of +-1
entries, also weaker: a nonzero J[i, k] that the pattern misses shows as J[i, k] (v[j]
- v[k]), with j the pattern's column of k's colour in row i, and that is zero half the
time; the product-sum row by row into a kept buffer (no faster than the einsum). Page
faults: bench/sparse.py's sampling takes none per call (what the process freed
before has raised glibc's thresholds), a fresh process about 240 per call of the 1-D
residual (getrusage), which on a loaded machine made the call 3.5x slower (710 against
200 us with glibc's trimming turned off through mallopt, for the measurement only).
"""

