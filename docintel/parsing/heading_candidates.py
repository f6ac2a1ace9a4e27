"""Heading candidates: each page's lines grouped by baseline and built into :class:`Candidate` s.

Lines that share a baseline ("1." and "Introduction" emitted as two lines) are joined into
one candidate; a fragment lying inside another one on the same baseline (NIST emits "1.1" and
"1.1 Authority" at the same place) is an artefact and dropped. Split from
:mod:`docintel.parsing.headings`, which re-exports every name.
"""

from __future__ import annotations

import bisect
import math
import operator

import numpy as np
import pandas as pd

from docintel.parsing import linecols
from docintel.parsing.heading_geo import PARA_GAP_EM, _LazyStart, _PageGeo, _starts_paragraph, para_start  # noqa: F401
from docintel.parsing.heading_spans import BOLD_MIN_FRACTION
from docintel.parsing.heading_text import (
    _MAY_NUMBER,
    Candidate,
    _emphasised_subject,
    _respace,
    first_sentence,
    split_number,
    strip_margin_numbers,
)
from docintel.parsing.label_rows import grid_rows

_FURNITURE = {"header", "footer", "page_number"}

# The heading detector's thresholds. The history does not record a measurement for any of
# them: unless a line says otherwise, each was set by hand on the dev PDFs; not measured.
#: Below this bold fraction a piece of a line counts as regular text (between the two: mixed).
REGULAR_MAX_FRACTION = 0.5
#: Italic fraction above which a candidate is italic (whole line in italics; set by hand, not measured).
ITALIC_MIN_FRACTION = 0.95
#: A gap wider than this many font sizes splits a baseline into separate pieces (table cells,
#: author names); regular-then-bold across more than COLUMN_GAP_EM starts another column
#: (both set by hand on the dev PDFs; not measured).
CELL_GAP_EM = 2.5
COLUMN_GAP_EM = 0.5
#: Lines on one baseline: bottoms within this many sizes, tops within BASELINE_TOP_EM (set by hand).
BASELINE_BOTTOM_EM = 0.35
BASELINE_TOP_EM = 0.6
#: Smallest font size the gap rules scale by, so tiny text is not split at every gap (set by hand).
MIN_GAP_SIZE_PT = 6.0
#: A candidate at least this many points above the body size is "larger" (set by hand; not measured).
LARGER_BY_PT = 0.9
#: A line this many points or more under the heading size (``body + LARGER_BY_PT``) cannot join a
#: larger heading line (sizes within 0.3 pt), nor be the title: :class:`heading_plain.PlainLines`
#: may hold it.
PLAIN_BELOW_PT = 0.4


_X0 = operator.itemgetter("x0")
_PAGE_LINE = operator.attrgetter("page", "line")
_Y1_X0 = operator.itemgetter("y1", "x0")


def _baseline_groups(recs: list[dict]) -> list[list[dict]]:
    """Group a page's lines that sit on one baseline (same column), left to right."""
    groups: list[list[dict]] = []
    heads: list[tuple] = []  # each group's first line as (y1, y0, size, column), read once
    head_y1: list[float] = []  # the groups' y1, never decreasing (lines come sorted by y1)
    sizes = [r["size"] for r in recs]
    ordered = sorted(recs, key=_Y1_X0)
    y1s = [r["y1"] for r in ordered]
    # (a float sum is NaN when a NaN is in it, or an inf and a -inf: only then the sizes are sifted)
    total = sum(sizes)
    if total != total:
        sizes = [s for s in sizes if s == s]  # no NaN
    # a group whose y1 lies more than BASELINE_BOTTOM_EM x the page's largest size above a line
    # fails the baseline test: those are skipped by bisection (a margin keeps the rounding safe)
    reach = BASELINE_BOTTOM_EM * max(sizes) + 1e-6 if sizes else None
    total = sum(y1s)
    if reach is not None and (not math.isfinite(reach) or (total != total and any(y != y for y in y1s))):
        reach = None  # a NaN size or bottom edge: no ordering to bisect
    # every two lines' bottoms further apart than ``reach``: no line shares a baseline (most pages
    # of prose), each is a group of its own, as the loop below would find one by one
    if reach is not None and all(b - a > reach for a, b in zip(y1s, y1s[1:], strict=False)):
        return [[r] for r in ordered]
    for r in ordered:
        ry1, ry0, rsize, rcol = r["y1"], r["y0"], r["size"], r["column"]
        start = len(groups) - 8  # sorted by y1: only recent groups can share the baseline
        if start < 0:
            start = 0
        if reach is not None:
            start = bisect.bisect_left(head_y1, ry1 - reach, start)  # never below ``start``
        for j in range(start, len(groups)):
            hy1, hy0, hsize, hcol = heads[j]
            m = hsize if hsize >= rsize else rsize  # max(), inlined: this loop runs per line
            if (
                abs(hy1 - ry1) <= BASELINE_BOTTOM_EM * m
                and abs(hy0 - ry0) <= BASELINE_TOP_EM * m
                and hcol == rcol
            ):
                groups[j].append(r)
                break
        else:
            groups.append([r])
            heads.append((ry1, ry0, rsize, rcol))
            head_y1.append(ry1)
    return [g if len(g) == 1 else sorted(g, key=_X0) for g in groups]


