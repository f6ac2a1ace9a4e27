"""Targets a word-processed contract prints as body text: numbered paragraphs, a lone appendix.

A contract or licence typed in a word processor often numbers its articles in the body font,
without bold and with no space after the number ("2.Scope of the rights granted by the
Licence", "1) Grant of Copyright License. Licensor grants ..."): the parser's heading detection
sees prose, the toc has no row for them, and :func:`reflines.numbered_heading` (heading or bold
lines) finds none. Such a paragraph is told from a numbered list item by its siblings: the
document's articles run 1, 2, 3, ... far, in reading order, the same delimiter each time; a list
of three items is a shorter run. The target is the line of the longest run, and its region runs
to the next sibling ("3." after "2."), over page breaks.

An appendix named without a letter ("the appendix attached to this Licence") is the document's
only appendix: the one line that opens with the label ("Appendix", "APPENDIX: How to apply").
"""

from __future__ import annotations

import re

import pandas as pd

from docintel.retrieval.evidence_slices import evidence_between, evidence_lines
from docintel.retrieval.framememo import per_frame
from docintel.schema.document import DocTables

#: A line that opens with a number ("2", "3.1"), "." or ")" and, after optional space, a capital:
#: "2.Scope of ...", "1) Grant of ...", "4.2. Notices. If ..." ("2.5 per cent" has no capital). A
#: bare space after the number is no delimiter here: footnotes ("87 Treaty of ...") and table rows
#: ("1 Agregados inquiridos") run 1, 2, 3 ... too.
#: A number in parentheses opens a paragraph too ("(4) You may Distribute ...": the Artistic
#: License's paragraphs are "Section 4"), its delimiter "()" (a run never mixes "(4)" and "4."),
#: when it starts at the body's left margin: a bill's "(6)" indented under its section is an item.
_OPEN = re.compile(
    r"^[ \t\u00a0]*(?:\((?P<par>[0-9]{1,3})\)|(?P<num>[0-9]{1,3}(?:\.[0-9]{1,3}){0,3})(?P<delim>[.)]))"
    r"[ \t\u00a0]*(?=[A-Z\u00c0-\u00de])"
)
#: Siblings a paragraph's run holds at least (itself included): "1." and "2." alone may be a list.
MIN_RUN = 3
#: Roles no article has (notes are numbered 1, 2, 3 ... through a report).
_ROLES_OUT = ("toc_entry", "caption", "footnote")
#: Roles of table lines: a table of numbered rows ("1. Purpose | Informative") is no article run.
_ROLES_TABLE = ("table",)
#: Points a line may be smaller than the document's usual line and still be an article (not the
#: small print of notes and tables).
SMALLER = 1.0
_LEADERS = re.compile(r"(?:\.\s?){4,}")

#: Points an opening may sit right of a paragraph's number and be a list nested inside it (the
#: "1." under a clause's "d.") rather than a sibling or a restart of its run.
NESTED = 8.0

#: id(line_df) -> (line_df, [(position, id tuple, delimiter, page, line, x0)]).
_OPENINGS: dict[int, tuple[pd.DataFrame, list]] = {}


def _openings(tables: DocTables) -> list[tuple[int, tuple[int, ...], str, int, int, float]]:
    def scan() -> list:
        lines = evidence_lines(tables)
        out = []
        size = lines["size"].astype(float) if "size" in lines else pd.Series([float("nan")] * len(lines))
        usual = float(size.median()) if size.notna().any() else float("nan")
        rows = zip(
            lines["text"].astype(str).tolist(),
            lines["role"].tolist(),
            lines["page"].astype(int).tolist(),
            lines["line"].astype(int).tolist(),
            size.tolist(),
            strict=True,
        )
        keys = lines["object_key"].astype(str).tolist() if "object_key" in lines else [""] * len(lines)
        # NaN where a line has no coordinates: no margin vote (_body_margin), never nested (_nested)
        x0 = lines["x0"].astype(float).tolist() if "x0" in lines else [float("nan")] * len(lines)
        margin = _body_margin(x0)
        for k, (text, role, page, line, z) in enumerate(rows):
            in_table = role in _ROLES_TABLE or str(keys[k]).startswith("table:")
            if in_table or role in _ROLES_OUT or _LEADERS.search(text) or z < usual - SMALLER:
                continue
            m = _OPEN.match(text)
            if m and m.group("par") and x0[k] > margin + DEDENT:
                continue  # "(6)" indented from the body: a list's item (a bill's definitions), no section
            if m:
                ident = tuple(int(x) for x in (m.group("par") or m.group("num")).split("."))
                out.append((k, ident, "()" if m.group("par") else m.group("delim"), page, line, x0[k]))
        return out

    return per_frame(_OPENINGS, tables.line_df, scan)


