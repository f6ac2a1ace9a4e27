"""Rank pages for a parsed question: keyword pages + TOC pages + scope, merged (top-1 by default).

Signals, each normalised to 0..1 over the document's pages, then weighted (``WEIGHTS``):

- ``bm25``: BM25Okapi over each page's body-ish text (stemmed terms);
- ``phrase``: question bigrams (from its phrases) found as adjacent terms on the page, because
  real questions paraphrase and single tokens alone can prefer a page that only shares words;
- ``window``: idf mass of distinct question terms inside the best 12-line run of the page, so
  the paragraph that answers beats a page where the same words are scattered;
- ``toc``: sections whose title matches the question boost the pages of their range;
- ``definition``: for "What is X?" questions, pages where X is introduced ("... (X)", "X is",
  "called X", a glossary entry "X: ...");
- ``objects``: for listing questions that name an object type ("how many tables"), the pages
  holding such objects (object_registry, else caption lines);
- ``scope``: the region the question names ("Table 2", "Section 3.1", "page 8") when it exists.

Pages without text (image-only) rank last and are chosen only when no page has text; contents
pages rank after the body they list; a back-matter, commentary, preamble (a law's recitals,
:func:`~docintel.retrieval.firsthop.preamble_pages`) or overview page (a matrix whose
short lines point at the sections, :func:`~docintel.retrieval.firsthop.overview_pages`) ranks
just after the best body page that matches every question term it matches
(:func:`_back_matter_below_body`); for a question that asks for a duration ("How long ...",
"How soon ...") a page that states none ranks just after a close page that does
(:func:`~docintel.retrieval.firsthop.answer_type_first`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np

from docintel.retrieval.bm25 import PageIndex, bigrams, page_index
from docintel.retrieval.firsthop import answer_type_first, overview_pages, preamble_pages
from docintel.retrieval.lookup import (
    definition_pages,
    listed_object_type,
    object_pages,
    resolve_scope,
    section_ranges,
    toc_scores,
)
from docintel.retrieval.ownname import without_own_bigrams, without_own_name
from docintel.retrieval.pagescores import phrase_hits, window_hits
from docintel.retrieval.rankpages import back_matter_pages, commentary_pages, listing_pages
from docintel.retrieval.rankscore import (
    PageMatches,
    ReasonSource,
    Signals,
    keyword_array,
    normalised,
    round4,
    spread,
)
from docintel.schema.document import DocTables
from docintel.schema.evidence import Candidate, ParsedQuestion
from docintel.text import is_number, terms

#: Signal weights, measured on the 24 dev questions (top-1 == first-hop page, of 22 with one):
#: BM25 alone 14; + phrase 17; + TOC 16; all signals 20. A one-question change is noise on a set
#: this small, so the weights stay round and every signal stays explainable.
WEIGHTS: dict[str, float] = {
    "bm25": 1.0,
    "window": 0.5,
    "phrase": 0.5,
    "toc": 0.3,
    "definition": 0.5,
    "objects": 0.5,
    "scope": 3.0,
}


def query_terms(question: ParsedQuestion) -> list[str]:
    """The stemmed search terms of a parsed question: keywords, then numbers (deduplicated)."""
    out: dict[str, None] = {}
    for w in [*question.keywords, *question.numbers]:
        for t in terms(w) if not is_number(w) else [w]:
            out.setdefault(t, None)
    return list(out)


def phrase_bigrams(question: ParsedQuestion) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for ph in question.phrases:
        out |= bigrams(terms(ph))
    return out


def retrieve(
    question: ParsedQuestion,
    tables: DocTables,
    *,
    top_k: int = 1,
    weights: dict[str, float] | None = None,
) -> Ranking:
    """Every page of the document as a Candidate, best first; the ``top_k`` best have ``chosen=True``.

    Deterministic: ties are broken by page number. ``weights`` overrides :data:`WEIGHTS`
    (for experiments; the default is the measured setting). The pages are scored and sorted as
    plain records; a :class:`Ranking` builds each Candidate when it is first read (most callers
    read the first few of hundreds).
    """
    w = {**WEIGHTS, **(weights or {})}
    index = page_index(tables)
    query = without_own_name(query_terms(question), question, tables)
    qset = set(query)

    scope_pages, scope_note = resolve_scope(question.scope, tables) if question.scope else ([], "")
    if question.scope and not scope_pages:
        # The named region does not exist here ("Section 22" of a corpus, not of this document):
        # its words are still evidence, so search for them like any other term.
        query = [*query, *(t for t in terms(question.scope.text) if t not in qset)]
        qset = set(query)
    term = question.defined_term if question.shape == "definition" else None
    definitions = definition_pages(tables, term) if term else {}
    listed = listed_object_type(query) if question.shape == "list" else None
    objects = object_pages(tables, listed) if listed else {}

    back = back_matter_pages(tables) | commentary_pages(tables) | preamble_pages(tables)
    listing = listing_pages(tables)
    pages = index.pages
    at = {p: i for i, p in enumerate(pages)}
    raw = keyword_array(index, query)
    # the pages with a signal only; a phrase of the document's own name is no signal
    phrases = phrase_hits(index, without_own_bigrams(phrase_bigrams(question), query, question, tables))
    windows = window_hits(index, qset)
    toc = toc_scores(tables, index, qset)
    d = np.zeros(len(pages))  # documents define a term where they first use it: that page counts most
    first_definition = min(definitions) if definitions else None
    o, sc, t = np.zeros(len(pages)), np.zeros(len(pages)), np.zeros(len(pages))
    for p in at.keys() & definitions.keys():  # (pages the index lacks score nothing)
        d[at[p]] = 1.0 if p == first_definition else 0.5
    for p in at.keys() & objects.keys():
        o[at[p]] = 1.0
    for p in at.keys() & set(scope_pages):
        sc[at[p]] = 1.0
    for p in at.keys() & toc.keys():
        t[at[p]] = toc[p][0]
    signals = Signals(  # each rounded as round(x, 4) rounds it (see round4)
        bm25=round4(normalised(raw)),
        window=round4(normalised(spread(windows, at))),
        phrase=round4(normalised(spread(phrases, at))),
        toc=round4(t),
        definition=d,
        objects=o,
        scope=sc,
        bm25_raw=round4(raw),
    )
    total = np.zeros(len(pages))
    terms_ = [w[k] * v for k, v in signals.weighted()]
    some = np.flatnonzero(np.any(np.array(terms_) != 0, axis=0)) if pages else np.zeros(0, np.int64)
    # sum() of each page's terms in the signals' order, as the dict-per-page loop summed them
    # (Python's sum: 3.12's compensates float rounding); a page without a signal sums to 0.0
    total[some] = [sum(ts) for ts in zip(*(x[some].tolist() for x in terms_), strict=True)]
    score = round4(total).tolist()
    matched = PageMatches(index, qset)  # page -> the question terms it holds, sorted
    text_arr = index.doc_len_array() > 0  # index.has_text of every page, in page order
    text_on = text_arr.tolist()
    why = ReasonSource(matched, qset, raw.tolist(), phrases, windows, toc, scope_note, set(scope_pages),
               definitions, objects, term, text_on, signals)  # fmt: skip
    candidates = [_Row(p, s, i, why) for i, (p, s) in enumerate(zip(pages, score, strict=True))]

    exempt = {pages[i] for i in np.flatnonzero((sc != 0) | (signals.toc != 0)).tolist()}
    if question.shape == "definition":
        exempt = set(back)
    # an overview's own header rows are toc rows ("Required, (A) = Addressable"): only the
    # question's scope exempts it
    demoted = (back - exempt) | (set(overview_pages(tables)) - set(scope_pages))
    rank_score = dict(zip(pages, score, strict=True))
    if demoted and qset:  # back matter ranks after the body page that says it too
        is_back = np.zeros(len(pages), dtype=bool)
        is_back[[at[p] for p in demoted if p in at]] = True
        holds = _term_matrix(index, qset)
        for i, b in _back_matter_below_body(np.asarray(pages), np.asarray(score), is_back, text_arr, holds):
            rank_score[pages[i]] = score[b]
            _note(candidates[i], _BELOW_BODY.format(page=pages[b]))
    answer_type_first(question, tables, candidates, rank_score)
    for p in sorted(listing):
        if p in at:
            _note(candidates[at[p]], "contents / list of tables or figures: ranked after the body it lists")
    ranked = np.array([rank_score[p] for p in pages], dtype=np.float64)
    scope_set = set(scope_pages)
    order = np.lexsort(  # the last key first: pages are unique, so the order is total
        (
            np.asarray(pages, dtype=np.int64),
            ranked < np.asarray(score, dtype=np.float64),
            -ranked,
            np.array([p in listing and p not in scope_set for p in pages], dtype=bool),
            ~text_arr,
        )
    )
    candidates = [candidates[i] for i in order.tolist()]
    for c in candidates[: max(0, top_k)]:
        c.chosen = True
    return Ranking(candidates)


class _Row:
    """A page's Candidate fields before the Candidate is built (what the ranking reads and sorts);
    its scores dict and reasons are built when first read (most pages are never read)."""

    __slots__ = ("_added", "_at", "_reasons", "_why", "chosen", "page", "score")

    def __init__(self, page: int, score: float, at: int, why: ReasonSource) -> None:
        self.page, self.score, self._at, self._why, self.chosen = page, score, at, why, False
        self._reasons: list[str] | None = None
        self._added: list[str] = []

    @property
    def scores(self) -> dict[str, float]:
        return self._why.signals.scores(self._at)

    @property
    def reasons(self) -> list[str]:
        """The page's reasons (one list, kept: callers append to it), then those added by
        :func:`_note` before it was first read."""
        if self._reasons is None:
            self._reasons = self._why.reasons(self.page, self._at) + self._added
        return self._reasons

    def candidate(self) -> Candidate:
        c = Candidate(page=self.page, score=self.score, scores=self.scores, reasons=self.reasons)
        if self.chosen:  # set after construction, as the ranking always did (``model_fields_set``)
            c.chosen = True
        return c


def _note(c: Candidate | _Row, reason: str) -> None:
    """Add ``reason`` after the candidate's reasons (a row keeps it until its reasons are read)."""
    if isinstance(c, _Row) and c._reasons is None:
        c._added.append(reason)
    else:
        c.reasons.append(reason)


