"""Per-page keyword index of a parsed document: BM25, phrase bigrams, line windows (the phrase and
window scores of a question are read from it in :mod:`.pagescores`).

Pages are the retrieval unit (the article's top-1 *page* policy). A page's
text is its body-ish lines only: running headers/footers, page numbers and
text inside figures are furniture that would make every page match the
document's title, and contents-page entries would make the contents page win
every question that names a section.

The index depends only on the document, so it is built once and kept: in memory per
document object, and on disk beside the tables (``to_bytes``/``from_bytes``; the API stores it
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
import sys
from array import array
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
INDEX_FORMAT = 2
_MAGIC = b"DOCINTEL-INDEX\n"
#: memo entries written with the index (document-only values derived by passage.py, lookup.py:
#: the toc titles, ids and numbers as compared and the lines ending in dot leaders, rank.py: the listing, back-matter and
#: commentary pages, firsthop.py: the overview and preamble pages, reflines.py: the lines
#: that name a target, by label and id, pointerfacts.py: the publication ids the document is, and
#: refparts.py: the parts its own decimal ids open with).
PERSISTED_MEMO = ("budget", "page_tokens", "toc_titles", "listing_pages", "overview_pages", "labelled",
                  "back_matter_pages", "commentary_pages", "preamble_pages", "leader_lines", "toc_norm",
                  "own_ids", "own_parts", "controls")  # fmt: skip
#: the memo entries that are sets of pages (stored sorted)
_PAGE_SETS = ("listing_pages", "overview_pages", "back_matter_pages", "commentary_pages", "preamble_pages")
#: The code whose output the index and its memo hold (relative to the package; ``parsing/ref*.py``,
#: the reference grammar reflines runs, is added by :func:`fingerprint`).
FINGERPRINTED = ("text.py", "schema/kinds.py", "refscan.py", "retrieval/bm25.py", "retrieval/pagescores.py", "retrieval/passage.py",
                 "retrieval/lookup.py", "retrieval/refnames.py", "retrieval/rank.py", "retrieval/rankpages.py", "retrieval/firsthop.py", "retrieval/reflines.py", "retrieval/targets.py", "retrieval/evidence_slices.py",
                 "retrieval/pointerfacts.py", "retrieval/refparts.py", "retrieval/owntitles.py", "retrieval/refunits.py", "retrieval/refcontrols.py", "identifiers/__init__.py", "identifiers/base.py", "identifiers/codes.py",
                 "identifiers/kinds.py", "identifiers/own.py", "identifiers/pubs.py")  # fmt: skip
#: The int32 arrays of the stored index, in file order (see :meth:`PageIndex.to_bytes`).
_ARRAYS = ("post_off", "post_page", "post_tf", "lpost_off", "lpost_page", "lpost_pos", "pt_off", "pt_ids",
           "lt_off", "lt_line", "lt_term_off", "lt_ids")  # fmt: skip

# doc_id -> (line_df, page_df, toc_df, index). Holding the frames keeps their id()s from being reused,
# and an identity check (not equality) makes a re-parsed or edited document rebuild its index.
_CACHE: dict[str, tuple[object, object, object, PageIndex]] = {}
_CACHE_SIZE = 8


class _Lazy(dict):
    """page -> value decoded from the index's arrays on first access (then kept)."""

    def __init__(self, pages: list[int], decode) -> None:
        super().__init__()
        self._pos = {p: i for i, p in enumerate(pages)}
        self._decode = decode

    def __missing__(self, page):
        if page not in self._pos:
            raise KeyError(page)
        value = self[page] = self._decode(self._pos[page])
        return value

    def get(self, page, default=None):
        try:
            return self[page]
        except KeyError:
            return default

    def __contains__(self, page) -> bool:
        return page in self._pos

    def __iter__(self):
        return iter(self._pos)

    def __len__(self) -> int:
        return len(self._pos)

    def keys(self):
        return self._pos.keys()

    def items(self):
        return ((p, self[p]) for p in self._pos)

    def values(self):
        return (self[p] for p in self._pos)


