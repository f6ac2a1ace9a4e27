"""Per-page keyword index of a parsed document: BM25, phrase bigrams, line windows.

Pages are the retrieval unit (the article's top-1 *page* policy). A page's
text is its body-ish lines only: running headers/footers, page numbers and
text inside figures are furniture that would make every page match the
document's title, and contents-page entries would make the contents page win
every question that names a section.

The index depends only on the document, so it is built once and kept: in memory per
document object, and on disk beside the tables (``to_json``/``from_json``; the API stores it
in the cache entry, see ``parsing.store`` sidecars). Every per-ask score reads only the
postings of the question's terms, so an ask costs about the same on 25 pages and on 600.
BM25 is rank-bm25's ``BM25Okapi`` (k1 1.5, b 0.75, idf floor 0.25 x mean idf), computed
from the postings with the same floating-point operations in the same order, so the scores
are identical to the library's (tests compare them).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from docintel.schema.document import DocTables
from docintel.schema.kinds import NON_EVIDENCE_ROLES, UNINDEXED_ROLES
from docintel.text import dehyphenate, terms

if TYPE_CHECKING:
    import pandas as pd

#: Line roles never given to generation, and left out of the keyword index (see schema.kinds).
EXCLUDED_ROLES = NON_EVIDENCE_ROLES
#: rank-bm25's BM25Okapi defaults.
K1, B, EPSILON = 1.5, 0.75, 0.25
#: Bumped when the stored layout changes (the code fingerprint also covers it).
INDEX_FORMAT = 1
#: memo entries written with the index (document-only values derived by passage.py).
PERSISTED_MEMO = ("budget", "page_tokens")

# doc_id -> (line_df, page_df, index). Holding the frames keeps their id()s from being reused,
# and an identity check (not equality) makes a re-parsed or edited document rebuild its index.
_CACHE: dict[str, tuple[object, object, PageIndex]] = {}
_CACHE_SIZE = 8


@dataclass
class PageIndex:
    """Terms of every page and every line, postings, and the BM25 statistics over the pages."""

    pages: list[int]
    page_terms: dict[int, list[str]]
    line_terms: dict[int, list[tuple[int, list[str]]]] = field(default_factory=dict)
    #: term -> [[page, term frequency], ...] over page_terms, pages ascending.
    postings: dict[str, list] = field(default_factory=dict)
    #: term -> pages where some line's terms hold it (line terms are not dehyphenated).
    line_pages: dict[str, list[int]] = field(default_factory=dict)
    #: BM25Okapi's idf floor (epsilon x the mean idf of the vocabulary, in its order).
    bm25_eps: float = 0.0
    #: Memo for derived per-document values (e.g. the passage token budget).
    memo: dict = field(default_factory=dict)
    _tf: dict = field(default_factory=dict, repr=False)
    _bigram_df: dict = field(default_factory=dict, repr=False)
    _page_bigrams: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.doc_len = {p: len(self.page_terms.get(p, [])) for p in self.pages}
        self.avgdl = sum(self.doc_len[p] for p in self.pages) / len(self.pages) if self.pages else 0.0
        self.has_any_text = any(self.doc_len.values())

    @property
    def n_pages(self) -> int:
        return len(self.pages)

    @property
    def df(self) -> dict[str, int]:
        """Document (page) frequency of every term."""
        return {t: len(p) for t, p in self.postings.items()}

    @property
    def bigram_df(self) -> dict[tuple[str, str], int]:
        """Page frequency of every bigram (built on demand: scoring reads :meth:`bigram_idf`)."""
        out: dict[tuple[str, str], int] = {}
        for p in self.pages:
            for b in self.page_bigrams(p):
                out[b] = out.get(b, 0) + 1
        return out

    def has_text(self, page: int) -> bool:
        return bool(self.page_terms.get(page))

    def tf(self, term: str) -> dict[int, int]:
        """page -> frequency of ``term`` on the pages that hold it."""
        hit = self._tf.get(term)
        if hit is None:
            hit = self._tf[term] = {int(p): int(n) for p, n in self.postings.get(term, ())}
        return hit

    def page_bigrams(self, page: int) -> set[tuple[str, str]]:
        hit = self._page_bigrams.get(page)
        if hit is None:
            hit = self._page_bigrams[page] = bigrams(self.page_terms.get(page, []))
        return hit

    def idf(self, term: str) -> float:
        """Smoothed idf, always > 0, so a term on every page still counts a little."""
        return math.log(1.0 + (self.n_pages + 1) / (len(self.postings.get(term, ())) + 0.5))

    def bigram_idf(self, bigram: tuple[str, str]) -> float:
        n = self._bigram_df.get(bigram)
        if n is None:
            a, b = bigram
            both = self.tf(a).keys() & self.tf(b).keys() if a != b else set()
            n = self._bigram_df[bigram] = sum(1 for p in both if bigram in self.page_bigrams(p))
        return math.log(1.0 + (self.n_pages + 1) / (n + 0.5))

    def bm25_idf(self, term: str) -> float:
        """BM25Okapi's idf of ``term`` (0 when the document does not hold it)."""
        n = len(self.postings.get(term, ()))
        if not n:
            return 0
        idf = math.log(self.n_pages - n + 0.5) - math.log(n + 0.5)
        return self.bm25_eps if idf < 0 else idf

    def bm25_scores(self, query: list[str]) -> dict[int, float]:
        """BM25Okapi scores of every page (negative ones as 0), from the query terms' postings."""
        out = {p: 0.0 for p in self.pages}
        if not self.has_any_text or not query:
            return out
        for q in query:
            idf = self.bm25_idf(q)
            for p, f in self.tf(q).items():
                out[p] += idf * (f * (K1 + 1) / (f + K1 * (1 - B + B * self.doc_len[p] / self.avgdl)))
        return {p: max(0.0, s) for p, s in out.items()}

    # -- storage --------------------------------------------------------------------------

    def to_json(self) -> bytes:
        """The index as compact JSON (what :meth:`from_json` reads back identically)."""
        data = {
            "format": INDEX_FORMAT,
            "pages": self.pages,
            "page_terms": [self.page_terms.get(p, []) for p in self.pages],
            "line_terms": [self.line_terms.get(p, []) for p in self.pages],
            "postings": self.postings,
            "line_pages": self.line_pages,
            "bm25_eps": self.bm25_eps,
            "memo": {k: self.memo[k] for k in PERSISTED_MEMO if k in self.memo},
        }
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    @classmethod
    def from_json(cls, blob: bytes) -> PageIndex:
        data = json.loads(blob)
        if data.get("format") != INDEX_FORMAT:
            raise ValueError(f"retrieval index format {data.get('format')!r}, expected {INDEX_FORMAT}")
        pages = data["pages"]
        memo = data.get("memo") or {}
        if "page_tokens" in memo:
            memo["page_tokens"] = {int(p): n for p, n in memo["page_tokens"].items()}
        return cls(
            pages=pages,
            page_terms=dict(zip(pages, data["page_terms"], strict=True)),
            line_terms=dict(zip(pages, data["line_terms"], strict=True)),
            postings=data["postings"],
            line_pages=data["line_pages"],
            bm25_eps=data["bm25_eps"],
            memo=memo,
        )


