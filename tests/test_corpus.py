"""Corpus mode: the same ingest, access and search paths on the embedded store and on PostgreSQL."""

from __future__ import annotations

import json
import shutil

import pytest

from docintel.corpus import Corpus
from docintel.corpus.access import NO_MATCH
from docintel.corpus.identity import canonical, find_identifiers
from tests.corpus_fixtures import DRAFT_SECRETS, PUBLIC_A, make_corpus, make_pdf

OPTS = {"layout": "never", "ocr": "never"}
SUBMIT_Q = "How do we submit informative mappings, and how long is the review period?"
RETAIN_Q = "How long are incident handling records kept after the follow-up actions are complete?"


@pytest.fixture(params=["embedded", "postgres"])
def location(request, tmp_path):
    """(store location, docs dir) for each store kind; a fresh database per test on Postgres."""
    if request.param == "embedded":
        return str(tmp_path / "store"), None
    cluster = request.getfixturevalue("pg")
    name = "t_" + request.node.name.split("[")[0].removeprefix("test_")[:40].lower()
    return cluster.create_db(name), tmp_path / "docs"


def _ingest(location, folder, **kw):
    loc, docs = location
    return Corpus.ingest(loc, [folder], parse_options=OPTS, docs_dir=docs, **kw)


def _open(location):
    loc, docs = location
    return Corpus(loc, docs_dir=docs)


def test_ingest_reports_bad_files_and_commits_the_rest(location, tmp_path):
    folder = make_corpus(tmp_path / "in", bad=True)
    s = _ingest(location, folder, groups_file=folder / "groups.json")
    failed = dict(s.failures)
    assert set(failed) == {"broken.pdf", "notes.txt", "locked.pdf"}
    assert "encrypted" in failed["locked.pdf"] and "not a PDF" in failed["notes.txt"]
    assert s.parsed == 3 and s.pages == 10
    docs = _open(location).store.table("documents").set_index("file")
    assert docs.loc["sp800-901.pdf", "publication_id"] == "SP 800-901 Rev. 1"
    assert docs.loc["sp800-901.pdf", "revision"] == "1"
    assert docs.loc["sp800-903-draft.pdf", "status"] == "draft"
    assert docs.loc["sp800-902.pdf", "status"] == "final"


def test_access_groups_filter_every_read(location, tmp_path):
    folder = make_corpus(tmp_path / "in")
    _ingest(location, folder, groups_file=folder / "groups.json")
    c = _open(location)
    assert sorted(c.documents("analyst")["file"]) == ["sp800-901.pdf", "sp800-902.pdf"]
    assert len(c.documents("reviewer")) == 3
    assert c.documents("stranger").empty and c.documents(None).empty
    assert c.groups("reviewer") == ["public", "reviewers"] and c.groups("stranger") == []

    as_reviewer = c.ask(SUBMIT_Q, "reviewer")
    assert as_reviewer["document"]["file"] == "sp800-903-draft.pdf"
    assert "mappings-alias@example.gov" in " ".join(e["text"] for e in as_reviewer["evidence"])
    assert all(ci["document"]["file"] == "sp800-903-draft.pdf" for ci in as_reviewer["citations"])

    for user in ("analyst", "stranger", None):
        out = json.dumps(c.ask(SUBMIT_Q, user))
        for secret in [*DRAFT_SECRETS, "sp800-903-draft.pdf", as_reviewer["doc_id"]]:
            assert secret not in out, (user, secret)
    nobody = c.ask(SUBMIT_Q, "stranger")
    assert nobody["answer"] == NO_MATCH and nobody["answer_completeness"] == "not_found"
    # the store re-checks access even for block ids that leaked out some other way
    draft_blocks = c.store.doc_blocks([as_reviewer["doc_id"]])["block_id"].tolist()
    assert c.store.blocks("analyst", draft_blocks).empty
    assert len(c.store.blocks("reviewer", draft_blocks)) == len(draft_blocks)


def test_search_path_cites_document_and_resolves_corpus_reference(location, tmp_path):
    folder = make_corpus(tmp_path / "in")
    _ingest(location, folder, groups_file=folder / "groups.json")
    out = _open(location).ask(RETAIN_Q, "analyst")
    assert out["route"] == "search"
    assert out["document"]["file"] == "sp800-901.pdf"
    assert any("three years" in e["text"] for e in out["evidence"])
    assert out["citations"] and all(ci["document"]["file"] == "sp800-901.pdf" for ci in out["citations"])
    refs = out["corpus_references"]
    assert [r["document"]["file"] for r in refs] == ["sp800-902.pdf"]
    assert not any(e["name"] == "SP 800-902" for e in out["external_references"])
    added = [e for e in out["evidence"] if e["document"]["file"] == "sp800-902.pdf"]
    assert added and added[0]["retrieved_via"] == "reference"


