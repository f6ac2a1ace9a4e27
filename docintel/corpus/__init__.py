"""Corpus mode: many documents in one store, access groups enforced on every read.

``Corpus(location)`` opens a store (a folder: embedded Parquet + DuckDB; a ``postgresql://``
DSN: PostgreSQL with row-level security). No brick imports this package; it composes them.
"""

from __future__ import annotations

from pathlib import Path


class Corpus:
    """A corpus store plus its keyword index: what ``docintel ask --corpus`` uses."""

    def __init__(
        self, location: str | Path, *, docs_dir: str | Path | None = None, index_backend: str | None = None
    ):
        from docintel.corpus.index import KeywordIndex
        from docintel.corpus.stores import open_store

        self.location = str(location)
        self.store = open_store(location, **({"docs_dir": docs_dir} if docs_dir else {}))
        self.index = KeywordIndex(self.store.index_dir, backend=index_backend)
        self.index.sync(self.store)  # a no-op unless another process committed since
        self.tables_cache: dict = {}  # cache_dir -> DocTables of recently answered documents

    @staticmethod
    def ingest(location, inputs, **options):
        """Ingest files/folders into the store (created when absent); returns the Summary."""
        from docintel.corpus.ingest import ingest

        return ingest(location, [inputs] if isinstance(inputs, (str, Path)) else list(inputs), **options)

    def documents(self, user: str | None):
        """The current documents ``user`` may read (a DataFrame; empty for an unknown user)."""
        return self.store.readable_documents(user)

    def groups(self, user: str | None) -> list[str]:
        return self.store.user_groups(user)

    def ask(
        self,
        question: str,
        user: str | None,
        *,
        backend=None,
        top_k: int | None = None,
        conversation: str | None = None,
        store_answer: bool = True,
        router: str | None = None,
    ) -> dict:
        """Route ``question`` and answer it for ``user``; the ``ask --corpus --json`` object.

        The answer is then stored with its provenance (:mod:`docintel.corpus.answers`): no lock
        is held while asking, one short commit after; ``answer_id``, ``conversation`` and
        ``turn`` say where. ``conversation``: chain this answer to that conversation's last turn.
        ``router``: ``rules`` (default) or ``llm`` (:mod:`docintel.corpus.router_llm`).
        """
        from docintel.corpus.paths import PATHS
        from docintel.corpus.paths.agent import available
        from docintel.corpus.router import route

        if conversation is not None:  # a bad conversation fails before the ask, not after it
            from docintel.corpus.answers import _conversation_head

            _conversation_head(self.store, conversation, user)
        refresh = getattr(self.store, "refresh", None)
        if refresh is not None:  # each ask reads the newest generation (answers commit often)
            refresh()
        # the agent path only when a tool-capable model is configured (else the router says
        # so and proposes follow); a proposal for a path not registered is answered by search,
        # and ``route_proposed`` says what was proposed
        from docintel.corpus.router_llm import llm_router

        proposal, span = route(question, llm=llm_router(backend, router), agent_available=available(backend))
        path = proposal.path if proposal.path in PATHS else "search"
        out = PATHS[path](self, question, user, backend=backend, top_k=top_k)
        out["route_proposed"] = proposal.path
        out.setdefault("trace", {}).setdefault("events", []).append({"router": span})
        if store_answer:
            import logging

            from docintel.corpus.answers import save

            try:
                row = save(self.store, out, user, conversation=conversation, backend=backend)
            except Exception as exc:  # store locked or failing: the answer stands, unstored, and says so
                logging.getLogger(__name__).warning("answer not stored: %s", exc)
                out["answer_id"] = None
                out.setdefault("warnings", []).append(f"answer not stored: {type(exc).__name__}: {exc}")
            else:
                out.update(answer_id=row["answer_id"], conversation=row["conversation"], turn=row["turn"])
        return out

    def remove(self, document: str) -> dict:
        """Remove ``document`` (file name, doc_id or publication id): its blocks and derived rows
        leave the store, its row stays as a tombstone (``superseded_by = "removed"``, so answers
        citing it keep its access groups) and the edges of stored answers to it are marked removed."""
        from docintel.corpus.provenance import REMOVED, removed_edges
        from docintel.corpus.store import Change
        from docintel.errors import UsageError

        with self.store.writer_lock():
            docs = self.store.table("documents")
            live = docs[docs["superseded_by"].isna()]
            hit = live[
                (live["file"] == document)
                | (live["doc_id"] == document)
                | (live["publication_id"] == document)
            ]
            if hit.empty:
                raise UsageError(f"no document {document!r} in the store")
            ids = set(hit["doc_id"])
            change = Change(documents=hit.assign(superseded_by=REMOVED), drop_docs=ids)
            change.add_rows("answer_edges", removed_edges(self.store.table("answer_edges"), ids))
            gen = self.store.commit(change)
        self.index.sync(self.store)
        return {"removed": sorted(hit["file"]), "doc_ids": sorted(ids), "generation": gen}

    def grant(self, document: str, group: str) -> str:
        """Let ``group`` read ``document`` (file name, doc_id or publication id); new generation."""
        from docintel.corpus.store import Change
        from docintel.errors import UsageError

        docs = self.store.table("documents")
        live = docs[docs["superseded_by"].isna()]
        hit = live[
            (live["file"] == document) | (live["doc_id"] == document) | (live["publication_id"] == document)
        ]
        if hit.empty:
            raise UsageError(f"no document {document!r} in the store")
        gen = self.store.commit(Change(access=[(d, group) for d in hit["doc_id"]]))
        self.index.sync(self.store)
        return gen

    def member(self, user: str, group: str) -> str:
        from docintel.corpus.store import Change

        return self.store.commit(Change(members=[(user, group)]))

    def close(self) -> None:
        self.store.close()


__all__ = ["Corpus"]