class PageIndex:
    """Terms of every page and line, postings, and the BM25 statistics over the pages.

    Stored as a vocabulary plus int32 arrays (CSR-style offsets), decoded lazily: loading
    costs one ``array.frombytes`` per array, and an ask decodes only the postings of its
    terms and the pages it scans. ``page_terms`` and ``line_terms`` read like dicts.
    """

    def __init__(self, pages: list[int], vocab: list[str], arrays: dict, bm25_eps: float, memo: dict):
        self.pages = list(pages)
        self.vocab = vocab
        self._id = {t: i for i, t in enumerate(vocab)}
        self._pos = {p: i for i, p in enumerate(self.pages)}
        self._idf: dict[str, float] = {}
        self._a = arrays
        self.bm25_eps = bm25_eps
        self.memo = memo
        #: A persisted memo entry was added after the index was built or read (store it again).
        self.dirty = False
        self._tf: dict[str, dict[int, int]] = {}
        self._bigram_pages: dict[tuple[str, str], list[int]] = {}
        self._pt_bytes: bytes | None = None
        self._page_bigrams: dict[int, set] = {}
        self._df: dict[str, int] | None = None
        self._line_arrays = None
        self._doc_len_array = None
        a = arrays
        self.page_terms = _Lazy(
            self.pages, lambda i: [vocab[k] for k in a["pt_ids"][a["pt_off"][i] : a["pt_off"][i + 1]]]
        )
        self.line_terms = _Lazy(self.pages, self._decode_lines)
        off = a["pt_off"]
        self.doc_len = {p: off[i + 1] - off[i] for i, p in enumerate(self.pages)}
        self.avgdl = sum(self.doc_len.values()) / len(self.pages) if self.pages else 0.0
        self.has_any_text = any(self.doc_len.values())

    def _decode_lines(self, i: int) -> list[tuple[int, list[str]]]:
        a, vocab = self._a, self.vocab
        toff, ids = a["lt_term_off"], a["lt_ids"]
        return [
            (a["lt_line"][j], [vocab[k] for k in ids[toff[j] : toff[j + 1]]])
            for j in range(a["lt_off"][i], a["lt_off"][i + 1])
        ]

    @property
    def n_pages(self) -> int:
        return len(self.pages)

    def df_of(self, term: str) -> int:
        """Number of pages whose terms hold ``term``."""
        k = self._id.get(term)
        return 0 if k is None else self._a["post_off"][k + 1] - self._a["post_off"][k]

    @property
    def df(self) -> dict[str, int]:
        """Document (page) frequency of every term of the pages (built once: the index is read-only,
        and a caller reading one term per title in a loop must not rebuild it per read)."""
        if self._df is None:
            off = self._a["post_off"]
            self._df = {t: n for k, t in enumerate(self.vocab) if (n := off[k + 1] - off[k])}
        return self._df

    @property
    def bigram_df(self) -> dict[tuple[str, str], int]:
        """Page frequency of every bigram (built on demand: scoring reads :meth:`bigram_idf`)."""
        out: dict[tuple[str, str], int] = {}
        for p in self.pages:
            for b in self.page_bigrams(p):
                out[b] = out.get(b, 0) + 1
        return out

    def has_text(self, page: int) -> bool:
        return bool(self.doc_len.get(page))

    def tf(self, term: str) -> dict[int, int]:
        """page -> frequency of ``term`` on the pages that hold it."""
        hit = self._tf.get(term)
        if hit is None:
            k, a = self._id.get(term), self._a
            lo, hi = (a["post_off"][k], a["post_off"][k + 1]) if k is not None else (0, 0)
            hit = self._tf[term] = dict(zip(a["post_page"][lo:hi], a["post_tf"][lo:hi], strict=True))
        return hit

    def term_id(self, term: str) -> int | None:
        return self._id.get(term)

    def line_positions(self, term: str) -> list[tuple[int, int]]:
        """(page, position of the line among the page's indexed lines) of every line holding ``term``."""
        k, a = self._id.get(term), self._a
        if k is None:
            return []
        lo, hi = a["lpost_off"][k], a["lpost_off"][k + 1]
        return list(zip(a["lpost_page"][lo:hi], a["lpost_pos"][lo:hi], strict=True))

    def line_arrays(self):
        """(line offsets of the pages as int64, each indexed line's page position, the pages as
        int64) as numpy arrays, built once (the index is read-only)."""
        if self._line_arrays is None:
            import numpy as np

            off = np.frombuffer(self._a["lt_off"], dtype=np.int32).astype(np.int64)
            line_page = np.repeat(np.arange(len(self.pages), dtype=np.int64), np.diff(off))
            self._line_arrays = (off, line_page, np.asarray(self.pages, dtype=np.int64))
        return self._line_arrays

    def line_number(self, page: int, pos: int) -> int:
        return self._a["lt_line"][self._a["lt_off"][self._pos[page]] + pos]

    def n_lines(self, page: int) -> int:
        i = self._pos[page]
        return self._a["lt_off"][i + 1] - self._a["lt_off"][i]

    def line_pages(self, term: str) -> list[int]:
        """Pages where some line's terms hold ``term`` (line terms are not dehyphenated)."""
        return sorted({p for p, _ in self.line_positions(term)})

    def matched_terms(self, page: int, query: set[str]) -> list[str]:
        """The query terms on ``page``, sorted (``sorted(set(page_terms[page]) & query)``)."""
        return sorted(t for t in query if page in self.tf(t))

    def matches(self, query: set[str]) -> dict[int, list[str]]:
        """:meth:`matched_terms` of every page that holds a query term, read from the terms'
        postings (not one scan of the query per page)."""
        out: dict[int, list[str]] = {}
        for t in sorted(query):
            for p in self.tf(t):
                out.setdefault(p, []).append(t)
        return out

    def page_bigrams(self, page: int) -> set[tuple[str, str]]:
        hit = self._page_bigrams.get(page)
        if hit is None:
            hit = self._page_bigrams[page] = bigrams(self.page_terms.get(page, []))
        return hit

    def idf(self, term: str) -> float:
        """Smoothed idf, always > 0, so a term on every page still counts a little."""
        hit = self._idf.get(term)
        if hit is None:
            hit = self._idf[term] = math.log(1.0 + (self.n_pages + 1) / (self.df_of(term) + 0.5))
        return hit

    def bigram_pages(self, bigram: tuple[str, str]) -> list[int]:
        """Pages whose terms hold ``bigram`` as adjacent terms (a term repeated is no bigram)."""
        hit = self._bigram_pages.get(bigram)
        if hit is None:
            a, b = bigram
            ka, kb = self._id.get(a), self._id.get(b)
            hit = []
            if a != b and ka is not None and kb is not None:
                if self._pt_bytes is None:
                    self._pt_bytes = self._a["pt_ids"].tobytes()
                pattern, blob, off = array("i", [ka, kb]).tobytes(), self._pt_bytes, self._a["pt_off"]
                size = self._a["pt_ids"].itemsize
                for p in sorted(self.tf(a).keys() & self.tf(b).keys()):
                    i = self._pos[p]
                    at, end = blob.find(pattern, off[i] * size, off[i + 1] * size), off[i + 1] * size
                    while at != -1 and at % size:  # a match must start on a term boundary
                        at = blob.find(pattern, at + 1, end)
                    if at != -1:
                        hit.append(p)
            self._bigram_pages[bigram] = hit
        return hit

    def bigram_idf(self, bigram: tuple[str, str]) -> float:
        return math.log(1.0 + (self.n_pages + 1) / (len(self.bigram_pages(bigram)) + 0.5))

    def bm25_idf(self, term: str) -> float:
        """BM25Okapi's idf of ``term`` (0 when the document does not hold it)."""
        n = self.df_of(term)
        if not n:
            return 0
        idf = math.log(self.n_pages - n + 0.5) - math.log(n + 0.5)
        return self.bm25_eps if idf < 0 else idf

    def bm25_array(self, query: list[str]):
        """BM25Okapi scores of every page (negative ones as 0), from the query terms' postings, as a
        numpy array in page order: each page's terms added in the query's order with the same
        floating-point operations as the library (numpy's are IEEE's, as Python's)."""
        import numpy as np

        out = np.zeros(len(self.pages))
        if not self.has_any_text or not query:
            return out
        doc_len = self.doc_len_array()
        for q in query:
            idf = self.bm25_idf(q)
            at, f = self.postings(q)
            if len(at):
                out[at] += idf * (f * (K1 + 1) / (f + K1 * (1 - B + B * doc_len[at] / self.avgdl)))
        return np.where(out > 0, out, 0.0)

    def doc_len_array(self):
        """Every page's term count (:attr:`doc_len`) as an int64 numpy array in page order, built
        once (the index is read-only)."""
        if self._doc_len_array is None:
            import numpy as np

            self._doc_len_array = np.diff(np.frombuffer(self._a["pt_off"], dtype=np.int32)).astype(np.int64)
        return self._doc_len_array

    def postings(self, term: str):
        """(the page positions, the term's frequency there) of ``term``'s pages, as numpy arrays."""
        import numpy as np

        k, a = self._id.get(term), self._a
        lo, hi = (a["post_off"][k], a["post_off"][k + 1]) if k is not None else (0, 0)
        pages = np.frombuffer(a["post_page"], dtype=np.int32)[lo:hi]
        tf = np.frombuffer(a["post_tf"], dtype=np.int32)[lo:hi].astype(np.int64)
        return np.searchsorted(self.line_arrays()[2], pages), tf

    def term_lines(self, term: str):
        """The document-wide places (in :meth:`line_arrays`' order) of the indexed lines holding
        ``term``, sorted, as an int64 numpy array."""
        import numpy as np

        k, a = self._id.get(term), self._a
        lo, hi = (a["lpost_off"][k], a["lpost_off"][k + 1]) if k is not None else (0, 0)
        line_off, _, all_pages = self.line_arrays()
        post_page = np.frombuffer(a["lpost_page"], dtype=np.int32)[lo:hi]
        post_pos = np.frombuffer(a["lpost_pos"], dtype=np.int32)[lo:hi]
        return line_off[np.searchsorted(all_pages, post_page)] + post_pos

    def line_numbers(self):
        """Each indexed line's number on its page, in :meth:`line_arrays`' order (int32 numpy)."""
        import numpy as np

        return np.frombuffer(self._a["lt_line"], dtype=np.int32)

    # -- storage --------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The index as one blob: a JSON header (pages, vocabulary, memo) and the int32 arrays."""
        arrays = [self._a[n] for n in _ARRAYS]
        header = {
            "format": INDEX_FORMAT,
            "byteorder": sys.byteorder,
            "pages": self.pages,
            "vocab": self.vocab,
            "bm25_eps": self.bm25_eps,
            "sizes": [len(x) for x in arrays],
            "memo": {k: _ENCODE.get(k, _same)(self.memo[k]) for k in PERSISTED_MEMO if k in self.memo},
        }
        head = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        return b"".join([_MAGIC, len(head).to_bytes(8, "little"), head, *(x.tobytes() for x in arrays)])

    @classmethod
    def from_bytes(cls, blob: bytes) -> PageIndex:
        """Read :meth:`to_bytes` back (ValueError when it is not an index of this format)."""
        if not blob.startswith(_MAGIC):
            raise ValueError("not a docintel retrieval index")
        at = len(_MAGIC)
        n = int.from_bytes(blob[at : at + 8], "little")
        header = json.loads(blob[at + 8 : at + 8 + n])
        if header.get("format") != INDEX_FORMAT or header.get("byteorder") != sys.byteorder:
            raise ValueError(f"retrieval index format {header.get('format')!r}, expected {INDEX_FORMAT}")
        at += 8 + n
        arrays = {}
        view = memoryview(blob)  # slices of a view: each array copies its bytes once, not twice
        for name, size in zip(_ARRAYS, header["sizes"], strict=True):
            arr = array("i")
            arr.frombytes(view[at : at + 4 * size])
            arrays[name] = arr
            at += 4 * size
        if at != len(blob):
            raise ValueError("retrieval index has trailing or missing bytes")
        memo = header.get("memo") or {}
        memo = {k: _DECODE.get(k, _same)(v) for k, v in memo.items()}
        return cls(header["pages"], header["vocab"], arrays, header["bm25_eps"], memo)


