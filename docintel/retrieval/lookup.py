"""Regions of the document a question can point at: TOC sections, scopes, definitions, objects.

Each function maps something the question names (a section title, "Table 2",
"page 8", a term to define, "all tables") to physical pages, using the parsed
tables (toc_df, object_registry, page_df) first and plain line patterns as a fallback.
"""

from __future__ import annotations

import functools
import math
import re

import pandas as pd

from docintel.retrieval.bm25 import PageIndex, document_memo
from docintel.schema.document import DocTables
from docintel.schema.evidence import Scope
from docintel.schema.kinds import FURNITURE_ROLES
from docintel.text import is_number, normalize, terms

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
    for title, title_list, page_start, page_end in toc_titles(tables, index):
        title_terms = set(title_list)
        if not title_terms or not (title_terms & qset):
            continue
        if len(title_terms) == 1 and all(
            index.df.get(t, 0) > SUBJECT_SHARE * index.n_pages for t in title_terms
        ):
            continue  # "BERT" in the BERT paper: the document's subject singles out no pages
        mass = math.fsum(index.idf(t) for t in title_terms)
        share = math.fsum(index.idf(t) for t in title_terms & qset) / mass
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
    t = re.escape(" ".join(normalize(term).split())).replace(r"\ ", r"[\s\-]+")
    patterns = re.compile(
        rf"\(\s*{t}\s*\)"
        rf"|\b{t}\b[\"'\u201d\u2019]{{0,2}}\s*(?:\([^)]{{1,40}}\)\s*)?,?\s*(?:(?:is|are)\s+(?:an?|the|defined|called)|means|refers to|denotes"
        rf"|stands for)\b"
        rf"|\b(?:called|termed|known as|denoted(?: by)?|defined as)\s+(?:an?\s+|the\s+)?[\"']?{t}\b"
        rf"|^\s*{t}\s*(?::|-|–|—)",
        re.I,
    )
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
    lines = tables.line_df
    hits = lines[lines["text"].astype(str).str.match(caption) & (lines["role"] != "toc_entry")]
    # an entry of a list of tables ("Table D-1 Title ....... 23") is not the table
    hits = hits[~hits["text"].astype(str).str.contains(r"(?:\.{3,}|\s\.\s\.)\s*[\divxlc]+\s*$", regex=True)]
    return sorted(set(hits["page"].astype(int)))[:1]


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


# --- what a reference names (resolve.py reads these) -------------------------------------------


def norm_id(value: str | None) -> str:
    """An id as compared: trailing dots, colons and spaces dropped, lower case ("3.2." -> "3.2")."""
    return re.sub(r"[\s.:]+$", "", str(value or "")).strip().lower()


def find_sections(tables: DocTables, target: str | None, *, paren: bool = True) -> pd.DataFrame:
    """toc_df rows a reference names: by id or number ("5.2", "(q)"; with ``paren`` "b" also
    finds "(b)", as "paragraph b" means; "subpart C" never means "(C)"), else by title
    ("see the Flightcrew Training section")."""
    toc = tables.toc_df
    if toc.empty or not target:
        return toc.iloc[0:0]
    key = norm_id(target)
    ids, nums = _toc_norm(tables, "ids"), _toc_norm(tables, "nums")
    hit = toc[(ids == key) | (nums == key)]
    if len(hit):
        # a row read off a contents page ("2.2.2 Complex Type NameIDType ......... 13") lists the
        # section, it is not the section: the heading it names is found by its line instead
        hit = hit[[not _contents_row(tables, r) for r in hit.itertuples(index=False)]]
    if hit.empty and paren and not key.startswith("("):
        hit = toc[(ids == f"({key})") | (nums == f"({key})")]
    dotted = re.fullmatch(r"([0-9]+(?:\.[0-9]+)*)\.([a-z])", key)
    if hit.empty and dotted:  # "clause 5.F" cites the paragraph printed "F." under 5: toc "5(F)"
        hit = toc[ids == f"{dotted[1]}({dotted[2]})"]
    if hit.empty and len(key) > 3 and " " in key or (hit.empty and key.isalpha() and len(key) > 3):
        # a section named, not numbered ("see the Flightcrew Training section")
        titles = _toc_norm(tables, "titles")
        name = re.sub(r"\W+", " ", key).strip()
        hit = toc[titles == name]
        if hit.empty:
            hit = toc[titles.str.startswith(name)]
    return hit


