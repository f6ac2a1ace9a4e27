"""Where a paragraph opens, for the provision scan (:mod:`provision_scan`): per line in reading order,
first on its page, after a stop, a gap, a hanging indent, a column change or a line ending short.
"""

from __future__ import annotations

import re

import numpy as np

_AND_OR = re.compile(r"[;,]\s+(?:and|or)$")


def _para_starts(c: dict[str, list]) -> list[bool]:
    """Whether each line (column lists in reading order) opens a paragraph: first on its page, after
    a stop, a larger gap, hanging left of the line above, or beside it in the next column (two
    columns read line by line).

    The geometric tests run on numpy columns for every line at once; the text tests run only on
    the lines the geometry leaves open (most lines inside a paragraph). Every test is pure, so
    the order of the ``or`` changes nothing. Geometry with a missing value takes
    :func:`_para_starts_loop` (``max`` over NaN depends on the order).
    """
    n = len(c["page"])
    geo = [np.asarray(c[k], dtype=float) for k in ("x0", "y0", "x1", "y1")]
    if n < 2 or any(np.isnan(a).any() for a in geo):
        return _para_starts_loop(c)
    x0, y0, x1, y1 = geo
    pages = np.asarray(c["page"])
    size = np.asarray(c["size"], dtype=float)  # ``float(z or 0)`` of each, unless one is None or NaN
    if np.isnan(size).any():
        size = np.array([float(z or 0) for z in c["size"]], dtype=float)
    decided = np.ones(n, dtype=bool)
    decided[1:] = (
        (pages[1:] != pages[:-1])
        | (y0[1:] - y1[:-1] > 0.5 * np.maximum(size[1:], 4.0))
        | (y0[1:] < y0[:-1] - 1)  # a new column
        | (x0[1:] < x0[:-1] - 2)
        | ((x0[1:] > x1[:-1]) & (y0[1:] <= y1[:-1]))  # a line of the next column
    )
    short = _shorts(pages, x0, x1, size)
    texts, roles = c["text"], c["role"]
    out = decided.tolist()
    for i in np.flatnonzero(~decided).tolist():
        if roles[i] == "list_item":
            out[i] = True
            continue
        t = str(texts[i - 1]).rstrip()
        out[i] = (
            t.endswith((".", ":", ";", "!", "?", "]", ")"))
            or (t.endswith(("and", "or")) and _AND_OR.search(t) is not None)
            # (the reference-word test last: it is the dearest, and every test here is pure)
            or ((roles[i - 1] in ("heading", "title") or short[i - 1]) and not _ref_end(t))
        )
    return out


def _para_starts_loop(c: dict[str, list]) -> list[bool]:
    """:func:`_para_starts` one line at a time (any column may hold NaN)."""
    pages, texts, roles = c["page"], c["text"], c["role"]
    x0, y0, y1, size = c["x0"], c["y0"], c["y1"], c["size"]
    out = []
    for i in range(len(pages)):
        if i == 0 or pages[i - 1] != pages[i]:
            out.append(True)
        else:
            t = str(texts[i - 1]).rstrip()
            out.append(
                roles[i] == "list_item"
                or t.endswith((".", ":", ";", "!", "?", "]", ")"))
                or (t.endswith(("and", "or")) and _AND_OR.search(t) is not None)
                or y0[i] - y1[i - 1] > 0.5 * max(float(size[i]), 4.0)
                or y0[i] < y0[i - 1] - 1  # a new column
                or x0[i] < x0[i - 1] - 2
                or (x0[i] > c["x1"][i - 1] and y0[i] <= y1[i - 1])  # a line of the next column
                or (not _ref_end(t) and (roles[i - 1] in ("heading", "title") or _short(c, i - 1)))
            )
    return out


#: A line ending in a reference word: a number opening the next line goes on with it ("... under
#: Section" / "5.3 of this Agreement"), it opens no provision.
_REF_END = re.compile(
    r"\b(?:[Ss]ections?|[Cc]lauses?|[Aa]rticles?|[Pp]aragraphs?|[Rr]ules?|[Ss]ubsections?|[Pp]arts?"
    r"|[Ll]ines?|[Ss]chedules?|of|in|under|and|or|to|with|by|see|per|at|from|than)$"
)
#: Every word :data:`_REF_END` can match, spelled out. A match ends at the end of the (rstripped)
#: line, so the line ends with one of these: a necessary condition, tested first with one
#: ``str.endswith`` (most lines end in no such word and skip the regex).
_REF_END_WORDS = tuple(
    f"{a}{w}{s}"
    for caps, w in (
        ("Ss", "ection"),
        ("Cc", "lause"),
        ("Aa", "rticle"),
        ("Pp", "aragraph"),
        ("Rr", "ule"),
        ("Ss", "ubsection"),
        ("Pp", "art"),
        ("Ll", "ine"),
        ("Ss", "chedule"),
    )
    for a in caps
    for s in ("", "s")
) + ("of", "in", "under", "and", "or", "to", "with", "by", "see", "per", "at", "from", "than")


def _ref_end(t: str) -> bool:
    """``_REF_END.search(t)`` on a line without a trailing newline, the regex run only on lines ending
    in one of its words."""
    return t.endswith(_REF_END_WORDS) and _REF_END.search(t) is not None


#: A line ending this many of its font sizes short of the longest of its neighbours in the same
#: column ends its paragraph, stop or no stop ("5.3 Termination does not affect accrued rights").
SHORT_BY = 4.0


def _short(c: dict[str, list], j: int) -> bool:
    """Whether line ``j`` ends well short of the lines around it in its column."""
    pages, x0, x1 = c["page"], c["x0"], c["x1"]
    size = max(float(c["size"][j] or 0), 4.0)
    near = [
        x1[k]
        for k in range(max(j - 2, 0), min(j + 3, len(pages)))
        if k != j and pages[k] == pages[j] and abs(x0[k] - x0[j]) <= 3 * size
    ]
    return bool(near) and x1[j] < max(near) - SHORT_BY * size


def _shorts(pages: np.ndarray, x0: np.ndarray, x1: np.ndarray, size: np.ndarray) -> list[bool]:
    """:func:`_short` of every line at once (geometry without NaN; ``size`` as ``float(size or 0)``)."""
    n = len(pages)
    s = np.maximum(size, 4.0)
    best = np.full(n, -np.inf)
    found = np.zeros(n, dtype=bool)
    idx = np.arange(n)
    for d in (-2, -1, 1, 2):
        k = np.clip(idx + d, 0, n - 1)
        ok = (idx + d >= 0) & (idx + d < n) & (pages[k] == pages) & (np.abs(x0[k] - x0) <= 3 * s)
        found |= ok
        best = np.where(ok, np.maximum(best, x1[k]), best)
    return (found & (x1 < best - SHORT_BY * s)).tolist()
