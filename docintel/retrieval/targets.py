"""Target regions for pass 2: a section, an object (with its sub-selector) or a page, as Passages.

Shared by resolve.py (pass 2) and anything else that needs "the lines of X".
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.retrieval.evidence_slices import (  # noqa: F401  (re-exported: the resolver's callers import them here)
    evidence_after,
    evidence_between,
    evidence_lines,
    evidence_page,
    evidence_pages_after,
    indexed_line_terms,
    nearest_evidence_line,
    nearest_line,
    object_cells,
)
from docintel.retrieval.lookup import listed_object_type
from docintel.retrieval.rank import query_terms
from docintel.retrieval.windows import _score_lines, best_section_window, best_window
from docintel.schema.document import DocTables
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.schema.kinds import HEADING_ROLES

_ROW_TAG = re.compile(r"\(([A-Za-z0-9]{1,3})\)")
#: A form's line, box or item as a sub-selector ("line 22", "Line 8z", "box 1a").
_FORM_LINE = re.compile(r"^(?i:(line|box|item)s?)[\s\u00a0]+([0-9]{1,3}[a-z]{0,2})$")


def opens_item(text: str, tag: str, closing: bool = True) -> bool:
    """Whether a line opens item ``tag`` as "(2) ..." or, in the closing-bracket or full-stop
    styles contracts, rule books and constitutions also number in, "2) ..." / "2. ..." (the
    parser keeps no provision row for those: "§4.1(3)" is the "3." under "4.1. Powers");
    ``closing=False`` takes "(2)" only (see :func:`closing_items`)."""
    return text.startswith(f"({tag})") or (
        closing
        and (text.startswith(f"{tag})") or text.startswith(f"{tag}."))
        and text[len(tag) + 1 : len(tag) + 2] in ("", " ", "\t", "\u00a0")
    )


_PAREN_ITEM = re.compile(r"\([A-Za-z0-9]{1,4}\)")


def closing_items(texts: list[str]) -> bool:
    """Whether a provision's first sub-selector may open at a "3)" line: only when the provision
    prints no "(a)" / "(1)" paragraph of its own. "Section 5.01(3)" of a section with (a) and (b)
    is no "3)" nested under its (a) (the head of the section is the better passage)."""
    return not any(_PAREN_ITEM.match(t) for t in texts)


def form_line(sub: str | None) -> re.Pattern | None:
    """The lines opening the form's line ``sub`` names ("line 22": "22.", "22 Tax on ...",
    "Line 22. ..."), None when ``sub`` names no form line."""
    m = _FORM_LINE.match((sub or "").strip())
    if m is None:
        return None
    # "22." / "22 Tax on ...", never "5.1 ..." (a section's number) or "5 percent of" (a sentence)
    label, num = m.group(1), re.escape(m.group(2))
    return re.compile(rf"^(?i:{label}[\s\u00a0]+)?(?i:{num})(?:[.:)](?![0-9])|[\s\u00a0]+(?![0-9a-z])\S)")


#: Caption lines a section target brings beyond its window (about four captions).
MAX_CAPTION_LINES = 16


def to_passages(
    df: pd.DataFrame,
    doc_id: str,
    *,
    retrieved_via: str = "reference",
    ref=None,
    note: str = "",
) -> list[Passage]:
    """Contiguous runs of lines (per page) as Passages carrying the loop's provenance."""
    passages: list[Passage] = []
    if df.empty:
        return passages
    origin = (ref.origin_page, ref.origin_line) if ref is not None else None
    rtext = ref.raw_text if ref is not None else None
    df = df.sort_values(["page", "line"])
    cols = [df[c].tolist() for c in ("page", "line", "text", "role")]
    synthetic = df["synthetic"].tolist() if "synthetic" in df.columns else [False] * len(df)
    # runs of consecutive lines, page by page (the frame is sorted: a page's rows are contiguous)
    run: list = []
    for row, syn in zip(zip(*cols, strict=True), synthetic, strict=True):
        if run and (row[0] != run[-1][0] or (row[1] > run[-1][1] + 1 and not syn)):
            passages.append(_passage(run, doc_id, retrieved_via, origin, rtext, note))
            run = []
        run.append(row)
    if run:
        passages.append(_passage(run, doc_id, retrieved_via, origin, rtext, note))
    return passages