def _same(value):
    return value


def _encode_labelled(index: dict) -> list:
    return [[ref_type, target, [list(at) for at in found]] for (ref_type, target), found in index.items()]


def _decode_labelled(rows: list) -> dict:
    return {(ref_type, target): [(int(p), int(ln)) for p, ln in found] for ref_type, target, found in rows}


#: JSON form of the memo entries JSON cannot hold as they are (int keys, tuple keys, sets), and back.
_ENCODE = {
    "labelled": _encode_labelled,
    "leader_lines": lambda v: sorted(list(at) for at in v),
    "own_ids": sorted,
    "own_parts": sorted,
    **{k: sorted for k in _PAGE_SETS},
}
_DECODE = {
    "controls": lambda v: {cid: [(int(p), int(ln)) for p, ln in xs] for cid, xs in v.items()},
    "page_tokens": lambda v: {int(p): n for p, n in v.items()},
    "labelled": _decode_labelled,
    "leader_lines": lambda v: {(int(p), int(ln)) for p, ln in v},
    "own_ids": set,
    "own_parts": frozenset,
    **{k: (lambda v: {int(p) for p in v}) for k in _PAGE_SETS},
}


def document_memo(tables: DocTables, name: str, compute):
    """``compute()``, a value of ``tables`` alone, kept in the memo of the document's index (and
    stored with it: the API writes a ``dirty`` index back to the cache after the ask). Without an
    index in memory for these frames, computed each call (the caller may keep it itself)."""
    index = cached_index(tables)
    if index is None:
        return compute()
    if name not in index.memo:
        index.memo[name] = compute()
        index.dirty = index.dirty or name in PERSISTED_MEMO
    return index.memo[name]


