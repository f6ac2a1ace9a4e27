"""Records persisted at ingestion, the list path and ``docintel records`` on both stores."""

from __future__ import annotations

import argparse
import json

import pytest

from docintel.corpus import Corpus
from tests.corpus_fixtures import make_pdf

OPTS = {"layout": "never", "ocr": "never"}

FRAMEWORK = {
    "cover": ["NIST Cybersecurity Framework 9.9", "Framework for Keeping Records"],
    "sections": [
        (
            "2 Framework Core",
            "Asset Management (ID.AM): The assets are identified.\n"
            "ID.AM-1: Physical devices are inventoried\n"
            "ID.AM-2: Software platforms are inventoried\n"
            "ID.AM-3: Data flows are mapped\n"
            "Risk Assessment (ID.RA): The risk is understood.\n"
            "ID.RA-1: Asset vulnerabilities are documented\n"
            "ID.RA-2: Threat intelligence is received\n"
            "ID.RA-3: Threats are documented",
        ),
    ],
}
DRAFT = {
    "cover": ["Draft NIST Cybersecurity Framework 10.0", "Draft Framework for Records"],
    "sections": [
        (
            "2 Draft Core",
            "Supply Chain (ID.SC): The supply chain is managed.\n"
            "ID.SC-1: Supply chain processes are agreed\n"
            "ID.SC-2: Suppliers are identified\n"
            "ID.SC-3: Contracts are used\n"
            "ID.SC-4: Suppliers are assessed\n"
            "ID.SC-5: Response planning is done with suppliers\n"
            "This draft also cites ID.ZZ-9 which no framework defines.",
        ),
    ],
}
GROUPS = {
    "documents": {"csf9.pdf": ["public"], "csf10-draft.pdf": ["drafts"]},
    "users": {"analyst": ["public"], "reviewer": ["public", "drafts"]},
}


