"""The escalation triage's reading of candidate pages: the heading-like lines the model would change.

Split from :mod:`docintel.parsing.escalate` (which re-exports these names and runs the triage):
the document's body size and title pages as the toc stage reads them, and the lines inside each
candidate page's escalation regions that heading detection marks heading-like.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def _body_size(page_rows: list[list[dict]]) -> float:
    """The most common body-line size weighted by characters (``headings.body_size`` on the
    fast rows; ~10 ms for 13,000 lines, a sample of pages would miss the mode)."""
    from collections import Counter

    from docintel.parsing.headings import DEFAULT_BODY_SIZE

    weight: Counter = Counter()
    for rows in page_rows:
        for r in rows:
            if r.get("role") == "body" and r.get("size") is not None:
                weight[round(float(r["size"]))] += len(r["text"])
    return float(weight.most_common(1)[0][0]) if weight else DEFAULT_BODY_SIZE


def _cover_pages(page_rows: list[list[dict]], prows: list[dict], body: float) -> set[int]:
    """The leading title pages (``toc._cover_pages`` on the fast rows of the first two text
    pages): the toc stage takes no heading from them, so the model saves none there."""
    import pandas as pd

    from docintel.parsing import toc

    first = [(int(prows[i]["page"]), rows) for i, rows in enumerate(page_rows) if rows][:2]
    recs = [(p, r["text"], bool(r.get("bold")), r.get("size")) for p, rows in first for r in rows]
    if not recs:
        return set()
    df = pd.DataFrame(recs, columns=["page", "text", "bold", "size"])
    df["size"] = df["size"].astype(float)
    return toc._cover_pages(df, body)


#: The line fields heading detection reads (``headings.candidates``, ``span_features``).
_HEADING_FIELDS = ("line", "text", "x0", "y0", "x1", "y1", "size", "font", "bold", "column", "role")


def headings_at_stake(
    page,
    page_no: int,
    rows: list[dict],
    prow: dict,
    body: float,
    spans: dict | None = None,
    *,
    cover: set[int] | None = None,
) -> int:
    """Lines inside the regions the escalation reasons name (``_escalation_regions``) that the
    toc stage reads as headings: ``headings.candidates`` joined over wrapped lines and marked
    heading-like as ``toc.build_toc`` does (typography, run-in and dash rules, label stacks,
    ``toc_rules.not_sections``; ``cover``: the document's title pages, which give none). What
    the model saves is mostly table cells and chart labels that heading detection would make
    sections of; a line the toc stage drops anyway is not at stake."""
    return _stakes_of(page.parent, [(page_no, rows, prow)], body, spans, cover)[page_no]


def stakes_at_pages(
    doc, pages: list[tuple[int, list[dict], dict]], body: float, spans: dict | None, cover: set[int] | None
) -> dict[int, int]:
    """:func:`headings_at_stake` of each ``(page_no, rows, prow)``, read in one pass over their lines
    (one frame, one ``candidates`` / ``_mark_heading_like`` run, not one per page: each page's
    pandas work was most of the triage). Every rule those read is per page (candidates, joins,
    label stacks, repeated labels, paragraph tails, definition lists) but ``not_sections``' front
    matter test, which reads the first "Abstract" heading on pages 1-2: those pages go one by one.
    A page whose pass fails is left out (the model then decides for it)."""
    alone = [[item] for item in pages if item[0] <= 2]
    rest = [item for item in pages if item[0] > 2]
    out: dict[int, int] = {}
    for group in [*alone, *([rest] if rest else [])]:
        try:
            out.update(_stakes_of(doc, group, body, spans, cover))
        except Exception as exc:
            if len(group) > 1:  # one page's failure: the others are read one by one
                for item in group:
                    out.update(stakes_at_pages(doc, [item], body, spans, cover))
            else:
                log.debug("page %d: escalation triage failed (%s)", group[0][0], exc)
    return out


def _stakes_of(doc, pages: list[tuple[int, list[dict], dict]], body: float, spans, cover) -> dict[int, int]:
    import numpy as np
    import pandas as pd

    from docintel.parsing import headings, toc

    recs: list[dict] = []
    page_col: list[int] = []
    for page_no, rows, _ in pages:
        kept = [{k: r.get(k) for k in _HEADING_FIELDS} for r in rows if not r.get("_margin")]
        recs += kept
        page_col += [page_no] * len(kept)
    out = {page_no: 0 for page_no, _, _ in pages}
    pl = pd.DataFrame(recs, columns=_HEADING_FIELDS)
    if pl.empty:
        return out
    pl["page"] = np.array(page_col, dtype=np.int64)
    known = {p: spans[p] for p in out if spans and p in spans} or None
    feats = headings.span_features(doc, pl, known)  # a page without the page stage's spans is read
    box = {
        (int(p), int(n)): ((x0 + x1) / 2, (y0 + y1) / 2)
        for p, n, x0, y0, x1, y1 in zip(
            pl["page"], pl["line"], pl["x0"], pl["y0"], pl["x1"], pl["y1"], strict=True
        )
    }
    cands = toc._join_continuations(headings.candidates(pl, feats), body)
    # as the toc stage marks them: it drops a label printed several times on the page ("CONTROL
    # NAME" in each record of a ruled form), a glossary's terms, a stack of same-style labels
    # (an acronym list's expansions), run-in leads ending in ":", lines on a title page
    toc._mark_heading_like(cands, pl, body, None, set(), cover=cover or set())
    heads = {(c.page, int(n)) for c in cands if c.extra["heading_like"] for n in c.lines}
    regions = {page_no: prow.get("_escalation_regions") or [] for page_no, _, prow in pages}
    for p, n in heads:
        if (p, n) not in box:
            continue
        x, y = box[(p, n)]
        out[p] += any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in regions[p])
    return out
