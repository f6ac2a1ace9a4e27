"""A pointer of a quoted window whose target the same passage already holds ("as set forth in
Article 3.1" with 3.1 six lines above): no second pass runs for it (the target is evidence
already), so the offline answer quotes the target's opening itself, as it quotes a pulled one."""

from __future__ import annotations

import re

from docintel.generation.offline.scoring import Window, grow_window
from docintel.schema.kinds import HEADING_ROLES

#: A pointer to a numbered unit: "Article 3.1", "Section 4(b)", "clause 12", "§ 2.3".
_UNIT_REF = re.compile(
    r"\b(?:article|section|clause|paragraph|§)\s*(\d{1,3}(?:\.\d{1,3})*)(?![.\d]*\d)", re.I
)
#: Lines a held target's quote reads at most (its sentence, or its lead-in and the list it announces).
TARGET_LINES = 8


def _label_line(rows: list, number: str) -> int | None:
    """The one line of ``rows`` that opens with ``number`` as its label ("3.1 The Licensee ...",
    "Article 3.1 - ...", "3.1. Title"); None when no line or several do."""
    pat = re.compile(
        rf"^\s*(?:(?:article|section|clause|§)\s*)?{re.escape(number)}(?![.\d]*\d)[.)]?(?:\s+\S|\s*$)", re.I
    )
    found = [i for i, r in enumerate(rows) if pat.match(r.ln.text)]
    return found[0] if len(found) == 1 else None


def _announced(rows: list, lead: int, limit: int) -> int:
    """The last line of what a lead-in ending ":" announces: on to a line ending "." (its list's
    last item), never past a heading or ``limit``."""
    end = lead
    while end + 1 < len(rows) and end < limit and rows[end + 1].ln.role not in HEADING_ROLES:
        end += 1
        if rows[end].ln.text.rstrip().endswith("."):
            break
    return end


def held_target_windows(grouped: list, windows: list[Window]) -> list[Window]:
    """For each window, the windows on the targets its unit pointers name inside the same passage
    but outside every window: from the target's label line through its sentence (and a list its
    lead-in announces), at most :data:`TARGET_LINES` lines. Each comes right after its window."""
    taken = {(w.passage, i) for w in windows for i in range(w.start, w.end + 1)}
    out: list[Window] = []
    for w in windows:
        out.append(w)
        rows = grouped[w.passage]
        for k in range(w.start, w.end + 1):
            for m in _UNIT_REF.finditer(rows[k].ln.text):
                t = _label_line(rows, m.group(1))
                if t is None or (w.passage, t) in taken or rows[t].ln.role in HEADING_ROLES:
                    continue
                _, end = grow_window(rows, t)
                if rows[end].ln.text.rstrip().endswith(":"):
                    end = _announced(rows, end, t + TARGET_LINES - 1)
                end = min(end, t + TARGET_LINES - 1)
                span = range(t, end + 1)
                if any((w.passage, i) in taken for i in span):
                    end = min(i for i in span if (w.passage, i) in taken) - 1
                hits = set().union(*(rows[i].hits for i in range(t, end + 1)))
                out.append(Window(w.passage, t, end, t, w.score, hits))
                taken |= {(w.passage, i) for i in range(t, end + 1)}
    return out
