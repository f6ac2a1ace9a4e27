"""Regions of the document a question can point at: TOC sections, scopes, definitions, objects.

Each function maps something the question names (a section title, "Table 2",
"page 8", a term to define, "all tables") to physical pages, using the parsed
tables (toc_df, object_registry, page_df) first and plain line patterns as a fallback.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from docintel.retrieval.bm25 import PageIndex
from docintel.retrieval.framememo import per_frame
from docintel.retrieval.refnames import (  # noqa: F401 - re-exported: callers import them from here
    BACK_MATTER,
    _toc_norm,
    appendix_sections,
    contents_row,
    find_labelled,
    find_objects,
    find_sections,
    find_titled,
    norm_id,
)
from docintel.schema.document import DocTables
from docintel.schema.evidence import Scope
from docintel.schema.kinds import FURNITURE_ROLES
from docintel.text import defining_pattern, is_number, normalize, terms

#: A TOC title must share at least this share of its idf mass with the question to count.
TOC_MIN_MATCH = 0.5
#: A one-word title on more than this share of the pages is the document's subject, not a
#: pointer to one section.
SUBJECT_SHARE = 0.5

# --- TOC ---------------------------------------------------------------------------------------


#: doc_id -> (toc_df, page_df, ranges): section_ranges depends on the document only.
_RANGES: dict[str, tuple] = {}


def section_ranges(tables: DocTables) -> pd.DataFrame:
    """toc_df with page_end filled where the parser left it empty.

    A section ends where the next section of the same or a higher level starts
    (that page included: the heading may sit mid-page), else at the last page.
    Computed once per document object (a copy is returned).
    """
    hit = _RANGES.get(tables.doc_id)
    if hit is None or hit[0] is not tables.toc_df or hit[1] is not tables.page_df:
        if len(_RANGES) >= 8:
            _RANGES.pop(next(iter(_RANGES)))
        hit = _RANGES[tables.doc_id] = (tables.toc_df, tables.page_df, _section_ranges(tables))
    return hit[2].copy()


def _section_ranges(tables: DocTables) -> pd.DataFrame:
    toc = tables.toc_df
    if toc is None or toc.empty:
        return pd.DataFrame(columns=["toc_id", "number", "title", "level", "page_start", "page_end"])
    toc = toc[toc["page_start"].notna()].reset_index(drop=True).copy()
    last_page = int(tables.page_df["page"].max()) if len(tables.page_df) else int(toc["page_start"].max())
    ends = []
    levels = toc["level"].fillna(1).astype(int).tolist()
    starts = toc["page_start"].astype(int).tolist()
    given = toc["page_end"].tolist() if "page_end" in toc else [None] * len(toc)
    for i in range(len(toc)):
        if pd.notna(given[i]):
            ends.append(int(given[i]))
            continue
        nxt = next((starts[j] for j in range(i + 1, len(toc)) if levels[j] <= levels[i]), last_page)
        ends.append(max(starts[i], nxt))
    toc["page_start"] = starts
    toc["page_end"] = ends
    return toc


def toc_scores(tables: DocTables, index: PageIndex, qset: set[str]) -> dict[int, tuple[float, str]]:
    """Per page: the best share of a matching section title's idf mass, with the reason."""
    out: dict[int, tuple[float, str]] = {}
    titles = toc_titles(tables, index)
    masses, by_term = _title_masses(titles, index)
    for i in sorted({i for t in qset for i in by_term.get(t, ())}):  # the titles sharing a term, in toc order
        title, title_list, page_start, page_end = titles[i]
        share = math.fsum(index.idf(t) for t in set(title_list) & qset) / masses[i]
        if share < TOC_MIN_MATCH:
            continue
        # Squared: a title the question names in full ("Operational Readiness Flight") should beat
        # one that merely shares a few words with it.
        share = share**2
        note = f"toc: section '{title}' (pages {page_start}-{page_end}) matches the question"
        for p in range(int(page_start), int(page_end) + 1):
            if share > out.get(p, (0.0, ""))[0]:
                out[p] = (share, note)
    return out


