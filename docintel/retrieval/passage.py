"""Evidence passages for generation: a page's body lines, or its best-matching window of lines.

The final generation context is scored by size (it must stay at most half of
a top-3-pages baseline), so a chosen page is narrowed to the window of lines
that best matches the question when the page is long. The window is chosen by
the idf mass of distinct question terms and question bigrams it holds (the
same terms retrieval used), so the answer lines are kept rather than cut.
"""

from __future__ import annotations

import math
import re
from typing import Literal

from docintel.retrieval.bm25 import EXCLUDED_ROLES, PageIndex, bigrams, body_lines, page_index
from docintel.retrieval.firsthop import overview_pages, preamble_pages
from docintel.retrieval.lookup import toc_titles
from docintel.retrieval.rank import phrase_bigrams, query_terms, retrieve
from docintel.retrieval.rankpages import back_matter_pages, commentary_pages, listing_pages
from docintel.retrieval.refnames import _leader_lines as leader_lines
from docintel.retrieval.refnames import _toc_norm as toc_norm
from docintel.schema.document import DocTables
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.text import normalize, terms

RetrievedVia = Literal["primary", "reference", "definition", "scope", "baseline"]

#: The window budget is PAGE_SHARE of the document's median text page (approximate tokens, see
#: count_tokens): a first-hop window plus one resolved target window is then about 1.4 pages,
#: under half of a top-3-pages context (1.5 pages). Measured on the dev set: 67 of the 72 answer
#: strings that sit on the evidence pages stay inside the windows (0.8: 68/72 but over budget
#: on short-page documents; 0.6: 61/72).
PAGE_SHARE = 0.7
#: Never wider than this, whatever the page size.
DEFAULT_MAX_TOKENS = 1000
#: Never narrower than this: a window must hold a paragraph.
MIN_TOKENS = 150

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


def default_budget(tables: DocTables) -> int:
    """Window budget for this document: PAGE_SHARE of its median text page, within
    [MIN_TOKENS, DEFAULT_MAX_TOKENS] (so about 850 on a dense three-column register page,
    450 on a two-column paper page, 200 on a short report page).

    Computed once per document with its index (:func:`prepare_index`) and stored with it."""
    return prepare_index(tables).memo["budget"]


