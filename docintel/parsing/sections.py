"""toc_df rows from ordered heading entries: ids, parents, section ranges; line_df.section_id."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.parsing import frame_rows
from docintel.schema.tables import TOC_DF


def toc_id_for(kind: str | None, number: str | None) -> str | None:
    """The toc_id a numbered heading gets: '3.2.2', '(q)', 'A', '39.13'."""
    if not number:
        return None
    n = number.strip().rstrip(".")
    if kind == "section_sign":
        return n.lstrip("\u00a7 ").strip()
    return n


def relative_levels(entries: list[dict]) -> None:
    """Regulation paragraphs "(a)", "§ 39.13" and run-in leads nest under the heading before them."""
    last_plain = 0
    last_sect = None
    for e in entries:
        cand = e.get("cand")
        if e["source"] == "heading_detection" and not e["number"] and cand is not None and cand.run_in:
            # A run-in lead ("Residual Dropout We apply ...") opens a paragraph inside the
            # current section, never a sibling of it.
            e["level"] = last_plain + 1
            continue
        if e["source"] != "heading_detection" or e["kind"] not in ("paragraph", "section_sign"):
            if e["kind"] not in ("paragraph", "section_sign"):
                last_plain, last_sect = e["level"], None
            continue
        if e["kind"] == "section_sign":
            e["level"] = last_plain + 1
            last_sect = e["level"]
        else:
            e["level"] = (last_sect if last_sect is not None else last_plain) + 1


def _ids(entries: list[dict]) -> list[str]:
    """Unique toc_ids: the section number when there is one, else 's<n>'."""
    ids: list[str] = []
    seen: set[str] = set()
    roman = None
    n_plain = 0  # synthetic ids count headings only, so adding provisions never renames them
    for e in entries:
        if e.get("source") != "provision":
            n_plain += 1
        tid = e.get("toc_id") or toc_id_for(e["kind"], e["number"]) or f"s{n_plain}"
        if e["kind"] == "roman":
            roman = tid
        elif e["kind"] == "letter" and roman:
            tid = f"{roman}.{tid}"  # "II.A": subsection letters restart in every section
        base, k = tid, 2
        while tid in seen:
            tid, k = f"{base}~{k}", k + 1
        seen.add(tid)
        ids.append(tid)
    return ids


def to_frame(
    entries: list[dict], line_df: pd.DataFrame, doc_id: str, ids: list[str] | None = None
) -> pd.DataFrame:
    """toc_df from ordered entries; ``ids``: keep these toc_ids instead of deriving them."""
    if not entries:
        return TOC_DF.empty()
    last_line = _last_lines(line_df)
    max_page = int(line_df["page"].max())
    if ids is None:
        ids = _ids(entries)
    # each section ends just before the next section of the same or a higher level: one
    # backward pass with a stack of (level, index) finds it for every entry (linear, not n^2)
    nxt_of: list[int | None] = [None] * len(entries)
    open_: list[int] = []
    for i in range(len(entries) - 1, -1, -1):
        lvl = entries[i]["level"]
        while open_ and entries[open_[-1]]["level"] > lvl:
            open_.pop()
        nxt_of[i] = open_[-1] if open_ else None
        open_.append(i)
    rows: list[tuple] = []
    stack: list[tuple[int, str]] = []
    for i, e in enumerate(entries):
        while stack and stack[-1][0] >= e["level"]:
            stack.pop()
        parent = stack[-1][1] if stack else None
        stack.append((e["level"], ids[i]))
        nxt = entries[nxt_of[i]] if nxt_of[i] is not None else None
        if nxt is None:
            page_end, line_end = max_page, last_line.get(max_page)
        else:
            ls = nxt["line_start"] or 1
            if ls > 1:
                page_end, line_end = nxt["page_start"], ls - 1
            else:
                page_end = max(e["page_start"], nxt["page_start"] - 1)
                line_end = last_line.get(page_end)
        rows.append(
            (
                doc_id,
                ids[i],
                e["number"],
                e["title"],
                e["level"],
                parent,
                e["page_start"],
                e["line_start"],
                page_end,
                line_end,
                e["source"],
            )
        )
    return _toc_frame(rows)


_ROW_KEYS = (
    "doc_id",
    "toc_id",
    "number",
    "title",
    "level",
    "parent_id",
    "page_start",
    "line_start",
    "page_end",
    "line_end",
    "source",
)


def _toc_frame(rows: list[tuple]) -> pd.DataFrame:
    """``TOC_DF.conform`` of a frame of ``rows`` (tuples in ``_ROW_KEYS`` order), built by Arrow from
    column lists: a pandas frame of row dicts was most of :func:`to_frame`'s time. Each column is
    converted as ``conform``'s ``from_pandas`` converts it (NaN is null); a value Arrow does not
    take that way goes the frame's way (which then converts or raises as before)."""
    import pyarrow as pa

    schema = TOC_DF.arrow_schema
    cols = dict(zip(_ROW_KEYS, (list(c) for c in zip(*rows, strict=True)), strict=True))
    try:
        arrays = [
            pa.array(cols.get(f.name, [None] * len(rows)), type=f.type, from_pandas=True) for f in schema
        ]
        return pa.Table.from_arrays(arrays, schema=schema).to_pandas()
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
        return TOC_DF.conform(pd.DataFrame([dict(zip(_ROW_KEYS, r, strict=True)) for r in rows]))