def _title_masses(titles: list, index: PageIndex) -> tuple[list[float | None], dict[str, list[int]]]:
    """Each title's idf mass (``math.fsum``, exact whatever the order) and, per term, the
    positions of the titles that may match a question holding it: not an empty title, not a
    one-word title on more than :data:`SUBJECT_SHARE` of the pages ("BERT" in the BERT paper:
    the document's subject singles out no pages). Values of the index alone, kept in its memo
    (not stored): an ask summed every matching title's idfs again."""
    hit = index.memo.get("toc_title_mass")
    if hit is None or hit[0] is not titles:
        masses: list[float | None] = []
        by_term: dict[str, list[int]] = {}
        for i, (_title, title_list, _start, _end) in enumerate(titles):
            title_terms = set(title_list)
            subject = len(title_terms) == 1 and all(
                index.df.get(t, 0) > SUBJECT_SHARE * index.n_pages for t in title_terms
            )
            if not title_terms or subject:
                masses.append(None)
                continue
            masses.append(math.fsum(index.idf(t) for t in title_terms))
            for t in title_terms:
                by_term.setdefault(t, []).append(i)
        hit = index.memo["toc_title_mass"] = (titles, masses, by_term)
    return hit[1], hit[2]


def toc_titles(tables: DocTables, index: PageIndex) -> list:
    """[title, title terms, first page, last page] of every section (numbers and roman numerals
    left out of the terms): a document-only TOC signal, kept in the index's memo (and stored)."""
    if "toc_titles" not in index.memo:
        index.memo["toc_titles"] = [
            [
                row.title,
                sorted(
                    t
                    for t in terms(str(row.title or ""))
                    if not is_number(t) and not re.fullmatch(r"[ivx]+", t)
                ),
                int(row.page_start),
                int(row.page_end),
            ]
            for row in section_ranges(tables).itertuples(index=False)
        ]
    return index.memo["toc_titles"]


# --- definitions ---------------------------------------------------------------------------------


def definition_pages(tables: DocTables, term: str) -> dict[int, int]:
    """Pages (-> first line) where ``term`` is introduced: "long name (TERM)", "TERM is/means ...",
    "called TERM", or a glossary line "TERM: ..." / "TERM - ...". Case-insensitive, whole words."""
    patterns = defining_pattern(term, introduced=True)
    lines = tables.line_df[~tables.line_df["role"].fillna("body").isin(FURNITURE_ROLES)]
    out: dict[int, int] = {}
    for r in lines.itertuples(index=False):
        if int(r.page) not in out and patterns.search(normalize(str(r.text))):
            out[int(r.page)] = int(r.line)
    return out


# --- scope ---------------------------------------------------------------------------------------


def resolve_scope(scope: Scope, tables: DocTables) -> tuple[list[int], str]:
    """Physical pages of the region a question names, and a reason; ([], "") when not found.

    page -> page_df.printed_label, falling back to the physical page; table/figure/equation/
    appendix/annex -> object_registry (then a caption line "Table 2 ..."); section/clause ->
    toc_df by id, number or title prefix ("(q)(1)" falls back to "(q)").
    """
    kind, target = scope.kind, scope.target.strip()
    if kind == "page":
        return _page_scope(target, tables)
    if kind in ("table", "figure", "equation", "appendix", "annex"):
        pages = _object_scope(kind, target, tables)
        if not pages and kind in ("appendix", "annex"):
            pages = _section_scope(f"{kind} {target}", tables) or _section_scope(target, tables)
    else:
        pages = _section_scope(target, tables)
        while not pages and kind == "clause" and target.count("(") > 1:
            target = target[: target.rfind("(")]
            pages = _section_scope(target, tables)
    if not pages:
        return [], ""
    return pages, f"scope: {scope.text} is on page{'s' if len(pages) > 1 else ''} {_span(pages)}"


def _span(pages: list[int]) -> str:
    return str(pages[0]) if len(pages) == 1 else f"{pages[0]}-{pages[-1]}"


def _page_scope(target: str, tables: DocTables) -> tuple[list[int], str]:
    page, method = find_page(tables, target)
    if page is None:
        return [], ""
    if method == "page_label":
        return [page], f"scope: printed page {target} is physical page {page}"
    return [page], f"scope: page {target} (no printed label {target}; physical page used)"


