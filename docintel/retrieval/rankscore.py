"""The signal arrays of a ranking (:func:`docintel.retrieval.rank.retrieve`): every page's
keyword score and the rounded signals as numpy arrays in page order, and what a page's reasons
are read from, kept until its Candidate is built (split from ``rank.py``)."""

from __future__ import annotations

import numpy as np

from docintel.retrieval.bm25 import K1, B, PageIndex


def spread(sparse: dict[int, tuple[float, object]], at: dict[int, int]) -> np.ndarray:
    """The scores of the pages with a signal as an array over every page (0.0 elsewhere)."""
    out = np.zeros(len(at))
    for p, (s, _) in sparse.items():
        out[at[p]] = s
    return out


def normalised(values: np.ndarray) -> np.ndarray:
    """Each value over the largest (the same division as Python's), 0.0 when none is above 0."""
    top = values.max() if len(values) else 0.0
    return values / top if top > 0 else np.zeros(len(values))


def round4(x: np.ndarray) -> np.ndarray:
    """``round(v, 4)`` of every value, as Python rounds: to the double nearest the decimal that
    the exact value rounds to (half to even). ``rint(v * 1e4) / 1e4`` is that wherever ``v * 1e4``
    is not within a few units of its last place of a half (both divisions are correctly rounded
    and the rounded product then falls on the same side of every half as the exact one); the
    values that are, and any too large or not finite, are rounded by round() itself."""
    z = x * 1e4
    out = np.rint(z) / 1e4
    frac = np.abs(z - np.floor(z))
    unsure = ~(np.abs(z) < 2.0**40) | (np.abs(frac - 0.5) <= 8 * np.spacing(np.abs(z)))
    for i in np.flatnonzero(unsure).tolist():
        out[i] = round(float(x[i]), 4)
    return out


class Signals:
    """Every page's signal values (arrays in page order), in the order a Candidate lists them."""

    NAMES = ("bm25", "window", "phrase", "toc", "definition", "objects", "scope", "bm25_raw")
    __slots__ = (*NAMES, "_lists")

    def __init__(self, **arrays: np.ndarray) -> None:
        for k in self.NAMES:
            setattr(self, k, arrays[k])
        self._lists: list | None = None

    def weighted(self) -> list[tuple[str, np.ndarray]]:
        """The signals the score weighs, in order (all but ``bm25_raw``)."""
        return [(k, getattr(self, k)) for k in self.NAMES[:-1]]

    def scores(self, i: int) -> dict[str, float]:
        """Page ``i``'s signals as the Candidate's ``scores`` dict (Python floats)."""
        if self._lists is None:
            self._lists = [getattr(self, k).tolist() for k in self.NAMES]
        return {k: v[i] for k, v in zip(self.NAMES, self._lists, strict=True)}


class ReasonSource:
    """What a page's reasons are read from, kept by the ranking until a Candidate is built."""

    def __init__(self, matched, qset, raw, phrases, windows, toc, scope_note, scope, definitions, objects,
                 term, text_on, signals) -> None:  # fmt: skip
        self.matched, self.qset, self.raw, self.phrases, self.windows = matched, qset, raw, phrases, windows
        self.toc, self.scope_note, self.scope, self.definitions = toc, scope_note, scope, definitions
        self.objects, self.term, self.text_on, self.signals = objects, term, text_on, signals

    def reasons(self, page: int, i: int) -> list[str]:
        """The reasons the per-page loop gave ``page`` (before any added after scoring)."""
        raw, window, page_toc = self.raw[i], self.windows.get(page, (0.0, 0)), self.toc.get(page)
        hits = self.phrases[page][1] if page in self.phrases else []
        in_scope = page in self.scope
        if raw > 0 or window[0] > 0 or hits or in_scope or (page_toc and page_toc[0] > 0):
            scope_pages = (page,) if in_scope else ()
            out = _reasons(page, self.matched.get(page, []), self.qset, raw, hits, window, page_toc,
                           self.scope_note, scope_pages)  # fmt: skip
        else:
            out = []
        if page in self.definitions:
            out.append(f"definition: '{self.term}' is introduced on line {self.definitions[page]}")
        if page in self.objects:
            out.append(f"objects: {self.objects[page]} on this page")
        if not self.text_on[i]:
            out = ["no text on this page (image-only or empty): ranked last", *out]
        return out


def keyword_array(index: PageIndex, query: list[str]) -> np.ndarray:
    """BM25Okapi scores of every page as an array in page order; where they are all zero though a
    page holds a question term, the same formula with the smoothed idf (:meth:`PageIndex.idf`,
    always > 0).

    BM25Okapi's idf is zero or below for a term on half the pages or more, and its floor is a
    share of the mean idf, itself zero or below when every term is that common: in a document of
    two or three pages (a form) every page then scores nothing and the ranking falls to page
    order. The smoothed idf keeps a shared term counting by how often each page uses it."""
    out = index.bm25_array(query)
    if out.any() or not index.has_any_text:
        return out
    at = {p: i for i, p in enumerate(index.pages)}
    for t in dict.fromkeys(query):
        idf = index.idf(t)
        for p, f in index.tf(t).items():
            norm = 1 - B + B * index.doc_len[p] / index.avgdl
            out[at[p]] += idf * (f * (K1 + 1) / (f + K1 * norm))
    return out


class PageMatches:
    """``index.matches(qset)`` read a page at a time (the ranking reads few pages' terms)."""

    def __init__(self, index: PageIndex, qset: set[str]) -> None:
        self._on = [(t, index.tf(t)) for t in sorted(qset)]
        self._memo: dict[int, list[str]] = {}

    def get(self, page: int, default=None):
        hit = self._memo.get(page)
        if hit is None:
            hit = self._memo[page] = [t for t, tf in self._on if page in tf]
        return hit if hit else default


def _reasons(
    page, matched: list[str], qset, bm25, phrase_hits, window, toc, scope_note, scope_pages
) -> list[str]:
    out = []
    if bm25 > 0:
        out.append(f"keywords: {len(matched)}/{len(qset)} terms on the page ({', '.join(matched[:8])})")
    if window[0] > 0:
        out.append(f"densest match in the lines from {window[1]}")
    if phrase_hits:
        out.append("phrases: " + ", ".join(" ".join(b) for b in phrase_hits[:5]))
    if toc and toc[0] > 0:
        out.append(toc[1])
    if page in scope_pages:
        out.append(scope_note)
    return out


__all__ = [
    "PageMatches",
    "ReasonSource",
    "Signals",
    "keyword_array",
    "normalised",
    "round4",
    "spread",
]