def _last_lines(line_df: pd.DataFrame) -> dict:
    """Each page's last line number (``groupby("page")["line"].max()``), from numpy columns."""
    page, line = line_df["page"].to_numpy(), line_df["line"].to_numpy()
    if not len(page) or page.dtype.kind not in "iu" or line.dtype.kind not in "iu":
        return line_df.groupby("page")["line"].max().to_dict()
    order = np.lexsort((line, page))
    p, ln = page[order], line[order]
    last = np.flatnonzero(np.r_[p[1:] != p[:-1], True])
    return dict(zip(p[last].tolist(), ln[last].tolist(), strict=True))


def drop_demoted(toc_df: pd.DataFrame, line_df: pd.DataFrame) -> pd.DataFrame:
    """Drop detected headings whose line a later stage re-read as part of an object.

    Heading detection runs before objects are known: a bold label drawn inside a
    figure or a table header cell can look like a heading until the object stage
    gives its line the role ``figure_text`` or ``table``. Only ``heading_detection``
    rows are dropped (a printed contents page or outline vouches for its own); the
    survivors keep their ids, and parents and section ends are recomputed.
    """
    if toc_df.empty:
        return toc_df
    # the (page, line) of the lines an object re-read: a mask in Arrow, not every line's role in Python
    inside = line_df["role"].isin(("figure_text", "table")).to_numpy(dtype=bool, na_value=False)
    demoted = set(
        zip(
            line_df["page"].to_numpy()[inside].tolist(),
            line_df["line"].to_numpy()[inside].tolist(),
            strict=True,
        )
    )
    # one frame per page, built once: a per-row filter of the whole line_df was quadratic
    pages = _page_arrays(line_df)
    gone = [
        r.source == "heading_detection"
        and pd.notna(r.line_start)
        and (
            (int(r.page_start), int(r.line_start)) in demoted
            or _beside_table(pages.get(int(r.page_start)), int(r.line_start))
        )
        for r in frame_rows.rows(toc_df)
    ]
    if not any(gone):
        return toc_df
    gone = _vouched(toc_df, gone)
    kept = toc_df[[not g for g in gone]]
    entries = [
        {
            "number": None if pd.isna(r.number) else r.number,
            "title": r.title,
            "level": int(r.level),
            "page_start": int(r.page_start),
            "line_start": None if pd.isna(r.line_start) else int(r.line_start),
            "source": r.source,
        }
        for r in frame_rows.rows(kept)  # itertuples' rows, from column lists
    ]
    return to_frame(entries, line_df, str(toc_df["doc_id"].iloc[0]), ids=kept["toc_id"].tolist())


