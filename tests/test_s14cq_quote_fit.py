"""A long link quote is cut to the parts the question asks about, not at its end."""

from __future__ import annotations

from docintel.corpus.index import query_terms
from docintel.corpus.paths.quotes import capped, fitted

ROW = (
    "PR.XX-9: Response plans and recovery plans are in place and managed "
    "• COBIT 5 DSS04.03 • ISA 62443-2-1:2009 4.3.2.5.3, 4.3.4.5.1 "
    "• ISO/IEC 27001:2013 A.16.1.1, A.17.1.1, A.17.1.2 • NIST SP 800-53 Rev. 4 CP-2, IR-8 "
    "• HIPAA Security Rule 45 C.F.R. §§ 164.308(a)(6), 164.308(a)(7), 164.310(a)(2)(i)"
)


def test_the_part_the_question_names_is_kept_past_the_cut():
    terms = set(query_terms("What does the HIPAA mapping say about that outcome?"))
    out = fitted(ROW, 200, terms)
    assert len(out) <= 200
    assert out.startswith("PR.XX-9: Response plans")
    assert "HIPAA Security Rule 45 C.F.R. §§ 164.308(a)(6), 164.308(a)(7)" in out  # whole: no cut at "C.F.R."
    assert " ... " in out and "COBIT" not in out
    assert capped([ROW], each=200, total=900, question_terms=terms) == [out]


def test_without_question_terms_in_later_parts_the_quote_is_cut_at_a_word():
    out = fitted(ROW, 120, set(query_terms("Which outcome is it?")))
    assert out == ROW[:120].rsplit(None, 1)[0].rstrip(",;:") + "..."
    assert fitted(ROW, 1000, {"hipaa"}) == ROW


def test_a_part_ending_in_a_parenthesis_is_a_sentence_of_its_own():
    text = (
        "The following activities are recommended: • Join a community (section 3.5). "
        "• Plan ongoing support for sharing (section 3.6). Throughout this process, consult experts "
        "inside and outside the organization about their sources and rules and more words here."
    )
    out = fitted(text, 150, set(query_terms("Which support for sharing do we plan?")))
    assert "• Plan ongoing support for sharing (section 3.6)." in out and "Throughout" not in out


def test_a_link_to_the_cited_document_quotes_what_it_says_for_the_question(tmp_path):
    import json

    from docintel.corpus import Corpus
    from docintel.corpus.paths import follow
    from tests.corpus_fixtures import make_pdf
    from tests.test_follow import FIPS, GROUPS, LINKED, OPTS, QUESTION, START

    folder = tmp_path / "in"
    folder.mkdir()
    for name, spec in [("sp800-181r2.pdf", START), ("fips201.pdf", FIPS), ("sp800-182.pdf", LINKED)]:
        make_pdf(folder / name, spec)
    groups = {**GROUPS, "documents": {k: v for k, v in GROUPS["documents"].items() if "183" not in k}}
    (folder / "groups.json").write_text(json.dumps(groups))
    Corpus.ingest(tmp_path / "store", [folder], parse_options=OPTS, groups_file=folder / "groups.json")
    c = Corpus(tmp_path / "store")
    try:
        a = follow.run(c, QUESTION, "analyst")
        own = [x for x in a["links"] if x["document"] == "fips201.pdf" and " is fips201.pdf" in x["text"]]
        assert own, a["links"]
        # its own name there is only its cover or running head: the quote is its text
        assert "categorized as low, moderate or high impact" in own[0]["quote"], own[0]
    finally:
        c.close()