def _body_margin(x0: list[float]) -> float:
    """The left edge most lines start at (the body's margin), to the point."""
    counts: dict[int, int] = {}
    for x in x0:
        if x == x:  # no coordinates (NaN): no margin
            counts[round(x)] = counts.get(round(x), 0) + 1
    return float(max(counts, key=lambda x: (counts[x], -x))) if counts else 0.0


def _nested(o: tuple, para: tuple) -> bool:
    """Whether opening ``o`` sits right of paragraph ``para``'s number by more than :data:`NESTED`
    points: a list inside some paragraph ("d. ... 1. A complete copy; 2. Information ..."), which
    neither continues nor restarts the run (a line without coordinates, x0 NaN, is never nested)."""
    return o[5] > para[5] + NESTED


def _run(opens: list, i: int) -> tuple[int, int | None]:
    """(length of the run of siblings through ``opens[i]``, index of its next sibling): from the
    paragraph, each earlier number found before the last one found, each later one after."""
    ident, delim = opens[i][1], opens[i][2]
    parent, n = ident[:-1], ident[-1]
    same = [
        j for j, o in enumerate(opens) if o[1][:-1] == parent and o[2] == delim and not _nested(o, opens[i])
    ]
    length, pos, want = 1, same.index(i), n - 1
    for j in reversed(same[:pos]):
        if want < 1 or (opens[j][1][-1] == 1 and want != 1):
            break  # a "1." before the run's own "1.": another list, which the run does not join
        if opens[j][1][-1] == want:
            length, want = length + 1, want - 1
    nxt, want = None, n + 1
    for j in same[pos + 1 :]:
        if opens[j][1][-1] == 1:
            break  # a list restarts: the run ends
        if opens[j][1][-1] == want:
            nxt = j if nxt is None else nxt
            length, want = length + 1, want + 1
    return length, nxt


#: Words a title after the number has at most ("Scope of the rights granted by the Licence").
TITLE_WORDS = 10


def _titled(text: str) -> bool:
    """The line after its number is a title: a few words, no sentence end ("2.Scope of the
    rights granted by the Licence", "1) Grant of Copyright License." is a run-in title too)."""
    rest = _OPEN.sub("", text, count=1).strip()
    head = re.split(r"(?<=[a-z])\.\s", rest, maxsplit=1)
    return len(head) > 1 or (len(rest.split()) <= TITLE_WORDS and not rest.endswith((".", ",", ";", ":")))


def numbered_paragraph(
    tables: DocTables, target: str, origin: tuple[int, int]
) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
    """((page, line) of the body line that opens numbered paragraph ``target``, (page, line) of
    its next sibling or None) for the longest run of at least :data:`MIN_RUN` siblings; None
    when no line opens it so."""
    try:
        ident = tuple(int(x) for x in str(target).split("."))
    except ValueError:
        return None
    opens = _openings(tables)
    lines = evidence_lines(tables)
    lines_text = lines["text"].astype(str).tolist()
    at_origin = (
        (lines["page"].astype(int) == origin[0]) & (lines["line"].astype(int) == origin[1])
    ).to_numpy()
    origin_k = int(at_origin.argmax()) if at_origin.any() else None
    best = None
    for i, o in enumerate(opens):
        if o[1] != ident or (o[3], o[4]) == origin:
            continue
        length, nxt = _run(opens, i)
        if not _prose(tables, opens, i):
            continue  # one-line items, table rows: no article
        end_k = opens[nxt][0] if nxt is not None else o[0] + ORIGIN_SPAN
        if origin_k is not None and o[0] <= origin_k < end_k:
            continue  # the reference is written inside the paragraph: no pointer to itself
        # equal runs (a definitions list "1. 2. 3." beside articles "1. 2. 3. 4."): the title
        # line ("2.Scope of the rights ...") before the sentence ("2. Source code means ...")
        score = (length, _titled(lines_text[o[0]]))
        if length >= MIN_RUN and (best is None or score > best[0]):
            best = (score, i, nxt)
    if best is None:
        return None
    _length, i, nxt = best
    end = (opens[nxt][3], opens[nxt][4]) if nxt is not None else None
    return (opens[i][3], opens[i][4]), end


