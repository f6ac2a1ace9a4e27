"""toc entries from the primary sources: the PDF outline and a printed contents page.

Each entry is matched to the heading candidate line that shows it (``match``); outline
entries naming a paragraph in body type are located by their words. Bookmarks a tagged
export put on body paragraphs (sentences, list items, run-in labels) are not sections and
are dropped first (``section_outline``).
"""

from __future__ import annotations

import functools
import re

import pandas as pd

from docintel.parsing import contents_page, frame_rows
from docintel.parsing.heading_text import SENTENCE_WORDS, WORD, reads_as_prose
from docintel.parsing.headings import Candidate, PlainLines, split_number
from docintel.parsing.toc_rules import norm, short_title

#: The candidates of the last two lists ``match`` was given, by page: (list, its length, page ->
#: candidates in list order), newest last. Outline and contents entries are matched one by one
#: against one list (a contents entry not found falls back to a second, its heading-like lines);
#: reading each once per list, not once per entry and page, keeps that linear.
_BY_PAGE: list[tuple] = []


def _on_page(cands: list[Candidate]) -> dict[int, list[Candidate]]:
    global _BY_PAGE
    for memo in _BY_PAGE:
        if memo[0] is cands and memo[1] == len(cands):
            return memo[2]
    idx: dict[int, list[Candidate]] = {}
    for c in cands:
        idx.setdefault(c.page, []).append(c)
    _BY_PAGE = [*_BY_PAGE[-1:], (cands, len(cands), idx)]
    return idx


#: :func:`norm` of candidate titles and texts, which every entry's search reads again.
_norm = functools.lru_cache(maxsize=1 << 16)(norm)


def _same_number(number: str) -> str:
    """A printed number as compared between an entry and a heading line ("7.2." and "7.2" agree)."""
    return number.rstrip(".").lower()


def _text_score(nt: str, full: str, ct: str, cf: str) -> float:
    """How well a line's normalised title ``ct`` and text ``cf`` show the entry's title ``nt``
    (``full``: with its number): 3 the same, 2 the text a prefix either way, 1.5 the title; else 0."""
    if nt and (ct == nt or cf in (nt, full)):
        return 3.0
    if nt and len(nt) >= 4 and (cf.startswith(full) or full.startswith(cf) and len(cf) >= 0.6 * len(full)):
        return 2.0
    if nt and len(nt) >= 6 and (ct.startswith(nt) or nt.startswith(ct) and len(ct) >= 0.6 * len(nt)):
        return 1.5
    return 0.0


def match(
    title: str,
    number: str | None,
    cands: list[Candidate],
    pages: list[int],
    plain: PlainLines | None = None,
    after: int | None = None,
) -> Candidate | None:
    """The candidate line that shows this entry's heading, searched page by page.

    ``plain``: the plain body lines kept out of ``cands`` (:class:`headings.PlainLines`; those on
    pages after ``after`` only), searched with them as if they were in the list: unnumbered, not
    bold nor heading-like, their title their text, so only their text can score.
    """
    nt = norm(title)
    full = norm(f"{number or ''} {title}")
    by_page = _on_page(cands)
    for p in pages:
        best, best_score = None, 0.0
        for c in by_page.get(p, ()):
            ct, cf = _norm(c.title), _norm(c.text)
            score = _text_score(nt, full, ct, cf)
            if (
                not score
                and number
                and c.number
                and c.number.rstrip(".") == number.rstrip(".")
                and ct
                and c.extra.get("heading_like")
            ):
                score = 1.0
            if score and (c.bold or c.extra.get("heading_like")):
                score += 0.5
            if score and number and c.number and _same_number(c.number) != _same_number(number):
                # "7. Root Cause Analysis" is not the heading of the entry "7.2 Root Cause Analysis":
                # a line printing another number is another heading whatever its title
                score = 0.0
            if score > best_score:
                best, best_score = c, score
        if plain is not None and (after is None or p > after) and p in plain.pages:
            # the first line of the best score in (page, line) order wins, as in one list
            lazy, lazy_score = None, 0.0
            for item in plain.pages[p]:
                x = _norm(item[1])  # (a plain line's title is its text, whitespace joined: one norm)
                score = _text_score(nt, full, x, x)
                if score > lazy_score or (score and score == lazy_score and item[0] < lazy[0]):
                    lazy, lazy_score = item, score
            if lazy is not None and (
                lazy_score > best_score or (lazy_score == best_score and lazy[0] < best.line)
            ):
                best = plain.candidate(p, lazy)
        if best is not None:
            return best
    return None