class Ranking(Sequence[Candidate]):
    """The ranked pages as a read-only sequence of Candidates, each built on its first read and
    then kept (reading an item twice gives the same object). Slices are lists. Equal to another
    Ranking or a list holding equal Candidates in the same order."""

    __slots__ = ("_built", "_rows")

    def __init__(self, rows: list[_Row]) -> None:
        self._rows = rows
        self._built: list[Candidate | None] = [None] * len(rows)

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> Candidate: ...
    @overload
    def __getitem__(self, i: slice) -> list[Candidate]: ...
    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._item(j) for j in range(*i.indices(len(self._rows)))]
        n = len(self._rows)
        if not -n <= i < n:
            raise IndexError("Ranking index out of range")
        return self._item(i % n)

    def __iter__(self) -> Iterator[Candidate]:
        return (self._item(j) for j in range(len(self._rows)))

    def _item(self, j: int) -> Candidate:
        c = self._built[j]
        if c is None:
            c = self._built[j] = self._rows[j].candidate()
        return c

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Ranking | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable contents, like a list

    def __repr__(self) -> str:
        return f"Ranking({list(self)!r})"


#: The reason a back-matter page gives for ranking after a body page (:func:`_back_matter_below_body`).
_BELOW_BODY = (
    "back matter: page {page} of the body matches every question term this page matches, "
    "so this page ranks after it"
)


