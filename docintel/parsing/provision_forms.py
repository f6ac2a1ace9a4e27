"""Form lines: a tax form's numbered lines ("1a Total amount from Form(s) W-2, box 1 ... 1a").

A form prints each line's number twice: as a label at the start of its description ("1 a
Total amount ...", "b Household employee wages ...") and in the answer box at the right edge
("1a", "1b"). A box label is a form line only when the description on its baseline opens with
the same label; a document needs :data:`MIN_LINES` such lines to count as a form. Each becomes
a keyword provision ``Line 1a`` (the id instructions cite: "Schedule 1, line 8") whose title is
the description, leaders and "(see instructions)" cut. Used by :mod:`provisions`.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

#: A document with fewer agreeing box labels is no form.
MIN_LINES = 3
#: Of the agreeing box labels, this share must rise in reading order (a form numbers its lines).
RISING = 0.8
_MAX = 400
_WORD = re.compile(r"[^\W\d_]{3,}")
_BOX = re.compile(r"^(?P<num>[0-9]{1,2})(?P<sub>[a-z]?)$")
_LEADERS = re.compile(r"(?:\s*\.){2,}.*$")
_SKIP = {"header", "footer", "page_number", "toc_entry", "title"}


def _title(desc: str) -> str:
    t = _LEADERS.sub("", desc)
    t = re.sub(r"\s*\((?:see|attach)[^)]*\)", "", t, flags=re.I)
    t = re.split(r"(?<=[a-z0-9)])\.\s|:\s|:$|\s\.\s", t)[0].strip(" .:")
    words = t.split()
    return " ".join(words[:14]) if words else ""


def form_lines(line_df: pd.DataFrame, taken: set[tuple[int, int]]) -> list[dict]:
    """Keyword provision candidates (scheme ``kw``, keyword ``line``) for a form's numbered lines."""
    keep = ~line_df["role"].isin(_SKIP).to_numpy(dtype=bool)
    # a box label holds a digit: the strip and full match (element by element) only where the text
    # has one (issue 18: most lines have none); the frame of the kept lines only for a form
    digit = line_df["text"].astype(str).str.contains("[0-9]", regex=True).fillna(False).to_numpy(dtype=bool)
    maybe = np.flatnonzero(keep & digit)
    texts = line_df["text"].iloc[maybe].astype(str)
    box = np.zeros(len(line_df), dtype=bool)
    box[maybe[texts.str.strip().str.fullmatch(_BOX.pattern).to_numpy(dtype=bool)]] = True
    if int(box.sum()) < MIN_LINES:
        return []
    right = line_df.loc[keep, ["page", "x1"]].groupby("page")["x1"].max().to_dict()
    # plain lists (the values ``itertuples`` gives), for the pages of box labels at the right edge
    # only, and each page's rows in ``sort_values("x0")`` order: a frame filter per box label was
    # pandas in a loop (issue 18: a financial statement's note numbers at the right edge)
    arr = {c: line_df[c].to_numpy() for c in ("page", "line", "x0", "y0", "x1", "size")}
    at = np.flatnonzero(box)
    bx0, bx1, bpage = (arr[c][at].tolist() for c in ("x0", "x1", "page"))
    live = [
        k for k, x, x1, p in zip(at.tolist(), bx0, bx1, bpage, strict=True) if not x < 0.6 * right.get(p, x1)
    ]
    rows = np.flatnonzero(keep & np.isin(arr["page"], sorted({int(arr["page"][k]) for k in live})))
    local = dict(zip(rows.tolist(), range(len(rows)), strict=True))
    page, lines_no, x0, y0, x1, size = (
        arr[c][rows].tolist() for c in ("page", "line", "x0", "y0", "x1", "size")
    )
    text, index = line_df["text"].iloc[rows].tolist(), line_df.index[rows].tolist()
    at_page: dict = {}
    for i, p in enumerate(page):
        at_page.setdefault(p, []).append(i)
    x0s = arr["x0"][rows].astype(float)
    order: dict = {}
    out, seen = [], set()
    for k in (local[k] for k in live):
        m = _BOX.match(str(text[k]).strip())
        if m.group(0) in seen:
            continue
        tol = 0.6 * max(float(size[k]), 4.0)
        if page[k] not in order:
            order[page[k]] = _by_x0(np.asarray(at_page[page[k]]), x0s)
        bx, by = x0[k], y0[k]
        row = [j for j in order[page[k]] if abs(y0[j] - by) <= tol and x1[j] <= bx + 1 and x0[j] < bx - 40]
        num, sub = m.group("num"), m.group("sub")
        opens = re.compile(rf"^(?:{num}\s*)?{sub}\b" if sub else rf"^{num}\b")
        start = next((j for j in row if opens.match(" ".join(str(text[j]).split()))), None)
        if start is None or (int(page[start]), int(lines_no[start])) in taken:
            continue
        desc = " ".join(" ".join(str(text[j]).split()) for j in row if x0[j] >= x0[start])
        desc = opens.sub("", desc, count=1).strip()
        if not _WORD.search(desc):
            continue  # a table row of figures ("33 34 31 30" ... "33"), not a described line
        seen.add(m.group(0))
        out.append(
            {
                "page": int(page[start]),
                "line": int(lines_no[start]),
                "text": desc,
                "idx": index[start],
                "scheme": "kw",
                "kwrank": 2,
                "kw": "line",
                "val": int(num),
                "sub": sub,
                "printed": m.group(0),
                "title": _title(desc),
                "rest": desc,
                "form": True,
            }
        )
    return _rising(out)


def _by_x0(at: np.ndarray, x0s: np.ndarray) -> list[int]:
    """Positions ``at`` (one page's rows, in frame order) in ``sort_values("x0")`` order: pandas'
    ``nargsort`` (the same quicksort of the non-NaN values, the NaN rows last in frame order)."""
    xs = x0s[at]
    nan = np.isnan(xs)
    return np.concatenate([at[~nan][xs[~nan].argsort(kind="quicksort")], at[nan]]).tolist()


def _rising(lines: list[dict]) -> list[dict]:
    """The form's lines when their numbers rise through the document (1a, 1b, 2, 3a ...): the
    longest rising run, if it holds nearly all of them; [] otherwise (a table's figures)."""
    lines = sorted(lines, key=lambda c: (c["page"], c["line"]))[:_MAX]
    keys = [(c["val"], c["sub"]) for c in lines]
    best: list[int] = []
    run: list[list[int]] = []
    for i, k in enumerate(keys):
        prev = max((run[j] for j in range(i) if keys[j] < k), key=len, default=[])
        run.append([*prev, i])
        best = max(best, run[-1], key=len)
    if len(best) < MIN_LINES or len(best) < RISING * len(lines):
        return []
    return [lines[i] for i in best]