@pytest.fixture(params=["embedded", "postgres"])
def corpus(request, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    make_pdf(folder / "csf9.pdf", FRAMEWORK)
    make_pdf(folder / "csf10-draft.pdf", DRAFT)
    (folder / "groups.json").write_text(json.dumps(GROUPS))
    if request.param == "embedded":
        loc, docs = str(tmp_path / "store"), None
    else:
        loc, docs = (
            request.getfixturevalue("pg").create_db(
                "r_" + request.node.name[5:40].lower().replace("[", "_").replace("]", "")
            ),
            tmp_path / "docs",
        )
    Corpus.ingest(loc, [folder], parse_options=OPTS, docs_dir=docs, groups_file=folder / "groups.json")
    c = Corpus(loc, docs_dir=docs)
    yield c, loc, docs, tmp_path
    c.close()


def _args(loc, docs, tmp_path, **kw):
    base = {"corpus": loc, "docs": docs, "record_type": None, "user": None, "curated": None, "json": False}
    base["out"] = str(tmp_path / "records-out")
    return argparse.Namespace(**{**base, **kw})


def test_ingest_stores_records_pointing_at_blocks(corpus):
    c, *_ = corpus
    rows = c.store.table("records")
    recs = rows[rows["source"] == "extracted"]
    assert sorted(recs["key"]) == sorted(
        ["ID.AM-1", "ID.AM-2", "ID.AM-3", "ID.RA-1", "ID.RA-2", "ID.RA-3"]
        + [f"ID.SC-{i}" for i in range(1, 6)]
    )
    blocks = set(c.store.table("blocks")["block_id"])
    assert recs["block_id"].isin(blocks).all()
    # the store's access filter applies to records: no draft record for the analyst
    analyst = c.store.rows("records", "analyst")
    assert (
        not analyst["key"].str.startswith("ID.SC").any()
        and len(analyst[analyst["source"] == "extracted"]) == 6
    )


def test_list_path_counts_in_code_cites_each_item_and_respects_access(corpus):
    c, *_ = corpus
    q = "List every subcategory of the framework."
    rev = c.ask(q, "reviewer")
    assert rev["route"] == "list" and rev["count"] == 11 and len(rev["citations"]) == 11
    assert "the complete list" in rev["answer"]
    assert all(cit["page"] >= 1 and cit["block_id"] for cit in rev["citations"])
    ana = c.ask(q, "analyst")
    assert ana["count"] == 6
    assert not any(i["key"].startswith("ID.SC") for i in ana["items"])
    assert "ID.SC" not in ana["answer"]
    ra = c.ask("List every subcategory in the Risk Assessment category of the framework.", "analyst")
    assert ra["count"] == 3 and ra["filters"] == {"category_name": "Risk Assessment"}
    sc = "List every subcategory in the Supply Chain category of the framework."
    some = c.ask(sc, "reviewer")
    assert some["count"] == 5 and some["filters"] == {"category_name": "Supply Chain"}
    # filters are read from the names the user's own records print: a draft's name is no filter
    blind = c.ask(sc, "analyst")
    assert blind["filters"] == {} and not any(i["key"].startswith("ID.SC") for i in blind["items"])
    none = c.ask(q, "nobody")
    assert none["count"] == 0 and "None that you can access" in none["answer"] and not none["citations"]


def test_records_report_needs_review_and_deleted_item(corpus):
    from docintel.cli.records import report
    from docintel.corpus.store import Change

    c, loc, docs, tmp_path = corpus
    first = report(_args(loc, docs, tmp_path))
    assert first["records"] == {"csf_subcategory": 11}
    assert "  csf9.pdf: 6 of 6 framework subcategories (identifiers in the text)" in first["text"]
    assert any("ID.ZZ-9 is mentioned in csf10-draft.pdf" in m for m in first["needs_review"])
    assert (tmp_path / "records-out" / "csf_subcategory" / "records.json").exists()
    # as the analyst: nothing about the draft, nothing written
    ana = report(_args(loc, docs, tmp_path, user="analyst"))
    assert ana["records"] == {"csf_subcategory": 6} and not ana["written"]
    assert not any("draft" in m for m in ana["needs_review"])
    # a record deleted from the store (an extraction that lost an item) is reported
    rows = c.store.table("records")
    gone = rows[rows["key"] == "ID.RA-2"].iloc[0]
    doc_rows = rows[(rows["doc_id"] == gone["doc_id"]) & (rows["key"] != "ID.RA-2")]
    ev = c.store.table("record_evidence")  # rewrite_docs replaces every derived table of the document
    ev = ev[ev["doc_id"] == gone["doc_id"]]
    c.store.commit(Change(rows={"records": doc_rows, "record_evidence": ev}, rewrite_docs={gone["doc_id"]}))
    after = report(_args(loc, docs, tmp_path))
    assert any(
        "ID.RA-2 (csf_subcategory) was in csf9.pdf" in m and "is gone" in m for m in after["needs_review"]
    )
    assert any("ID.RA-2 is mentioned in csf9.pdf" in m for m in after["needs_review"])
    assert after["records"] == {"csf_subcategory": 10}


def test_curated_record_is_listed_and_reported(corpus):
    from docintel.cli.records import report

    c, loc, docs, tmp_path = corpus
    doc_id = c.store.table("documents").set_index("file").loc["csf9.pdf", "doc_id"]
    cur = tmp_path / "curated"
    cur.mkdir()
    (cur / "am4.json").write_text(
        json.dumps(
            {
                "record_type": "csf_subcategory",
                "key": "ID.AM-4",
                "text": "External systems are catalogued",
                "doc_id": doc_id,
                "page": 2,
                "source_citation": "csf9.pdf p.2, a line the parser split",
                "note": "remove when the parser keeps the line whole",
            }
        )
    )
    res = report(_args(loc, docs, tmp_path, curated=str(cur)))
    assert res["records"] == {"csf_subcategory": 12} and "(1 curated by a person)" in res["text"]


def test_unknown_type_is_one_clear_error(corpus):
    from docintel.cli.records import report
    from docintel.errors import UsageError

    _, loc, docs, tmp_path = corpus
    with pytest.raises(UsageError, match="unknown record type"):
        report(_args(loc, docs, tmp_path, record_type="nope"))


def test_cli_ask_json_carries_the_count_and_records_verb_prints_n_of_m(corpus, capsys):
    from docintel.cli import main

    _, loc, docs, _ = corpus
    extra = ["--docs", str(docs)] if docs else []
    q = "List every subcategory of the framework."
    assert main(["ask", q, "--corpus", loc, *extra, "--as", "analyst", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["route"], out["route_proposed"], out["count"]) == ("list", "list", 6)
    assert any(ev.get("router") for ev in out["trace"]["events"])
    assert main(["records", "--corpus", loc, *extra, "--type", "csf_subcategory", "--as", "analyst"]) == 0
    text = capsys.readouterr().out
    assert "csf9.pdf: 6 of 6 framework subcategories" in text and "csf10-draft" not in text
    assert main(["records", "--corpus", loc, *extra, "--type", "nope"]) == 1
    assert "unknown record type" in capsys.readouterr().err