def _term_matrix(index: PageIndex, qset: set[str]) -> np.ndarray:
    """Which question terms (sorted) each page holds, from the terms' postings: a boolean matrix
    with a row per page, in the index's order."""
    holds = np.zeros((len(index.pages), len(qset)), dtype=bool)
    for k, t in enumerate(sorted(qset)):
        holds[index.postings(t)[0], k] = True
    return holds


def _back_matter_below_body(
    pages: np.ndarray, score: np.ndarray, is_back: np.ndarray, text_on: np.ndarray, holds: np.ndarray
) -> list[tuple[int, int]]:
    """The back-matter pages that rank after a body page, as (the back page's position, the body
    page's position), in page order; the arrays are every page's in one order, ``holds`` from
    :func:`_term_matrix`. A back page whose matched question terms a lower-scoring body page (one
    with text) also matches all of ranks at the best such body page's score (the highest, then
    the lowest page), just after it (see the sort in :func:`retrieve`).

    Back matter (appendix, glossary, references, commentary) restates the body: a glossary entry
    repeats the body's sentence ("Examples of Subcategories include ..."), an appendix repeats a
    result; the body page that says it too carries the context and the pointer. When no body
    page covers its terms (the appendix alone says "ReLU") it keeps its rank. The caller exempts
    pages the question names (scope), pages whose section title matches (toc) and, for a
    definition question, all of them (a glossary defines). This replaced a x0.92 weight that
    had been tuned on the development questions.

    On arrays (a back-matter appendix can be most of a long document): the back pages holding a
    question term are grouped by their term set, and each set's best covering body page is found
    once."""
    assert len(holds) == len(pages), "one term row per index page"
    rows = np.flatnonzero(is_back & holds.any(axis=1))
    if not len(rows):
        return []
    by_rank = np.flatnonzero(~is_back & text_on)  # body pages, best first: score down, then page up
    by_rank = by_rank[np.lexsort((pages[by_rank], -score[by_rank]))]
    body_holds = holds[by_rank]
    m = holds.shape[1]
    if m <= 62:  # a term set as one integer
        codes = holds[rows].astype(np.int64) @ (np.int64(1) << np.arange(m, dtype=np.int64))
        _, first, group = np.unique(codes, return_index=True, return_inverse=True)
    else:
        seen: dict[bytes, int] = {}
        group = np.array(
            [seen.setdefault(holds[i].tobytes(), len(seen)) for i in rows.tolist()], dtype=np.int64
        )
        first = np.unique(group, return_index=True)[1]
    best = np.empty(len(first), dtype=np.int64)
    for g, i in enumerate(rows[first].tolist()):
        covers = np.flatnonzero(body_holds[:, holds[i]].all(axis=1))
        best[g] = by_rank[covers[0]] if len(covers) else -1
    best_row = best[group.reshape(-1)]
    hit = (best_row >= 0) & (score[np.maximum(best_row, 0)] < score[rows])
    return list(zip(rows[hit].tolist(), best_row[hit].tolist(), strict=True))


def suggested_top_k(question: ParsedQuestion, tables: DocTables, *, cap: int = 5) -> int:
    """How many pages to choose: 1 (the article's top-1 policy) except for listing questions,
    whose answer is spread out: one per page holding the listed object type, else 3; at most ``cap``."""
    if question.shape != "list":
        return 1
    listed = listed_object_type(query_terms(question))
    n = len(object_pages(tables, listed)) if listed else 0
    return max(1, min(cap, n or 3))


def explain(candidates: Sequence[Candidate], n: int = 5) -> str:
    """A short human summary of the top ``n`` candidates (for logs and notebooks)."""
    rows = [
        f"p{c.page} {c.score:.3f}{' *' if c.chosen else ''}: {'; '.join(c.reasons)}" for c in candidates[:n]
    ]
    return "\n".join(rows)


__all__ = [
    "WEIGHTS",
    "Ranking",
    "explain",
    "query_terms",
    "resolve_scope",
    "retrieve",
    "section_ranges",
    "suggested_top_k",
]
