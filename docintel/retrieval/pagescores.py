"""A question's phrase and window scores of every page, read from the document's retrieval index
(:class:`~docintel.retrieval.bm25.PageIndex`): the ``phrase`` and ``window`` signals of
:func:`docintel.retrieval.rank.retrieve` (split from ``bm25.py``; in ``bm25.FINGERPRINTED`` with
the index it reads)."""

from __future__ import annotations

import math

import numpy as np

from docintel.retrieval.bm25 import PageIndex


def phrase_hits(index: PageIndex, phrase_bigrams: set[tuple[str, str]]) -> dict[int, tuple[float, list]]:
    """Per page holding a question bigram as adjacent terms, in page order: (the idf-weighted sum
    of those bigrams, the bigrams sorted). Every other page scores (0.0, [])."""
    have: dict[int, set[tuple[str, str]]] = {}
    for bg in phrase_bigrams:
        for p in index.bigram_pages(bg):
            have.setdefault(p, set()).add(bg)
    idf = {bg: index.bigram_idf(bg) for bg in phrase_bigrams}
    return {p: (math.fsum(idf[b] for b in have[p]), sorted(have[p])) for p in sorted(have)}


def window_hits(index: PageIndex, query: set[str], *, size: int = 12) -> dict[int, tuple[float, int]]:
    """Per page, the best run of ``size`` lines by the idf mass of the *distinct* query terms it
    holds, for the pages where it is above 0, in page order: (score, first line of the window).
    Rewards pages where the question's terms sit together (one paragraph answers it) over pages
    where they are scattered; every other page scores (0.0, its first line).

    The earliest best window, read from the query terms' line postings: between two starts
    where a matching line enters the window, terms only leave it, so the score cannot rise;
    the windows starting where a match enters (and the first) are the only ones to score.
    All pages at once on numpy arrays over the document's lines (a line's place in the index,
    pages in order): a window is a run of lines cut at its page's last line, it holds a term when
    the running count of the term's lines rises across it, and a set of terms scores its exact
    idf sum (``math.fsum`` in the sorted query's order, once per set). Marks over the lines give
    the sorted starts and the sets without a sort.
    """
    ordered = sorted(query)
    weights = [index.idf(t) for t in ordered]
    line_off, line_page, all_pages = index.line_arrays()
    n_lines = int(line_off[-1])
    per_term = []  # per query term: the document-wide indices of its lines (sorted, unique)
    hit = np.zeros(n_lines, dtype=bool)
    for t in ordered:
        lines = index.term_lines(t)
        hit[lines] = True
        per_term.append(lines)
    hits = np.flatnonzero(hit)
    if not len(hits):
        return {}
    page_lo, page_hi = line_off[line_page[hits]], line_off[line_page[hits] + 1]
    starts = np.minimum(np.maximum(page_lo, hits - size + 1), np.maximum(page_lo, page_hi - size))
    mark = np.zeros(n_lines, dtype=bool)
    mark[starts] = True
    mark[page_lo] = True  # every page's first window too
    cand = np.flatnonzero(mark)
    cand_pages = line_page[cand]
    cand_end = np.minimum(cand + size, line_off[cand_pages + 1])
    # the terms each window holds, as bits: 62 terms to an int64 word, as many words as it takes
    words = np.zeros((len(cand), (len(ordered) + 61) // 62), dtype=np.int64)
    seen = np.zeros(n_lines + 1, dtype=np.int32)
    for k, lines in enumerate(per_term):
        if len(lines):
            seen[:] = 0
            seen[lines + 1] = 1
            count = np.cumsum(seen)  # count[g]: the term's lines among the document's first g
            inside = count[cand_end] > count[cand]
            words[:, k // 62] |= inside.astype(np.int64) << (k % 62)
    if len(ordered) <= 16:  # the usual question: the sets as small integers, found by marks
        present = np.zeros(1 << len(ordered), dtype=bool)
        present[words[:, 0]] = True
        masks = np.flatnonzero(present).tolist()
        set_scores = [math.fsum(w for k, w in enumerate(weights) if m >> k & 1) for m in masks]
        table = np.zeros(1 << len(ordered), dtype=np.float64)
        table[masks] = set_scores
        scores = table[words[:, 0]]
    else:
        sets, which = np.unique(words, axis=0, return_inverse=True)
        masks = [sum(int(w) << (62 * j) for j, w in enumerate(row)) for row in sets.tolist()]
        set_scores = [math.fsum(w for k, w in enumerate(weights) if m >> k & 1) for m in masks]
        scores = np.array(set_scores, dtype=np.float64)[which.reshape(-1)]
    bounds = np.flatnonzero(np.r_[True, cand_pages[1:] != cand_pages[:-1]])
    best = np.maximum.reduceat(scores, bounds)
    group = np.repeat(np.arange(len(bounds)), np.diff(np.r_[bounds, len(cand)]))
    first = np.minimum.reduceat(np.where(scores == best[group], np.arange(len(cand)), len(cand)), bounds)
    first = first[best > 0]
    starts_at = index.line_numbers()[cand[first]].tolist()
    return {
        int(all_pages[cp]): (float(s), line)
        for cp, s, line in zip(cand_pages[first].tolist(), scores[first].tolist(), starts_at, strict=True)
    }


__all__ = ["phrase_hits", "window_hits"]
