"""Mentions and identities persisted at ingestion, ``docintel links``, and the follow path, on both
stores: one hop from the best evidence's identifiers, access checked at every hop."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from docintel.corpus import Corpus
from docintel.corpus.links import where_mentioned
from docintel.corpus.paths import PATHS, follow
from docintel.corpus.router import rule_route
from tests.corpus_fixtures import make_pdf

OPTS = {"layout": "never", "ocr": "never"}
START = {
    "cover": ["NIST Special Publication 800-181 Revision 2", "Guide to Widget Security"],
    "sections": [
        (
            "1 Categorization",
            "Organizations categorize each widget system before selecting controls, as required by"
            " FIPS PUB 201. Control AC-2 (1) then keeps an automated account inventory; see also"
            " NIST SP 800-182 Rev. 3.",
        ),
        ("2 Monitoring", "Monitoring of gadget logs is continuous and reviewed by the owner every week."),
    ],
}
FIPS = {
    "cover": ["FIPS PUB 201", "Standards for Categorizing Widget Systems"],
    "sections": [
        ("1 Scope", "This standard applies to all federal gadget programs and their budgets."),
        ("2 Categories", "Each widget system is categorized as low, moderate or high impact by its owner."),
    ],
}
LINKED = {
    "cover": ["NIST Special Publication 800-182", "Automated Account Inventories"],
    "sections": [
        ("1 Purpose", "This publication explains why automated inventories matter to gadget fleets."),
        ("2 Accounts", "Control AC-2(1) automated account management is implemented with a nightly sweep."),
    ],
}
SECRET = "vault-omega ledger of quartz accounts"
HIDDEN = {
    "cover": ["Draft NIST Special Publication 800-183", "Account Vaults"],
    "sections": [("1 Vaults", f"Control AC-2 (1) accounts are stored in the {SECRET}.")],
}
GROUPS = {
    "documents": {
        "sp800-181r2.pdf": ["public"],
        "fips201.pdf": ["public"],
        "sp800-182.pdf": ["public"],
        "sp800-183-draft.pdf": ["reviewers"],
    },
    "users": {"analyst": ["public"], "reviewer": ["public", "reviewers"]},
}
QUESTION = "Which documents depend on the rule to categorize each widget system before selecting controls?"


@pytest.fixture(scope="module", params=["embedded", "postgres"])
def corpus(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("follow_in")
    for name, spec in [
        ("sp800-181r2.pdf", START),
        ("fips201.pdf", FIPS),
        ("sp800-182.pdf", LINKED),
        ("sp800-183-draft.pdf", HIDDEN),
    ]:
        make_pdf(folder / name, spec)
    (folder / "groups.json").write_text(json.dumps(GROUPS))
    if request.param == "embedded":
        loc, docs = str(tmp_path_factory.mktemp("follow_store") / "store"), None
    else:
        loc, docs = (
            request.getfixturevalue("pg").create_db("follow14"),
            tmp_path_factory.mktemp("follow_docs"),
        )
    Corpus.ingest(loc, [folder], parse_options=OPTS, docs_dir=docs, groups_file=folder / "groups.json")
    c = Corpus(loc, docs_dir=docs)
    c.cli_args = ["--corpus", loc, *(["--docs", str(docs)] if docs else [])]
    yield c
    c.close()


def _file_of(c) -> dict:
    return dict(zip(c.store.table("documents")["doc_id"], c.store.table("documents")["file"], strict=True))


def test_mentions_and_identities_are_persisted_with_their_block(corpus):
    files = _file_of(corpus)
    m = corpus.store.table("mentions")
    blocks = corpus.store.table("blocks").set_index("block_id")
    assert m["mention_id"].is_unique
    ctrl = m[m["ident_id"] == "AC-2"]
    assert {files[d] for d in ctrl["doc_id"]} == {"sp800-181r2.pdf", "sp800-182.pdf", "sp800-183-draft.pdf"}
    for r in ctrl.itertuples():  # each mention points at the block that holds its line
        b = blocks.loc[r.block_id]
        assert b["doc_id"] == r.doc_id and b["page"] == r.page and b["line_start"] <= r.line <= b["line_end"]
    ids = corpus.store.table("identities")
    held = {
        files[d]: (i, rev) for d, i, rev in zip(ids["doc_id"], ids["ident_id"], ids["revision"], strict=True)
    }
    assert held["fips201.pdf"][0] == "FIPS 201"
    assert held["sp800-181r2.pdf"] == ("SP 800-181", "2")
    # the analyst cannot read the draft's rows at all
    readable = corpus.store.rows("mentions", "analyst")
    assert "sp800-183-draft.pdf" not in {files[d] for d in readable["doc_id"]}


def test_where_mentioned_groups_by_document_from_any_spelling_per_user(corpus):
    for spelling in ("AC-2 (1)", "AC-2", "ac-2 (1)".upper()):
        found = where_mentioned(corpus.store, spelling, "analyst")
        assert found["ident"] == "AC-2"
        assert {d["file"] for d in found["documents"]} == {"sp800-181r2.pdf", "sp800-182.pdf"}
    rev = where_mentioned(corpus.store, "AC-2 (1)", "reviewer")
    assert "sp800-183-draft.pdf" in {d["file"] for d in rev["documents"]}
    fips = where_mentioned(corpus.store, "NIST.FIPS.201", "analyst")
    assert [h["file"] for h in fips["held_by"]] == ["fips201.pdf"]
    assert where_mentioned(corpus.store, "AC-2", "nobody")["documents"] == []


def test_links_verb_lists_documents_and_refuses_a_non_identifier(corpus):
    cmd = [sys.executable, "-m", "docintel", "links", "AC-2 (1)", *corpus.cli_args, "--as", "analyst"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert "sp800-182.pdf" in out and "sp800-183" not in out
    js = json.loads(subprocess.run([*cmd, "--json"], capture_output=True, text=True, check=True).stdout)
    assert js["ident"] == "AC-2" and len(js["documents"]) == 2
    bad = subprocess.run([*cmd[:4], "hello world", *cmd[5:]], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "not an identifier" in bad.stderr


def test_follow_links_from_the_evidence_labelled_and_access_checked_at_every_hop(corpus):
    assert PATHS["follow"] is follow.run
    a = follow.run(corpus, QUESTION, "analyst")
    assert a["route"] == "follow" and a["document"]["file"] == "sp800-181r2.pdf"
    linked = [e for e in a["evidence"] if e.get("retrieved_via") == "link"]
    by_file = {e["document"]["file"]: e for e in linked}
    assert set(by_file) == {"fips201.pdf", "sp800-182.pdf"}
    assert by_file["sp800-182.pdf"]["via"] == "AC-2" and "nightly sweep" in by_file["sp800-182.pdf"]["text"]
    assert by_file["fips201.pdf"]["via"] == "FIPS 201" and "categorized" in by_file["fips201.pdf"]["text"]
    assert "AC-2 also appears in sp800-182.pdf p3" in a["answer"]
    assert "FIPS 201 is fips201.pdf p3" in a["answer"]
    assert any("cites Rev. 3" in e["note"] for e in a["editions"])
    everything = json.dumps(a, default=str)
    assert SECRET not in everything and "sp800-183" not in everything
    r = follow.run(corpus, QUESTION, "reviewer")
    assert SECRET in " ".join(e["text"] for e in r["evidence"])
    assert "AC-2 also appears in sp800-183-draft.pdf" in r["answer"]
    assert corpus.ask(QUESTION, "analyst")["route"] == "follow"
    assert follow.run(corpus, QUESTION, "nobody")["evidence"] == []


@pytest.mark.parametrize(
    "question,path",
    [
        ("Which products use the part named in the battery recall?", "follow"),
        ("Which SP 800-53 controls cover the HIPAA requirement to keep maintenance records?", "follow"),
        ("Which activities do we need to have completed before sharing incident data?", "follow"),
        ("Which other documents depend on the control for account inventories?", "follow"),
        ("What does the incident reporting requirement apply to in other guidance?", "follow"),
        ("Which documents cite the privacy engineering report?", "follow"),
        ("How long are incident records kept?", "search"),
        ("What is the recovery time objective?", "search"),
    ],
)
def test_routing_follow_only_for_relation_questions(question, path):
    assert rule_route(question).path == path


def test_own_ids_from_doi_and_running_headers_and_externals_named_by_the_kernel():
    from docintel.identifiers.own import is_own, own_ids
    from docintel.refscan import external_name, readings

    lines = [
        (
            1,
            "body",
            "This publication is available free of charge from: https://doi.org/10.6028/NIST.SP.800-106",
        )
    ]
    lines += [
        (p, "header", "NIST SP 800-107 Revision 1 Recommendation for Applications") for p in range(2, 9)
    ]
    lines += [(3, "body", "as specified in FIPS 180-4 and NIST SP 800-90A")]
    own = own_ids(lines)
    assert own == {"SP 800-106", "SP 800-107"}
    assert is_own("NIST Special Publication 800-106", own) and not is_own("SP 800-90A", own)
    assert (
        own_ids([(1, "header", "NIST SP 800-53"), (2, "body", "text")]) == set()
    )  # one header is no identity
    row = {"ref_type": "external", "ref_target": "NIST SP 800-53 Revision 4"}
    assert external_name(row) == "SP 800-53 Rev. 4"
    assert external_name({"ref_type": "section", "ref_target": "3.1"}) == "3.1"
    assert ("external", "SP 800-53 Rev. 4", None) in readings("see NIST SP 800-53 Rev. 4")