def prepare_index(tables: DocTables) -> PageIndex:
    """The document's retrieval index with every value an ask derives from the document alone:
    the section titles' terms and page ranges (``memo["toc_titles"]``), the token count of each page's body passage (``memo["page_tokens"]``, as
    :func:`passages_tokens` of :func:`page_passage` counts it), the window budget, the listing
    pages (``rankpages.listing_pages``), the back-matter and commentary pages (``rankpages``), and the
    overview and preamble pages (``firsthop``), the contents lines and the toc's
    ids, numbers and titles as compared (``lookup``)."""
    index = page_index(tables)
    if "budget" not in index.memo:
        tokens = page_tokens(tables)
        # Image-only pages (OCR'd figures: a caption and little else) are not text pages.
        pdf_ = tables.page_df
        skip = set(pdf_.loc[pdf_["image_only"].fillna(False).astype(bool), "page"].astype(int))
        sizes = sorted(tokens.get(p, 0) for p in index.pages if index.has_text(p) and p not in skip)
        median = sizes[len(sizes) // 2] if sizes else DEFAULT_MAX_TOKENS
        index.memo["page_tokens"] = tokens
        index.memo["budget"] = max(MIN_TOKENS, min(DEFAULT_MAX_TOKENS, int(PAGE_SHARE * median)))
        toc_titles(tables, index)  # the TOC signal, stored with the index
        # the listing and overview pages: document-only, so computed here once and stored, never
        # per ask (``api.ensure_index`` adds the labelled lines of ``reflines``)
        listing_pages(tables)
        overview_pages(tables)
        back_matter_pages(tables)
        commentary_pages(tables)
        preamble_pages(tables)
        leader_lines(tables)
        if not tables.toc_df.empty:
            toc_norm(tables, "ids")
    return index


def page_tokens(tables: DocTables) -> dict[int, int]:
    """page -> approximate tokens of its body passage (the text :func:`page_passage` gives)."""
    out: dict[int, int] = {}
    lines = body_lines(tables)
    for page, grp in lines.groupby("page", sort=True):
        out[int(page)] = count_tokens("\n".join(str(t) for t in grp["text"].tolist()))
    return out


def best_passage(
    tables: DocTables,
    question: ParsedQuestion,
    page: int,
    *,
    max_tokens: int | None = None,
    max_lines: int | None = None,
    include_lines: list[int] | None = None,
    retrieved_via: RetrievedVia = "primary",
    **passage_options,
) -> Passage:
    """The run of body lines of ``page`` within ``max_tokens`` (and ``max_lines``) that best matches.

    The whole page when it fits. A window is scored by the idf of the distinct
    question terms in it, plus half the idf of the question bigrams in it, plus a
    tenth of the idf of every further occurrence (so denser wins a tie); ties go to
    the earliest window. A token budget rather than a line count, because line
    length varies fivefold between a two-column paper and a three-column register.
    ``include_lines`` (e.g. the line holding a reference to follow) must stay
    inside the window, which is widened when they do not fit.
    """
    max_tokens = max_tokens or default_budget(tables)
    df = body_lines(tables, page)
    numbers = [int(n) for n in df["line"].tolist()]
    texts = [str(t) for t in df["text"].tolist()]
    sizes = [count_tokens(t) for t in texts]
    max_lines = max_lines or len(numbers)
    if sum(sizes) <= max_tokens and len(numbers) <= max_lines:
        return page_passage(tables, page, retrieved_via=retrieved_via, **passage_options)
    index = page_index(tables)
    qset = set(query_terms(question))
    qbigrams = phrase_bigrams(question)
    line_terms = [terms(t) for t in texts]
    must = sorted(numbers.index(n) for n in (include_lines or []) if n in set(numbers))

    best, span = -1.0, (0, 0)
    for i in range(len(numbers)):
        j, used = i, 0
        while j < len(numbers) and (j == i or (used + sizes[j] <= max_tokens and j - i < max_lines)):
            used += sizes[j]
            j += 1
        if must:  # stretch to cover the required lines; only windows that can reach them count
            if i > must[0]:
                break
            j = max(j, must[-1] + 1)
        score = window_score(index, line_terms[i:j], qset, qbigrams)
        if score > best:
            best, span = score, (i, j)
        if j >= len(numbers) and not must:
            break  # later windows are suffixes of this one
    if not must:
        span = _recentre(span, line_terms, qset, sizes, max_tokens, max_lines)
    start, end = numbers[span[0]], numbers[span[1] - 1]
    note = passage_options.pop("note", "") or (
        f"lines {start}-{end} of the page's {len(numbers)} body lines: the best match for the question"
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


def window_score(index: PageIndex, line_terms: list[list[str]], qset: set[str], qbigrams: set) -> float:
    """A window's match: the idf of the distinct question terms in it, half the idf of the question
    bigrams in it, a tenth of the idf of every further occurrence (denser wins a tie)."""
    seq = [t for ts in line_terms for t in ts]
    hits = [t for t in seq if t in qset]
    found = set(hits)
    return (
        math.fsum(index.idf(t) for t in found)
        + 0.5 * math.fsum(index.bigram_idf(b) for b in bigrams(seq) & qbigrams)
        + 0.1 * (math.fsum(index.idf(t) for t in hits) - math.fsum(index.idf(t) for t in found))
    )


def _recentre(
    span: tuple[int, int],
    line_terms: list[list[str]],
    qset: set[str],
    sizes: list[int],
    budget: int,
    max_lines: int,
) -> tuple[int, int]:
    """Rebuild the window around its matching lines: from the first to the last line holding a
    question term, grown one line after, one line before, alternately, until the budget is spent.

    The best window often has its matches at one edge, with the sentence that answers cut off
    just outside ("... does not meet the criteria" | "specified in 14 CFR 25.1707").
    """
    hits = [k for k in range(*span) if set(line_terms[k]) & qset]
    if not hits:
        return span
    lo, hi = hits[0], hits[-1] + 1
    used = sum(sizes[lo:hi])
    grew = True
    while grew:
        grew = False
        if hi < len(sizes) and used + sizes[hi] <= budget and hi - lo < max_lines:
            used, hi, grew = used + sizes[hi], hi + 1, True
        if lo > 0 and used + sizes[lo - 1] <= budget and hi - lo < max_lines:
            used, lo, grew = used + sizes[lo - 1], lo - 1, True
    return lo, hi


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
    "DEFAULT_MAX_TOKENS",
    "default_budget",
    "EXCLUDED_ROLES",
    "best_passage",
    "count_tokens",
    "page_passage",
    "page_tokens",
    "passages_tokens",
    "prepare_index",
    "top_pages_baseline",
]