def _vouched(toc_df: pd.DataFrame, gone: list[bool]) -> list[bool]:
    """Keep a dropped decimal heading the numbering vouches for: its parent is a kept row and it
    is the parent's first child or follows a kept sibling ("3.1.1 Fecundidade Actual" under 3.1,
    printed on a table's baseline in the next column). Table cells do not number like that."""
    nums = [
        tuple(int(v) for v in str(n).rstrip(".").split("."))
        if isinstance(n, str) and re.fullmatch(r"[0-9]{1,3}(?:\.[0-9]{1,3}){1,4}\.?", n.strip())
        else None
        for n in toc_df["number"].tolist()
    ]
    have = {n for n, g in zip(nums, gone, strict=True) if n is not None and not g}
    out = list(gone)
    for i, (n, g) in enumerate(zip(nums, gone, strict=True)):
        if g and n is not None and n[:-1] in have and (n[-1] == 1 or n[:-1] + (n[-1] - 1,) in have):
            out[i] = False
            have.add(n)
    return out


def _page_arrays(line_df: pd.DataFrame) -> dict[int, dict]:
    """Per page, as numpy arrays: line numbers, y0, y1, column (NaN = none) and the table-cell mask.
    Built once, so each heading's test is a few vector operations (no per-row frame filtering)."""
    col = line_df["column"] if "column" in line_df.columns else pd.Series(np.nan, index=line_df.index)
    arr = {
        "line": line_df["line"].to_numpy(),
        "y0": line_df["y0"].to_numpy(dtype=float),
        "y1": line_df["y1"].to_numpy(dtype=float),
        "col": pd.to_numeric(col, errors="coerce").to_numpy(dtype=float),
        "table": (line_df["role"] == "table").to_numpy(),
    }
    out = {}
    for p, ix in line_df.groupby("page").indices.items():
        if arr["table"][ix].any():
            out[int(p)] = {k: v[ix] for k, v in arr.items()}
    return out


def _beside_table(pl: dict | None, line: int) -> bool:
    """The heading line sits among table cells: on their baseline, or between a row just above
    and one just below (a row label of that table). ``pl``: :func:`_page_arrays` of its page."""
    if pl is None:
        return False
    me = np.flatnonzero(pl["line"] == line)
    if not len(me):
        return False
    y0, y1, col = pl["y0"][me[0]], pl["y1"][me[0]], pl["col"][me[0]]
    cells = pl["table"].copy()
    if not np.isnan(col):
        cells &= np.isnan(pl["col"]) | (pl["col"] == col)  # not a table in the next column
    cy0, cy1 = pl["y0"][cells], pl["y1"][cells]
    h = max(y1 - y0, 1.0)
    overlap = (np.minimum(cy1, y1) - np.maximum(cy0, y0)) / h
    if (overlap >= 0.5).any():
        return True
    above = ((cy1 <= y0 + 0.2 * h) & (cy1 >= y0 - 1.5 * h)).any()
    below = ((cy0 >= y1 - 0.2 * h) & (cy0 <= y1 + 1.5 * h)).any()
    return bool(above and below)


def assign_sections(line_df: pd.DataFrame, toc_df: pd.DataFrame) -> pd.DataFrame:
    """Fill line_df.section_id: the most recently started section at each line (the deepest one)."""
    line_df = line_df.copy()
    line_df["section_id"] = None
    if toc_df.empty or line_df.empty:
        return line_df
    starts = toc_df.assign(ls=toc_df["line_start"].fillna(1)).sort_values(["page_start", "ls"])
    keys = list(zip(starts["page_start"].astype(int), starts["ls"].astype(int), strict=False))
    ids = starts["toc_id"].tolist()
    # each line's section: the last start at or before its (page, line), one searchsorted over
    # (page, line) as one integer (starts are sorted by the same key)
    at = np.array([p * 1_000_000 + ln for p, ln in keys], dtype=np.int64)
    me = line_df["page"].to_numpy().astype(np.int64) * 1_000_000 + line_df["line"].to_numpy().astype(np.int64)
    j = np.searchsorted(at, me, side="right") - 1
    pick = np.array([None, *ids], dtype=object)[j + 1]
    line_df["section_id"] = pd.Series(pick, index=line_df.index)
    furniture = line_df["role"].isin(["header", "footer", "page_number"])
    line_df.loc[furniture, "section_id"] = None
    return line_df