def find_page(tables: DocTables, target: str, origin_page: int | None = None) -> tuple[int | None, str]:
    """The physical page a page reference or scope names, and how (``page_label`` or
    ``physical_page``).

    By its printed label first ("47" printed on physical page 51): when several pages carry it
    (numbering that restarts: a syllabus then an opinion, annexes from 1 again) the one in the
    numbering run of ``origin_page``, the page the reference is written on. A label the parser
    did not read on its page (an unnumbered figure page, the last pages) is placed by the offset
    its arabic-numbered neighbours agree on. A label read off a page's own furniture is checked
    against the page beside it: an inferred label one page off the page that prints the number
    gives way to that page. The physical page number is used only when the document prints no
    arabic page numbers at all.
    """
    pdf = tables.page_df
    if not len(pdf):
        return None, "none"
    key = target.strip().lower()
    labels = pdf["printed_label"].astype("string").str.strip().str.lower()
    hits = [int(p) for p in pdf.loc[labels == key, "page"]]
    if hits:
        return _printed_check(tables, _same_run(pdf, hits, origin_page), key), "page_label"
    pages = set(pdf["page"].astype(int))
    if not key.isdigit():
        return None, "none"
    offsets = _arabic_offsets(pdf)
    if offsets:
        # the run of labels nearest the reference's page (or the first) says the offset
        near = min(offsets, key=lambda po: abs(po[0] - (origin_page or po[0])))[1]
        page = int(key) + near
        return (page, "page_label") if page in pages else (None, "none")
    if int(key) in pages:
        return int(key), "physical_page"
    return None, "none"


def _arabic_offsets(pdf: pd.DataFrame) -> list[tuple[int, int]]:
    """(physical page, physical - printed) of the pages with an arabic printed label."""
    out = []
    for page, lab in zip(pdf["page"].astype(int), pdf["printed_label"], strict=True):
        if isinstance(lab, str) and lab.strip().isdigit():
            out.append((int(page), int(page) - int(lab.strip())))
    return out


def _same_run(pdf: pd.DataFrame, hits: list[int], origin_page: int | None) -> int:
    """Of the pages printing the same label, the one in the numbering run (same offset between
    printed and physical page, no restart between) of ``origin_page``; else the first."""
    if len(hits) == 1 or origin_page is None:
        return hits[0]
    offsets = dict(_arabic_offsets(pdf))
    if origin_page not in offsets:
        return hits[0]
    ordered = sorted(offsets)

    def run_of(page: int) -> tuple[int, int]:
        i = ordered.index(page)
        lo = hi = i
        while lo > 0 and offsets[ordered[lo - 1]] == offsets[page]:
            lo -= 1
        while hi + 1 < len(ordered) and offsets[ordered[hi + 1]] == offsets[page]:
            hi += 1
        return ordered[lo], ordered[hi]

    lo, hi = run_of(origin_page)
    return next((h for h in hits if lo <= h <= hi), hits[0])


def _printed_check(tables: DocTables, page: int, key: str) -> int:
    """``page``, unless its label was not printed on it and the page beside it prints ``key``
    as its page number (a label inferred one page off)."""
    pdf = tables.page_df
    src = pdf.loc[pdf["page"] == page, "label_source"]
    if len(src) and str(src.iloc[0]) == "printed":
        return page
    lines = tables.line_df
    furn = lines[
        lines["role"].isin(("page_number", "header", "footer")) & lines["page"].between(page - 1, page + 1)
    ]
    number = re.compile(
        rf"(?:^|\s|[-\u2013\u2014])(?:page\s+)?{re.escape(key)}(?:$|\s|[-\u2013\u2014])", re.I
    )
    printing = {int(r.page) for r in furn.itertuples() if number.search(str(r.text).strip())}
    if page in printing or not printing:
        return page
    return min(printing, key=lambda p: abs(p - page))