#: Lines after its opening a paragraph holds at least, aligned with it (within :data:`ALIGN`
#: points), before the next opening of its list: a table's numbered rows ("5. Ensure Secure ..."
#: | "SP 800-64, -16") and one-line list items hold none.
PROSE_LINES = 2
ALIGN = 40.0
#: Points a line may start left of the paragraph's number and still continue it.
DEDENT = 4.0
#: Lines after the last paragraph of a run taken as its region when telling whether the
#: reference is written inside it.
ORIGIN_SPAN = 40


def _prose(tables: DocTables, opens: list, i: int) -> bool:
    """Whether paragraph ``opens[i]`` holds :data:`PROSE_LINES` aligned body lines before the next
    opening of its list (a sibling or a restart, whatever its number)."""
    k, ident, delim = opens[i][0], opens[i][1], opens[i][2]
    stop = next(
        (
            o[0]
            for o in opens[i + 1 :]
            if o[1][:-1] == ident[:-1] and o[2] == delim and not _nested(o, opens[i])
        ),
        None,
    )
    lines = evidence_lines(tables)
    x0 = lines["x0"].astype(float).to_numpy() if "x0" in lines else None
    roles = lines["role"].tolist()
    end = min(stop if stop is not None else len(lines), len(lines), k + 1 + 200)
    found = 0
    for j in range(k + 1, end):
        if roles[j] == "heading":
            break  # a heading ends the paragraph (the last item of a list before "5.6 Migrating ...")
        if roles[j] in _ROLES_TABLE or roles[j] in _ROLES_OUT:
            continue
        if x0 is not None and x0[j] < x0[k] - DEDENT:
            break  # text back left of the number: the list is over, the prose after it is not its item
        if x0 is None or not x0[j] - x0[k] > ALIGN:  # no coordinates: aligned
            found += 1
            if found >= PROSE_LINES:
                return True
    return False


def names_itself(tables: DocTables, raw_text: str, origin: tuple[int, int]) -> bool:
    """Whether the reference opens its own line as a heading does ("Sección 2. Revisión y ..."):
    a unit's heading, not a pointer to a numbered paragraph elsewhere."""
    row = evidence_between(tables, origin, origin)
    text = str(row.iloc[0]["text"]).lstrip() if len(row) else ""
    raw = raw_text.strip()
    # a title follows the label ("Sección 2. Revisión"); a reference wrapped onto the start of a
    # line ("section 1(c).") is no heading
    return (
        bool(raw) and raw[0].isupper() and text.startswith(raw) and bool(_TITLE_AFTER.match(text[len(raw) :]))
    )


_TITLE_AFTER = re.compile(r"[.:\u2013\u2014-]?[ \t\u00a0]+[A-Z\u00c0-\u00de]")


def paragraph_region(
    tables: DocTables, at: tuple[int, int], end: tuple[int, int] | None, max_lines: int
) -> pd.DataFrame:
    """The lines from ``at`` up to (not including) ``end`` (the next sibling), over page breaks,
    at most ``max_lines``."""
    rows = evidence_between(tables, at, (10**6, 0)).head(max_lines)
    if end is None:
        return rows
    keys = rows["page"].astype(int) * 10**6 + rows["line"].astype(int)
    return rows[(keys < end[0] * 10**6 + end[1]).to_numpy()]


