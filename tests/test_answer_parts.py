"""Append-only parts of the embedded store: stored answers do not churn the generations."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from docintel.corpus import embedded
from docintel.corpus.embedded import EmbeddedStore
from docintel.corpus.store import Change, empty


def _answer(i: int, text: str = "", docs: str = "d1") -> pd.DataFrame:
    row = {c: None for c in empty("answers").columns}
    row.update(
        answer_id=f"a{i}", usr="u", question=f"q{i}", answer=text or f"answer {i}", turn=1, source_docs=docs
    )
    return pd.DataFrame([row])


def _edge(i: int) -> pd.DataFrame:
    row = {c: None for c in empty("answer_edges").columns}
    row.update(edge_id=f"e{i}", answer_id=f"a{i}", usr="u", kind="CITES", doc_id="d1", source_docs="d1")
    return pd.DataFrame([row])


@pytest.fixture
def store(tmp_path):
    s = EmbeddedStore(tmp_path / "store", create=True)
    docs = empty("documents")
    docs.loc[0, ["doc_id", "file"]] = ["d1", "one.pdf"]
    s.commit(Change(documents=docs, access=[("d1", "g")], members=[("u", "g")]))
    return s


def test_a_burst_of_answers_keeps_the_generation_and_an_open_readers_files(store):
    reader = EmbeddedStore(store.root)
    gen = reader.generation()
    assert len(reader.table("answers")) == 0
    for i in range(2 * embedded.KEEP_GENERATIONS + 3):
        store.commit(Change(rows={"answers": _answer(i), "answer_edges": _edge(i)}))
    assert store.generation() == gen
    assert (store.root / "tables" / gen / "documents.parquet").exists()
    # the open reader sees every part (each query lists them) and its generation is intact
    assert len(reader.table("answers")) == 2 * embedded.KEEP_GENERATIONS + 3
    assert len(reader.rows("answer_edges", "u")) == 2 * embedded.KEEP_GENERATIONS + 3
    assert reader.readable_documents("u")["file"].tolist() == ["one.pdf"]


def test_the_newest_row_of_a_key_wins_and_compaction_keeps_every_row(store, monkeypatch):
    monkeypatch.setattr(embedded, "COMPACT_PARTS", 3)
    for i in range(10):
        store.commit(Change(rows={"answers": _answer(i)}))
    store.commit(Change(rows={"answers": _answer(4, "rewritten")}))
    got = store.table("answers").set_index("answer_id")
    assert len(got) == 10 and got.loc["a4", "answer"] == "rewritten" and got.loc["a5", "answer"] == "answer 5"
    names = sorted(os.listdir(store.root / embedded.PARTS))
    assert any(n.endswith("c") for n in names)
    assert len(store._part_names()) <= 4  # a reader lists from the newest compaction on
    # a fresh reader reads the same rows
    again = EmbeddedStore(store.root).table("answers").set_index("answer_id")
    assert again.sort_index().equals(got.sort_index())


def test_a_part_that_fails_to_land_is_never_read(store, monkeypatch):
    store.commit(Change(rows={"answers": _answer(1)}))

    def crash(src, dst):
        raise KeyboardInterrupt  # killed between writing the files and the rename

    monkeypatch.setattr(embedded.os, "rename", crash)
    with pytest.raises(KeyboardInterrupt):
        store.commit(Change(rows={"answers": _answer(2), "answer_edges": _edge(2)}))
    monkeypatch.undo()
    assert store.table("answers")["answer_id"].tolist() == ["a1"]
    assert store.table("answer_edges").empty
    assert not [n for n in os.listdir(store.root / embedded.PARTS) if n.startswith(".tmp")]


def test_answers_of_an_older_store_in_its_generation_are_read_with_the_parts(store):
    # a store written before the parts existed kept its answers in the generation's files
    gen_dir = store.root / "tables" / store.generation()
    embedded.write_parquet(
        pd.concat([_answer(1, "old"), _answer(2, "old")]), "answers", gen_dir / "answers.parquet"
    )
    store.close()
    store.commit(Change(rows={"answers": _answer(2, "new")}))
    got = store.table("answers").set_index("answer_id")["answer"].to_dict()
    assert got == {"a1": "old", "a2": "new"}
    # a generation commit links the old file forward; the parts still win
    store.commit(Change(members=[("v", "g")]))
    got = EmbeddedStore(store.root).table("answers").set_index("answer_id")["answer"].to_dict()
    assert got == {"a1": "old", "a2": "new"}


def test_access_applies_to_the_parts(store):
    store.commit(Change(rows={"answers": pd.concat([_answer(1), _answer(2, docs="d1|secret")])}))
    assert store.rows("answers", "u")["answer_id"].tolist() == ["a1"]
    assert store.rows("answers", "nobody").empty


def test_a_reader_during_a_burst_of_writes_sees_whole_parts(store, monkeypatch):
    import threading

    monkeypatch.setattr(embedded, "COMPACT_PARTS", 4)
    errors: list[BaseException] = []
    done = threading.Event()

    def write():
        try:
            writer = EmbeddedStore(store.root)
            for i in range(40):
                writer.commit(Change(rows={"answers": _answer(i), "answer_edges": _edge(i)}))
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        finally:
            done.set()

    t = threading.Thread(target=write)
    t.start()
    reader = EmbeddedStore(store.root)
    reads = 0
    while not done.is_set() or reads < 3:
        seen = set(reader.table("answers")["answer_id"])
        edged = set(reader.table("answer_edges")["answer_id"])
        assert seen <= edged  # each part lands with its answer and its edge together
        reads += 1
    t.join()
    assert not errors
    assert len(reader.table("answers")) == 40 and len(reader.table("answer_edges")) == 40