def fingerprint_files() -> list[Path]:
    """The source files :func:`fingerprint` hashes, in order."""
    root = Path(__file__).resolve().parents[1]
    return [root / rel for rel in FINGERPRINTED] + sorted((root / "parsing").glob("ref*.py"))


def fingerprint() -> str:
    """Hash of the code that computes the index and its memo (tokeniser, roles, this module,
    passage budgets, listing pages, the reference grammar and the labelled lines) and of the
    stemmer's version: a stored index built by other code is rebuilt."""
    import snowballstemmer

    h = hashlib.sha256(f"{INDEX_FORMAT} {sys.byteorder} {array('i').itemsize}".encode())
    for path in fingerprint_files():
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    stemmer = Path(snowballstemmer.__file__).with_name("porter_stemmer.py")
    h.update(stemmer.read_bytes() if stemmer.exists() else b"")
    return h.hexdigest()[:16]


def body_lines(
    tables: DocTables, page: int | None = None, *, roles: frozenset = EXCLUDED_ROLES
) -> pd.DataFrame:
    """The lines of ``page`` (or of every page) whose role is not in ``roles``, in reading order."""
    df = tables.line_df
    if page is not None:
        df = _page_rows(df, page)
    role = df["role"].fillna("body")
    df = df[~role.isin(roles)]
    return df.sort_values(["page", "line"], kind="stable")


