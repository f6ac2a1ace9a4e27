"""An honest warning when the first page won by a hair: another page scored almost as well.

The completeness label says whether the loop found what the evidence points at, not whether the
first page was the right one: on question sets 1-4 (session 9) 22 of 83 answers labelled
complete were wrong, most of them on a wrong first page. The label's values stay; the answer
gets a warning instead when the ranking could not tell two places apart: a runner-up page
scoring within :data:`MARGIN` of the first page, not next to it (a section running over the page
break), not inside the same named section (one provision's two pages), not a page the ranking puts
last by kind (a contents page, an image-only page, a page without the asked-for answer type),
and not a page the evidence already holds (a followed pointer went there).
"""

from __future__ import annotations

from collections.abc import Iterable

from docintel.retrieval.lookup import section_ranges
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion

#: A runner-up page whose score is within ``MARGIN`` of the first page's, either side (a back-matter
#: page put after the first may score above it; far above, the rule chose, not a hair), makes the
#: first hop ambiguous. Measured on question sets 1-5 (BENCHMARKS.md "Session 10, answers on unseen
#: families"): see there for how many wrong and right "complete" answers each margin flags.
MARGIN = 0.02
#: How many of the best-ranked pages after the first are looked at.
POOL = 4
#: Reasons the ranking adds to a page it put after the others by kind, whatever its words: a
#: contents page, an image-only page, a page without the asked-for answer type. Not rivals. A
#: back-matter or overview page put after a body page that matches the same terms stays one: the
#: rule chose between two close pages (FedRAMP's right page 19 was so put after page 12).
_RANKED_BELOW = ("ranked after the body it lists", "answer type:", "ranked last")


def _score(c) -> float:
    return float(c["score"] if isinstance(c, dict) else c.score)


def _page(c) -> int:
    return int(c["page"] if isinstance(c, dict) else c.page)


def _reasons(c) -> list[str]:
    return list(c["reasons"] if isinstance(c, dict) else c.reasons)


#: A named section spanning more than this share of the document's pages (a SCOTUS opinion's
#: level-1 "SUPREME COURT OF THE UNITED STATES" over most pages, a part holding the whole body)
#: names no one provision: two pages inside it can still be two places.
WIDE_SECTION = 0.5


def _same_section(tables: DocTables, a: int, b: int) -> bool:
    """Both pages inside the named section that holds page ``a``: the deepest, and of those the
    one starting last (on a page where one section ends and the next begins, the page's later
    lines are the next section's), ignoring sections wider than :data:`WIDE_SECTION` of the
    document."""
    ranges = section_ranges(tables)
    if ranges.empty:
        return False
    pages = int(tables.page_df["page"].max()) if len(tables.page_df) else int(ranges["page_end"].max())
    span = ranges["page_end"].astype(int) - ranges["page_start"].astype(int) + 1
    holding = ranges[(ranges["page_start"] <= a) & (ranges["page_end"] >= a) & (span <= WIDE_SECTION * pages)]
    if holding.empty:
        return False
    level = holding["level"].fillna(1).astype(int)
    deepest = holding[level == level.max()]
    section = deepest.loc[deepest["page_start"].astype(int).idxmax()]
    return int(section["page_start"]) <= b <= int(section["page_end"])


def rival_pages(
    tables: DocTables, candidates: list, evidence_pages: Iterable[int], margin: float = MARGIN
) -> list[tuple[int, float]]:
    """(page, score ratio to the first page) of each rival of the first-ranked page among the
    next :data:`POOL` pages (``candidates`` in rank order, Candidate objects or their dumps)."""
    if len(candidates) < 2:
        return []
    first = candidates[0]
    top = _score(first)
    if top <= 0:
        return []
    have = set(evidence_pages)
    out = []
    for c in candidates[1 : 1 + POOL]:
        p, ratio = _page(c), _score(c) / top
        if abs(ratio - 1) > margin or abs(p - _page(first)) <= 1 or p in have:
            continue
        if any(k in r for r in _reasons(c) for k in _RANKED_BELOW):
            continue
        if _same_section(tables, _page(first), p):
            continue
        out.append((p, round(ratio, 3)))
    return out


def first_page_warning(
    tables: DocTables,
    question: ParsedQuestion,
    candidates: list | None,
    evidence_pages: Iterable[int],
    first_pages: Iterable[int] | None = None,
) -> list[str]:
    """The warning for an ambiguous first hop (empty when the first page won clearly, when the
    region the question names was found and ranked first, or when no keyword ranking chose the
    first page). ``first_pages``: the pages the first hop read; the ranking's first page must be
    one of them (a listing or heading-series first hop reads other pages than the ranking's)."""
    if not candidates:
        return []
    first = _page(candidates[0])
    if first_pages is not None and first not in set(first_pages):
        return []
    if _scope_score(candidates[0]) > 0:  # the region the question names chose, not the words
        return []
    rivals = rival_pages(tables, candidates, evidence_pages)
    if not rivals:
        return []
    names = ", ".join(f"page {p} ({round(100 * r)}%)" for p, r in rivals)
    return [
        f"ambiguous first page: {names} scored almost as high as page {first}, the first page "
        "read; the answer may be on the other page"
    ]


def _scope_score(c) -> float:
    scores = c.get("scores") if isinstance(c, dict) else getattr(c, "scores", None)
    return float((scores or {}).get("scope", 0.0))


__all__ = ["MARGIN", "WIDE_SECTION", "first_page_warning", "rival_pages"]
