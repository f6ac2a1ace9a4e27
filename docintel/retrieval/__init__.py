"""Retrieval brick: ParsedQuestion + DocTables -> ranked page candidates and evidence passages.

``retrieve`` ranks every page (BM25 + phrase + local window + TOC + scope, top-1 chosen by
default); ``page_passage`` / ``best_passage`` turn a chosen page into the lines given to
generation; ``top_pages_baseline`` is the naive top-3 context the token budget is compared with.
"""

from __future__ import annotations

from docintel.retrieval.passage import (
    best_passage,
    count_tokens,
    page_passage,
    passages_tokens,
    top_pages_baseline,
)
from docintel.retrieval.rank import WEIGHTS, explain, resolve_scope, retrieve, section_ranges, suggested_top_k

__all__ = [
    "WEIGHTS",
    "best_passage",
    "count_tokens",
    "explain",
    "page_passage",
    "passages_tokens",
    "resolve_scope",
    "retrieve",
    "section_ranges",
    "suggested_top_k",
    "top_pages_baseline",
]
