"""Whether a pointer's resolved target is already in the evidence (the loop's triage).

A target is there when each of its passages is: most of its lines are in the evidence, and its
opening line (the label or heading the resolver found) is too, unless nearly all of it is. A
window that ends inside the next row ("line 23" read to line 24's row, which the first hop gave)
shares most of its lines with the evidence while its own row is missing; and a pointer to two
targets ("lines 22 and 23") is followed when one of them is missing.
"""

from __future__ import annotations

from docintel.schema.evidence import Passage

#: A pending reference whose resolved target lines are at least this share already in the
#: evidence is not worth a pass: the target (Table 1 on the page given) is there. 0.6 keeps a
#: target whose heading and most lines were retrieved and still follows one that only grazes
#: the window (a section whose first line closes the page).
ALREADY_IN_EVIDENCE = 0.6
#: Without its opening line a target counts as present only when this share of it is (a section
#: whose heading sits just above the window, 4 of its 5 lines given, is there; line 22 of a form
#: read on into rows the window holds, 10 of 16 lines, is not).
NEARLY_WHOLE = 0.75


def evidence_keys(passages: list[Passage]) -> set[tuple[int, int]]:
    """The (page, line) of every evidence line of ``passages``."""
    return {(ln.page, ln.line) for p in passages for ln in p.lines}


def target_covered(target: list[Passage], have: set[tuple[int, int]]) -> bool:
    """True when every passage of ``target`` is already in the evidence keys ``have``."""
    parts = [evidence_keys([p]) for p in target if p.lines]
    if not parts:
        return False
    for keys in parts:
        got = len(keys & have)
        if got < ALREADY_IN_EVIDENCE * len(keys):
            return False
        if min(keys) not in have and got < NEARLY_WHOLE * len(keys):
            return False
    return True