def fingerprint() -> str:
    """Hash of the code that computes the index (tokeniser, roles, this module, passage
    budgets) and of the stemmer's version: a stored index built by other code is rebuilt."""
    import snowballstemmer

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(str(INDEX_FORMAT).encode())
    for rel in ("text.py", "schema/kinds.py", "retrieval/bm25.py", "retrieval/passage.py"):
        h.update((root / rel).read_bytes())
    stemmer = Path(snowballstemmer.__file__).with_name("porter_stemmer.py")
    h.update(stemmer.read_bytes() if stemmer.exists() else b"")
    return h.hexdigest()[:16]


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


def cached_index(tables: DocTables) -> PageIndex | None:
    """The index kept in memory for these very frames, if any."""
    hit = _CACHE.get(tables.doc_id)
    if hit is not None and hit[0] is tables.line_df and hit[1] is tables.page_df:
        return hit[2]
    return None


def register(tables: DocTables, index: PageIndex) -> PageIndex:
    """Keep ``index`` as the index of ``tables`` (its current frames) for later asks."""
    _CACHE.pop(tables.doc_id, None)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[tables.doc_id] = (tables.line_df, tables.page_df, index)
    return index


def page_index(tables: DocTables) -> PageIndex:
    """Build (or reuse) the index of ``tables``; cached per document object."""
    return cached_index(tables) or register(tables, build_index(tables))


