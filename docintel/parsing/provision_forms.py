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
    cols = ["page", "line", "text", "role", "x0", "y0", "x1", "size"]
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
    lines = line_df.loc[keep, cols]  # no take of the other columns
    boxes = lines[box[keep]]
    right = lines.groupby("page")["x1"].max().to_dict()
    by_page = {p: g.sort_values("x0") for p, g in lines.groupby("page")}
    out, seen = [], set()
    for b in boxes.itertuples():
        m = _BOX.match(str(b.text).strip())
        if b.x0 < 0.6 * right.get(b.page, b.x1) or m.group(0) in seen:
            continue
        tol = 0.6 * max(float(b.size), 4.0)
        row = by_page[b.page]
        row = row[(abs(row["y0"] - b.y0) <= tol) & (row["x1"] <= b.x0 + 1) & (row["x0"] < b.x0 - 40)]
        num, sub = m.group("num"), m.group("sub")
        opens = re.compile(rf"^(?:{num}\s*)?{sub}\b" if sub else rf"^{num}\b")
        start = next((r for r in row.itertuples() if opens.match(" ".join(str(r.text).split()))), None)
        if start is None or (int(start.page), int(start.line)) in taken:
            continue
        desc = " ".join(" ".join(str(r.text).split()) for r in row.itertuples() if r.x0 >= start.x0)
        desc = opens.sub("", desc, count=1).strip()
        if not _WORD.search(desc):
            continue  # a table row of figures ("33 34 31 30" ... "33"), not a described line
        seen.add(m.group(0))
        out.append(
            {
                "page": int(start.page),
                "line": int(start.line),
                "text": desc,
                "idx": start.Index,
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