#: A list item's glyph: a bookmark opening with one is a list item, never a section.
_BULLET = re.compile(r"^[\u2022\u25aa\u25cf\u25e6\u2013\u2014\uf0a7\uf0b7\uf0d8\u2043*\-]\s*")
#: A run-in label and its text ("Discussion:  None.", "Primary Responsibility:  System Owner.").
_LABEL = re.compile(r"^(?P<label>[^\W\d_][\w/()\-]*(?:\s+[\w/()\-]+){0,4}):\s+(?P<rest>\S.*)$")
#: A caption bookmark ("TABLE 1:  ...", "FIGURE G-1:  ...") is kept whatever its words.
_CAPTION = re.compile(
    r"^(?:table|figure|fig\.|exhibit|chart|box|map|plate)\s+[A-Z]?[\d.\-]*\d[a-z]?\s*(?:[:.\u2013\u2014]|\s-\s)",
    re.I,
)
#: A provision's own label: "Article 17", "Section 4", "Rule 12", "Regulation 3", "Clause 5".
_STRUCTURAL = re.compile(
    r"^(?:article|art\.|section|sec\.|rule|clause|regulation|title|chapter|schedule|annex)\s+[0-9IVXLC]+\b",
    re.I,
)
_STOP = re.compile(r"[.:;,]$")
_LIST_END = re.compile(r"(?:[;,]|[;,]\s*(?:and|or))$")


def sentence_like(raw: str) -> str | None:
    """Why an outline title is a body paragraph rather than a section (None when it is a section).

    Tagged exports bookmark paragraphs ("(a) the processing is based on consent ...; and",
    "Discussion:  None.", "\u2022 Defining security requirements; and"): a list item's glyph, a
    run-in label followed by its sentence, a list item's ending (";", ", and"), or prose of
    :data:`SENTENCE_WORDS` words or one ending in a stop. Multi-level numbered sections and clauses
    ("2.4.2 The Solution Context", "3.1.2 The contractor shall ..."), a provision's label ("Article
    5. ..."), parts, appendices and captions, title case and capitals are kept.
    """
    t = re.sub(r"\s+", " ", raw).strip()
    t = re.sub(r"(?<=[.;,:])[0-9]{1,3}F?$", "", t)  # a footnote mark after the stop ("concepts;26F")
    if _BULLET.match(t):
        return "list item"
    kind, num, title = split_number(t)
    if kind in ("appendix", "part", "section_sign") or _CAPTION.match(t) or _STRUCTURAL.match(t):
        return None
    if kind in ("decimal", "letter_decimal") and num and "." in num.strip("."):
        return None  # a numbered section or clause ("3.1.2 The contractor shall ...") is a section
    t = re.sub(r"\[[^\]]*\]", " ", t).strip()  # navigation labels ("[Back to SCRM Control]")
    m = _LABEL.match(t)
    if m and _STOP.search(m.group("rest")) and not m.group("label")[-1].isdigit():
        return "run-in label with its text"
    if " | " in t:
        return None  # a name path ("SA-12 (11) supply chain protection | penetration testing")
    if _LIST_END.search(t) and len(WORD.findall(t)) >= 2:
        return "list item"
    if not reads_as_prose(title):
        return None
    n = len(WORD.findall(title))
    if n >= SENTENCE_WORDS or (n >= 3 and _STOP.search(t)):
        return "sentence"
    return None


def section_outline(outline: list[tuple]) -> list[tuple]:
    """The outline's section entries: bookmarks on body paragraphs (:func:`sentence_like`) dropped.

    Those bookmarks would become toc rows and cut the real sections' extents (a GDPR article
    ending after its first paragraph). An outline made only of them is no outline.
    """
    return [e for e in outline if sentence_like(e[1]) is None]


def in_contents_order(entries: list[dict]) -> list[dict]:
    """Drop entries matched without a printed page label that land after a later entry's page.

    A contents page lists sections in page order. When an entry's own page is missing (a
    sampled or excerpted PDF), a page guessed from a learned label offset or a search of
    the whole document can find its title elsewhere (the book title on the back cover for
    "Chapter 3. <book title>"): a match after sections listed later is wrong.
    """
    out: list[dict] = []
    min_later = 10**9
    for e in reversed(entries):
        if not (e.get("searched") and e["page_start"] > min_later):
            out.append(e)
            min_later = min(min_later, e["page_start"])
    return out[::-1]


def entry(
    c: Candidate | None,
    *,
    title: str,
    number: str | None,
    kind: str | None,
    level: int,
    page: int,
    source: str,
) -> dict:
    return {
        "title": title,
        "number": number,
        "kind": kind,
        "level": int(level),
        "page_start": int(page),
        "line_start": c.line if c else None,
        "lines": c.lines if c else [],
        "source": source,
        "style": (round(c.size), c.bold) if c else None,
        "cand": c,
    }


