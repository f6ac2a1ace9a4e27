"""toc_df: the PDF outline, else a printed contents page, else detected headings.

Whatever the primary source, each entry is matched to its heading *line* so
that ``line_start`` is known, and detected headings the primary source misses
(outlines often omit Abstract, References, appendices) are added with source
``heading_detection``. Heading lines get role ``heading``; the document title
gets role ``title``; printed contents lines get role ``toc_entry``.
"""

from __future__ import annotations

import logging
import operator
import re

import numpy as np
import pandas as pd

from docintel.parsing import contents_page, gcpause, provisions, toc_articles, toc_sources
from docintel.parsing.headings import (
    LARGER_BY_PT,
    Candidate,
    PlainLines,
    body_size,
    candidates,
    first_sentence,
    looks_like_heading,
    span_features,
)
from docintel.parsing.sections import assign_sections, drop_demoted, relative_levels, to_frame
from docintel.parsing.toc_lines import cover_pages, label_stacks, title_c_rows, title_line
from docintel.parsing.toc_rules import (
    LABEL_OPEN,
    ChapterScopes,
    depth_below,
    norm,
    not_sections,
    renest_back_matter,
    renest_restarts,
    running_footers,
)
from docintel.schema.tables import TOC_DF

log = logging.getLogger(__name__)

_cover_pages = cover_pages  # escalate_stakes reads toc._cover_pages

__all__ = ["assign_sections", "build_toc", "drop_demoted", "norm"]

#: Lines of one heading may differ in size by this many points, or by SIZE_TOLERANCE_SHARE of
#: their size when both are DISPLAY_SIZE_RATIO x body or more (set by hand on the dev PDFs; not measured).
SIZE_TOLERANCE_PT = 0.3
SIZE_TOLERANCE_SHARE = 0.12
DISPLAY_SIZE_RATIO = 1.8
#: Longest heading joined from wrapped lines, in characters (set by hand; not measured).
MAX_JOINED_CHARS = 200


def _size_tolerance(a: float, b: float, body: float) -> float:
    """How far two lines' sizes may differ and still be one heading.

    Body-size headings keep one size; display titles are often fitted line by line
    (33 pt then 30 pt), so lines well above body size may differ by a tenth.
    """
    if min(a, b) >= DISPLAY_SIZE_RATIO * body:
        return max(SIZE_TOLERANCE_PT, SIZE_TOLERANCE_SHARE * max(a, b))
    return SIZE_TOLERANCE_PT


_PAGE_Y0_X0 = operator.attrgetter("page", "y0", "x0")
_PAGE_LINE = operator.attrgetter("page", "line")


def _join_continuations(cands: list[Candidate], body: float) -> list[Candidate]:
    """Join a heading wrapped over several lines (same style, stacked, tight spacing).

    Geometry decides, not line order, so a wrapped heading in a column is joined
    even when the reading order interleaves columns.
    """
    out: list[Candidate] = []
    # the lines that may continue a heading, by page and style: candidates of other styles, run-in
    # leads and plain body lines never do, so the backward scan only walks lines that could match
    pool: dict[tuple, list[Candidate]] = {}
    for c in sorted(cands, key=_PAGE_Y0_X0):
        prev = None
        key = (c.page, c.bold, c.extra.get("italic"), c.font)
        # (the label test only when a line of the same style waits: most lines have none)
        if not c.run_in and c.kind is None and key in pool and not LABEL_OPEN.match(c.text.strip()):
            for p in reversed(pool[key]):
                # the stacking test first: it rejects most pairs, and the tests have no side effects
                if (
                    -0.5 <= c.y0 - p.y1 <= 0.45 * c.size
                    and -1 <= c.x0 - p.x0 <= 3 * c.size
                    and abs(p.size - c.size) < _size_tolerance(p.size, c.size, body)
                    and not p.text.rstrip().endswith((".", ":"))
                    and len(p.text) + len(c.text) < MAX_JOINED_CHARS
                ):
                    prev = p
                    break
        if prev is not None:
            prev.text = f"{prev.text.rstrip()} {c.text.strip()}"
            prev.title = f"{prev.title} {c.text.strip()}".strip()
            prev.lines += c.lines
            prev.x1, prev.y1 = max(prev.x1, c.x1), c.y1
            continue
        # only styled lines continue a heading; plain body lines never do
        if not c.run_in and (c.bold or c.extra.get("italic") or c.size >= body + LARGER_BY_PT):
            pool.setdefault(key, []).append(c)
        out.append(c)
    out.sort(key=_PAGE_LINE)
    return out