#: (line_df, its page column as numpy when it is in page order, else None): the frame last read.
_PAGES: list = [None, None]


def _page_rows(df: pd.DataFrame, page: int) -> pd.DataFrame:
    """``df[df["page"] == page]``; a slice found by binary search when ``df`` is in page order
    (the same rows in the same order), checked once per frame object."""
    import numpy as np

    if _PAGES[0] is not df:
        pages = df["page"].to_numpy()
        ordered = pages.dtype.kind in "iu" and (len(pages) < 2 or bool((np.diff(pages) >= 0).all()))
        _PAGES[:] = [df, pages if ordered else None]
    pages = _PAGES[1]
    if pages is None:
        return df[df["page"] == page]
    lo, hi = np.searchsorted(pages, page, side="left"), np.searchsorted(pages, page, side="right")
    return df.iloc[int(lo) : int(hi)]


def bigrams(seq: list[str]) -> set[tuple[str, str]]:
    return {(a, b) for a, b in zip(seq, seq[1:], strict=False) if a != b}


def cached_index(tables: DocTables) -> PageIndex | None:
    """The index kept in memory for these very frames, if any."""
    hit = _CACHE.get(getattr(tables, "doc_id", None))  # (a bare frame holder has no index)
    if hit is not None and hit[0] is tables.line_df and hit[1] is tables.page_df and hit[2] is tables.toc_df:
        return hit[3]
    return None