def _passage(rows, doc_id, via, origin, rtext, note) -> Passage:
    lines = [
        EvidenceLine(page=int(page), line=int(line), text=str(text), role=str(role or "body"))
        for page, line, text, role in rows
    ]
    return Passage(
        doc_id=doc_id,
        page=lines[0].page,
        line_start=min(ln.line for ln in lines),
        line_end=max(ln.line for ln in lines),
        lines=lines,
        retrieved_via=via,
        referenced_from=origin,
        reference_text=rtext,
        note=note,
    )


def section_lines(tables: DocTables, sec) -> pd.DataFrame:
    """Evidence lines of one toc_df row, from its heading to its end (subsections included)."""
    ps, ls = int(sec["page_start"]), int(sec["line_start"]) if pd.notna(sec["line_start"]) else 1
    pe = int(sec["page_end"]) if pd.notna(sec["page_end"]) else ps
    le = int(sec["line_end"]) if pd.notna(sec["line_end"]) else 10**6
    return evidence_between(tables, (ps, ls), (pe, le))


def _heading_rows(part: pd.DataFrame) -> int:
    """How many leading lines of a section are its (possibly wrapped) heading."""
    n = 0
    for role in part["role"].tolist():
        if role not in HEADING_ROLES:
            break
        n += 1
    return max(n, 1)


