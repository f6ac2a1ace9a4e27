"""The generic corpus tables: per-document rows ingest derives, appended rows, access on both stores."""

from __future__ import annotations

import pandas as pd
import pytest

from docintel.corpus import Corpus, derive, store
from docintel.corpus.derive import Deriver
from docintel.corpus.store import Change, TableSpec
from tests.corpus_fixtures import make_corpus, make_pdf

OPTS = {"layout": "never", "ocr": "never"}
SKIP_FILES: set[str] = set()  # probe_rows derives nothing for these files (a test switches it)


def probe_rows(tables, blocks, doc):
    """A deriver: one row per block, pointing at it (what mentions and records do)."""
    if doc["file"] in SKIP_FILES:
        return pd.DataFrame()
    return pd.DataFrame(
        {
            "probe_id": [f"{b}:p" for b in blocks["block_id"]],
            "block_id": list(blocks["block_id"]),
            "page": list(blocks["page"]),
            "word": [str(t).split()[0] if str(t).split() else "" for t in blocks["text"]],
        }
    )


@pytest.fixture
def probe(monkeypatch):
    specs = {
        "probe": TableSpec(
            ["probe_id", "doc_id", "block_id", "page", "word"], ("probe_id",), ints=frozenset({"page"})
        ),
        "notes": TableSpec(["note_id", "doc_id", "body"], ("note_id",), scope="append"),
    }
    for name, spec in specs.items():
        monkeypatch.setitem(store.TABLES, name, spec)
        monkeypatch.setitem(store.TABLE_COLUMNS, name, spec.columns)
    monkeypatch.setattr(derive, "DERIVERS", (Deriver("probe", "tests.test_store_tables:probe_rows", "1"),))
    SKIP_FILES.clear()
    yield
    SKIP_FILES.clear()


@pytest.fixture(params=["embedded", "postgres"])
def location(request, tmp_path, probe):
    if request.param == "embedded":
        return str(tmp_path / "store"), None
    cluster = request.getfixturevalue("pg")
    name = "s_" + request.node.name.split("[")[0].removeprefix("test_")[:40].lower()
    return cluster.create_db(name), tmp_path / "docs"


def _ingest(location, folder):
    loc, docs = location
    return Corpus.ingest(loc, [folder], parse_options=OPTS, docs_dir=docs, groups_file=folder / "groups.json")


def _store(location):
    loc, docs = location
    return Corpus(loc, docs_dir=docs).store


def test_derived_rows_are_written_and_read_per_user(location, tmp_path):
    folder = make_corpus(tmp_path / "in")
    _ingest(location, folder)
    s = _store(location)
    docs = s.table("documents").set_index("file")["doc_id"]
    blocks = s.table("blocks")
    allrows = s.table("probe")
    assert len(allrows) == len(blocks) > 0
    assert set(allrows["block_id"]) == set(blocks["block_id"])
    draft = docs["sp800-903-draft.pdf"]
    analyst = s.rows("probe", "analyst")
    reviewer = s.rows("probe", "reviewer")
    assert draft not in set(analyst["doc_id"]) and draft in set(reviewer["doc_id"])
    assert len(reviewer) == len(allrows)
    assert s.rows("probe", "nobody").empty and s.rows("probe", None).empty
    one = s.rows("probe", "reviewer", where="t.doc_id = ANY(:ids)", params={"ids": [draft]})
    assert set(one["doc_id"]) == {draft} and len(one) == (blocks["doc_id"] == draft).sum()
    assert s.rows("probe", "analyst", where="t.doc_id = ANY(:ids)", params={"ids": [draft]}).empty


def test_reingest_noop_deriver_bump_rebuilds_and_new_version_replaces(location, tmp_path, monkeypatch):
    folder = make_corpus(tmp_path / "in")
    first = _ingest(location, folder)
    assert _ingest(location, folder).generation == first.generation  # unchanged: a no-op
    # a deriver that now derives nothing for a file must drop that file's old rows
    SKIP_FILES.add("sp800-902.pdf")
    monkeypatch.setattr(derive, "DERIVERS", (Deriver("probe", "tests.test_store_tables:probe_rows", "2"),))
    again = _ingest(location, folder)
    assert again.refreshed == 3 and again.generation != first.generation
    s = _store(location)
    docs = s.table("documents").set_index("file")["doc_id"]
    probe_docs = set(s.table("probe")["doc_id"])
    assert docs["sp800-902.pdf"] not in probe_docs and docs["sp800-901.pdf"] in probe_docs
    s.close()
    # a changed file: a new version; the old version's rows leave with its blocks
    SKIP_FILES.clear()
    old = docs["sp800-901.pdf"]
    make_pdf(
        folder / "sp800-901.pdf",
        {"cover": ["NIST SP 800-901 Rev. 2"], "sections": [("1 New", "Changed text.")]},
    )
    third = _ingest(location, folder)
    assert third.superseded and third.superseded[0][1] == old
    s = _store(location)
    probe = s.table("probe")
    assert old not in set(probe["doc_id"])
    new = s.table("documents").query("superseded_by.isna() and file == 'sp800-901.pdf'")["doc_id"].iloc[0]
    assert set(probe.loc[probe["doc_id"] == new, "block_id"]) == set(s.doc_blocks([new])["block_id"])


def test_append_rows_upsert_by_key_and_survive_ingest(location, tmp_path):
    folder = make_corpus(tmp_path / "in")
    _ingest(location, folder)
    s = _store(location)
    docs = s.table("documents").set_index("file")["doc_id"]
    pub, draft = docs["sp800-901.pdf"], docs["sp800-903-draft.pdf"]
    rows = pd.DataFrame({"note_id": ["n1", "n2"], "doc_id": [pub, draft], "body": ["one", "two"]})
    with s.writer_lock():
        s.commit(Change(rows={"notes": rows}))
    with s.writer_lock():
        s.commit(
            Change(
                rows={"notes": pd.DataFrame({"note_id": ["n1"], "doc_id": [pub], "body": ["one, edited"]})}
            )
        )
    s.close()
    make_pdf(
        folder / "sp800-901.pdf", {"cover": ["NIST SP 800-901 Rev. 2"], "sections": [("1 New", "Changed.")]}
    )
    _ingest(location, folder)  # a new version of the noted document: appended rows stay
    s = _store(location)
    notes = s.table("notes").set_index("note_id")["body"].to_dict()
    assert notes == {"n1": "one, edited", "n2": "two"}
    assert list(s.rows("notes", "analyst")["note_id"]) == ["n1"]
    assert sorted(s.rows("notes", "reviewer")["note_id"]) == ["n1", "n2"]


def test_unknown_table_rows_are_refused():
    with pytest.raises(KeyError):
        Change().add_rows("documents", pd.DataFrame({"doc_id": ["x"]}))
    with pytest.raises(KeyError):
        Change().add_rows("no_such_table", pd.DataFrame({"doc_id": ["x"]}))
