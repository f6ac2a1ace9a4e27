"""The text that points at a first hop's target: a reverse look-up of the document's pointers.

A question often joins a provision's two halves: the policy that says "see Note 19" and the note
itself, the prose that names a framework "depicted in Table 3-3" and the table. When the first
hop lands on the target (the note, the table, the section opens inside pass 1's window), the
pointing text is on another page and no pointer leads back to it: the loop only follows pointers
forward. :func:`pointing_passages` reads the parse's resolved pointers (``cross_ref_df``) the
other way: a pointer on another page whose target line is inside the first window, on a page
the ranking also found for the question's words, gives its window to pass 1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from docintel.refscan import references_in
from docintel.retrieval.bm25 import _page_rows as page_rows
from docintel.retrieval.passage import best_passage
from docintel.retrieval.rank import query_terms
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.kinds import OFF_PAGE_REF_TYPES
from docintel.schema.trace import Trace
from docintel.text import terms

#: The pointing page must be among this many best-ranked pages, with a score above zero: it
#: shares the question's words (a pointer from a page about something else is not the
#: question's other half).
POINTING_POOL = 5
#: A pointing window that points at more than this many other parts of the document is an
#: overview of them (SP 800-184's "1.4 Document Structure" names Sections 2-7 and the appendices).
OVERVIEW_POINTERS = 3
#: Lines either side of the pointing line that must hold a question word.
NEAR_LINES = 2
#: Words a document names its own numbered parts by ("see Note 19", "Section 3.3", "\u00a7 164.526").
_PART_WORDS = r"(?:Sections?|Sec\.|Notes?|Articles?|Parts?|Chapters?|Appendix|Appendices|Schedules?|Clauses?|Paragraphs?|\u00a7+)"
#: The words that may point at a part printed with a bare number ("19. Contingent assets",
#: "3.2.1 Risk"): a section, a note, a clause or paragraph; a Part, Chapter, Appendix, Schedule
#: or Article is printed with its word, and a pointer under another word is to another part.
_BARE_WORDS = r"(?:Sections?|Sec\.|Notes?|Clauses?|Paragraphs?|\u00a7+)"
#: The other spellings of a printed word's part (its plural, "Sec." and "\u00a7" for a Section).
_SAME_PART = {
    "section": r"(?:Sections?|Sec\.|\u00a7+)",
    "sections": r"(?:Sections?|Sec\.|\u00a7+)",
    "sec.": r"(?:Sections?|Sec\.|\u00a7+)",
    "appendix": r"(?:Appendix|Appendices)",
    "appendices": r"(?:Appendix|Appendices)",
}
#: "this Clause 5", "this Section": the text names the part it is written in.
_THIS = re.compile(rf"\bthis\s+{_PART_WORDS}", re.I)
#: The words before a pointer that make it a use of a defined term: "(as) defined in Section 1.5".
_DEFINED_IN = re.compile(r"\bdefin\w*\s+(?:in|at|by|under)\s*$", re.I)
#: The words after a pointer that put it in another instrument: "Part 3 of the Municipal Act",
#: "Schedule 3 to the agreement" ("of this Agreement" is the document itself).
_ELSEWHERE = re.compile(
    r"^[\s,]*(?i:of|to|in|under)\s+(?:(?i:the)\s+)?(?:[A-Z][\w'\u2019.\-]*\s+){0,6}?"
    r"(?i:act|agreement|code|regulations?|convention|treaty|directive|law|statutes?|constitution|contract|lease)\b"
)
#: Roles of a line that lists rather than points (a contents entry, a running header).
_LISTING_ROLES = ("toc_entry", "header", "footer", "page_number")
#: A line that is a page label alone: a contents page laid out as title line, page line.
_PAGE_LABEL = re.compile(r"^\s*(?:\d{1,4}|[ivxlc]{1,6})\s*$", re.I)
#: A contents entry: a title, a leader (dots, an ellipsis, a wide gap), a page label.
_LEADER_ENTRY = re.compile(
    r"\S(?:\s*(?:\.\s?){3,}|\s*\u2026+|\s{3,}|\s*_{3,})\s*(?:\d{1,4}|[ivxlc]{1,6})\s*$", re.I
)
#: Lines of a page that make it a contents page (``parsing.contents_page.MIN_ENTRIES``).
CONTENTS_ENTRIES = 3


def _words(tables: DocTables, title: str, a: tuple) -> str:
    """The part words that point at the numbered part opening at ``a`` with ``title``: its own
    printed word ("Appendix 3", in its heading line or its title), else :data:`_BARE_WORDS`."""
    ldf = tables.line_df
    heads = [str(title or "")]
    rows = page_rows(ldf, a[0])
    at = rows[rows["line"] == a[1]]
    heads += [str(t) for t in at["text"]]
    for head in heads:
        m = re.match(rf"\s*({_PART_WORDS})\s*[A-Z]?\d", head, re.I)
        if m:
            word = m.group(1).lower()
            return _SAME_PART.get(word, rf"(?:{re.escape(word.rstrip('s'))}s?)")
    return _BARE_WORDS


def _targets(tables: DocTables, first: Passage) -> list[tuple[re.Pattern, tuple, tuple]]:
    """(pattern, start, end) of the pointers to what the first window opens or sits in: the
    innermost numbered section (not its lettered provisions, not the sections enclosing it)
    holding its first line, those opening inside it, the captioned objects whose caption is
    inside it; start and end are the (page, line) span of the target (a line inside it naming
    it, "this Clause 5", points at nothing else). A section is pointed at under its own word."""
    lines = sorted(ln.line for ln in first.lines)
    page, top, bottom = first.page, lines[0], lines[-1]
    out = []
    toc = tables.toc_df
    if toc is not None and not toc.empty:
        rows = toc[toc["number"].notna() & (toc["source"] != "provision") & toc["page_start"].notna()]
        end_page = rows["page_end"].fillna(rows["page_start"])
        end_line = rows["line_end"].fillna(10**6)
        start = list(
            zip(rows["page_start"].astype(int), rows["line_start"].fillna(0).astype(int), strict=True)
        )
        end = list(zip(end_page.astype(int), end_line.astype(int), strict=True))
        titles = rows["title"].astype(str).tolist() if "title" in rows else [""] * len(rows)
        found = []
        for number, title, a, b in zip(rows["number"].astype(str), titles, start, end, strict=True):
            number = number.strip().rstrip(".")
            if not re.fullmatch(r"[A-Z]?\d+(?:[.\-]\d+)*[a-z]?", number):
                continue
            holds = a <= (page, top) <= b
            if holds or (a[0] == page and top <= a[1] <= bottom):
                found.append((holds, number, title, a, b))
        # the sections enclosing the innermost one holding the window are not its target
        inner = max((a for holds, _, _, a, _ in found if holds), default=None)
        for holds, number, title, a, b in found:
            if holds and a != inner:
                continue
            words = _words(tables, title, a)
            rx = re.compile(rf"(?<!\w){words}\s*{re.escape(number)}(?![\w.\-]*\d)", re.I)
            out.append((rx, a, b))
    objs = tables.object_registry
    if objs is not None and not objs.empty:
        here = objs[(objs["page"] == page) & objs["line_start"].between(top, bottom) & objs["label"].notna()]
        for label, a, b in zip(here["label"].astype(str), here["line_start"], here["line_end"], strict=True):
            word, _, ident = label.strip().partition(" ")
            if word and ident:
                rx = re.compile(rf"\b{re.escape(word)}s?\s+{re.escape(ident)}(?![\w.\-]*\d)", re.I)
                out.append((rx, (page, int(a)), (page, int(b) if b == b else int(a))))
    return out


def _contents_pages(body: pd.DataFrame) -> set[int]:
    """Pages of ``body`` that read as a contents page: at least :data:`CONTENTS_ENTRIES` lines
    ending in a page label after a leader ("3.2 Scope ....... 7"), or lines that are a page label
    alone, a third of the page's lines and at least three (a title line, then its page line)."""
    text = body["text"].astype(str)
    pages = set()
    for pattern, a_third in ((_LEADER_ENTRY, False), (_PAGE_LABEL, True)):
        hits = text.str.contains(pattern)
        for p, grp in hits.groupby(body["page"]):
            n = int(grp.sum())
            if n >= CONTENTS_ENTRIES and (not a_third or n * 3 >= len(grp)):
                pages.add(int(p))
    return pages


