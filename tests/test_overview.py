"""Overview questions ("What is this document about?", "Summarize section 3") are answered
from the document's structure: title, abstract or first section, top-level contents."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docintel import api
from docintel.questions.parse import is_overview, parse_question

FIXTURES = Path(__file__).parent / "data" / "fixtures"
LOREM = (
    "The committee reviewed the proposal and agreed that the measures described here apply to "
    "every site operated under this programme, including temporary facilities and contractors."
)


def _ask(pdf: Path, question: str, artifacts: Path):
    return api.ask(pdf, question, backend="offline", out_dir=artifacts, write_trace=False)


def _cited(res) -> set[tuple[int, int]]:
    return {(c.page, ln) for c in res.answer.citations for ln in range(c.line_start, c.line_end + 1)}


def _paper(path: Path, *, abstract: bool = True) -> Path:
    """A two-page paper: a large title, optionally an Abstract, numbered sections."""
    doc = pymupdf.open()
    p = doc.new_page()
    p.insert_text((72, 90), "Tidal Energy Storage", fontsize=24, fontname="hebo")
    p.insert_text((72, 120), "A. Researcher", fontsize=11, fontname="helv")
    y = 160
    if abstract:
        p.insert_text((72, y), "Abstract", fontsize=13, fontname="hebo")
        p.insert_textbox(
            pymupdf.Rect(72, y + 10, 540, y + 90),
            "We store tidal energy in compressed brine caverns and recover most of it.",
            fontsize=10,
        )
        y += 110
    for num, title in (("1", "Background"), ("2", "Method")):
        p.insert_text((72, y), f"{num} {title}", fontsize=13, fontname="hebo")
        p.insert_textbox(pymupdf.Rect(72, y + 10, 540, y + 90), LOREM, fontsize=10)
        y += 110
    p.insert_text((72, y), "2.1 Caverns", fontsize=11, fontname="hebo")
    p.insert_textbox(
        pymupdf.Rect(72, y + 10, 540, y + 90), "Caverns are lined with basalt. " + LOREM, fontsize=10
    )
    doc.save(path)
    return path


@pytest.mark.parametrize(
    "question",
    [
        "What is this document about?",
        "Summarize this document",
        "Give me an overview",
        "What is the paper about?",
        "summarize section 3",
        "What does Appendix B cover?",
    ],
)
def test_overview_questions_are_detected(question):
    q = parse_question(question)
    assert q.shape == "overview"


@pytest.mark.parametrize(
    "question",
    [
        "What does the rv_length_indicator encode?",
        "Summarize the hashing requirements in section 3",
        "Is the AD about the 737 MAX?",
        "What is Table 2 about?",
        "How many comments were received about the proposal?",
    ],
)
def test_a_question_with_a_topic_is_not_an_overview(question):
    assert parse_question(question).shape != "overview"
    assert not is_overview(question)


def test_nist_overview_has_the_title_abstract_and_contents(nist_pdf, artifacts):
    res = _ask(nist_pdf, "What is this document about?", artifacts)
    text = res.answer.answer
    assert "Randomized Hashing for Digital Signatures" in text
    assert "Abstract:" in text and "randomizing the messages that are signed" in text
    tables = api.parse(nist_pdf, out_dir=artifacts)
    abstract = tables.toc_df[tables.toc_df["title"] == "Abstract"].iloc[0]
    # the abstract's body lines (after its heading) are cited, on the abstract's page
    assert (int(abstract["page_start"]), int(abstract["line_start"]) + 1) in _cited(res)
    assert "Introduction" in text and "References" in text  # the top-level contents
    assert res.loop_count == 0 and res.answer.answer_completeness == "complete"
    assert not res.answer.pending_references


def test_faa_overview_cites_the_summary_paragraph(faa_pdf, artifacts):
    res = _ask(faa_pdf, "Summarize this document", artifacts)
    text = res.answer.answer
    assert "Airworthiness Directives; The Boeing Company Airplanes" in text
    assert "The FAA proposes to supersede" in text
    tables = api.parse(faa_pdf, out_dir=artifacts)
    lines = tables.line_df
    summary = lines[lines["text"].str.startswith("SUMMARY:")].iloc[0]
    assert (int(summary["page"]), int(summary["line"])) in _cited(res)
    assert res.loop_count == 0


def test_section_overview_gives_its_opening_and_subsections(nist_pdf, artifacts):
    res = _ask(nist_pdf, "Summarize section 3", artifacts)
    text = res.answer.answer
    for sub in ("3.1 Randomizing a Message Prior to Hashing", "3.2 Message Randomization", "3.4 Hashing"):
        assert sub in text
    assert "randomize the original message prior to hashing" in text
    assert res.loop_count == 0 and res.answer.citations


def test_generated_paper_with_abstract(tmp_path, artifacts):
    pdf = _paper(tmp_path / "paper.pdf")
    res = _ask(pdf, "What is this document about?", artifacts)
    text = res.answer.answer
    assert text.startswith("Title: Tidal Energy Storage")
    assert "compressed brine caverns" in text
    assert "Background" in text and "Method" in text
    assert res.answer.answer_completeness == "complete"
    sub = _ask(pdf, "What does section 2 cover?", artifacts)
    assert "2.1 Caverns" in sub.answer.answer


def test_without_an_abstract_the_first_section_is_used(tmp_path, artifacts):
    pdf = _paper(tmp_path / "plain.pdf", abstract=False)
    res = _ask(pdf, "Give me an overview", artifacts)
    assert "Background:" in res.answer.answer and "committee reviewed" in res.answer.answer
    assert res.answer.answer_completeness == "complete"


def test_no_summary_and_no_section_is_partial(tmp_path, artifacts):
    doc = pymupdf.open()
    p = doc.new_page()
    p.insert_text((72, 90), "Field notes", fontsize=22, fontname="hebo")
    p.insert_textbox(pymupdf.Rect(72, 120, 540, 400), LOREM + " " + LOREM, fontsize=10)
    doc.save(tmp_path / "notes.pdf")
    res = _ask(tmp_path / "notes.pdf", "What is this document about?", artifacts)
    assert "Field notes" in res.answer.answer and "committee reviewed" in res.answer.answer
    assert res.answer.answer_completeness == "partial"
    assert any("no abstract" in w for w in res.warnings)


def test_fixture_outline_report(artifacts):
    res = _ask(FIXTURES / "outline_report.pdf", "What is this report about?", artifacts)
    assert "Site Safety Programme" in res.answer.answer
    assert "Introduction" in res.answer.answer and "Requirements" in res.answer.answer


def test_a_document_without_text_gets_an_answer_not_a_crash(tmp_path, artifacts):
    doc = pymupdf.open()
    doc.new_page()
    doc.save(tmp_path / "blank.pdf")
    res = _ask(tmp_path / "blank.pdf", "What is this document about?", artifacts)
    assert res.answer.answer_completeness == "not_found"


def test_a_contents_page_heading_or_a_numbered_section_is_not_the_title(artifacts):
    res = _ask(FIXTURES / "contents_page.pdf", "What is this document about?", artifacts)
    assert "Table of Contents" not in res.answer.answer and "Title:" not in res.answer.answer
    assert "Purpose:" in res.answer.answer and "2 Procedure" in res.answer.answer
    assert res.answer.answer_completeness == "partial" and "no title found" in res.warnings