def _page_records(line_df: pd.DataFrame, feats: pd.DataFrame) -> dict[int, list[dict]]:
    """The candidate lines (no furniture, not rotated) of each page as dicts, in frame order.

    From whole columns once (``DataFrame.to_dict("records")`` boxes every value one by one);
    a missing column is -9 and a missing text its ``str()``, as the per-line readers expect.
    """
    keep = np.flatnonzero(~line_df["role"].isin(_FURNITURE).to_numpy(bool) & ~feats["rotated"].to_numpy(bool))
    cols = ["page", "line", "text", "x0", "y0", "x1", "y1", "size", "font", "column"]
    vals = [_take_list(line_df[c], keep) for c in cols if c != "text"]
    # the texts from the parse's shared list (linecols: earlier stages converted the same column)
    texts = linecols.tolist(line_df["text"])
    vals.insert(2, [texts[k] for k in keep.tolist()])
    vals += [_take_list(feats[f], keep) for f in ("boldfrac", "italfrac", "lead")]
    texts, column = vals[2], vals[9]
    cdt = line_df["column"].dtype
    if not (isinstance(cdt, np.dtype) and cdt.kind in "iub"):  # (a numpy integer column holds no NaN)
        for k in np.flatnonzero(line_df["column"].iloc[keep].isna().to_numpy()).tolist():
            column[k] = -9
    vals[2] = [t if type(t) is str else str(t) for t in texts]
    # the box and size as the Candidate holds them (``float()``), converted here once per column: a
    # float64 column's list already is (most documents); :func:`_single` copies them as they are
    for i in (3, 4, 5, 6, 7):
        if line_df[cols[i]].dtype != np.float64:
            vals[i] = [float(v) for v in vals[i]]
    by_page: dict[int, list[dict]] = {}
    page_list = None
    last = None
    for p, line, text, x0, y0, x1, y1, size, font, col, bf, itf, lead in zip(*vals, strict=True):
        if p != last:  # a page's lines are mostly contiguous: one dict lookup per run
            page_list = by_page.setdefault(int(p), [])
            last = p
        page_list.append(
            {
                "line": line,
                "text": text,
                "x0": x0,
                "y0": y0,
                "x1": x1,
                "y1": y1,
                "size": size,
                "font": font,
                "column": col,
                "bf": bf,
                "itf": itf,
                "lead": lead,
            }
        )
    for recs in by_page.values():
        strip_margin_numbers(recs)  # "186 1.3.1 Initial ...": the heading's number is "1.3.1"
    return by_page


def _take_list(col: pd.Series, keep: np.ndarray) -> list:
    """``col.iloc[keep].tolist()``; a numpy-typed column by its array (no pandas take)."""
    if isinstance(col.dtype, np.dtype):
        return col.to_numpy()[keep].tolist()
    return col.iloc[keep].tolist()