def find_labelled(tables: DocTables, label: str, target: str) -> pd.DataFrame:
    """The toc row whose id is the label and the id as the document prints them ("Article 6",
    "Rule 12"; a provision the parser keyed by its keyword), never a contents-page entry."""
    toc = tables.toc_df
    if toc.empty or not label or not target:
        return toc.iloc[0:0]
    keys = {
        norm_id(f"{lab} {target}") for lab in (label, re.sub(r"(?i)s$", "", label))
    }  # "Articles 12 to 22"
    hit = toc[_toc_norm(tables, "ids").isin(keys)]
    return hit[[not _contents_row(tables, r) for r in hit.itertuples(index=False)]].head(1)


_LEADER_TITLE = re.compile(r"(?:\.\s?){4,}\s*[0-9ivxlc]*\s*$")


def _contents_row(tables: DocTables, row) -> bool:
    """Whether a toc row is a contents entry: its title, or the line it starts on, ends in dot
    leaders and a page number."""
    if _LEADER_TITLE.search(str(row.title or "")):
        return True
    if pd.isna(row.page_start) or pd.isna(row.line_start):
        return False
    return (int(row.page_start), int(row.line_start)) in _leader_lines(tables)


#: id(line_df) -> (line_df, {(page, line) of the lines ending in dot leaders and a page number}).
_LEADERS: dict[int, tuple[pd.DataFrame, set]] = {}


def _leader_lines(tables: DocTables) -> set[tuple[int, int]]:
    ldf = tables.line_df
    hit = _LEADERS.get(id(ldf))
    if hit is None or hit[0] is not ldf:
        if len(_LEADERS) >= 8:
            _LEADERS.pop(next(iter(_LEADERS)))
        # a scan of every line: document-only, so kept (and stored) with the retrieval index
        hit = _LEADERS[id(ldf)] = (
            ldf,
            document_memo(tables, "leader_lines", lambda: _scan_leader_lines(ldf)),
        )
    return hit[1]


def _scan_leader_lines(ldf: pd.DataFrame) -> set[tuple[int, int]]:
    dotted = ldf[ldf["text"].astype(str).str.contains(_LEADER_TITLE)]
    return set(zip(dotted["page"].astype(int), dotted["line"].astype(int), strict=True))


#: id(toc_df) -> (toc_df, {"ids" | "nums" | "titles": the column as find_sections compares it}).
_TOC_NORM: dict[int, tuple[pd.DataFrame, dict]] = {}
_TOC_COLUMNS = {"ids": "toc_id", "nums": "number", "titles": "title"}


def _toc_norm(tables: DocTables, what: str) -> pd.Series:
    """toc_df's ids, numbers (:func:`norm_id`) or titles (words only, lower case): document-only,
    so kept (and stored) with the retrieval index; a reference resolved per ask no longer maps
    the whole toc each time."""
    toc = tables.toc_df
    hit = _TOC_NORM.get(id(toc))
    if hit is None or hit[0] is not toc:
        if len(_TOC_NORM) >= 8:
            _TOC_NORM.pop(next(iter(_TOC_NORM)))
        hit = _TOC_NORM[id(toc)] = (toc, {})
    cols = hit[1]
    if what not in cols:
        values = document_memo(tables, "toc_norm", lambda: toc_norm_values(toc))[what]
        cols[what] = pd.Series(values, index=toc.index, name=_TOC_COLUMNS[what])
    return cols[what]


def toc_norm_values(toc: pd.DataFrame) -> dict[str, list[str]]:
    """The columns :func:`_toc_norm` serves, as lists."""
    return {
        "titles": toc["title"].fillna("").map(lambda t: re.sub(r"\W+", " ", t).strip().lower()).tolist(),
        "ids": toc["toc_id"].map(norm_id).tolist(),
        "nums": toc["number"].map(norm_id).tolist(),
    }


