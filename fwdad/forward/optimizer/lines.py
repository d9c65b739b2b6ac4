"""The typed line IR of a forward rule: one Line for each statement of Dual code, made
by the transform (forward/transform/dual_code.py, forward/schedule/replay.py) from what it
knew then, with its operands as Atoms (a local, a constant Dual, or a global read live).
The plain rule is printed from the Lines (forward/transform/plain_code.py), and the
optimizer rewrites them; neither reads Dual code back.

    y = _fw_mul(x, _fw_2_0)        <-  Line("template", targets=["y"], args=[x, 2.0])
    a, b = _fw_unpack(t, 2)        <-  Line("unpack", ...)
    if t.primal: ...               <-  Line("use", control=ast.If, body=[...its Lines])
    try: ...                       <-  Line("try", body=[...], orelse=[Line("part", ...),
    except E as e: ...                     ...]): the handlers, else and finally are
    else: ...                              `part` Lines (`clause`), each with its block
    with m as v: ...               <-  Line("unknown", node, body=[...]): the header kept
                                       as the statement it is, with the names it reads,
                                       writes and binds (`opaque`); its body's Lines
Which calls are pure is rules/purity.py's to say; `LineTable.call` asks it.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Set, Tuple

from fwdad.forward.optimizer.opaque import Opaque
from fwdad.rules.purity import PURE_HELPERS, call_is_pure, plain_call_is_pure
from fwdad.rules.registry import RuleEntry


class Atom:
    """An operand of Dual code: a local, a constant Dual of the rule (a literal), or a
    global or closure value read live (`_fw_const(name)`)."""

    __slots__ = ("kind", "name", "value")

    def __init__(self, kind: str, name: str, value: Any = None) -> None:
        self.kind = kind  # "local", "const" or "global"
        self.name = name
        self.value = value  # the constant Dual, for "const"


class Line:
    """One statement of Dual code: `kind` is template, call, copy, unpack, for, use (a
    branch, loop, return, assert or raise on primals: which one is `control`), try,
    part (a try's handler, else or finally), keep (break, continue, pass) or unknown (a
    statement the optimizer keeps as it is: a nested def, a with's header, whose body's
    Lines it holds, ...); the analysis adds
    copies and skip. A line with blocks (for, use) holds their Lines in `body` and
    `orelse`; a `try` line holds its body's in `body` and one `part` line for each
    handler, its else and its finally in `orelse` (the `clause` each is; an except
    clause's type is its test, the name it binds `caught`), so that every pass that
    walks blocks walks them. `callee` and `entry` are what a call line calls and that
    callee's registry entry; `opaque` is what an unknown line's statement does with
    names; `lineno` is the user's line it comes from (the `# line N` header above it)."""

    __slots__ = ("kind", "node", "targets", "args", "keywords", "callee", "entry", "pure",
                 "template", "func", "counts", "body", "orelse", "tests", "control",
                 "lineno", "opaque", "clause", "caught", "_operands")

    def __init__(self, kind: str, node: Optional[ast.stmt] = None,
                 targets: Optional[List[str]] = None,
                 args: Optional[List[Tuple[Atom, bool]]] = None,
                 keywords: Optional[List[Tuple[Optional[str], Atom]]] = None,
                 callee: Any = None, entry: Optional[RuleEntry] = None,
                 pure: bool = True, control: Optional[type] = None) -> None:
        self.kind = kind
        # the statement, for the lines no field describes (keep, unknown): Dual code,
        # kept as it is
        self.node = node
        self.lineno: Optional[int] = None if node is None else node.__dict__.get("lineno")
        self.targets = targets if targets is not None else []
        self.args = args if args is not None else []  # (atom, starred)
        self.keywords = keywords if keywords is not None else []
        self.callee, self.entry = callee, entry  # what it calls; the callee's registry entry
        self.pure = pure  # the call mutates none of its arguments
        self.template: Any = None  # a template line's (forward/templates.Template)
        self.func: Optional[str] = None  # the constant a call, unpack or for line calls
        self.counts: List[ast.expr] = []  # an unpacking's count (and starred position)
        self.body: List[Line] = []
        self.orelse: List[Line] = []
        self.tests: List[Tuple[str, Test]] = []  # a `use` line's, by the field they fill
        self.control = control  # a `use` line's statement: ast.If, While, Assert, Raise
        # or Return
        self.opaque: Optional[Opaque] = None  # an unknown line's names (unknown_line)
        self.clause: Optional[str] = None  # a part line's: "except", "else", "finally"
        self.caught: Optional[str] = None  # the name an except clause binds, if any
        self._operands: Optional[List[Atom]] = None

    @property
    def operands(self) -> List[Atom]:
        """The atoms it reads (kept: read it once `args` and `keywords` are final)."""
        known = self._operands
        if known is None:
            known = self._operands = [a for a, _ in self.args] + [a for _, a in self.keywords]
        return known

    @property
    def tested(self) -> List[Atom]:
        """The locals whose primals a `use` line tests."""
        return [test.atom for _, test in self.tests if test.atom is not None]

    @property
    def source_line(self) -> Optional[int]:
        """The user's line the statement comes from (the `# line N` header above it)."""
        return self.lineno


def unknown_line(stmt: ast.stmt) -> Line:
    """The Line of a statement the optimizer keeps as it is, with what it does with
    names, read now, once, so that no analysis walks it."""
    line = Line("unknown", stmt, pure=False)
    line.opaque = Opaque(stmt)
    return line


class Test:
    """What a `use` line tests (or asserts, raises): the primal of a local, `not` it
    when `negated`, or a literal of normalized code, kept as it is."""

    __slots__ = ("atom", "negated", "literal")

    def __init__(self, atom: Optional[Atom], negated: bool = False,
                 literal: Optional[ast.expr] = None) -> None:
        self.atom, self.negated, self.literal = atom, negated, literal


# the fields each kind of `use` line tests (its `control`), which its `tests` fill
TESTED = {ast.If: ("test",), ast.While: ("test",), ast.Assert: ("test", "msg"),
          ast.Raise: ("exc", "cause")}


class LineTable:
    """The Lines of one rule as its statements are emitted: one Atom per name, the
    names read as locals and as globals, and the Lines of the block being emitted."""

    def __init__(self, constants: Dict[str, Any], analysed: bool = True) -> None:
        self.k = constants  # name -> value, of the constants the rule binds
        # whether the optimizer reads these Lines (not those of a block printed as it is
        # made: inside a nested def, or a try or a with printed as they are)
        self.analysed = analysed
        self.atoms: Dict[str, Atom] = {}
        self.locals: Set[str] = set()  # the names read as locals
        self.globals: Set[str] = set()  # the globals read live
        self.block: List[Line] = []  # the Lines of the block being emitted

    def local(self, name: str) -> Atom:
        atom = self.atoms.get(name)
        if atom is None:
            atom = self.atoms[name] = Atom("local", name)
            self.locals.add(name)
        return atom

    def const(self, name: str) -> Atom:
        """A constant the rule binds (`Constants.bind`): a Dual, or a plain value."""
        atom = self.atoms.get(name)
        if atom is None:
            atom = self.atoms[name] = Atom("const", name, self.k[name])
        return atom

    def glob(self, name: str) -> Atom:
        """A global or closure value read live: `_fw_const(name)`."""
        self.globals.add(name)
        return Atom("global", name)

    def add(self, line: Line) -> Line:
        self.block.append(line)
        return line

    def unknown(self, stmt: ast.stmt) -> Line:
        return self.add(self.kept(stmt))

    def kept(self, stmt: ast.stmt) -> Line:
        """The unknown Line of `stmt` (not yet added)."""
        if not self.analysed:  # (the kept statement around it carries its names)
            return Line("unknown", stmt, pure=False)
        return unknown_line(stmt)

    def call(self, callee: Any, entry: Optional[RuleEntry], args: List[Tuple[Atom, bool]],
             keywords: List[Tuple[Optional[str], Atom]]) -> Line:
        """A call line (not yet added): a template where `callee` has one and the call
        passes its operands alone."""
        line = Line("call", None, callee=callee, entry=entry, args=args, keywords=keywords)
        starred = any(s for _, s in args)
        names = [name for name, _ in keywords]
        if entry is None:
            line.pure = any(callee is h for h in PURE_HELPERS) and "out" not in names
        elif names or starred:
            line.pure = call_is_pure(entry, len(args), names, starred)
        else:
            line.pure = plain_call_is_pure(entry, len(args))
        template = entry.template if entry is not None else None  # (entry: callee's)
        if template is not None and not names and not starred and \
                len(args) == len(template.params):
            line.kind, line.template = "template", template
        return line


class RuleLines:
    """The Lines of a rule's body, and the names they read as locals and globals."""

    __slots__ = ("body", "locals", "globals")

    def __init__(self, body: List[Line], table: LineTable) -> None:
        self.body = body
        self.locals, self.globals = table.locals, table.globals


def walk_lines(lines: List[Line]) -> List[Line]:
    """The Lines of `lines` and of the blocks inside them, in order."""
    out: List[Line] = []
    stack = list(reversed(lines))
    while stack:
        line = stack.pop()
        out.append(line)
        if line.body or line.orelse:
            stack.extend(reversed(line.body + line.orelse))
    return out
