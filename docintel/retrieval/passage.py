"""Evidence passages for generation: a page's body lines, or its best-matching window of lines.

The final generation context is scored by size (it must stay at most half of
a top-3-pages baseline), so a chosen page is narrowed to the window of lines
that best matches the question when the page is long. The window is chosen by
the idf mass of distinct question terms and question bigrams it holds (the
same terms retrieval used), so the answer lines are kept rather than cut.
"""

from __future__ import annotations

import re
from typing import Literal

from docintel.questions.text import normalize, terms
from docintel.retrieval.bm25 import EXCLUDED_ROLES, bigrams, body_lines, page_index
from docintel.retrieval.rank import phrase_bigrams, query_terms, retrieve
from docintel.schema.document import DocTables
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage

RetrievedVia = Literal["primary", "reference", "definition", "scope", "baseline"]

#: Default window: enough for a paragraph plus its neighbours on a two-column paper page.
DEFAULT_MAX_LINES = 30

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Approximate LLM token count: one per word and one per punctuation mark.

    A documented stand-in for a BPE tokenizer (tiktoken downloads its encodings
    at run time): on English prose it lands within about 20% of cl100k counts,
    and it is only ever used to compare context sizes with each other.
    """
    return len(_TOKEN.findall(normalize(text)))


def page_passage(
    tables: DocTables,
    page: int,
    *,
    line_start: int | None = None,
    line_end: int | None = None,
    retrieved_via: RetrievedVia = "primary",
    referenced_from: tuple[int, int] | None = None,
    reference_text: str | None = None,
    note: str = "",
) -> Passage:
    """The body lines of ``page`` (optionally only lines ``line_start``..``line_end``) as a Passage.

    Headers, footers, page numbers and text inside figures are left out. A page with
    no such line (image-only) gives a Passage with no lines.
    """
    df = body_lines(tables, page)
    if line_start is not None:
        df = df[df["line"] >= line_start]
    if line_end is not None:
        df = df[df["line"] <= line_end]
    lines = [
        EvidenceLine(page=int(r.page), line=int(r.line), text=str(r.text), role=str(r.role or "body"))
        for r in df.itertuples(index=False)
    ]
    return Passage(
        doc_id=tables.doc_id,
        page=page,
        line_start=lines[0].line if lines else (line_start or 0),
        line_end=lines[-1].line if lines else (line_end or 0),
        lines=lines,
        retrieved_via=retrieved_via,
        referenced_from=referenced_from,
        reference_text=reference_text,
        note=note,
    )


def best_passage(
    tables: DocTables,
    question: ParsedQuestion,
    page: int,
    *,
    max_lines: int = DEFAULT_MAX_LINES,
    include_lines: list[int] | None = None,
    retrieved_via: RetrievedVia = "primary",
    **passage_options,
) -> Passage:
    """The window of at most ``max_lines`` body lines of ``page`` that best matches ``question``.

    The whole page when it is short enough. A window is scored by the idf of the
    distinct question terms in it plus its question bigrams; ties go to the earliest
    window. ``include_lines`` (e.g. the line holding a reference to follow) must
    stay inside the window: the window is then the best one containing them,
    widened if they span more than ``max_lines``.
    """
    df = body_lines(tables, page)
    numbers = [int(n) for n in df["line"].tolist()]
    if len(numbers) <= max_lines:
        return page_passage(tables, page, retrieved_via=retrieved_via, **passage_options)
    index = page_index(tables)
    qset = set(query_terms(question))
    qbigrams = phrase_bigrams(question)
    line_terms = [terms(str(t)) for t in df["text"].tolist()]

    must = sorted(n for n in (include_lines or []) if n in set(numbers))
    size = max_lines
    if must:
        size = max(size, numbers.index(must[-1]) - numbers.index(must[0]) + 1)
    best, best_i = -1.0, 0
    for i in range(len(numbers) - size + 1):
        window = numbers[i : i + size]
        if must and not (window[0] <= must[0] and must[-1] <= window[-1]):
            continue
        seq = [t for ts in line_terms[i : i + size] for t in ts]
        found = set(seq) & qset
        score = sum(index.idf(t) for t in found) + 0.5 * sum(
            index.bigram_idf(b) for b in bigrams(seq) & qbigrams
        )
        if score > best:
            best, best_i = score, i
    start, end = numbers[best_i], numbers[min(best_i + size, len(numbers)) - 1]
    note = (
        passage_options.pop("note", "")
        or f"lines {start}-{end} of {len(numbers)}: best match for the question"
    )
    return page_passage(
        tables,
        page,
        line_start=start,
        line_end=end,
        retrieved_via=retrieved_via,
        note=note,
        **passage_options,
    )


def top_pages_baseline(tables: DocTables, question: ParsedQuestion, k: int = 3) -> list[Passage]:
    """Whole body text of the ``k`` best-ranked pages: the naive top-k context to compare against."""
    candidates = retrieve(question, tables, top_k=k)
    return [
        page_passage(tables, c.page, retrieved_via="baseline", note=f"top-{k} baseline, rank {i + 1}")
        for i, c in enumerate(candidates[:k])
    ]


def passages_tokens(passages: list[Passage]) -> int:
    """Total approximate tokens of ``passages`` (see :func:`count_tokens`)."""
    return sum(count_tokens(p.text) for p in passages)


__all__ = [
    "DEFAULT_MAX_LINES",
    "EXCLUDED_ROLES",
    "best_passage",
    "count_tokens",
    "page_passage",
    "passages_tokens",
    "top_pages_baseline",
]
