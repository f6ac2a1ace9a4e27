"""Plain body lines set aside by :func:`heading_candidates.candidates`, built into candidates on demand.

Split from :mod:`docintel.parsing.heading_candidates` (session 16, to keep it near ~400 lines);
:mod:`docintel.parsing.headings` re-exports :class:`PlainLines`.
"""

from __future__ import annotations

import math

import numpy as np

from docintel.parsing.heading_candidates import LARGER_BY_PT, PLAIN_BELOW_PT, _candidate, _single
from docintel.parsing.heading_geo import _LazyStart
from docintel.parsing.heading_text import Candidate


class PlainLines:
    """Lines of plain body type that :func:`heading_candidates.candidates` builds no Candidate for.

    Most of a document's lines (24k of the three NIST SPs' 34k heading candidates): alone on
    their baseline or a one-line piece of it (a table cell), not bold or italic, unnumbered, no
    bold lead, not opening with a digit, and at least ``PLAIN_BELOW_PT`` under the heading size
    (``body + LARGER_BY_PT``). Every rule of the toc build says no to them: typography (not
    heading-like), the continuation join (never pooled, and too far in size from a pooled line
    to join one), the title (smaller than ``TITLE_MIN_BODY_RATIO`` x body). Only three readers
    look at them: outline / contents matching (:func:`toc_sources.match`, by their normalised
    text), the articles' run positions (:func:`toc_articles.mark_articles`) and the title's first
    page; :meth:`candidate` builds the Candidate ``candidates`` would have built (``heading_like``
    False) when one is read.
    """

    __slots__ = ("cut", "pages", "_made", "_keys", "_by_key")

    def __init__(self, body: float) -> None:
        # (a body under 2 pt would let a plain line reach the title or join sizes: none is taken)
        self.cut = body + LARGER_BY_PT - PLAIN_BELOW_PT if body >= 2 else -math.inf
        # page -> (line, stripped text, record, geo, piece): ``piece`` None for a line alone on its
        # baseline, else (the baseline's dropped duplicates, its table_row) for one of several pieces
        self.pages: dict[int, list[tuple]] = {}
        self._made: dict[int, Candidate] = {}
        self._keys: np.ndarray | None = None
        self._by_key: dict[int, tuple] | None = None

    def __len__(self) -> int:
        return sum(len(v) for v in self.pages.values())

    def candidate(self, page_no: int, item: tuple) -> Candidate:
        """The line's Candidate, as :func:`candidates` builds it without ``plain`` (one per line)."""
        c = self._made.get(id(item[2]))
        if c is None:
            _, _, r, geo, piece = item
            if piece is None:
                c = _single(page_no, r, geo)
            else:  # as the loop over a baseline's pieces builds it
                start = _LazyStart(r, geo)
                c = _candidate(page_no, [r], piece[0], geo, start)
                c.extra["para_start"] = start
                c.extra["table_row"] = piece[1]
            c.extra["heading_like"] = False  # (what the toc build's typography pass sets)
            self._made[id(item[2])] = c
        return c

    def keys(self) -> np.ndarray:
        """Each line's (page, line) as ``page * 10**6 + line``, ascending."""
        if self._keys is None:
            k = [p * 1_000_000 + it[0] for p, items in self.pages.items() for it in items]
            self._keys = np.sort(np.array(k, dtype=np.int64))
        return self._keys

    def at_key(self, key: int) -> Candidate:
        """The Candidate of the line whose :meth:`keys` value is ``key``."""
        if self._by_key is None:
            self._by_key = {p * 1_000_000 + it[0]: (p, it) for p, items in self.pages.items() for it in items}
        return self.candidate(*self._by_key[key])