def build_index(tables: DocTables) -> PageIndex:
    """Tokenise every indexed line once: page terms, line terms, postings, BM25 statistics."""
    pages = _all_pages(tables)
    lines = body_lines(tables, roles=UNINDEXED_ROLES)
    page_terms: dict[int, list[str]] = {p: [] for p in pages}
    line_terms: dict[int, list[tuple[int, list[str]]]] = {p: [] for p in pages}
    for page, grp in lines.groupby("page", sort=True):
        texts = [str(t) for t in grp["text"].tolist()]
        page_terms[int(page)] = terms(dehyphenate(texts))
        line_terms[int(page)] = [(int(n), terms(t)) for n, t in zip(grp["line"], texts, strict=True)]
    postings: dict[str, list] = {}
    line_pages: dict[str, list[int]] = {}
    for p in pages:
        counts: dict[str, int] = {}
        for t in page_terms[p]:
            counts[t] = counts.get(t, 0) + 1
        for t, n in counts.items():
            postings.setdefault(t, []).append([p, n])
        for t in {t for _, ts in line_terms[p] for t in ts}:
            line_pages.setdefault(t, []).append(p)
    return PageIndex(
        pages=pages,
        page_terms=page_terms,
        line_terms=line_terms,
        postings=postings,
        line_pages=line_pages,
        bm25_eps=_bm25_eps(postings, len(pages)),
    )


def _bm25_eps(postings: dict[str, list], n_pages: int) -> float:
    """BM25Okapi._calc_idf's floor: the idf sum in the library's vocabulary order (first
    occurrence, page by page, which is the postings' insertion order), then its mean x epsilon."""
    if not postings:
        return 0.0
    idf_sum = 0
    for plist in postings.values():
        n = len(plist)
        idf_sum += math.log(n_pages - n + 0.5) - math.log(n + 0.5)
    return EPSILON * (idf_sum / len(postings))


def _all_pages(tables: DocTables) -> list[int]:
    pages = set(tables.page_df["page"].astype(int).tolist()) if len(tables.page_df) else set()
    pages |= set(tables.line_df["page"].astype(int).tolist()) if len(tables.line_df) else set()
    return sorted(pages)


def phrase_scores(index: PageIndex, phrase_bigrams: set[tuple[str, str]]) -> dict[int, tuple[float, list]]:
    """Per page: idf-weighted sum of the question's bigrams that occur verbatim (as adjacent terms)."""
    out: dict[int, tuple[float, list]] = {p: (0.0, []) for p in index.pages}
    candidates: set[int] = set()
    for a, b in phrase_bigrams:
        candidates |= index.tf(a).keys() & index.tf(b).keys()
    for p in sorted(candidates):
        have = index.page_bigrams(p) & phrase_bigrams
        out[p] = (math.fsum(index.bigram_idf(b) for b in have), sorted(have))
    return out


def window_scores(index: PageIndex, query: set[str], *, size: int = 12) -> dict[int, tuple[float, int]]:
    """Per page: the best run of ``size`` lines by idf mass of *distinct* query terms it holds.

    Rewards pages where the question's terms sit together (one paragraph answers
    it) over pages where they are scattered; returns (score, first line of the window).
    Only pages whose lines hold a query term are scanned (the others score 0).
    """
    out: dict[int, tuple[float, int]] = {}
    for p in index.pages:
        lines = index.line_terms.get(p, [])
        out[p] = (0.0, lines[0][0] if lines else 0)
    candidates = {p for t in query for p in index.line_pages.get(t, ())}
    for p in sorted(candidates):
        lines = index.line_terms.get(p, [])
        hits = [{t for t in ts if t in query} for _, ts in lines]
        best, best_line = out[p]
        for i in range(max(1, len(lines) - size + 1)):
            seen = set().union(*hits[i : i + size])
            score = math.fsum(index.idf(t) for t in seen)
            if score > best:
                best, best_line = score, lines[i][0]
        out[p] = (best, best_line)
    return out
