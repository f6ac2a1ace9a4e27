"""Session 13 (cs): the follow path's answer says what each linked document says about the
identifier (a quote of its row or sentence), reads a kept page with its other blocks naming the
identifier (a footnote saying what the report is cited for), and answers its start document under
the single-document budget; access stays checked at every hop."""

from __future__ import annotations

import json

import pymupdf
import pytest

from docintel.corpus import Corpus
from docintel.corpus.paths import follow, search
from docintel.corpus.paths.quotes import link_quote
from tests.corpus_fixtures import make_pdf
from tests.test_follow import FIPS, GROUPS, HIDDEN, LINKED, OPTS, QUESTION, SECRET, START
from tests.test_s12fxc_corpus_answer import HANDLING_Q, _handling_tables


def test_a_quote_is_the_row_the_identifier_belongs_to():
    text = (
        "TASK M-1 CHANGES • Systems are monitored. [Cybersecurity Framework: DE.CM-1] "
        "TASK M-2 ONGOING ASSESSMENTS • Ongoing assessments are conducted. [Cybersecurity Framework: ID.SC-4] "
        "TASK M-3 RESPONSE • Findings are answered. [Cybersecurity Framework: RS.AN-1]"
    )
    q = link_quote(text, "ID.SC-4", reach=200)
    assert "Ongoing assessments are conducted" in q
    # its row only: the id closes it, so nothing of the rows either side comes along
    assert (
        q
        == "TASK M-2 ONGOING ASSESSMENTS • Ongoing assessments are conducted. [Cybersecurity Framework: ID.SC-4]"
    )
    assert "Systems are monitored" not in q and "TASK M-3" not in q and "Findings" not in q


def test_a_list_of_ids_is_one_mention_and_a_run_of_ids_alone_is_no_quote():
    text = "Maintenance is performed and logged in a timely manner • HIPAA 45 C.F.R. §§ 164.308(a)(3), 164.310(a)(2)(iv) tools"
    assert "Maintenance is performed and logged" in link_quote(text, "45 CFR 164.310(a)(2)(iv)", reach=200)
    assert link_quote("ID.GV-1 ID.GV-2 ID.RA-1 ID.RA-2 ID.GV-3", "ID.RA-2", reach=200) == ""
    assert link_quote("nothing named here at all", "ID.RA-2", reach=200) == ""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("s13cs_in")
    for name, spec in [
        ("sp800-181r2.pdf", START),
        ("fips201.pdf", FIPS),
        ("sp800-182.pdf", LINKED),
        ("sp800-183-draft.pdf", HIDDEN),
    ]:
        make_pdf(folder / name, spec)
    (folder / "groups.json").write_text(json.dumps(GROUPS))
    loc = tmp_path_factory.mktemp("s13cs_store") / "store"
    Corpus.ingest(loc, [folder], parse_options=OPTS, groups_file=folder / "groups.json")
    c = Corpus(loc)
    yield c
    c.close()


def test_the_follow_answer_quotes_what_the_linked_document_says(corpus):
    a = follow.run(corpus, QUESTION, "analyst")
    assert "AC-2 also appears in sp800-182.pdf p3" in a["answer"]
    assert "implemented with a nightly sweep" in a["answer"], a["answer"]
    everything = json.dumps(a, default=str)
    assert SECRET not in everything and "sp800-183" not in everything
    r = follow.run(corpus, QUESTION, "reviewer")
    assert SECRET in r["answer"]  # the reviewer's own link is quoted, the analyst never sees it


def test_the_follow_path_answers_its_start_under_the_single_document_budget(corpus, monkeypatch):
    seen = []
    real = search.run

    def spy(*a, **k):
        seen.append(k.get("grown", True))
        return real(*a, **k)

    monkeypatch.setattr(follow.search, "run", spy)
    follow.run(corpus, QUESTION, "analyst")
    assert seen == [False]