def register(tables: DocTables, index: PageIndex) -> PageIndex:
    """Keep ``index`` as the index of ``tables`` (its current frames) for later asks."""
    _CACHE.pop(tables.doc_id, None)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[tables.doc_id] = (tables.line_df, tables.page_df, tables.toc_df, index)
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
    # Vocabulary in BM25Okapi's order (first occurrence, page by page), then line-only terms.
    ids: dict[str, int] = {}
    for p in pages:
        for t in page_terms[p]:
            ids.setdefault(t, len(ids))
    n_page_vocab = len(ids)
    for p in pages:
        for _, ts in line_terms[p]:
            for t in ts:
                ids.setdefault(t, len(ids))
    postings: list[list[tuple[int, int]]] = [[] for _ in ids]
    line_postings: list[list[tuple[int, int]]] = [[] for _ in ids]
    a = {name: array("i") for name in _ARRAYS}
    a["pt_off"].append(0)
    a["lt_off"].append(0)
    a["lt_term_off"].append(0)
    for p in pages:
        counts: dict[int, int] = {}
        for t in page_terms[p]:
            k = ids[t]
            counts[k] = counts.get(k, 0) + 1
            a["pt_ids"].append(k)
        a["pt_off"].append(len(a["pt_ids"]))
        for k, n in counts.items():
            postings[k].append((p, n))
        for pos, (line, ts) in enumerate(line_terms[p]):
            a["lt_line"].append(line)
            seen: set[int] = set()
            for t in ts:
                k = ids[t]
                a["lt_ids"].append(k)
                if k not in seen:
                    seen.add(k)
                    line_postings[k].append((p, pos))
            a["lt_term_off"].append(len(a["lt_ids"]))
        a["lt_off"].append(len(a["lt_line"]))
    for name, second, lists in (("post", "post_tf", postings), ("lpost", "lpost_pos", line_postings)):
        a[f"{name}_off"].append(0)
        for plist in lists:
            for first, other in plist:
                a[f"{name}_page"].append(first)
                a[second].append(other)
            a[f"{name}_off"].append(len(a[f"{name}_page"]))
    df = [len(postings[k]) for k in range(n_page_vocab)]
    index = PageIndex(pages, list(ids), a, _bm25_eps(df, len(pages)), {})
    return PageIndex.from_bytes(index.to_bytes())  # one representation, the stored one


def _bm25_eps(df: list[int], n_pages: int) -> float:
    """BM25Okapi._calc_idf's floor: the idf sum in the library's vocabulary order (first
    occurrence, page by page), then its mean x epsilon."""
    if not df:
        return 0.0
    idf_sum = 0
    for n in df:
        idf_sum += math.log(n_pages - n + 0.5) - math.log(n + 0.5)
    return EPSILON * (idf_sum / len(df))


def _all_pages(tables: DocTables) -> list[int]:
    pages = set(tables.page_df["page"].astype(int).tolist()) if len(tables.page_df) else set()
    pages |= set(tables.line_df["page"].astype(int).tolist()) if len(tables.line_df) else set()
    return sorted(pages)
