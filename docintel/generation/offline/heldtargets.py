"""A pointer of a quoted window whose target the evidence already holds ("as set forth in
Article 3.1" with 3.1 six lines above; "Licensor Marks defined in Exhibit C" with Exhibit C on
another page the first hop also retrieved): no second pass runs for it (the target is evidence
already), so the offline answer quotes the target's opening itself, as it quotes a pulled one."""

from __future__ import annotations

import re

from docintel.generation.offline.scoring import Window, grow_window
from docintel.schema.kinds import HEADING_ROLES

#: A pointer to a numbered unit: "Article 3.1", "Section 4(b)", "clause 12", "§ 2.3".
_UNIT_REF = re.compile(
    r"(?:\b(?:article|section|clause|paragraph)|§)\s*(\d{1,3}(?:\.\d{1,3})*)(?![.\d]*\d)", re.I
)
#: What after a pointer makes it another work's: "Article 5 of the GDPR", "Section 14 of the core
#: specification", "clause 4 in ISO 9001": "of / in / under [the]", then a capitalized name or a few
#: words ending in an instrument noun; not "of this Agreement", "of the Agreement", "in the case of",
#: "to the extent".
_OWN_WORDS = (
    r"(?:this|these|said|such|present|same|agreement|contract|policy|document|terms|schedule|annex|"
    r"appendix|chapter|part|article|section|clause|paragraph|licen[cs]e)\b"
)
_FOREIGN_TAIL = re.compile(
    r"^(?:\s*\([^)]{0,12}\))*\s*(?:of|in|under)\s+(?:the\s+)?"
    rf"(?!(?i:{_OWN_WORDS}))"
    r"(?:[A-Z]|(?:[a-z-]+\s+){0,2}(?:specification|standard|act|regulation|directive|code|convention|treaty|"
    r"rules|guidelines|law|statute|protocol)\b)"
)
#: A line the parse left as text that reads as a heading: "Article 3 - ACCEPTANCE", "4.1 Term".
_HEAD_LINE = re.compile(
    r"^(?:(?:article|section|clause|chapter|§)\s*\d|\d{1,3}(?:\.\d{1,3})+\.?\s+[A-Z])", re.I
)
#: A line that opens with a bare whole number and text: a line-numbered draft's margin number.
_MARGIN_NUMBER = re.compile(r"^\s*\d{1,4}\s+\S")
#: A pointer to an appendix-like unit: "Exhibit C", "Appendix E", "Annex 2", "Schedule B".
_PART_REF = re.compile(
    r"\b(?i:appendix|annex|exhibit|schedule|attachment|addendum)\s+([A-Z]{1,2}|\d{1,2}|[IVX]{1,4})\b"
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
    return found[0] if len(found) == 1 and _opens_paragraph(rows, found[0], number) else None


def _opens_paragraph(rows: list, i: int, number: str) -> bool:
    """Whether the label line ``i`` opens a numbered paragraph, not a line that merely starts with
    the number ("3 days before ..."): a keyword ("Article 3"), a dotted id ("3.1") or a bare number
    closed by "." / ")" ("5." / "5)"), then a capital-initial title or text; and the line before
    (if any) ends a sentence or is a heading."""
    text = rows[i].ln.text.strip()
    m = re.match(
        rf"(?:(?P<kw>(?:article|section|clause|§)\s*))?{re.escape(number)}(?P<close>[.)]?)\s*(?P<rest>.*)$",
        text,
        re.I,
    )
    if m is None:
        return False
    if not (m.group("kw") or "." in number or m.group("close")):
        return False
    rest = m.group("rest")
    if rest and not (rest[0].isupper() or rest[0] in "(\"'“"):
        return False
    if i == 0 or rows[i - 1].ln.role in HEADING_ROLES:
        return True
    prev = rows[i - 1].ln.text.strip()
    return (
        prev.endswith((".", ":", ";", "!", "?", ")")) or prev.isupper() or _HEAD_LINE.match(prev) is not None
    )


def _line_numbered(rows: list) -> bool:
    """A passage whose lines mostly open with a bare margin number (a line-numbered draft)."""
    n = sum(bool(_MARGIN_NUMBER.match(r.ln.text)) for r in rows)
    return n >= 3 and 2 * n >= len(rows)


def _foreign(text: str, end: int) -> bool:
    """Whether the pointer ending at ``end`` names another work's unit ("Article 5 of the GDPR")."""
    return _FOREIGN_TAIL.match(text[end:]) is not None


def _announced(rows: list, lead: int, limit: int) -> int:
    """The last line of what a lead-in ending ":" announces: on to a line ending "." (its list's
    last item), never past a heading or ``limit``."""
    end = lead
    while end + 1 < len(rows) and end < limit and rows[end + 1].ln.role not in HEADING_ROLES:
        end += 1
        if rows[end].ln.text.rstrip().endswith("."):
            break
    return end


#: A contents entry's tail after the label: leader dots and a page number, or a page number alone
#: (read after the label, so the "2" of "Schedule 2" is no page number)
_CONTENTS_TAIL = re.compile(r"(?:\.\s*){2,}\d+\s*$|\s\d{1,4}\s*$")


def _part_line(grouped: list, label: str, among: list[int]) -> tuple[int, int] | None:
    """The one line of the evidence's passages that opens the appendix-like unit ``label``
    ("EXHIBIT C", "Appendix E: Legislative ...", "Annex 2 - Forms"): the keyword and label, then
    nothing, a title after ":" / "." / "-", or a capital-initial title; not a contents entry
    (a title ending in a page number). Only the passages ``among`` are read (the first hop's: a
    pulled-in target is quoted as pulled). None when no line or several do."""
    kw, num = label.split()
    pat = re.compile(
        rf"^(\s*{re.escape(kw)}\s+{re.escape(num)})(?:\s*$|\s*[.:\-\u2013\u2014]\s*\S.*$|\s+[A-Z].*$)", re.I
    )
    found = [
        (pi, i)
        for pi in among
        for i, r in enumerate(grouped[pi])
        if (m := pat.match(r.ln.text)) and not _CONTENTS_TAIL.search(r.ln.text[len(m.group(1)) :])
    ]
    return found[0] if len(found) == 1 else None


def _part_window(grouped: list, label: str, among: list[int], taken: set, score: float) -> Window | None:
    """A window on the held appendix-like unit ``label``: its label line through the sentence
    of the last line after it, within :data:`TARGET_LINES`, holding a question term (a label and
    a title name the unit; the sentences after them are what it says); None when the evidence holds
    no such line alone, or a window quotes it already."""
    at = _part_line(grouped, label, among)
    if at is None:
        return None
    pi, t = at
    rows = grouped[pi]
    if (pi, t) in taken:
        return None
    last = min(len(rows) - 1, t + TARGET_LINES - 1)
    # the last: the unit's title line holds its topic's words, what it says comes after
    hit = next((i for i in range(last, t, -1) if rows[i].hits and rows[i].ln.role not in HEADING_ROLES), None)
    if hit is None:
        return None
    _, end = grow_window(rows, hit)
    if rows[end].ln.text.rstrip().endswith(":"):
        end = _announced(rows, end, last)
    end = min(end, last)
    taken_at = [i for i in range(t, end + 1) if (pi, i) in taken]
    if taken_at:
        end = taken_at[0] - 1
    if end <= t:
        return None
    hits = set().union(*(rows[i].hits for i in range(t, end + 1)))
    return Window(pi, t, end, t, score, hits, held=True)


def held_target_windows(
    grouped: list, windows: list[Window], primary: list[int] | None = None
) -> list[Window]:
    """For each window, the windows on the targets its unit pointers name inside the same passage
    but outside every window: from the target's label line through its sentence (and a list its
    lead-in announces), at most :data:`TARGET_LINES` lines. Each comes right after its window;
    one per window (the window budget bounds the answer, a target must not double it). Pointers
    to another work's unit and line-numbered passages (margin numbers are no labels) give none.
    A pointer to an appendix-like unit ("defined in Exhibit C") finds its label line in any of the
    ``primary`` passages (the first hop's; default all): the first hop often retrieves the
    exhibit's page too, and then no second pass runs for it."""
    taken = {(w.passage, i) for w in windows for i in range(w.start, w.end + 1)}
    among = list(range(len(grouped))) if primary is None else primary
    out: list[Window] = []
    for w in windows:
        out.append(w)
        rows = grouped[w.passage]
        if _line_numbered(rows):
            continue
        pointers = [
            m.group(1)
            for k in range(w.start, w.end + 1)
            for m in _UNIT_REF.finditer(rows[k].ln.text)
            if not _foreign(rows[k].ln.text, m.end())
        ]
        parts = [
            f"{m.group(0).split()[0]} {m.group(1)}"
            for k in range(w.start, w.end + 1)
            for m in _PART_REF.finditer(rows[k].ln.text)
            if not _foreign(rows[k].ln.text, m.end())
        ]
        for label in dict.fromkeys(parts):  # an appendix-like unit anywhere in the evidence
            new = _part_window(grouped, label, among, taken, w.score)
            if new is not None:
                out.append(new)
                taken |= {(new.passage, i) for i in range(new.start, new.end + 1)}
                break
        else:
            parts = []
        if parts:
            continue  # one held target per window
        for number in pointers:
            t = _label_line(rows, number)
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
            break
    return out