def test_ask_document_without_the_grown_budget_reads_as_one_passage(tmp_path, monkeypatch):
    from docintel.corpus.single import ask_document

    for name in ("DOCINTEL_BACKEND", "DOCINTEL_MODEL", "DOCINTEL_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    tables = _handling_tables(tmp_path)
    ln = tables.line_df
    first = ln[ln["text"].str.contains("of kind")]
    answer = ln[ln["text"].str.contains("Denver")]
    page = int(first["page"].iloc[0])
    spans = [
        (page, int(first["line"].min()), int(first["line"].max()) + 2),
        (int(answer["page"].iloc[0]), int(answer["line"].iloc[0]), int(answer["line"].iloc[0])),
    ]
    assert "Denver" in ask_document(tables, HANDLING_Q, first_hop=spans).answer.answer
    assert "Denver" not in ask_document(tables, HANDLING_Q, first_hop=spans, grown=False).answer.answer


def _citing_with_footnote(path):
    """A citing document whose page 2 names FIPS PUB 201 three times, in sections 1, 3 and 5 (no
    two of them neighbours): in a reference list, in passing, and in the note saying what it is
    cited for."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 100), "NIST Special Publication 800-186", fontsize=20)
    page = doc.new_page()
    sections = [
        (
            "1 References",
            "References: FIPS PUB 201; SP 800-30; SP 800-39; SP 800-53; SP 800-60; FIPS 199 widget systems.",
        ),
        ("2 Scope", "This publication covers garden sheds and their paint schedules."),
        ("3 Terms", "A shed is a small building used to store tools and bicycles, as FIPS PUB 201 notes."),
        ("4 Paint", "Sheds are painted green every spring by the owners."),
        ("5 Notes", "FIPS PUB 201 introduces the nightly quartz sealing rule for widget ledgers."),
    ]
    for k, (title, body) in enumerate(sections):
        y = 80 + 130 * k
        page.insert_text((72, y), title, fontsize=16, fontname="helv")
        page.insert_textbox(pymupdf.Rect(72, y + 20, 540, y + 120), body, fontsize=11)
    doc.set_toc([[1, title, 2] for title, _ in sections])
    doc.save(path)
    doc.close()


def test_a_kept_page_brings_its_other_blocks_naming_the_identifier(tmp_path, monkeypatch):
    folder = tmp_path / "in"
    folder.mkdir()
    for name, spec in [("sp800-181r2.pdf", START), ("fips201.pdf", FIPS)]:
        make_pdf(folder / name, spec)
    _citing_with_footnote(folder / "sp800-186.pdf")
    groups = {
        "documents": {"sp800-181r2.pdf": ["public"], "fips201.pdf": ["public"], "sp800-186.pdf": ["public"]},
        "users": {"analyst": ["public"]},
    }
    (folder / "groups.json").write_text(json.dumps(groups))
    Corpus.ingest(tmp_path / "store", [folder], parse_options=OPTS, groups_file=folder / "groups.json")
    c = Corpus(tmp_path / "store")
    docs = c.store.readable_documents("analyst")
    blocks = c.store.doc_blocks(docs.loc[docs["file"] == "sp800-186.pdf", "doc_id"].tolist())
    naming = blocks[blocks["text"].str.contains("FIPS PUB 201") & (blocks["page"] == 2)]
    assert len(naming) == 3  # the fixture is what the test is about: three blocks of one page
    monkeypatch.setattr(follow, "PER_DOCUMENT", 1)
    a = follow.run(c, QUESTION, "analyst")
    linked = [
        e
        for e in a["evidence"]
        if e.get("retrieved_via") == "link" and e["document"]["file"] == "sp800-186.pdf"
    ]
    assert {e["page"] for e in linked} == {2}
    text = " ".join(e["text"] for e in linked)
    assert "References: FIPS PUB 201" in text and "nightly quartz sealing rule" in text
    assert len([x for x in a["links"] if x["document"] == "sp800-186.pdf"]) == 1  # one link, one page
    assert [e["line_start"] for e in linked] == sorted(e["line_start"] for e in linked)  # in line order
    # the quote is one block's sentence, not the page's blocks spliced out of order
    quote = next(x["quote"] for x in a["links"] if x["document"] == "sp800-186.pdf")
    assert "nightly quartz sealing rule" in quote and "painted" not in quote and "References" not in quote
    c.close()


def test_a_block_joins_a_kept_page_once(tmp_path, monkeypatch):
    """Two kept blocks of one page: the page's third block naming the identifier is read once."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name, spec in [("sp800-181r2.pdf", START), ("fips201.pdf", FIPS)]:
        make_pdf(folder / name, spec)
    _citing_with_footnote(folder / "sp800-186.pdf")
    groups = {
        "documents": {"sp800-181r2.pdf": ["public"], "fips201.pdf": ["public"], "sp800-186.pdf": ["public"]},
        "users": {"analyst": ["public"]},
    }
    (folder / "groups.json").write_text(json.dumps(groups))
    Corpus.ingest(tmp_path / "store", [folder], parse_options=OPTS, groups_file=folder / "groups.json")
    c = Corpus(tmp_path / "store")
    monkeypatch.setattr(follow, "PER_DOCUMENT", 2)
    a = follow.run(c, QUESTION, "analyst")
    spans = [
        (e["page"], e["line_start"], e["line_end"])
        for e in a["evidence"]
        if e.get("retrieved_via") == "link" and e["document"]["file"] == "sp800-186.pdf"
    ]
    assert len([x for x in a["links"] if x["document"] == "sp800-186.pdf"]) == 2
    assert len(spans) == len(set(spans)) == 3, spans
    c.close()


def test_the_answer_keeps_the_quotes_within_their_budget(corpus, monkeypatch):
    full = follow.run(corpus, QUESTION, "reviewer")
    assert any(x["quote"] for x in full["links"])
    monkeypatch.setattr(follow, "QUOTES_CHARS", 0)
    none = follow.run(corpus, QUESTION, "reviewer")
    assert all(x["quote"] == "" for x in none["links"]) and SECRET not in none["answer"]
    assert [x["text"] for x in none["links"]] == [x["text"] for x in full["links"]]  # still named