def _object_scope(kind: str, target: str, tables: DocTables) -> list[int]:
    reg = tables.object_registry
    if reg is not None and len(reg):
        rows = reg[
            (reg["object_type"] == kind) & (reg["object_id"].astype("string").str.upper() == target.upper())
        ]
        if len(rows):
            r = rows.iloc[0]
            start = int(r["page"])
            end = int(r["page_end"]) if pd.notna(r["page_end"]) else start
            return list(range(start, max(start, end) + 1))
    # No registry entry: a caption-like line starting with the label ("Table 2: ...").
    caption = re.compile(rf"^\s*{re.escape(kind)}\s+{re.escape(target)}\b\s*[:.\-–—]?", re.I)
    lines = _lines_opening(kind, tables)
    hits = lines[lines["text"].astype(str).str.match(caption)]
    # an entry of a list of tables ("Table D-1 Title ....... 23") is not the table
    hits = hits[~hits["text"].astype(str).str.contains(r"(?:\.{3,}|\s\.\s\.)\s*[\divxlc]+\s*$", regex=True)]
    return sorted(set(hits["page"].astype(int)))[:1]


#: id(line_df) -> (line_df, {kind: its lines opening with the word, not contents entries}).
_OPENING: dict[int, tuple[pd.DataFrame, dict[str, pd.DataFrame]]] = {}


def _lines_opening(kind: str, tables: DocTables) -> pd.DataFrame:
    """The lines (not toc entries) that open with ``kind`` and a space, once per line_df object
    and kind: every caption :func:`_object_scope` looks for is among them (a 600-page document's
    ~60,000 lines were matched per ask)."""
    lines = tables.line_df
    by_kind = per_frame(_OPENING, lines, dict)
    if kind not in by_kind:
        opens = re.compile(rf"^\s*{re.escape(kind)}\s", re.I)
        by_kind[kind] = lines[lines["text"].astype(str).str.match(opens) & (lines["role"] != "toc_entry")]
    return by_kind[kind]


def _section_scope(target: str, tables: DocTables) -> list[int]:
    toc = section_ranges(tables)
    if toc.empty:
        return []
    t = target.lower()
    ids = toc["toc_id"].astype("string").str.lower()
    numbers = toc["number"].astype("string").str.lower().str.rstrip(".") if "number" in toc else ids
    titles = toc["title"].astype("string").str.lower().str.strip()
    hit = toc[(ids == t) | (numbers == t) | titles.str.match(rf"^{re.escape(t)}\.?(?:\s|$)")]
    if hit.empty:
        return []
    r = hit.iloc[0]
    return list(range(int(r["page_start"]), int(r["page_end"]) + 1))


# --- what a reference names: docintel.retrieval.refnames (re-exported above) ----------------


# --- objects a listing question asks for ("how many tables ...", "list all figures") -------------

#: Stems of the words that name an object type in a question.
OBJECT_WORDS = {
    "tabl": "table",
    "figur": "figure",
    "fig": "figure",
    "equat": "equation",
    "appendix": "appendix",
    "appendic": "appendix",
    "annex": "annex",
    "exhibit": "exhibit",
    "schedul": "schedule",
    "attach": "attachment",
}


def listed_object_type(keyword_terms: list[str]) -> str | None:
    """The object type a listing question enumerates ("tables" -> "table"), else None."""
    return next((OBJECT_WORDS[t] for t in keyword_terms if t in OBJECT_WORDS), None)


def object_pages(tables: DocTables, object_type: str) -> dict[int, str]:
    """Pages holding objects of ``object_type`` -> their labels, from object_registry, or from
    caption lines ("Table 3: ...", "Figure 2. ...") when the registry has none of that type."""
    out: dict[int, list[str]] = {}
    reg = tables.object_registry
    rows = reg[reg["object_type"] == object_type] if reg is not None and len(reg) else reg
    if rows is not None and len(rows):
        for r in rows.itertuples(index=False):
            out.setdefault(int(r.page), []).append(str(r.label or f"{object_type} {r.object_id}"))
    else:
        caption = re.compile(rf"^\s*({object_type}\s+[A-Z]?\d+(?:\.\d+)*)\s*[:.]\s", re.I)
        for r in tables.line_df.itertuples(index=False):
            m = caption.match(normalize(str(r.text)))
            if m:
                out.setdefault(int(r.page), []).append(m.group(1))
    return {p: ", ".join(labels) for p, labels in out.items()}