def find_titled(tables: DocTables, kind, target: str) -> pd.DataFrame:
    """toc_df rows whose title opens with one of ``kind``'s labels and the id ``target`` ("Item 7.
    Management's Discussion", "Line 16 Tax", "Worksheet A"): a unit the toc numbers by its label."""
    toc = tables.toc_df
    if toc.empty or not target:
        return toc.iloc[0:0]
    words = "|".join(w for _, w in kind.words)
    rx = re.compile(rf"^\s*(?:{words})\s+{re.escape(str(target))}(?![\w.]|\.[0-9A-Za-z])", re.I)
    return toc[toc["title"].fillna("").astype(str).str.match(rx)]


#: Object types of the back matter, which references name interchangeably.
BACK_MATTER = ("appendix", "annex", "exhibit", "schedule", "attachment")


def find_objects(tables: DocTables, ref_type: str, target: str | None) -> pd.DataFrame:
    """object_registry rows of ``ref_type`` with id ``target``.

    The back-matter kinds stand for each other (the reference grammar types "Exhibit B",
    "Schedule I" and "Attachment 2" as ``appendix``; a document calls its annex what it likes):
    rows of the reference's own type come first, then the others.
    """
    reg = tables.object_registry
    if reg.empty:
        return reg
    types = (ref_type, *(t for t in BACK_MATTER if t != ref_type)) if ref_type in BACK_MATTER else (ref_type,)
    # the rows of each type in registry order, then by type: a stable sort by the type's rank
    by_type, ids = _registry_rows(reg)
    key = norm_id(target) if target else None
    at = [i for t in types for i in by_type.get(t, ()) if key is None or ids[t][i] == key]
    return reg.iloc[at]


#: id(object_registry) -> (the frame, {type: its row positions}, {type: {position: norm_id(id)}}).
_REG_ROWS: dict[int, tuple] = {}


def _registry_rows(reg: pd.DataFrame) -> tuple[dict, dict]:
    """The registry's row positions by object type, and each type's ids as :func:`norm_id`
    compares them (mapped once per type, as a filter of that type's rows maps them), once per
    registry object: a reference resolved per ask no longer filters and sorts the registry."""
    hit = _REG_ROWS.get(id(reg))
    if hit is None or hit[0] is not reg:
        if len(_REG_ROWS) >= 8:
            _REG_ROWS.pop(next(iter(_REG_ROWS)))
        by_type: dict = {}
        for i, t in enumerate(reg["object_type"].tolist()):
            by_type.setdefault(t, []).append(i)
        hit = _REG_ROWS[id(reg)] = (reg, by_type, _LazyIds(reg, by_type))
    return hit[1], hit[2]


class _LazyIds(dict):
    """type -> {row position: norm_id(object_id)}, mapped on first use of the type."""

    def __init__(self, reg: pd.DataFrame, by_type: dict) -> None:
        super().__init__()
        self._reg, self._by_type = reg, by_type

    def __missing__(self, t):
        at = self._by_type.get(t, [])
        value = self[t] = dict(zip(at, self._reg["object_id"].iloc[at].map(norm_id).tolist(), strict=True))
        return value


@functools.cache
def _back_title() -> re.Pattern:
    """A title opening with a back-matter label in any language the reference grammar reads
    ("Appendix", "Annexe", "Apêndice", "Anhang", "Exhibit", "Schedule", ...)."""
    from docintel.parsing.refkinds import KINDS

    words = "|".join(w for k in KINDS if k.ref_type == "appendix" or k.name == "annex" for _, w in k.words)
    return re.compile(rf"^\s*(?:{words})\b", re.I)


def appendix_sections(tables: DocTables) -> pd.DataFrame:
    """Sections that are appendices: titled so, or top-level sections after the references."""
    toc = tables.toc_df
    if toc.empty:
        return toc
    titled = toc[toc["title"].str.contains(_back_title(), na=False)]
    if not titled.empty:
        return titled
    refs = toc[toc["title"].str.fullmatch(r"\s*(?:references|bibliography)\s*", case=False, na=False)]
    if refs.empty:
        return toc.iloc[0:0]
    after = toc[(toc.index > refs.index[-1]) & (toc["level"] <= int(refs.iloc[-1]["level"]))]
    return after


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