_BACK_LABEL = re.compile(r"(?i)\b(appendix|annex|exhibit|schedule|attachment)\b")


def lone_backmatter_line(tables: DocTables, raw_text: str, origin: tuple[int, int]) -> tuple[int, int] | None:
    """(page, line) of the one line that opens with the label an unlettered reference names ("the
    appendix" -> "Appendix" or "APPENDIX: How to apply ..."), the label capitalised and alone or
    before ":" / a dash; None unless exactly one line does (two appendices: which one is unsaid)."""
    m = _BACK_LABEL.search(raw_text or "")
    if m is None:
        return None
    word = m.group(1).lower()
    rx = re.compile(
        rf"^[ \t\u00a0]*(?:{word.capitalize()}|{word.upper()})[ \t\u00a0]*(?:$|[:.\u2013\u2014][ \t\u00a0]|\s-\s)"
    )
    lines = evidence_lines(tables)
    hits = [
        (int(p), int(ln))
        for p, ln, text, role in zip(
            lines["page"], lines["line"], lines["text"].astype(str), lines["role"], strict=True
        )
        if role not in _ROLES_OUT and rx.match(text) and (int(p), int(ln)) != origin
    ]
    if len(hits) != 1:
        return None
    # a lettered or numbered one ("Appendix A", "ANNEX 2") elsewhere: the bare line is one of several
    named = re.compile(
        rf"^[ \t\u00a0]*(?:{word.capitalize()}|{word.upper()})[ \t\u00a0]+(?:[A-Z]|[0-9]{{1,3}}|[IVX]{{1,5}})\b"
    )
    if any(named.match(text) for text in lines["text"].astype(str)):
        return None
    return hits[0]


#: A line that opens with an appendix-like label and its letter or number ("EXHIBIT B",
#: "Exhibit A - Mozilla Public License.", "Schedule 2"): the next unit of the back matter.
_UNIT_LABEL = re.compile(
    r"^[ \t\u00a0]*(?i:appendix|annex|exhibit|schedule|attachment)[ \t\u00a0]+(?:[A-Z]|[0-9]{1,3}|[IVX]{1,5})\b"
)
#: The label set off as a title: a dash, colon or full stop after it, or nothing ("EXHIBIT B - FORM OF
#: ASSIGNMENT AND ASSUMPTION AGREEMENT ...", "Schedule 2: Fees", "Exhibit C."), however long the title.
_UNIT_TITLED = re.compile(_UNIT_LABEL.pattern + r"[ \t\u00a0]*(?:[-\u2013\u2014:.]|$)")
#: Roles that end an appendix's region: the next heading or title.
_UNIT_STOPS = ("heading", "title")
#: Words a line opening with a label has at most to be the next unit's label line, whatever its
#: role ("Exhibit A shall be attached to ..." in the body is a sentence, not a label line).
UNIT_LABEL_WORDS = 8


def appendix_region(tables: DocTables, at: tuple[int, int], max_lines: int) -> pd.DataFrame:
    """The lines an appendix-like label line opens, over page breaks, up to the next heading or
    title or the next label line (a short one, or one whose label is set off as a title however
    long: "EXHIBIT B - FORM OF ASSIGNMENT ..." in the body font), at most ``max_lines``. An exhibit typed in the body font
    ("EXHIBIT A." over a quoted notice) is often read as a caption, and so is the notice's first
    line: a caption inside back matter is no object of its own, so it does not end the region
    (a figure's region stops at the next caption; an appendix's does not)."""
    rows = evidence_between(tables, at, (10**6, 0)).head(max_lines)
    roles = rows["role"].tolist()
    texts = rows["text"].astype(str).tolist()
    stop = next(
        (
            k
            for k in range(1, len(rows))
            if roles[k] in _UNIT_STOPS
            or (
                _UNIT_LABEL.match(texts[k])
                and (
                    roles[k] == "caption"
                    or len(texts[k].split()) <= UNIT_LABEL_WORDS
                    or _UNIT_TITLED.match(texts[k])
                )
            )
        ),
        len(rows),
    )
    return rows.iloc[:stop]
