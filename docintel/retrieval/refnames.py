"""What a reference names, found in the tables: toc rows by id, number, label or title, and
object_registry rows by type and id (``resolve.py`` reads these; ``lookup`` re-exports them).

Ids compare as :func:`norm_id` makes them ("3.2." is "3.2"); a contents-page entry ("2.2.2
Complex Type NameIDType ....... 13") lists a section and is never the section itself.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

import pandas as pd

from docintel.retrieval.bm25 import _page_rows as page_rows
from docintel.retrieval.bm25 import document_memo
from docintel.retrieval.framememo import per_frame
from docintel.retrieval.narrow import toc_parents
from docintel.schema.document import DocTables


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
    ids = _toc_norm(tables, "ids")
    at = _id_positions(tables, key)  # the rows ``(ids == key) | (nums == key)`` selects
    # a row read off a contents page ("2.2.2 Complex Type NameIDType ......... 13") lists the
    # section, it is not the section: the heading it names is found by its line instead
    hit = toc.iloc[[i for i in at if not _contents_at(tables, i)]]
    if hit.empty and paren and not key.startswith("("):
        hit = toc.iloc[_id_positions(tables, f"({key})")]
    dotted = re.fullmatch(r"([0-9]+(?:\.[0-9]+)*)\.([a-z])", key)
    if hit.empty and dotted:  # "clause 5.F" cites the paragraph printed "F." under 5: toc "5(F)"
        hit = toc[ids == f"{dotted[1]}({dotted[2]})"]
    if hit.empty and re.fullmatch(r"[ivxlc]+[.\-\u2013][a-z](?:\.[0-9]+)*", key):
        hit = _by_path(tables, key)  # "Section II.B.3": the "3." under "B." under "II."
    if hit.empty and len(key) > 3 and " " in key or (hit.empty and key.isalpha() and len(key) > 3):
        # a section named, not numbered ("see the Flightcrew Training section")
        titles = _toc_norm(tables, "titles")
        name = re.sub(r"\W+", " ", key).strip()
        hit = toc[titles == name]
        if hit.empty:
            hit = toc[titles.str.startswith(name)]
    return hit


def _id_positions(tables: DocTables, key: str) -> list[int]:
    """Positions (in toc order) of the toc rows whose normalised id or number is ``key``: a
    lookup in a map built once per toc frame, not two comparisons over the whole toc per
    reference."""
    cols = per_frame(_TOC_NORM, tables.toc_df, dict)
    if "by_id" not in cols:
        by_id: dict[str, set[int]] = {}
        for what in ("ids", "nums"):
            for i, v in enumerate(_toc_norm(tables, what).tolist()):
                by_id.setdefault(v, set()).add(i)
        cols["by_id"] = {v: sorted(at) for v, at in by_id.items()}
    return cols["by_id"].get(key, [])


class _TocRow(NamedTuple):
    title: object
    page_start: object
    line_start: object


def _contents_at(tables: DocTables, i: int) -> bool:
    """:func:`contents_row` of the toc row at position ``i``, once per row and document (the
    row's values as ``itertuples`` gives them)."""
    cols = per_frame(_TOC_NORM, tables.toc_df, dict)
    memo = cols.get("contents")
    if memo is None or memo[0] is not tables.line_df:
        toc = tables.toc_df
        memo = cols["contents"] = (
            tables.line_df,
            {},
            [toc[c].tolist() for c in ("title", "page_start", "line_start")],
        )
    flags, (titles, starts, lines) = memo[1], memo[2]
    if i not in flags:
        flags[i] = contents_row(tables, _TocRow(titles[i], starts[i], lines[i]))
    return flags[i]


def _by_path(tables: DocTables, key: str) -> pd.DataFrame:
    """The toc row a roman-letter path ("ii.b.3", "v-a") names when the document numbers each level
    on its own (a part "II.", its lettered section "B.", that section's "3."): the row numbered like
    the path's last step whose ancestors are numbered like the steps before it, outermost first."""
    toc = tables.toc_df
    steps = re.split(r"[.\-\u2013]", key)
    nums = _toc_norm(tables, "nums")
    num_of = dict(zip(toc["toc_id"], nums, strict=True))
    parent_of = toc_parents(toc)
    keep = []
    for i, tid in zip(toc.index[nums == steps[-1]], toc["toc_id"][nums == steps[-1]], strict=True):
        up, want = parent_of.get(tid), list(reversed(steps[:-1]))
        while want and isinstance(up, str):
            if num_of.get(up) == want[0]:
                want.pop(0)
            up = parent_of.get(up)
        if not want:
            keep.append(i)
    hit = toc.loc[keep]
    return hit[[not contents_row(tables, r) for r in hit.itertuples(index=False)]].head(1)


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
    hit = hit[[not contents_row(tables, r) for r in hit.itertuples(index=False)]]
    if hit.empty:
        hit = _printed_with_label(tables, label, str(target))
    return hit.head(1)


def _printed_with_label(tables: DocTables, label: str, target: str) -> pd.DataFrame:
    """A toc row the parser keyed without its keyword whose heading the document prints with it:
    the provision "7.1" of the line "Rule 7.1 Disclosure Statement", or an unnumbered heading row
    titled "RULE 7.1 DISCLOSURE STATEMENT". The label must open the heading line, so "Rule 7.1"
    never lands on the "7.1" paragraph of some section."""
    toc = tables.toc_df
    words = "|".join(re.escape(w) for w in {label, re.sub(r"(?i)s$", "", label)} if w)
    opens = re.compile(rf"^\s*(?:{words})\.?\s+{re.escape(target)}(?!\w|\.?[0-9A-Za-z(])", re.I)
    key = norm_id(target)
    cand = toc[(_toc_norm(tables, "nums") == key) | toc["title"].fillna("").astype(str).str.match(opens)]
    keep = []
    for i, r in zip(cand.index, cand.itertuples(index=False), strict=True):
        if contents_row(tables, r) or pd.isna(r.page_start) or pd.isna(r.line_start):
            continue
        rows = page_rows(tables.line_df, int(r.page_start))
        text = rows.loc[rows["line"] == int(r.line_start), "text"]
        m = opens.match(str(text.iloc[0])) if len(text) else None
        if m is None:
            continue
        if not str(text.iloc[0])[m.end() :].strip(" .:-\u2013\u2014"):
            # the label alone ("CHAPTER 1" over its title) is the unit's own heading, found by the
            # labelled line (the row holding the chapter); a "Chapter 1. Compilation" elsewhere is
            # a running header
            return toc.iloc[0:0]
        keep.append(i)
    return toc.loc[keep]


_LEADER_TITLE = re.compile(r"(?:\.\s?){4,}\s*[0-9ivxlc]*\s*$")


def contents_row(tables: DocTables, row) -> bool:
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
    # a scan of every line: document-only, so kept (and stored) with the retrieval index
    return per_frame(
        _LEADERS, ldf, lambda: document_memo(tables, "leader_lines", lambda: _scan_leader_lines(ldf))
    )


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
    cols = per_frame(_TOC_NORM, toc, dict)
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
    if re.search(rf"\s(?:{words})$", str(target), re.I):  # named by its title ("Credit Limit Worksheet")
        rx = re.compile(
            r"^\s*(?:the\s+)?" + r"\s+".join(map(re.escape, str(target).split())) + r"(?!\w)", re.I
        )
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
    if not target:
        return reg.iloc[[i for t in types for i in by_type.get(t, ())]]
    at = _rows_with_id(by_type, ids, types, norm_id(target))
    panel = re.fullmatch(r"(.*[0-9])[a-z]", str(target)) if ref_type in ("figure", "table") else None
    if not at and panel:  # "Figure 3b": 3's panel
        at = _rows_with_id(by_type, ids, types, norm_id(panel.group(1)))
    return reg.iloc[at]


def _rows_with_id(by_type: dict, ids: dict, types: tuple, key: str) -> list[int]:
    return [i for t in types for i in by_type.get(t, ()) if ids[t][i] == key]


#: id(object_registry) -> (the frame, ({type: its row positions}, {type: {position: norm_id(id)}})).
_REG_ROWS: dict[int, tuple] = {}


def _registry_rows(reg: pd.DataFrame) -> tuple[dict, dict]:
    """The registry's row positions by object type, and each type's ids as :func:`norm_id`
    compares them (mapped once per type), once per registry object: a reference resolved per
    ask no longer filters and sorts the registry."""

    def group() -> tuple[dict, _LazyIds]:
        by_type: dict = {}
        for i, t in enumerate(reg["object_type"].tolist()):
            by_type.setdefault(t, []).append(i)
        return by_type, _LazyIds(reg, by_type)

    return per_frame(_REG_ROWS, reg, group)


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