def outline_entries(
    outline: list[tuple], line_df: pd.DataFrame, cands: list[Candidate], plain: PlainLines | None = None
) -> list[dict]:
    """Entries of the PDF outline, each matched to its heading line where one is found (``plain``:
    the plain body lines kept out of ``cands``, see :func:`match`)."""
    entries: list[dict] = []
    heads = line_df[line_df["role"].isin(["header", "footer"])]
    running_heads = {(int(pg), norm(t)) for pg, t in zip(heads["page"], heads["text"], strict=False)}
    body_lines = None
    for lvl, raw, p in outline:
        kind, num, title = split_number(re.sub(r"\s+", " ", raw).strip())
        c = match(title, num, cands, [p, p + 1, p - 1], plain)
        if c is None and (p, norm(title)) in running_heads:
            continue  # a bookmark to the title an excerpt only prints in its running head
        if num is None and c is not None and c.number:
            # Outlines often drop the number the page prints ("Attention" for "3.2 Attention"):
            # the heading line is what readers (and references) use.
            kind, num = c.kind, c.number
        entries.append(
            entry(
                c,
                title=short_title(title),
                number=num,
                kind=kind,
                level=lvl,
                page=c.page if c else p,
                source="outline",
            )
        )
        if c is None and title:
            if body_lines is None:
                body_lines = _page_texts(line_df)
            where = _locate_paragraph(body_lines, num, title, [p, p + 1, p - 1])
            if where is not None:
                entries[-1]["page_start"], entries[-1]["line_start"] = where
    return entries


#: Characters of an outline title compared with the start of a body line.
_PREFIX_CHARS = 30


def _page_texts(line_df: pd.DataFrame) -> dict[int, list[tuple[int, str]]]:
    body = line_df[~line_df["role"].isin(["header", "footer", "page_number", "toc_entry"])]
    out: dict[int, list[tuple[int, str]]] = {}
    for pg, ln, t in zip(body["page"], body["line"], body["text"], strict=False):
        out.setdefault(int(pg), []).append((int(ln), norm(str(t))))
    return out


def _locate_paragraph(pages: dict, num: str | None, title: str, order: list[int]) -> tuple[int, int] | None:
    """Where an outline entry naming a paragraph starts: the line opening with its words.

    Outlines of regulations bookmark whole paragraphs ("1. This Regulation lays down ..."),
    set in body type with the number alone on the line above: no heading candidate shows
    them, but their position keeps the outline in reading order with the headings.
    """
    head = norm(title)[:_PREFIX_CHARS]
    if len(head) < 12:
        return None
    number = norm(num or "")
    for p in order:
        rows = pages.get(p, [])
        for k, (ln, t) in enumerate(rows):
            if t.startswith(head) or (len(t) >= 20 and head.startswith(t)):
                prev = rows[k - 1] if k else None
                if prev is not None and number and prev[1] == number:
                    return p, prev[0]
                return p, ln
    return None


def contents_entries(
    contents: pd.DataFrame,
    contents_pages: set,
    page_df: pd.DataFrame,
    cands: list[Candidate],
    n_pages: int,
    plain: PlainLines | None = None,
) -> list[dict]:
    """Entries of a printed contents page, each matched to its heading line after the contents
    (``plain``: the plain body lines kept out of ``cands``, see :func:`match`)."""
    entries: list[dict] = []
    labels = contents_page.label_to_page(page_df)
    last = max(contents_pages)
    later = [c for c in cands if c.page > last]
    fallback: tuple | None = None  # (the heading-like ones of ``later``, their pages): built on first use
    offset = None
    for e in frame_rows.rows(contents):  # itertuples' rows, from column lists
        number = e.number if isinstance(e.number, str) else None
        guess = contents_page.physical_page(e.label, labels, n_pages, offset)
        order = [guess, guess + 1, guess - 1] if guess else []
        c = match(e.title, number, later, order, plain, last)
        if c is None:
            if fallback is None:
                fallback = ([x for x in later if x.extra["heading_like"]], sorted({x.page for x in later}))
            c = match(e.title, number, *fallback)
        if c is not None and e.label.isdigit() and offset is None:
            offset = c.page - int(e.label)  # learned once, reused when labels are missing
        page = c.page if c else guess
        # an entry whose heading was not found is kept only when its page came from printed labels
        if page is None or (c is None and e.label.strip().lower() not in labels):
            continue
        entries.append(
            entry(
                c,
                title=c.title if c and c.title else e.title,
                number=number,
                kind=e.kind,
                level=e.level,
                page=page,
                source="contents_page",
            )
        )
        # a page guessed from a learned offset or found by search can be wrong; a printed label not
        entries[-1]["searched"] = c is not None and e.label.strip().lower() not in labels
    return in_contents_order(entries)
