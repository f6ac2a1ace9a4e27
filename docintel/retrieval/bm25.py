"""Per-page keyword index of a parsed document: BM25 (rank-bm25), phrase bigrams, line windows.

Pages are the retrieval unit (the article's top-1 *page* policy). A page's
text is its body-ish lines only: running headers/footers, page numbers and
text inside figures are furniture that would make every page match the
document's title, and contents-page entries would make the contents page win
every question that names a section.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import pandas as pd

from docintel.schema.document import DocTables
from docintel.schema.kinds import NON_EVIDENCE_ROLES, UNINDEXED_ROLES
from docintel.text import dehyphenate, terms

#: Line roles never given to generation, and left out of the keyword index (see schema.kinds).
EXCLUDED_ROLES = NON_EVIDENCE_ROLES

# doc_id -> (line_df, page_df, index). Holding the frames keeps their id()s from being reused,
# and an identity check (not equality) makes a re-parsed or edited document rebuild its index.
_CACHE: dict[str, tuple[pd.DataFrame, pd.DataFrame, PageIndex]] = {}
_CACHE_SIZE = 8


@dataclass
class PageIndex:
    """Terms of every page, document frequencies, and a BM25Okapi model over the pages."""

    pages: list[int]
    page_terms: dict[int, list[str]]
    line_terms: dict[int, list[tuple[int, list[str]]]] = field(default_factory=dict)
    df: Counter = field(default_factory=Counter)
    bigram_df: Counter = field(default_factory=Counter)
    bm25: object | None = None
    #: Memo for derived per-document values (e.g. the passage token budget).
    memo: dict = field(default_factory=dict)

    @property
    def n_pages(self) -> int:
        return len(self.pages)

    def has_text(self, page: int) -> bool:
        return bool(self.page_terms.get(page))

    def idf(self, term: str) -> float:
        """Smoothed idf, always > 0, so a term on every page still counts a little."""
        return math.log(1.0 + (self.n_pages + 1) / (self.df.get(term, 0) + 0.5))

    def bigram_idf(self, bigram: tuple[str, str]) -> float:
        return math.log(1.0 + (self.n_pages + 1) / (self.bigram_df.get(bigram, 0) + 0.5))

    def bm25_scores(self, query: list[str]) -> dict[int, float]:
        if self.bm25 is None or not query:
            return {p: 0.0 for p in self.pages}
        scores = self.bm25.get_scores(query)
        return {p: max(0.0, float(s)) for p, s in zip(self.pages, scores, strict=True)}


def body_lines(
    tables: DocTables, page: int | None = None, *, roles: frozenset = EXCLUDED_ROLES
) -> pd.DataFrame:
    """The lines of ``page`` (or of every page) whose role is not in ``roles``, in reading order."""
    df = tables.line_df
    if page is not None:
        df = df[df["page"] == page]
    role = df["role"].fillna("body")
    df = df[~role.isin(roles)]
    return df.sort_values(["page", "line"], kind="stable")


def bigrams(seq: list[str]) -> set[tuple[str, str]]:
    return {(a, b) for a, b in zip(seq, seq[1:], strict=False) if a != b}


def page_index(tables: DocTables) -> PageIndex:
    """Build (or reuse) the index of ``tables``; cached per document object."""
    hit = _CACHE.get(tables.doc_id)
    if hit is not None and hit[0] is tables.line_df and hit[1] is tables.page_df:
        return hit[2]
    pages = _all_pages(tables)
    lines = body_lines(tables, roles=UNINDEXED_ROLES)
    page_terms: dict[int, list[str]] = {p: [] for p in pages}
    line_terms: dict[int, list[tuple[int, list[str]]]] = {p: [] for p in pages}
    for page, grp in lines.groupby("page", sort=True):
        texts = [str(t) for t in grp["text"].tolist()]
        page_terms[int(page)] = terms(dehyphenate(texts))
        line_terms[int(page)] = [(int(n), terms(t)) for n, t in zip(grp["line"], texts, strict=True)]
    index = PageIndex(pages=pages, page_terms=page_terms, line_terms=line_terms)
    for p in pages:
        index.df.update(set(page_terms[p]))
        index.bigram_df.update(bigrams(page_terms[p]))
    if any(page_terms.values()):
        from rank_bm25 import BM25Okapi

        # rank-bm25 divides by the average length: a text-less page is fine, an all-empty corpus is not.
        index.bm25 = BM25Okapi([page_terms[p] for p in pages])
    _CACHE.pop(tables.doc_id, None)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[tables.doc_id] = (tables.line_df, tables.page_df, index)
    return index


def _all_pages(tables: DocTables) -> list[int]:
    pages = set(tables.page_df["page"].astype(int).tolist()) if len(tables.page_df) else set()
    pages |= set(tables.line_df["page"].astype(int).tolist()) if len(tables.line_df) else set()
    return sorted(pages)


def phrase_scores(index: PageIndex, phrase_bigrams: set[tuple[str, str]]) -> dict[int, tuple[float, list]]:
    """Per page: idf-weighted sum of the question's bigrams that occur verbatim (as adjacent terms)."""
    out = {}
    for p in index.pages:
        have = bigrams(index.page_terms[p]) & phrase_bigrams
        out[p] = (math.fsum(index.bigram_idf(b) for b in have), sorted(have))
    return out


def window_scores(index: PageIndex, query: set[str], *, size: int = 12) -> dict[int, tuple[float, int]]:
    """Per page: the best run of ``size`` lines by idf mass of *distinct* query terms it holds.

    Rewards pages where the question's terms sit together (one paragraph answers
    it) over pages where they are scattered; returns (score, first line of the window).
    """
    out: dict[int, tuple[float, int]] = {}
    for p in index.pages:
        lines = index.line_terms.get(p, [])
        best, best_line = 0.0, lines[0][0] if lines else 0
        for i in range(max(1, len(lines) - size + 1)):
            seen = set()
            for _, ts in lines[i : i + size]:
                seen.update(t for t in ts if t in query)
            score = math.fsum(index.idf(t) for t in seen)
            if score > best:
                best, best_line = score, lines[i][0]
        out[p] = (best, best_line)
    return out