def _points(rx: re.Pattern, text: str) -> bool:
    """``text`` points at the target ``rx`` names, in this document (not "of the ... Act")."""
    return any(not _ELSEWHERE.match(text[m.end() :]) for m in rx.finditer(text))


def pointing_passages(
    tables: DocTables,
    q: ParsedQuestion,
    passages: Sequence[Passage],
    ranked: Sequence,
    trace: Trace | None = None,
) -> list[Passage]:
    """At most one window: the line on the best-ranked other page (``ranked``: the ranking's
    candidates, best first) that points at what the first passage opens, with its context.
    Empty when the first window opens no numbered part or captioned object, no page among the
    first :data:`POINTING_POOL` points at it from outside it. ``trace`` gets a ``pointed_from``
    event when a window joins."""
    ldf = tables.line_df
    if not passages or not passages[0].lines or ldf is None or ldf.empty:
        return []
    first = passages[0]
    have = {p.page for p in passages}
    pool = [int(c.page) for c in ranked[:POINTING_POOL] if c.score > 0 and int(c.page) not in have]
    if not pool:
        return []
    patterns = _targets(tables, first)
    if not patterns:
        return []
    # a first window that points elsewhere in the document leaves the loop a pointer to follow:
    # the look-up back is for a first hop that is an end point (a note, a table, a section)
    onward = [
        r
        for r in references_in(first.lines)
        if r.ref_type not in OFF_PAGE_REF_TYPES and not any(rx.search(r.raw_text) for rx, _, _ in patterns)
    ]
    if onward:
        return []
    pooled = pd.concat([page_rows(ldf, p) for p in sorted(pool)])  # the pool's pages, not the document
    # a contents page names every part (its "Appendix 3: ... / 53" lines can be body lines)
    listing = _contents_pages(pooled)
    body = pooled[~pooled["role"].isin(_LISTING_ROLES) & ~pooled["page"].isin(listing)]
    text = body["text"].astype(str)
    at = list(zip(body["page"].astype(int), body["line"].astype(int), strict=True))
    hit = pd.Series(False, index=body.index)
    this = text.str.contains(_THIS)
    for rx, a, b in patterns:
        outside = pd.Series([not a <= k <= b for k in at], index=body.index)
        inside = text.str.contains(rx)
        if inside.any():
            inside &= text.map(lambda t, rx=rx: _points(rx, t))
        hit |= inside & ~this & outside
    if not hit.any():
        return []
    found = body[hit]
    # "which is defined in Section 1.5": a use of the term the target defines, not its other half
    uses = [
        any(_DEFINED_IN.search(t[: m.start()]) for rx, _, _ in patterns for m in rx.finditer(t))
        for t in found["text"].astype(str)
    ]
    found = found[[not u for u in uses]]
    if found.empty:
        return []
    rank = {p: i for i, p in enumerate(pool)}
    page, line = min(
        zip(found["page"].astype(int), found["line"].astype(int), strict=True),
        key=lambda k: (rank[k[0]], k[1]),
    )
    window = best_passage(tables, q, page, include_lines=[line])
    # a window that points at many parts is an overview ("Section 2 describes ..., Section 4
    # ..."), as a contents page is: it names the target among others, it is no half of a question
    others = {
        r.raw_text.strip().lower()
        for r in references_in(window.lines)
        if r.ref_type not in OFF_PAGE_REF_TYPES and not any(rx.search(r.raw_text) for rx, _, _ in patterns)
    }
    if len(others) > OVERVIEW_POINTERS:
        return []
    # pointing lines that hold none of the question's words use the target ("the operation, which
    # is defined in Section 1.5"); they are no half of the question
    asked = set(query_terms(q))
    near = [ln for ln in window.lines if abs(ln.line - line) <= NEAR_LINES]
    if not any(asked.intersection(terms(ln.text)) for ln in near):
        return []
    anchor = str(found[(found["page"] == page) & (found["line"] == line)]["text"].iloc[0]).strip()
    note = f"points at the first hop's target (page {first.page}): page {page}, line {line}: '{anchor[:80]}'"
    if trace is not None:
        trace.event("pointed_from", target_page=first.page, page=page, line=line, anchor=anchor[:80])
    return [window.model_copy(update={"note": note})]


__all__ = ["NEAR_LINES", "OVERVIEW_POINTERS", "POINTING_POOL", "pointing_passages"]