def candidates(line_df: pd.DataFrame, feats: pd.DataFrame, plain=None) -> list[Candidate]:
    """Every line group that could be a heading, with its typography and numbering.

    ``plain``: lines in plain body type (alone on their baseline, or a one-line piece of it) go
    there instead of the list (:class:`heading_plain.PlainLines`: no Candidate is built unless a
    reader asks).
    """
    out: list[Candidate] = []
    cut = plain.cut if plain is not None else -math.inf
    for page_no, pl in _page_records(line_df, feats).items():
        geo = _PageGeo(pl)
        groups = _baseline_groups(pl)
        # (one group per line: every group a single line, no row of a grid)
        grid = grid_rows(groups) if len(groups) < len(pl) else set()
        aside: list[tuple] = []  # this page's plain lines (PlainLines.pages' items)
        for gi, frags in enumerate(groups):
            if len(frags) == 1:  # most lines: alone on their baseline, one segment, no artefact
                r = frags[0]
                if r["size"] < cut and (text := _plain_text(r)) is not None:
                    aside.append((r["line"], text, r, geo, None))
                else:
                    out.append(_single(page_no, r, geo))
                continue
            keep, dropped = [], []
            for r in frags:
                # a fragment contained in a wider one on the same baseline is a duplicate artefact
                lo, hi, wider = r["x0"] + 1, r["x1"] - 1, (r["x1"] - r["x0"]) + 2
                for o in frags:
                    if o is not r and o["x0"] <= lo and o["x1"] >= hi and (o["x1"] - o["x0"]) > wider:
                        dropped.append(r)
                        break
                else:
                    keep.append(r)
            segs = _segments(keep)
            bold_segs = sum(1 for seg in segs if seg[0]["bf"] >= BOLD_MIN_FRACTION)
            for seg in segs:
                # a one-line piece in plain type (a table cell, mostly); its table_row as below for
                # a candidate that is not bold
                if len(seg) == 1 and seg[0]["size"] < cut and (text := _plain_text(seg[0])) is not None:
                    aside.append((seg[0]["line"], text, seg[0], geo, (dropped, gi in grid or len(segs) >= 3)))
                    continue
                # computed when first read (the run-in test below, two rare typography tests), as
                # for a line alone on its baseline
                start = _LazyStart(seg[0], geo)
                c = _candidate(page_no, seg, dropped, geo, start)
                c.extra["para_start"] = start
                # three or more separate bold pieces on one baseline: a table header row
                c.extra["table_row"] = (gi in grid and not c.bold) or (
                    len(segs) >= 3 and (bold_segs >= 3 or not c.bold)
                )
                out.append(c)
        if aside:
            plain.pages[page_no] = aside
    out.sort(key=_PAGE_LINE)
    return out


def _plain_text(r: dict) -> str | None:
    """The stripped text of a line that is plain body type, else None: not bold nor italic (the
    weighted fractions :func:`_candidate_from` reads), no bold lead (a run-in heading), unnumbered
    and not opening with a digit (a body-type article "1.Scope": ``toc_articles.mark_articles``)."""
    if isinstance(r["lead"], str):
        return None
    raw = r["text"]
    n = len(raw)
    m = n or 1
    if r["bf"] * n / m < BOLD_MIN_FRACTION and r["itf"] * n / m < ITALIC_MIN_FRACTION:
        text = raw.strip()
        if not text[:1].isdigit() and (not _MAY_NUMBER.match(text) or split_number(text)[0] is None):
            return text
    return None


def _segments(frags: list[dict]) -> list[list[dict]]:
    """Split one baseline into pieces that could each be a heading.

    A wide gap separates table cells or author names; regular text followed by
    bold text across a gap is the start of another column (a heading never
    starts mid-line after regular text).
    """
    segs: list[list[dict]] = [[frags[0]]]
    for a, b in zip(frags[:-1], frags[1:], strict=False):
        gap = b["x0"] - a["x1"]
        size = max(float(a["size"]), MIN_GAP_SIZE_PT)
        col_start = gap > COLUMN_GAP_EM * size and a["bf"] < REGULAR_MAX_FRACTION <= b["bf"]
        if gap > CELL_GAP_EM * size or col_start:
            segs.append([b])
        else:
            segs[-1].append(b)
    return segs


def _candidate(page_no: int, head: list[dict], dropped: list[dict], geo: _PageGeo, starts: bool) -> Candidate:
    """``starts``: :func:`_starts_paragraph` of ``head[0]`` (or its :class:`_LazyStart`), from the caller."""
    first = head[0]
    run_in = False
    if (
        first["bf"] < BOLD_MIN_FRACTION
        and isinstance(first.get("lead"), str)
        and starts
        and not _emphasised_subject(first["lead"], first["text"])
    ):
        # the line starts with a bold lead-in followed by regular text: a run-in heading
        lead = {**first, "text": first_sentence(_respace(first["lead"], first["text"])), "bf": 1.0}
        return _candidate_from(page_no, [lead], [], run_in=True)
    if len(head) > 1 and first["bf"] >= BOLD_MIN_FRACTION:
        nb = [r for r in head if r["bf"] < REGULAR_MAX_FRACTION]
        if nb:
            reg = nb[0]
            # regular text whose left edge other lines below share is another column, not a run-in
            column_start = geo.left_edge_below(reg["y1"], 3 * reg["size"], reg["x0"])
            run_in = not column_start
            head = [r for r in head if r["bf"] >= REGULAR_MAX_FRACTION and r["x0"] < reg["x0"]]
    return _candidate_from(page_no, head, dropped, run_in=run_in)


