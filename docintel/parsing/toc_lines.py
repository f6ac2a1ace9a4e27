"""Lines of the toc build that are no sections: the title line, cover pages, stacks of bold labels.

Split from :mod:`docintel.parsing.toc` (session 14) to keep that module under ~400 lines.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from docintel.parsing.heading_text import Candidate

#: A document title is set at least this many times the body size (set by hand; not measured).
TITLE_MIN_BODY_RATIO = 1.3


def cover_pages(line_df: pd.DataFrame, body: float) -> set[int]:
    """Leading pages with no body text (title pages): their big bold lines are not headings."""
    out = set()
    page = line_df["page"]
    for p in sorted(page.unique())[:2]:
        at = (page == p).to_numpy(dtype=bool, na_value=False)
        if at.sum() > 40:
            break  # too many lines for a title page (the test below says so)
        pl = line_df[["text", "bold", "size"]][at]  # no take of the other columns
        chars = pl["text"].str.len()
        body_like = (~pl["bold"].astype(bool)) & ((pl["size"] - body).abs() <= 1)
        if len(pl) and len(pl) <= 40 and chars[body_like].sum() < 0.25 * chars.sum():
            out.add(int(p))
        else:
            break
    return out


#: This many same-style unnumbered headings stacked with no text between them are a list of labels.
LABEL_STACK = 3


def label_stacks(heads: list[Candidate], line_df: pd.DataFrame) -> list[Candidate]:
    """Unnumbered bold lines stacked in one column with nothing between them (a highlights sidebar).

    A section heading introduces text below it; a run of :data:`LABEL_STACK` or more
    same-style phrases, each directly followed by the next, is a list set in bold
    ("Implement roles ..." / "Leverage row permissions ..." on a back cover).
    """
    out: list[Candidate] = []
    style = lambda c: (round(c.size), c.bold, c.font)  # noqa: E731
    by_page: dict[int, list[Candidate]] = {}
    for c in heads:
        if c.number is None and not c.run_in:
            by_page.setdefault(c.page, []).append(c)
    # numpy columns of the page's text lines once; "the line just below" is a masked argmin
    text = line_df.loc[
        ~line_df["role"].isin(["header", "footer", "page_number"]), ["page", "x0", "y0", "x1", "line"]
    ]
    at = text.groupby("page").indices
    x0s, y0s = text["x0"].to_numpy(dtype=float), text["y0"].to_numpy(dtype=float)
    x1s, lines_ = text["x1"].to_numpy(dtype=float), text["line"].to_numpy()
    for page, cs in by_page.items():
        if len(cs) < LABEL_STACK:
            continue
        ix = at.get(page, np.array([], dtype=int))
        px0, py0, px1, pline = x0s[ix], y0s[ix], x1s[ix], lines_[ix]
        owner = {ln: c for c in cs for ln in c.lines}
        nxt: dict[int, Candidate] = {}
        for c in cs:
            below = np.flatnonzero(
                (py0 >= c.y1 - 1) & (py0 <= c.y1 + 3 * c.size) & (px0 < c.x1) & (px1 > c.x0)
            )
            if not len(below):
                continue
            d = owner.get(int(pline[below[np.argmin(py0[below])]]))
            if d is not None and d is not c and style(d) == style(c):
                nxt[id(c)] = d
        targets = {id(d) for d in nxt.values()}
        for c in cs:
            if id(c) in targets:
                continue  # chains are walked from their first member
            chain = [c]
            while id(chain[-1]) in nxt and len(chain) < 50:
                chain.append(nxt[id(chain[-1])])
            if len(chain) >= LABEL_STACK:
                out += chain
    return out


def title_line(cands: list[Candidate], body: float, plain_first: int | None = None) -> Candidate | None:
    """The document title: on the first text page, above any numbered heading, clearly the largest text.

    ``plain_first``: the first page of the lines kept out of ``cands`` as plain body type
    (:class:`headings.PlainLines`: smaller than a title, so only their page counts).
    """
    if not cands:
        return None
    first_page = min(c.page for c in cands)
    if plain_first is not None and plain_first < first_page:
        return None  # the first text page holds plain body type only: it has no title
    page_c = [c for c in cands if c.page == first_page and len(c.text) > 3 and c.kind is None]
    if not page_c:
        return None
    best = max(page_c, key=lambda c: c.size)
    others = [c.size for c in cands if c is not best and c.bold and len(c.text) > 3]
    first_numbered = min((c.y0 for c in cands if c.page == first_page and c.kind), default=1e9)
    if (
        best.size < TITLE_MIN_BODY_RATIO * body
        or best.y0 > first_numbered
        or (others and best.size < max(others) + 1)
    ):
        return None
    return best


def title_c_rows(title_c: Candidate | None, line_df: pd.DataFrame) -> list:
    """line_df index of the document title's lines (never a provision)."""
    if title_c is None:
        return []
    return list(line_df.index[(line_df["page"] == title_c.page) & line_df["line"].isin(title_c.lines)])