def _style_levels(heads: list[Candidate], votes: dict[tuple, int]) -> dict[tuple, int]:
    """Level of each heading style: from numbered headings' depth, else by size rank."""
    styles = sorted({(round(h.size), h.bold) for h in heads}, key=lambda s: (-s[0], -int(s[1])))
    out = dict(votes)
    for s in styles:
        if s not in out:
            bigger = [lvl for (sz, b), lvl in out.items() if (sz, b) > s]
            out[s] = (max(bigger) + 1) if bigger else 1
    return out


def build_toc(
    doc, line_df: pd.DataFrame, page_df: pd.DataFrame, doc_id: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (toc_df, line_df with heading / title / toc_entry roles marked)."""
    with gcpause.paused():  # a Candidate per line: the collector would walk every live object
        return _build_toc(doc, line_df, page_df, doc_id)


def _build_toc(
    doc, line_df: pd.DataFrame, page_df: pd.DataFrame, doc_id: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    line_df = line_df.copy()
    for col in ("role", "section_id", "object_key"):
        if col not in line_df.columns:
            line_df[col] = "body" if col == "role" else None
    if line_df.empty:
        return TOC_DF.empty(), line_df
    # the page stage's spans (private page_df column), so no page is read a second time
    spans = (
        dict(zip(page_df["page"].astype(int), page_df["_spans"], strict=False))
        if "_spans" in page_df
        else None
    )
    feats = span_features(doc, line_df, spans)
    # (the two columns taken first: a mask over the whole frame's columns costs more)
    body = body_size(
        line_df[["text", "size"]][(line_df["role"] == "body").to_numpy(dtype=bool, na_value=False)]
    )
    # plain body lines are kept aside, not built into candidates (most lines; see PlainLines)
    plain = PlainLines(body)
    cands = _join_continuations(candidates(line_df, feats, plain), body)
    title_c = title_line(cands, body, min(plain.pages, default=None))
    contents = contents_page.find_entries(line_df)
    contents_pages = set(contents["page"]) if len(contents) else set()
    _mark_heading_like(cands, line_df, body, title_c, contents_pages)
    outline = toc_sources.section_outline(
        [(lvl, t, p) for lvl, t, p in doc.get_toc(simple=True) if p and p > 0]
    )
    if not outline:  # articles numbered in body type ("1.Title", "1) Title. Text"): no better structure
        toc_articles.mark_articles([c for c in cands if c is not title_c], body, contents_pages, plain)
    detected = [c for c in cands if c.extra["heading_like"]]
    if outline:
        entries = toc_sources.outline_entries(outline, line_df, cands, plain)
    elif len(contents):
        n_pages = int(page_df["page"].max()) if len(page_df) else doc.page_count
        entries = toc_sources.contents_entries(contents, contents_pages, page_df, cands, n_pages, plain)
    else:
        entries = []
    # the text lines' page, top and bottom only (not a filter of every column)
    text = line_df[["page", "y0", "y1"]][
        ~line_df["role"].isin(["header", "footer", "page_number"]).to_numpy(bool)
    ]
    by_page = text.groupby("page") if len(text) else None
    tops = by_page["y0"].min().to_dict() if by_page is not None else {}
    bottoms = by_page["y1"].max().to_dict() if by_page is not None else {}
    _add_detected(entries, detected, tops, bottoms)
    toc_articles.body_articles_as_provisions(entries)

    order = lambda e: (e["page_start"], e["line_start"] if e["line_start"] is not None else 10**6)  # noqa: E731
    entries.sort(key=order)
    renest_back_matter(entries)
    renest_restarts(entries)
    relative_levels(entries)
    # numbered clauses / paragraphs in body type, vouched for by the document's numbering
    entries += provisions.find_provisions(
        line_df[~line_df.index.isin(title_c_rows(title_c, line_df))], entries, feats["lead"]
    )
    entries.sort(key=order)
    toc_df = to_frame(entries, line_df, doc_id)
    _mark_roles(line_df, entries, title_c, contents, contents_pages)
    return toc_df, line_df


def _mark_heading_like(
    cands: list[Candidate],
    line_df: pd.DataFrame,
    body: float,
    title_c: Candidate | None,
    contents_pages: set,
    *,
    cover: set[int] | None = None,
) -> None:
    """Set ``extra["heading_like"]`` on every candidate: typography, then the stack and section rules.

    ``cover``: the title pages (:func:`toc_lines.cover_pages` of ``line_df`` when None); the escalation
    triage passes the document's, as it marks one page's lines.
    """
    cover = cover_pages(line_df, body) if cover is None else cover
    larger = body + LARGER_BY_PT
    heads = []  # the heading-like candidates, in order (collected here, not by a filter of all)
    for c in cands:
        # plain body type, unnumbered: looks_like_heading's first test says no (most candidates)
        if c.kind is None and not c.bold and c.size < larger and not c.extra.get("italic", False):
            c.extra["heading_like"] = False
            continue
        like = (
            c.page not in cover
            and c.page not in contents_pages
            and c is not title_c
            and not (c.run_in and (c.text.endswith(":") or len(c.text.split()) > 5))
            and not c.text.rstrip().endswith(("-", "\u2013", "\u2014"))
            and looks_like_heading(c, body)
        )
        c.extra["heading_like"] = like
        if like:
            heads.append(c)
    for c in label_stacks(heads, line_df):
        c.extra["heading_like"] = False
    for c in not_sections([c for c in heads if c.extra["heading_like"]], line_df, title_c):
        c.extra["heading_like"] = False


#: A heading carried over to the next page: "6. Investments (cont.)", "NOTES—Continued".
_CONTINUED = re.compile(
    r"\((?:cont(?:inued|'d|\.)?|suite)\)|[\u2014\u2013-]\s*continued\b|\bcontinued\s*$", re.I
)


#: A repeated heading counts as carried over only near its page's first text row (within this
#: many of its line heights): running heads and continued headings open the page.
REPEAT_TOP_LINES = 3.0


def _repeats(c: Candidate, titles: set[str], top: bool) -> bool:
    """A numbered heading seen before marked continued, or repeated at a page top: not a new section.

    A repeat at the top of a page is a running head ("21 CFR Ch. II" on every other page) or a
    note's heading repeated on its continuation page; lower down it may open a second document
    bound into the same PDF ("14 CFR Part 39" of a second Federal Register notice).
    """
    title = norm(c.title or c.text)
    again = bool(titles) and ((title in titles and top) or bool(_CONTINUED.search(c.title or c.text)))
    titles.add(title)
    return again


def _add_detected(
    entries: list[dict], detected: list[Candidate], tops: dict | None = None, bottoms: dict | None = None
) -> None:
    """Append the detected headings the primary source (outline or contents page) misses."""
    matched = {id(e["cand"]) for e in entries if e["cand"] is not None}
    primary_numbers = {e["number"].rstrip(".") for e in entries if e["number"]}
    votes: dict[tuple, int] = {}
    for e in entries:
        if e["style"] is not None:
            votes.setdefault(e["style"], e["level"])
    for c in detected:
        if c.kind in ("decimal", "letter_decimal") and c.number:
            votes.setdefault((round(c.size), c.bold), c.number.rstrip(".").count(".") + 1)
    levels = _style_levels(detected, votes)
    matched_pos = {(e["page_start"], e["line_start"]) for e in entries}
    primary_titles = {(e["page_start"], norm(e["title"])) for e in entries}
    numbered: dict[str, set[str]] = {}  # detected number -> its titles so far
    scopes = ChapterScopes(list(entries))
    unfit = toc_articles.out_of_sequence(entries, detected)  # list items, footers between outline entries
    # "2. Scope" of Chapter 3 is out of the chapters' order but in its own chapter's
    unfit -= {
        id(c) for c in detected if (c.number or "").rstrip(".") in primary_numbers and scopes.restarts(c)
    }
    unfit |= running_footers(detected, bottoms or {}, REPEAT_TOP_LINES, unfit)
    restarted: set[tuple] = set()  # styles of sections numbered afresh in their chapter
    first_new = len(entries)
    for c in detected:
        if (
            id(c) in matched
            or id(c) in unfit
            or (c.page, c.line) in matched_pos
            or (c.page, norm(c.title or c.text)) in primary_titles
        ):
            continue
        chapter = None
        if c.number and c.number.rstrip(".") in primary_numbers:
            chapter = scopes.restarts(c)  # "1. General" of Chapter 2: a section of its chapter
            if chapter is None:
                continue
        top = c.y0 <= float((tops or {}).get(c.page, c.y0)) + REPEAT_TOP_LINES * c.size
        if c.number and _repeats(c, numbered.setdefault(c.number.rstrip("."), set()), top):
            continue
        # ``entries`` grows in this loop: once anything is in it, unvoted numbered styles are skipped
        if entries and c.kind in ("decimal", "letter_decimal") and (round(c.size), c.bold) not in votes:
            continue
        if chapter is not None:
            lvl = chapter["level"] + depth_below(c.number, chapter["number"])
            restarted.add((round(c.size), c.bold))
        elif c.kind in ("decimal", "letter_decimal"):
            lvl = c.number.rstrip(".").count(".") + 1
        elif c.kind in ("appendix", "part", "roman"):
            lvl = 1
        elif c.kind == "letter":
            lvl = 2
        else:
            lvl = levels.get((round(c.size), c.bold), 1)
        title = c.text if c.kind in ("part", "appendix") else (c.title or c.text)
        if c.kind is None and not c.run_in:
            title = first_sentence(title)  # "Methods. In Table 4": the heading ends at its stop
        entries.append(
            toc_sources.entry(
                c,
                title=title,
                number=c.number,
                kind=c.kind,
                level=lvl,
                page=c.page,
                source="heading_detection",
            )
        )
    for e in entries[first_new:]:  # their siblings in that style nest too (numbering continued)
        chap = scopes.chapter(e["cand"]) if restarted and e["style"] in restarted else None
        if chap is not None and e["level"] == e["number"].rstrip(".").count(".") + 1:
            e["level"] = chap["level"] + depth_below(e["number"], chap["number"])


def _mark_roles(
    line_df: pd.DataFrame,
    entries: list[dict],
    title_c: Candidate | None,
    contents: pd.DataFrame,
    contents_pages: set,
) -> None:
    """Mark heading, title and contents-entry lines in ``line_df``'s role column (in place)."""
    # (page, line) as one integer per line: the membership tests below are one np.isin each
    key = _line_keys(line_df["page"].to_numpy(), line_df["line"].to_numpy())
    # the roles as a Python array, written back in one column assignment: a ``.loc`` write into
    # pandas' Arrow-backed str column rebuilds the whole column each time
    role = line_df["role"].to_numpy(dtype=object, copy=True)
    # a provision's line stays body text: it has a number, not heading typography
    heading_lines = {
        (e["page_start"], ln) for e in entries if e["source"] != "provision" for ln in e["lines"]
    }
    role[np.isin(key, _key_list(heading_lines))] = "heading"
    if title_c is not None:
        tl = {(title_c.page, ln) for ln in title_c.lines}
        role[np.isin(key, _key_list(tl))] = "title"
    if len(contents):
        cl = set(zip(contents["page"], contents["line"], strict=False))
        on_cp = line_df["page"].isin(contents_pages).to_numpy() & (role == "body")
        # the pattern read on the contents pages' body lines only (the same pandas str.match there)
        lone_numbers = on_cp.copy()
        sel = np.flatnonzero(on_cp)
        if len(sel):
            lone_numbers[sel] = (
                line_df["text"].iloc[sel].str.match(r"^\s*[0-9.]+\s*$").to_numpy(dtype=bool, na_value=False)
            )
        role[np.isin(key, _key_list(cl)) | lone_numbers] = "toc_entry"
    line_df["role"] = pd.Series(role, index=line_df.index, dtype=line_df["role"].dtype)


def _line_keys(page: np.ndarray, line: np.ndarray) -> np.ndarray:
    """(page, line) pairs as one int64 each (line numbers stay far below 10**6)."""
    return page.astype(np.int64) * 1_000_000 + line.astype(np.int64)


def _key_list(pairs: set) -> np.ndarray:
    """:func:`_line_keys` of a set of (page, line) pairs; a pair with a missing or fractional
    value matches no line (as it matched no key of the set test before)."""
    ok = []
    for p, ln in pairs:
        try:
            if int(p) == p and int(ln) == ln:
                ok.append((int(p), int(ln)))
        except (TypeError, ValueError, OverflowError):
            continue
    if not ok:
        return np.empty(0, dtype=np.int64)
    return np.array([p * 1_000_000 + ln for p, ln in ok], dtype=np.int64)
