"""Keyword index over the corpus blocks: tantivy on disk, a pure-Python BM25 fallback.

Terms are the repo's own (:func:`docintel.text.terms`: NFKC, stop words, Porter stem), written
pre-tokenised into a whitespace-tokenised field, so the index, the fallback and the
single-document retrieval tokenise alike. The index follows the store incrementally
(:meth:`KeywordIndex.sync`): documents that left are deleted by ``doc_id`` term, new ones
added. The access filter is part of every query: a ``doc_id`` term set of the documents the
store says the user may read, so nothing unreadable is ever scored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from docintel.text import terms

STATE = "state.json"
#: Bump when the indexed fields change: the next sync rebuilds the index from the store's blocks.
INDEX_VERSION = "3"
#: Weight of a matching pair of adjacent terms ("hardwar base", "secur plan") against a single
#: term: a passage that uses the question's words together beats one that only repeats them.
PAIR_WEIGHT = 0.5


def _tantivy():
    try:
        import tantivy
    except ImportError:
        return None
    return tantivy


def query_terms(question: str) -> list[str]:
    return list(dict.fromkeys(terms(question)))


def pairs(seq: list[str]) -> list[str]:
    """Adjacent term pairs ("secur_plan"), indexed beside the terms (stop words already gone)."""
    return [f"{a}_{b}" for a, b in zip(seq, seq[1:], strict=False)]


def body_terms(block) -> list[str]:
    """A block's terms without the document context every block of it carries: what ranks the
    blocks inside one document (the title words would only favour its shortest blocks)."""
    return terms(f"{block.section_title or ''} {block.text or ''}")


def query_pairs(question: str) -> list[str]:
    return list(dict.fromkeys(pairs(terms(question))))


class KeywordIndex:
    """``search(question, doc_ids)`` -> [(block_id, doc_id, score)], best first."""

    def __init__(self, directory: Path, *, backend: str | None = None):
        self.dir = Path(directory)
        want = backend or os.environ.get("DOCINTEL_INDEX", "auto")
        self.tv = _tantivy() if want in ("auto", "tantivy") else None
        self.backend = "tantivy" if self.tv is not None else "bm25"
        self._index = None
        self._bm25 = None  # (store generation, blocks frame, model)

    # -- tantivy --
    def _schema(self):
        sb = self.tv.SchemaBuilder()
        sb.add_text_field("block_id", stored=True, tokenizer_name="raw")
        sb.add_text_field("doc_id", stored=True, tokenizer_name="raw")
        sb.add_text_field("terms", tokenizer_name="whitespace", index_option="freq")
        sb.add_text_field("pairs", tokenizer_name="whitespace", index_option="freq")
        sb.add_text_field("body", tokenizer_name="whitespace", index_option="freq")
        sb.add_text_field("body_pairs", tokenizer_name="whitespace", index_option="freq")
        return sb.build()

    def _open(self):
        if self._index is None:
            path = self.dir / "tantivy"
            path.mkdir(parents=True, exist_ok=True)
            self._schema_obj = self._schema()
            self._index = self.tv.Index(self._schema_obj, path=str(path))
        return self._index

    def _state(self) -> dict:
        try:
            return json.loads((self.dir / STATE).read_text())
        except (FileNotFoundError, ValueError):
            return {"docs": []}

    def sync(self, store) -> dict:
        """Bring the index to the store's current documents: delete by doc, then add."""
        if self.tv is None:
            return {"backend": "bm25", "added": 0, "deleted": 0}
        docs = store.table("documents")
        live = docs[docs["superseded_by"].isna()]
        want = {
            d: f"{b}@{t}"
            for d, b, t in zip(live["doc_id"], live["parser_version"], live["ingested_at"], strict=True)
        }
        state = self._state()
        if state.get("version") != INDEX_VERSION:  # other fields: start from an empty index
            import shutil

            self._index = None
            shutil.rmtree(self.dir / "tantivy", ignore_errors=True)
            state = {}
        have = state.get("stamps") or dict.fromkeys(state.get("docs", []), "")
        add = sorted(d for d in want if have.get(d) != want[d])  # new, or rebuilt in the store
        drop = sorted(set(have) - set(want))
        if not add and not drop:
            return {"backend": "tantivy", "added": 0, "deleted": 0}
        ix = self._open()
        writer = ix.writer(heap_size=64_000_000, num_threads=1)
        delete = getattr(writer, "delete_documents_by_term", None) or writer.delete_documents
        for d in drop + add:  # re-adding a document replaces it
            delete("doc_id", d)
        for start in range(0, len(add), 50):
            blocks = store.doc_blocks(add[start : start + 50])
            for b in blocks.itertuples(index=False):
                seq = str(b.terms or "")
                body = body_terms(b)
                writer.add_document(
                    self.tv.Document(
                        block_id=b.block_id,
                        doc_id=b.doc_id,
                        terms=seq,
                        pairs=" ".join(pairs(seq.split())),
                        body=" ".join(body),
                        body_pairs=" ".join(pairs(body)),
                    )
                )
        writer.commit()
        writer.wait_merging_threads()
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / (STATE + ".tmp")
        tmp.write_text(
            json.dumps({"version": INDEX_VERSION, "stamps": want, "generation": store.generation()})
        )
        os.replace(tmp, self.dir / STATE)
        ix.reload()
        return {"backend": "tantivy", "added": len(add), "deleted": len(drop)}

    def search(
        self, store, question: str, doc_ids: list[str], k: int = 20, *, body: bool = False
    ) -> list[tuple[str, str, float]]:
        """Best blocks of ``doc_ids`` for ``question``; ``body``: rank on the blocks' own text
        and section titles, without the document context (blocks of one document)."""
        qt = query_terms(question)
        qp = query_pairs(question)
        if not qt or not doc_ids:
            return []
        if self.tv is None:
            return self._search_bm25(store, qt, qp, doc_ids, k, body)
        tv = self.tv
        ix = self._open()
        ix.reload()
        s = self._schema_obj
        tf, pf = ("body", "body_pairs") if body else ("terms", "pairs")
        should = [(tv.Occur.Should, tv.Query.term_query(s, tf, t)) for t in qt]
        should += [
            (tv.Occur.Should, tv.Query.boost_query(tv.Query.term_query(s, pf, p), PAIR_WEIGHT)) for p in qp
        ]
        text = tv.Query.boolean_query(should)
        allowed = tv.Query.const_score_query(tv.Query.term_set_query(s, "doc_id", list(doc_ids)), 0.0)
        q = tv.Query.boolean_query([(tv.Occur.Must, text), (tv.Occur.Must, allowed)])
        searcher = ix.searcher()
        out = []
        for score, addr in searcher.search(q, limit=k).hits:
            d = searcher.doc(addr)
            out.append((d["block_id"][0], d["doc_id"][0], float(score)))
        return out

    # -- fallback: rank_bm25 over the readable documents' blocks only --
    def _search_bm25(self, store, qt, qp, doc_ids, k, body=False):
        from rank_bm25 import BM25Okapi

        key = (store.location, store.generation(), tuple(sorted(doc_ids)), body)
        if self._bm25 is None or self._bm25[0] != key:
            blocks = store.doc_blocks(sorted(doc_ids))  # the filter applies before ranking
            corpus = []
            for b in blocks.itertuples(index=False):
                seq = body_terms(b) if body else str(b.terms or "").split()
                corpus.append(seq + pairs(seq))
            model = BM25Okapi(corpus) if corpus else None
            self._bm25 = (key, blocks, model)
        _, blocks, model = self._bm25
        if model is None:
            return []
        scores = model.get_scores(qt)
        if qp:
            scores = scores + PAIR_WEIGHT * model.get_scores(qp)
        order = sorted(range(len(scores)), key=lambda i: -scores[i])[:k]
        return [
            (blocks["block_id"].iloc[i], blocks["doc_id"].iloc[i], float(scores[i]))
            for i in order
            if scores[i] > 0
        ]