def _single(page_no: int, r: dict, geo: _PageGeo) -> Candidate:
    """:func:`_candidate` of a line alone on its baseline, with its ``para_start`` / ``table_row``.

    The same steps as ``_candidate(page_no, [r], [], geo, start)`` then the two extra keys,
    inlined for the line that is not a run-in heading (most lines of a document).
    """
    bf = r["bf"]
    if bf < BOLD_MIN_FRACTION and isinstance(r["lead"], str):
        start = _starts_paragraph(r, geo)
        if start:
            c = _candidate(page_no, [r], [], geo, start)
            c.extra["para_start"] = start
            c.extra["table_row"] = False  # one piece on the baseline
            return c
    else:
        start = _LazyStart(r, geo)  # read by two rare typography tests only: computed on first use
    raw = r["text"]
    n = len(raw)
    text, m = raw.strip(), n or 1  # (max(n, 1) of a length)
    itf = r["itf"] * n / m
    # split_number's first steps inlined (``text`` is stripped: its strip(" ") is itself); most
    # lines start with a plain word and no numbering scheme can match them
    t = text if text.isprintable() and "  " not in text else " ".join(text.split())
    if _MAY_NUMBER.match(t):
        kind, num, title = split_number(text)
    else:
        kind = num = None
        title = t
    line = int(r["line"])
    # (box and size: floats already, see _page_records)
    return Candidate(
        page_no,
        line,
        [line],
        text,
        r["size"],
        bf * n / m >= BOLD_MIN_FRACTION,
        r["x0"],
        r["y0"],
        r["x1"],
        r["y1"],
        str(r["font"]),
        False,
        kind,
        num,
        title,
        {"italic": itf >= ITALIC_MIN_FRACTION, "para_start": start, "table_row": False},
    )


def _candidate_from(page_no: int, head: list[dict], dropped: list[dict], *, run_in: bool) -> Candidate:
    first = head[0]
    if len(head) == 1:  # most candidates: one line, the same sums and extremes without the loops
        raw = first["text"]
        n = len(raw)
        text, m = raw.strip(), max(n, 1)
        bf = first["bf"] * n / m
        itf = first.get("itf", 0.0) * n / m
        x0, x1, y0, y1 = first["x0"], first["x1"], first["y0"], first["y1"]
        size, line = first["size"], first["line"]
        kind, num, title = split_number(text)
        lines = [int(line)]
        if dropped:
            lines += [int(r["line"]) for r in dropped if r["x0"] >= x0 - 1 and r["x1"] <= x1 + 1]
        return Candidate(
            page_no,
            int(line),
            lines,
            text,
            float(size),
            bf >= BOLD_MIN_FRACTION,
            float(x0),
            float(y0),
            float(x1),
            float(y1),
            str(first["font"]),
            run_in,
            kind,
            num,
            title,
            {"italic": itf >= ITALIC_MIN_FRACTION},
        )
    text = " ".join(r["text"].strip() for r in head)
    chars = sum(len(r["text"]) for r in head)
    bf = sum(r["bf"] * len(r["text"]) for r in head) / max(chars, 1)
    itf = sum(r.get("itf", 0.0) * len(r["text"]) for r in head) / max(chars, 1)
    x0, x1 = min(r["x0"] for r in head), max(r["x1"] for r in head)
    y0, y1 = min(r["y0"] for r in head), max(r["y1"] for r in head)
    size, line = max(r["size"] for r in head), min(r["line"] for r in head)
    kind, num, title = split_number(text)
    dup = [r for r in dropped if r["x0"] >= x0 - 1 and r["x1"] <= x1 + 1]
    return Candidate(
        page=page_no,
        line=int(line),
        lines=[int(r["line"]) for r in head + dup],
        text=text,
        size=float(size),
        bold=bf >= BOLD_MIN_FRACTION,
        x0=float(x0),
        y0=float(y0),
        x1=float(x1),
        y1=float(y1),
        font=str(first["font"]),
        extra={"italic": itf >= ITALIC_MIN_FRACTION},
        run_in=run_in,
        kind=kind,
        number=num,
        title=title,
    )
