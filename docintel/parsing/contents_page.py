"""Printed table-of-contents pages: "3.2 Message Randomization ........ 7".

A page is a contents page when several of its lines end in a page label after
dot leaders or a wide gap. Each entry is mapped from its printed page label
to a physical page through ``page_df.printed_label`` (the labels H1's furniture
pass reads off the pages), falling back to the physical number.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.parsing import linecols
from docintel.parsing.headings import split_number

#: "Title ....... 12", "Title . . . . 12", "Title      iv"
_ENTRY = re.compile(
    r"^(?P<title>\S.*?\S)\s*(?:(?:\.\s?){3,}|\u2026+|\s{3,}|_{3,})\s*(?P<label>[0-9]{1,4}|[ivxlcIVXLC]{1,6})$"
)
_LIST_OF = re.compile(r"^(table|figure|list)\b", re.I)
MIN_ENTRIES = 3
_TRAILING_BLANKS = re.compile(r"[ \t]+$")


_LABEL_END = frozenset("0123456789ivxlcIVXLC")
_WS3 = re.compile(r"\s{3}")
_LEADER_LABEL = re.compile(r"[.\u2026_\s]\s*(?:[0-9]{1,4}|[ivxlcIVXLC]{1,6})$")


def _may_be_entry(t: str) -> bool:
    """What :data:`_ENTRY` needs, tested cheaply first: a label at the end and a leader before it.

    The lazy title makes the full pattern quadratic in the line's length; most lines fail here.
    """
    if t.endswith("\n"):
        return True  # ``$`` also matches before a final newline: leave it to the pattern
    return (
        bool(t)
        and t[-1] in _LABEL_END
        and (t.count(".") >= 3 or "\u2026" in t or "___" in t or _WS3.search(t) is not None)
        # the leader's last character, then the label ("....... 6-27" has none: no match, and
        # the full pattern takes milliseconds to say so on a long leader)
        and _LEADER_LABEL.search(t) is not None
    )


#: What a text _may_be_entry accepts ends with (before trailing blanks), or holds a newline.
_MAY_END = r"[0-9ivxlcIVXLC][ \t]*$|\n"


def find_entries(line_df: pd.DataFrame) -> pd.DataFrame:
    """Rows of contents entries: page, line, number, title, label, level (empty when none)."""
    rows = []
    # one pass over plain lists: per-page frames and itertuples cost more than the regex
    texts = linecols.tolist(line_df["text"])  # (the parse's shared list: read, never changed)
    nums = line_df["line"].tolist()
    x0s = line_df["x0"].tolist()
    positions = line_df.groupby("page").indices if len(line_df) else {}
    # the lines _may_be_entry can pass, in one vectorised test (a superset: a label character
    # before trailing blanks, or any newline); the per-line tests below decide
    maybe = (
        line_df["text"].str.contains(_MAY_END, regex=True, na=False).to_numpy(dtype=bool, na_value=False)
        if len(line_df)
        else np.zeros(0, dtype=bool)
    )
    for page_no in sorted(positions):
        hits = []
        pos = positions[page_no]
        for k in pos[maybe[pos]].tolist():
            t = str(texts[k])
            # == _TRAILING_BLANKS.sub("", t); ``$`` also matches before a final newline, so such a
            # text keeps the pattern
            t = _TRAILING_BLANKS.sub("", t) if "\n" in t else t.rstrip(" \t")
            m = _ENTRY.match(t) if _may_be_entry(t) else None
            if m:
                hits.append((k, m))
        if len(hits) < MIN_ENTRIES:
            continue
        x_min = min(x0s[k] for k, _ in hits)
        for k, m in hits:
            title_raw = m.group("title").strip()
            kind, num, title = split_number(title_raw)
            if _LIST_OF.match(title_raw) and kind is None:
                # "Figure 1: ..." entries of a list of figures are objects, not sections
                continue
            # numbered entries: depth of the number; unnumbered ones: their indentation
            level = num.count(".") + 1 if kind == "decimal" else 1 + int(round((x0s[k] - x_min) / 18.0))
            rows.append(
                {
                    "page": int(page_no),
                    "line": int(nums[k]),
                    "number": num,
                    "title": title or title_raw,
                    "label": m.group("label"),
                    "level": max(1, min(level, 6)),
                    "kind": kind,
                }
            )
    # object dtype keeps missing numbers as None (not NaN) for the matching code
    return pd.DataFrame(rows, columns=["page", "line", "number", "title", "label", "level", "kind"]).astype(
        object
    )


def label_to_page(page_df: pd.DataFrame) -> dict[str, int]:
    """Printed label (lower-cased) -> physical page, first occurrence wins."""
    out: dict[str, int] = {}
    if "printed_label" not in page_df.columns:
        return out
    # two column lists, not itertuples over every column of the page table
    for lab, page in zip(page_df["printed_label"].tolist(), page_df["page"].tolist(), strict=True):
        if lab is not None and not (isinstance(lab, float) and pd.isna(lab)):
            out.setdefault(str(lab).strip().lower(), int(page))
    return out


def physical_page(label: str, labels: dict[str, int], n_pages: int, offset: int | None) -> int | None:
    """Map a printed label to a physical page (label table, else a learned offset, else as-is)."""
    key = label.strip().lower()
    if key in labels:
        return labels[key]
    if key.isdigit():
        p = int(key) + (offset or 0)
        return p if 1 <= p <= n_pages else None
    return None