def test_reingest_is_noop_and_changed_file_is_new_version(location, tmp_path):
    folder = make_corpus(tmp_path / "in")
    first = _ingest(location, folder, groups_file=folder / "groups.json")
    again = _ingest(location, folder, groups_file=folder / "groups.json")
    assert again.parsed == 0 and again.unchanged == 3 and again.generation == first.generation

    shutil.copy(folder / "sp800-901.pdf", folder / "copy-of-901.pdf")  # byte-identical twin
    changed = {**PUBLIC_A, "sections": [*PUBLIC_A["sections"], ("4 Appendix", "Quokka retention tables.")]}
    make_pdf(folder / "sp800-902.pdf", changed)  # same file name, new content
    s = _ingest(location, folder, groups_file=folder / "groups.json")
    assert [f for f, _ in s.superseded] == ["sp800-902.pdf"]
    assert ("copy-of-901.pdf", "sp800-901.pdf (byte-identical)") in s.duplicates
    assert any("same content" in why for _, why in s.duplicates) is False
    c = _open(location)
    docs = c.store.table("documents")
    old = docs[docs["superseded_by"].notna()]
    assert len(old) == 1 and old.iloc[0]["file"] == "sp800-902.pdf"
    live = c.documents("analyst").set_index("file")
    assert live.loc["sp800-902.pdf", "version"] == 2
    assert "copy-of-901.pdf" in str(live.loc["sp800-901.pdf", "aliases"])
    assert "Quokka" in " ".join(
        e["text"] for e in c.ask("Where are the quokka retention tables?", "analyst")["evidence"]
    )
    assert c.store.doc_blocks([old.iloc[0]["doc_id"]]).empty


def test_grant_and_member_open_a_document(location, tmp_path):
    folder = make_corpus(tmp_path / "in")
    _ingest(location, folder, groups_file=folder / "groups.json")
    c = _open(location)
    c.grant("sp800-903-draft.pdf", "public")
    c.member("newcomer", "public")
    c = _open(location)
    assert "sp800-903-draft.pdf" in set(c.documents("analyst")["file"])
    assert len(c.documents("newcomer")) == 3


def test_interrupted_commit_keeps_previous_generation(tmp_path, monkeypatch):
    from docintel.corpus import embedded

    folder = make_corpus(tmp_path / "in")
    loc = (str(tmp_path / "store"), None)
    first = _ingest(loc, folder, groups_file=folder / "groups.json")
    real = embedded.write_parquet

    def crash(df, name, path):
        if name == "blocks":
            raise KeyboardInterrupt
        real(df, name, path)

    make_pdf(folder / "extra.pdf", PUBLIC_A | {"cover": ["NIST Special Publication 800-904"]})
    monkeypatch.setattr(embedded, "write_parquet", crash)
    with pytest.raises(KeyboardInterrupt):
        _ingest(loc, folder, groups_file=folder / "groups.json", group=["public"])
    monkeypatch.setattr(embedded, "write_parquet", real)
    c = _open(loc)
    assert c.store.generation() == first.generation
    assert sorted(c.documents("reviewer")["file"]) == [
        "sp800-901.pdf",
        "sp800-902.pdf",
        "sp800-903-draft.pdf",
    ]
    assert not [p for p in (tmp_path / "store" / "tables").iterdir() if p.name.startswith(".tmp")]


def test_bm25_fallback_matches_tantivy(tmp_path, monkeypatch):
    folder = make_corpus(tmp_path / "in")
    loc = (str(tmp_path / "store"), None)
    _ingest(loc, folder, groups_file=folder / "groups.json")
    tv = Corpus(loc[0], index_backend="tantivy")
    bm = Corpus(loc[0], index_backend="bm25")
    assert bm.index.backend == "bm25"
    for user, q in (("analyst", RETAIN_Q), ("reviewer", SUBMIT_Q), ("analyst", SUBMIT_Q)):
        assert tv.ask(q, user)["document"]["file"] == bm.ask(q, user)["document"]["file"]
    assert bm.ask(SUBMIT_Q, "stranger")["answer"] == NO_MATCH


