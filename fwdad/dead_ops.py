"""Drop the operations of a recorded tape (fwdad/recording.py) that the output does not
depend on, so that `lin` and `lin.T` do not replay them.

    t5 = np.multiply(t0, c1)      # read by nothing that reaches the output: dropped

Such work is recorded whenever a rule computes a tangent nobody reads; the largest
source is SciPy calling a function defined inside the differentiated one on plain values
(each call of an ODE's right-hand side, of quad's integrand, of a root finder's
function), whose tangent work on the values it captured is recorded at every call and
discarded (fwdad/rules/recorded_solves.py records the solve's tangent as one op).

Memory is followed in groups: a node, the nodes that view its memory (tape.views) and
those written in place through `out=`. Walking the tape backwards, an op is kept when
it makes or writes into a group that the output holds or that a kept op after it
reads; an op that returns nothing (a setitem, np.copyto) writes into its recorded
arguments, and is kept when any of their groups is needed.
"""
from __future__ import annotations

from typing import Any, List

from fwdad.recording import Linear, Tape
from fwdad.tangents import Tangent


def drop_dead_ops(tape: Tape, output: Any) -> None:
    """Remove from `tape` the ops that `output` (a tangent tree of recorded nodes)
    does not depend on."""
    group = _memory_groups(tape)
    live = {group[leaf.index] for leaf in _leaves(output, set())}
    kept = []
    for op, view in zip(reversed(tape.ops), reversed(tape.views)):
        index, fn, args, kwargs = op
        recorded = _recorded((args, kwargs))
        if index is not None:
            writes = [index] + [leaf.index for leaf in _recorded(kwargs.get("out"))]
        else:  # (setitem, copyto, a method that returns None: into its arguments)
            writes = [leaf.index for leaf in recorded]
        if any(group[node] in live for node in writes):
            kept.append((op, view))
            live.update(group[leaf.index] for leaf in recorded)
    kept.reverse()
    made = {op[0] for op, _ in kept}
    tape.dropped = {op[0] for op in tape.ops if op[0] is not None and op[0] not in made}
    tape.ops = [op for op, _ in kept]
    tape.views = [view for _, view in kept]


def _memory_groups(tape: Tape) -> List[int]:
    """The group of each node: nodes that share memory (a view and its base) share one."""
    parent = list(range(len(tape.nodes)))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node
    for (index, _, _, kwargs), view in zip(tape.ops, tape.views):
        shared = [view] if view is not None else []
        shared += [leaf.index for leaf in _recorded(kwargs.get("out"))]
        for other in shared:
            if index is not None:
                parent[root(index)] = root(other)
    return [root(node) for node in range(len(tape.nodes))]


def _recorded(tree: Any) -> List[Linear]:
    """The recorded nodes among a call's arguments (nested tuples, lists and dicts)."""
    if type(tree) is Linear:
        return [tree]
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _recorded(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in _recorded(item)]
    return []


def _leaves(tangent: Any, seen: set) -> List[Linear]:
    """The recorded nodes of an output tangent (an instance's fields too, each once)."""
    if type(tangent) is Linear:
        return [tangent]
    if id(tangent) in seen:
        return []
    seen.add(id(tangent))
    items: Any = ()
    if isinstance(tangent, (tuple, list)):
        items = tangent
    elif isinstance(tangent, dict):
        items = tangent.values()
    elif isinstance(tangent, Tangent):
        items = vars(tangent).values()
    found: List[Linear] = []
    for item in items:
        found += _leaves(item, seen)
    return found
