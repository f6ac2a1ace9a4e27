"""Registry rows of type ``clause``: the numbered provisions of :mod:`provisions` and the headings
they hang under, plus headings printed with a clause keyword ("Section 6.03 ...", "ARTICLE IV")."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.parsing import frame_rows

_KW_HEAD = re.compile(
    r"^(Section|SECTION|Article|ARTICLE|Clause|CLAUSE)\s+([0-9]{1,3}(?:\.[0-9]{1,3})*\.?|[IVXLC]{1,7}\b)"
)
_CITED = re.compile(r"\b(Clause|Section|Article|Paragraph|Rule)s?\s+(?:[0-9]|[IVX]+\b)", re.I)


def clause_objects(toc_df: pd.DataFrame, line_df: pd.DataFrame, seen: set[str]) -> list[dict]:
    """Registry rows (type ``clause``) for numbered provisions and the headings they hang under.

    Paragraph labels ("(a)") stay sections only: documents cite them as paragraphs of a
    clause. The label uses the word the document cites its provisions with ("Clause 5.1",
    "Section 6.03"), found by counting those citations in the text.
    """
    if toc_df.empty or "source" not in toc_df:
        return []
    nums = toc_df["number"].astype("string")
    prov = toc_df[(toc_df["source"] == "provision") & ~nums.str.startswith("(").fillna(True)]
    first = _first_lines(toc_df, line_df)
    # headings printed with a clause keyword ("Section 6.03 Payment", "ARTICLE IV") are clauses
    kw_of: dict[str, tuple[str, str]] = {}
    # (the three columns read, as lists: the values frame_rows.rows' fields held)
    heads_only = toc_df[toc_df["source"] != "provision"]
    for page_start, line_start, toc_id in zip(
        *(heads_only[c].tolist() for c in ("page_start", "line_start", "toc_id")), strict=True
    ):
        k = (int(page_start), int(line_start)) if pd.notna(line_start) else None
        if k is not None and k in first:
            m = _KW_HEAD.match(str(first[k][0]).strip())
            if m:
                kw_of[str(toc_id)] = (m.group(1).capitalize(), m.group(2).rstrip("."))
    if prov.empty and not kw_of:
        return []
    parents = set(prov["parent_id"].dropna())
    heads = toc_df[
        (
            toc_df["toc_id"].isin(parents)
            & nums.str.fullmatch(r"[0-9]{1,3}(?:\.[0-9]{1,3})*\.?").fillna(False)
            | toc_df["toc_id"].isin(list(kw_of))
        )
        & (toc_df["source"] != "provision")
    ]
    word = None  # the cited word, counted over the text only when a label falls back to it
    out = []
    for t in frame_rows.rows(pd.concat([heads, prov]).sort_values(["page_start", "line_start"])):
        tid = str(t.toc_id)
        m = re.match(r"^(Article|Section|Clause|Sec|Rule|Regulation|Art)\s+(.+)$", tid)
        oid = m.group(2) if m else str(t.number).rstrip(".").replace("\u00a7", "").strip()
        oid = re.sub(r"~[0-9]+$", "", oid)  # "Section 1~2" (chapter IV's SECTION 1) is printed "Section 1"
        if tid in kw_of:
            label = " ".join(kw_of[tid])
            oid = kw_of[tid][1]
        elif m:
            label = f"{m.group(1)} {oid}"
        elif tid.startswith("\u00a7"):
            label = f"\u00a7 {oid}"
        else:
            word = word or _cited_word(line_df)
            label = f"{word} {oid}"
        key = f"clause:{oid}"
        if key in seen:
            continue
        seen.add(key)
        ls = int(t.line_start) if pd.notna(t.line_start) else None
        row = first.get((int(t.page_start), ls)) if ls is not None else None  # (text, x0, y0, x1, y1)
        caption = str(t.title) if isinstance(t.title, str) and t.title else ""
        if not caption and row is not None:
            caption = re.sub(r"^\S+\s*", "", str(row[0]).strip())
        out.append(
            {
                "object_key": key,
                "object_type": "clause",
                "object_id": oid,
                "label": label,
                "caption": caption,
                "page": int(t.page_start),
                "line_start": ls,
                "line_end": int(t.line_end) if pd.notna(t.line_end) else None,
                "page_end": int(t.page_end) if pd.notna(t.page_end) else int(t.page_start),
                "x0": None if row is None else float(row[1]),
                "y0": None if row is None else float(row[2]),
                "x1": None if row is None else float(row[3]),
                "y1": None if row is None else float(row[4]),
                "source": "provision" if t.source == "provision" else "heading",
            }
        )
    return out


def _cited_word(line_df: pd.DataFrame) -> str:
    """The word the document cites its provisions with: the most counted of Clause / Section / Article."""
    words = [
        m.group(1).capitalize()
        for m in _CITED.finditer(" ".join(line_df["text"].astype(str).head(20000).tolist()))
    ]
    return max(("Clause", "Section", "Article"), key=lambda w: (words.count(w), w == "Clause"))


def _first_lines(toc_df: pd.DataFrame, line_df: pd.DataFrame) -> dict[tuple, list]:
    """(page, line) -> the first such line's [text, x0, y0, x1, y1], for the lines toc_df starts at.

    A dict, not a MultiIndex lookup per entry; only the entries' lines are read (the page and
    line columns are integers: their lists are cheap, the text column's is not).
    """
    starts = toc_df["line_start"]
    want = {
        (int(p), int(ln))
        for p, ln in zip(toc_df["page_start"].tolist(), starts.tolist(), strict=True)
        if pd.notna(ln) and pd.notna(p)
    }
    at: dict[tuple, int] = {}
    page, line = line_df["page"].to_numpy(), line_df["line"].to_numpy()
    if page.dtype.kind in "iu" and line.dtype.kind in "iu" and want:
        # integer columns: the lines whose (page, line) is wanted found at once (as one int64 key),
        # then the first of each in order, as the loop below does over every line
        code = page.astype(np.int64) * 1_000_000 + line.astype(np.int64)
        wanted = np.array([p * 1_000_000 + ln for p, ln in want], dtype=np.int64)
        hit = np.flatnonzero(np.isin(code, wanted)).tolist()
        for k, key in zip(hit, zip(page[hit].tolist(), line[hit].tolist(), strict=True), strict=True):
            if key in want and key not in at:
                at[key] = k
    else:
        for k, key in enumerate(zip(line_df["page"].tolist(), line_df["line"].tolist(), strict=True)):
            if key in want and key not in at:
                at[key] = k
    if not at:
        return {}
    pos = list(at.values())
    cols = [line_df[c].iloc[pos].tolist() for c in ("text", "x0", "y0", "x1", "y1")]
    return {key: list(vals) for key, vals in zip(at, zip(*cols, strict=True), strict=True)}