def section_passages(
    tables,
    secs: pd.DataFrame,
    q,
    *,
    sub_selector=None,
    max_lines=40,
    ref=None,
    note="",
    retrieved_via="reference",
) -> list[Passage]:
    """The best ``max_lines`` of the given sections, each keeping its heading.

    With several sections ("paragraphs (g) through (l)") the budget goes where the question
    points: the best-matching section gets half of it, the others share the rest (heading plus
    their best lines), so a long range never crowds out the one paragraph that answers.
    """
    parts = [section_lines(tables, s) for _, s in secs.iterrows()]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return []
    tags = _ROW_TAG.findall(sub_selector or "")
    opens = form_line(sub_selector)
    if opens is not None:  # "Part II, line 5": from the heading to the line the part numbers 5
        for i, part in enumerate(parts):
            texts = part["text"].astype(str).str.strip().tolist()
            first = _heading_rows(part)
            pos = next((k for k in range(first, len(texts)) if opens.match(texts[k])), None)
            if pos is not None:
                parts[i] = pd.concat([part.iloc[:first], part.iloc[pos:]])
    elif tags:  # "paragraph (b)(1)": start at the line that opens (b), then the (1) after it
        for i, part in enumerate(parts):
            texts = part["text"].astype(str).str.strip().tolist()
            pos = 0
            closing = closing_items(texts[_heading_rows(part) :])
            for j, t in enumerate(tags):
                nxt = next(
                    (k for k in range(pos, len(texts)) if opens_item(texts[k], t, j > 0 or closing)), None
                )
                if nxt is None:
                    break
                pos = nxt
            if pos:
                head = part.iloc[: _heading_rows(part)]
                parts[i] = pd.concat([head, part.iloc[pos:]]).drop_duplicates()
    budgets = [max_lines] * len(parts)
    if len(parts) > 1:
        scores = [sum(_score_lines(p, q)) for p in parts]
        best = max(range(len(parts)), key=lambda i: (scores[i], -i))
        rest = max((max_lines - max_lines // 2) // (len(parts) - 1), 4)
        budgets = [max_lines // 2 if i == best else rest for i in range(len(parts))]
    line_terms = indexed_line_terms(tables)
    chosen = [
        best_section_window(
            part, q, budget, keep_first=min(_heading_rows(part), budget - 1) or 1, line_terms=line_terms
        )
        for part, budget in zip(parts, budgets, strict=True)
    ]
    # A section is given with what it holds: the captions of its figures and tables say what
    # each shows (an appendix of figures is its captions), even when the window missed them.
    captions = [part[part["role"] == "caption"].head(MAX_CAPTION_LINES) for part in parts]
    df = pd.concat([*chosen, *captions])
    df = df[~df.index.duplicated()]
    return to_passages(df, tables.doc_id, retrieved_via=retrieved_via, ref=ref, note=note)


def page_passages(
    tables, page: int, q, *, max_lines=60, ref=None, note="", retrieved_via="reference"
) -> list[Passage]:
    return to_passages(
        best_window(evidence_page(tables, page), q, max_lines, keep_first=0),
        tables.doc_id,
        retrieved_via=retrieved_via,
        ref=ref,
        note=note,
    )


def _cell_rows(tables: DocTables, cells: pd.DataFrame, fallback_line: int) -> list[dict] | None:
    """The selected cells as one synthetic line per table row ('cell | cell | ...', at the
    evidence line nearest the row), from plain lists; None when a row or column number is
    missing or not a numpy integer (the pandas path decides those)."""
    row_col, col_col = cells["row"].to_numpy(), cells["col"].to_numpy()
    if row_col.dtype.kind not in "iu" or col_col.dtype.kind not in "iu":
        return None
    pages, texts = cells["page"].tolist(), cells["text"].tolist()
    top, bottom = cells["y0"].tolist(), cells["y1"].tolist()
    groups: dict[int, list[int]] = {}
    for pos, r in enumerate(row_col.tolist()):
        groups.setdefault(r, []).append(pos)
    out = []
    for r in sorted(groups):
        pos = np.asarray(groups[r])
        pos = pos[np.argsort(col_col[pos], kind="quicksort")]  # grp.sort_values("col")
        cpage = int(pages[pos[0]])
        y0 = [top[i] for i in pos if top[i] == top[i]]
        y1 = [bottom[i] for i in pos if bottom[i] == bottom[i]]
        if not y0 or not y1:
            return None
        line = nearest_evidence_line(tables, cpage, float(min(y0)), float(max(y1))) or fallback_line
        text = " | ".join(str(texts[i] or "") for i in pos)
        out.append({"page": cpage, "line": line, "text": text, "role": "table", "synthetic": True})
    return out


def select_rows(cells: pd.DataFrame, sub_selector: str | None) -> list[int]:
    """Row indices a sub-selector picks: 'row (E)' -> the rows of group (E); 'bottom line' -> last row."""
    body = cells[~cells["is_header"].fillna(False)]
    rows = sorted(body["row"].unique().tolist())
    if not rows or not sub_selector:
        return rows
    sel = sub_selector.lower()
    if any(w in sel for w in ("bottom", "last", "final")):
        return rows[-1:]
    m = _ROW_TAG.search(sub_selector) or re.search(r"row\s+([A-Za-z0-9]+)", sub_selector, re.I)
    if not m:
        return rows
    tag = m.group(1).lower()
    labels = body.groupby("row")["row_label"].first()
    picked, inside = [], False
    for r in rows:
        lab = str(labels.get(r) or "").strip().lower()
        if lab:
            inside = lab in (tag, f"({tag})") or lab.startswith(f"({tag})")
        if inside:
            picked.append(r)
    return picked or rows


def object_passages(
    tables, obj, q, *, sub_selector=None, max_lines=40, ref=None, note="", retrieved_via="reference"
) -> list[Passage]:
    """Caption plus body of a registered object; for tables the header row(s) plus the
    rows the sub-selector picks, rendered 'cell | cell | ...' so values keep their columns."""
    return object_passages_counted(
        tables,
        obj,
        q,
        sub_selector=sub_selector,
        max_lines=max_lines,
        ref=ref,
        note=note,
        retrieved_via=retrieved_via,
    )[0]


def object_passages_counted(
    tables, obj, q, *, sub_selector=None, max_lines=40, ref=None, note="", retrieved_via="reference"
) -> tuple[list[Passage], int]:
    """:func:`object_passages` and how many lines the object's region has before the ``max_lines``
    cut: ``n_lines(object_passages(..., max_lines=10**6))`` without building the region twice
    (every row of the frame goes to exactly one passage, so the count is the uncut frame's length)."""
    lines = evidence_lines(tables)
    page = int(obj["page"])
    ls = int(obj["line_start"]) if pd.notna(obj["line_start"]) else None
    le = int(obj["line_end"]) if pd.notna(obj["line_end"]) else ls
    caption = evidence_between(tables, (page, ls or 0), (page, le or -1)) if ls else lines.iloc[0:0]
    cells = object_cells(tables, obj["object_key"])
    rows: list[dict] = []
    if not cells.empty:
        keep = set(cells.loc[cells["is_header"].fillna(False), "row"]) | set(select_rows(cells, sub_selector))
        fast = _cell_rows(tables, cells[cells["row"].isin(keep)], ls or 1)
        for _row, grp in () if fast is not None else cells[cells["row"].isin(keep)].groupby("row", sort=True):
            grp = grp.sort_values("col")
            cpage = int(grp["page"].iloc[0])
            pl = evidence_page(tables, cpage)
            line = nearest_line(pl, float(grp["y0"].min()), float(grp["y1"].max())) or (ls or 1)
            rows.append(
                {
                    "page": cpage,
                    "line": line,
                    "text": " | ".join(str(t or "") for t in grp["text"]),
                    "role": "table",
                    "synthetic": True,
                }
            )
        body = pd.DataFrame(fast if fast is not None else rows)
    else:
        body = lines[lines["object_key"] == obj["object_key"]] if "object_key" in lines else lines.iloc[0:0]
        body = body[~body.index.isin(caption.index)]
        if body.empty and obj["object_type"] == "table" and ls:
            body = evidence_after(tables, page, le or ls, 30)
            body = body[body["page"] == page]
        if sub_selector and not body.empty:
            body = _filter_text_rows(body, sub_selector)
    parts = [
        p
        for p in (caption.assign(synthetic=False) if not caption.empty else None, body)
        if p is not None and len(p)
    ]
    if not parts:
        return [], 0
    df = pd.concat(parts, ignore_index=True)
    region = len(df)
    if len(df) > max_lines:
        df = pd.concat([df.head(2), best_window(df.iloc[2:], q, max_lines - 2, keep_first=0)])
    df["synthetic"] = df["synthetic"].fillna(False).astype(bool) if "synthetic" in df else False
    label = f"{obj['label']}" + (f" {sub_selector}" if sub_selector else "")
    passages = to_passages(
        df, tables.doc_id, retrieved_via=retrieved_via, ref=ref, note=(note + f" [{label}]").strip()
    )
    return passages, region


def _filter_text_rows(body: pd.DataFrame, sub_selector: str) -> pd.DataFrame:
    """Without cells: header lines plus the lines of the selected row group (by its tag)."""
    sel = sub_selector.lower()
    if any(w in sel for w in ("bottom", "last", "final")):
        return pd.concat([body.head(2), body.tail(1)]).drop_duplicates()
    m = _ROW_TAG.search(sub_selector)
    if not m:
        return body
    tag = f"({m.group(1)})"
    texts = body["text"].str.strip()
    start = body.index[texts.str.startswith(tag)]
    if not len(start):
        return body
    pos = body.index.get_loc(start[0])
    end = pos + 1
    while end < len(body) and not _ROW_TAG.match(texts.iloc[end]):
        end += 1
    return pd.concat([body.head(2), body.iloc[pos:end]]).drop_duplicates()


def caption_passages(tables: DocTables, objs: pd.DataFrame, *, note: str = "") -> list[Passage]:
    """The caption lines of every object in ``objs`` (one passage each), for listing questions."""
    lines = evidence_lines(tables)
    keys = set()
    for o in objs.itertuples(index=False):
        if pd.isna(o.line_start):
            continue
        end = int(o.line_end) if pd.notna(o.line_end) else int(o.line_start)
        keys |= {(int(o.page), ln) for ln in range(int(o.line_start), end + 1)}
    sel = lines[[(p, ln) in keys for p, ln in zip(lines["page"], lines["line"], strict=True)]]
    return to_passages(sel, tables.doc_id, retrieved_via="primary", note=note)


_SENT_END = re.compile(r"[.!?:;][\"'\u201d)\]]*\s*$")


def extend_to_sentence_end(tables: DocTables, passage: Passage, *, max_extra: int = 6) -> Passage:
    """Continue ``passage`` past its last line, in reading order (across a page break too),
    until a line ends a sentence: evidence never stops mid-sentence ("... may be emailed to:")."""
    if not passage.lines or _SENT_END.search(passage.lines[-1].text):
        return passage
    last = passage.lines[-1]
    after = evidence_after(tables, last.page, last.line, max_extra)
    extra: list[EvidenceLine] = []
    for r in after.itertuples(index=False):
        if r.role in ("heading", "title", "caption"):
            break
        extra.append(
            EvidenceLine(page=int(r.page), line=int(r.line), text=str(r.text), role=str(r.role or "body"))
        )
        if _SENT_END.search(str(r.text)):
            break
    if not extra:
        return passage
    same = [e for e in extra if e.page == passage.page]
    return passage.model_copy(
        update={"lines": passage.lines + extra, "line_end": max([passage.line_end] + [e.line for e in same])}
    )


#: Where a definition question's term is introduced outside the first-hop passage, this many
#: lines from the defining line are added to pass 1 (a contract's "Business Day" means ...),
#: at most :data:`MAX_DEFINITION_SITES` places.
DEFINITION_LINES = 4
MAX_DEFINITION_SITES = 2


def definition_passages(tables: DocTables, q: ParsedQuestion, passages: list[Passage]) -> list[Passage]:
    """The lines that define a definition question's term, when the first hop lacks them: the
    term is used where the question is asked and defined elsewhere (definitions clause,
    glossary)."""
    from docintel.retrieval.lookup import definition_pages

    if q.shape != "definition" or not q.defined_term:
        return []
    have = {(ln.page, ln.line) for p in passages for ln in p.lines}
    out: list[Passage] = []
    for page, line in list(definition_pages(tables, q.defined_term).items())[:MAX_DEFINITION_SITES]:
        if (page, line) in have:
            continue
        rows = evidence_between(tables, (page, line), (page, line + DEFINITION_LINES - 1))
        note = f"where '{q.defined_term}' is defined (page {page}, line {line})"
        out += to_passages(rows, tables.doc_id, retrieved_via="definition", note=note)
    return out


def listed_object_passages(
    tables: DocTables, q: ParsedQuestion
) -> tuple[str | None, list[str], list[Passage]]:
    """A listing question about a registered object type ("how many tables...") is answered
    from the registry: every such object's caption, not the best-matching page. Returns the
    object type, the objects' keys and their caption passages (empty when it does not apply)."""
    if q.shape != "list":
        return None, [], []
    otype = listed_object_type(query_terms(q))
    reg = tables.object_registry
    objs = reg[reg["object_type"] == otype] if otype else reg.iloc[0:0]
    if objs.empty:
        return otype, [], []
    note = f"every {otype} in object_registry ({len(objs)})"
    return otype, objs["object_key"].tolist(), caption_passages(tables, objs, note=note)


def unread_pages_warning(tables: DocTables) -> list[str]:
    """Say so when pages could not be read: an empty page is not a page without the answer."""
    pdf_ = tables.page_df
    unread = pdf_[pdf_["image_only"].fillna(False).astype(bool) & (pdf_["n_lines"] == 0)]
    if not len(unread):
        return []
    pages = ", ".join(str(int(p)) for p in unread["page"].head(20))
    return [
        f"{len(unread)} page(s) have no text layer and no text could be read on them (pages {pages});"
        " image-only pages are OCR'd only where Tesseract is installed"
        " (apt-get install tesseract-ocr tesseract-ocr-eng)"
    ]