def test_identity_patterns_are_one_normalizer():
    assert canonical("NIST Special Publication 800-53 Revision 4") == ("SP 800-53", "4")
    assert canonical("as specified in SP 800-53") == ("SP 800-53", None)
    assert canonical("NISTIR 8011 Volume 2") == ("NISTIR 8011 Vol. 2", None)
    assert canonical("SP 800-60 Volume I Revision 1") == ("SP 800-60 Vol. 1", "1")
    assert canonical("FIPS PUB 199") == ("FIPS 199", None)
    assert canonical("Contract No. W912-19-C-0001") == ("Contract No. W912-19-C-0001", None)
    assert canonical("the annual report") is None
    assert [f[0] for f in find_identifiers("see FIPS 200 and SP 800-37 Rev. 2")] == [
        "FIPS 200",
        "SP 800-37 Rev. 2",
    ]


def test_postgres_reader_is_select_only_under_rls_with_timeout(pg, tmp_path):
    import psycopg

    folder = make_corpus(tmp_path / "in")
    dsn = pg.create_db("t_reader_role")
    Corpus.ingest(
        dsn, [folder], groups_file=folder / "groups.json", parse_options=OPTS, docs_dir=tmp_path / "d"
    )
    store = Corpus(dsn, docs_dir=tmp_path / "d").store
    con = store._reader()
    assert con.execute("SHOW statement_timeout").fetchone()[0] == "10s"
    assert con.execute("SELECT count(*) FROM blocks").fetchone()[0] == 0  # no user set: no rows
    with con.transaction():
        con.execute("SELECT set_config('docintel.user', 'analyst', true)")
        files = {r[0] for r in con.execute("SELECT file FROM documents")}
    assert files == {"sp800-901.pdf", "sp800-902.pdf"}  # RLS alone, without the store's join
    for stmt in ("DELETE FROM blocks", "INSERT INTO members VALUES ('analyst', 'reviewers')"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            con.execute(stmt)


def test_twins_in_one_run_are_one_document(tmp_path):
    folder = make_corpus(tmp_path / "in")
    shutil.copy(folder / "sp800-902.pdf", folder / "sp800-902-copy.pdf")
    s = _ingest((str(tmp_path / "store"), None), folder, group=["public"])
    # files are taken in name order: the copy comes first and the original is its alias
    assert s.parsed == 3 and s.duplicates == [("sp800-902.pdf", "sp800-902-copy.pdf (byte-identical)")]
    docs = Corpus(str(tmp_path / "store")).store.table("documents")
    assert len(docs) == 3 and docs["doc_id"].is_unique
    assert docs.set_index("file").loc["sp800-902-copy.pdf", "aliases"] == "sp800-902.pdf"


def test_blocks_follow_sections_and_drop_control_characters(tmp_path):
    from docintel.corpus.blocks import make_blocks
    from docintel.parsing import parse_document

    pdf = make_pdf(tmp_path / "a.pdf", PUBLIC_A)
    tables = parse_document(pdf, out_dir=None, **OPTS)
    tables.line_df.loc[tables.line_df.index[-1], "text"] += "\x00\x07"
    blocks = make_blocks(tables, context="SP 800-901")
    assert not blocks["text"].str.contains("[\x00-\x08]").any()
    lines = tables.line_df.set_index(["page", "line"])["section_id"]
    for b in blocks.itertuples():  # one section, one page per block
        assert {
            lines[(b.page, n)] for n in range(b.line_start, b.line_end + 1) if (b.page, n) in lines.index
        } == {b.section_id}
    assert all("800" in t.split() for t in blocks["terms"])  # the context is indexed with each block


def test_new_block_rules_rebuild_unchanged_files(tmp_path, monkeypatch):
    from docintel.corpus import blocks

    folder = make_corpus(tmp_path / "in")
    loc = (str(tmp_path / "store"), None)
    first = _ingest(loc, folder, groups_file=folder / "groups.json")
    monkeypatch.setattr(blocks, "BLOCKS_VERSION", "test-next")
    again = _ingest(loc, folder, groups_file=folder / "groups.json")
    assert again.refreshed == 3 and again.cache_hits == 3 and again.generation != first.generation
    assert again.index["added"] == 3 and again.index["deleted"] == 0
    c = _open(loc)
    assert set(c.store.table("documents")["version"]) == {1}
    assert c.ask(RETAIN_Q, "analyst")["document"]["file"] == "sp800-901.pdf"
    out = c.ask(RETAIN_Q, "analyst")
    assert out["answer_id"] in set(c.store.table("answers")["answer_id"])
    stored = c.store.generation()  # a stored answer is an append part, not a generation
    assert stored == again.generation
    assert _ingest(loc, folder, groups_file=folder / "groups.json").generation == stored
