"""Numbering styles of contracts, rule books and codes the provision stage reads, on generated PDFs:
sentence-case clause titles "1. Services.", "a)" / "i." list labels, roman "(i)" after "(h)",
single-number section signs "§ 2" and section-sign headings set larger than the body."""

from __future__ import annotations

from docintel.parsing.pymupdf_backend import parse_with_pymupdf

from .synthetic_pdf import build_pdf

BODY = "and the parties agree that this provision binds their successors and permitted assigns."


def _p(text: str, x: float = 72, size: float = 10) -> tuple:
    return (text, "helv", size, x)


def _toc(pages):
    toc = parse_with_pymupdf(build_pdf(pages), "gen", layout_mode="never", ocr_mode="never").toc_df
    return toc[toc["source"] == "provision"]


def _ids(toc) -> list[str]:
    return toc["toc_id"].tolist()


CONSULTING = [
    [
        ("CONSULTING AGREEMENT", "hebo", 14, "c"),
        _p("1. Services. The Consultant shall perform the services described in Exhibit A."),
        _p("1.1 The Consultant shall use reasonable skill and care in performing the services."),
        _p("1.2 The Consultant shall comply with the Client's written policies."),
        _p("2. Term. This Agreement starts on the Effective Date and runs for one year."),
        _p("2.1 Either party may terminate this Agreement on thirty days notice."),
        _p("3. Payment. The Client shall pay the Consultant as follows:"),
        _p("a) a fixed fee of USD 1,000 per month;", 90),
        _p("b) expenses at cost; and", 90),
        _p("c) bonuses at the Client's discretion.", 90),
        _p("4. Confidentiality. The Consultant shall keep the Client's information secret."),
        _p("i. This duty lasts five years after the end of this Agreement.", 90),
        _p("ii. It does not cover information that is public.", 90),
        _p("5. General. This Agreement is governed by the laws of New York."),
    ]
]


def test_sentence_case_clause_titles_are_top_level_clauses_holding_their_sub_clauses():
    toc = _toc(CONSULTING).set_index("toc_id")
    assert {"1", "2", "3", "4", "5"} <= set(toc.index)
    assert toc.loc["1", "title"] == "Services" and toc.loc["4", "title"] == "Confidentiality"
    assert toc.loc["1.1", "parent_id"] == "1" and toc.loc["2.1", "parent_id"] == "2"
    assert toc.loc["1.1", "level"] == toc.loc["1", "level"] + 1


def test_closing_bracket_and_stop_labels_are_paragraph_rows():
    toc = _toc(CONSULTING).set_index("toc_id")
    assert {"3(a)", "3(b)", "3(c)", "4(i)", "4(ii)"} <= set(toc.index)
    assert toc.loc["3(b)", "parent_id"] == "3" and toc.loc["4(ii)", "number"] == "(ii)"


def _lettered(after_h: list[str]) -> list:
    rows = [_p("Section 3.01 Fees. The Customer shall pay the fees set out in Schedule B monthly.")]
    rows += [_p(f"({c}) the Customer shall meet obligation {c} of this Section;", 90) for c in "abcdefgh"]
    rows += [_p(f"({lab}) item {lab} of the list;", 108 if lab.startswith("i") else 90) for lab in after_h]
    rows += [_p("Section 3.02 Interest. Interest accrues at one percent per month on late amounts.")]
    rows += [_p("Section 3.03 Taxes. The Customer pays the taxes on the fees.")]
    return [rows]


def test_i_after_h_is_roman_when_ii_follows_and_the_letter_when_j_follows():
    roman = _ids(_toc(_lettered(["i", "ii", "iii"])))
    assert {"3.01(h)(i)", "3.01(h)(ii)", "3.01(h)(iii)"} <= set(roman)
    assert "3.01(i)" not in roman
    letter = _ids(_toc(_lettered(["i", "j", "k"])))
    assert {"3.01(i)", "3.01(j)", "3.01(k)"} <= set(letter)
    assert "3.01(h)(i)" not in letter


def test_single_number_section_signs_are_provisions():
    rows = [("STATUTES OF THE ASSOCIATION", "hebo", 14, "c")]
    for n, title in ((1, "Name"), (2, "Purpose"), (3, "Membership")):
        rows += [
            _p(f"\u00a7 {n} {title}. The association sets out its {title.lower()} in this paragraph,"),
            _p(BODY),
        ]
    toc = _toc([rows]).set_index("toc_id")
    assert {"\u00a7 1", "\u00a7 2", "\u00a7 3"} <= set(toc.index)
    assert toc.loc["\u00a7 2", "title"] == "Purpose"


def test_section_sign_headings_set_larger_than_the_body_that_skip_numbers():
    rows = [("PART 164\u2014SECURITY AND PRIVACY", "hebo", 14, "c")]
    for num, title in (
        ("164.502", "Uses and disclosures of protected health information: General rules."),
        ("164.506", "Uses and disclosures to carry out treatment, payment, or health care operations."),
        ("164.508", "Uses and disclosures for which an authorization is required."),
    ):
        rows += [_p(f"\u00a7 {num} {title}", 48, 10)]
        rows += [
            _p(
                "(a) Standard. A covered entity may not use or disclose protected health information,",
                67,
                8.8,
            )
        ]
        rows += [_p("except as permitted or required by this subpart or by subpart C of this part.", 48, 8.8)]
        rows += [_p("(b) Standard: Minimum necessary. A covered entity must limit its requests.", 67, 8.8)]
    toc = _toc([rows]).set_index("toc_id")
    assert {"\u00a7 164.502", "\u00a7 164.506", "\u00a7 164.508"} <= set(toc.index)
    assert toc.loc["\u00a7 164.506", "title"].startswith("Uses and disclosures to carry out")
    assert toc.loc["\u00a7 164.506(b)", "parent_id"] == "\u00a7 164.506"


def test_titled_numbered_paragraphs_of_an_article_stay_its_paragraphs():
    rows = []
    for n in (1, 2):
        rows += [(f"Article {n}", "helv", 11, "c", 30), ("Obligations of the parties", "helv", 11, "c", 16)]
        rows += [_p("1. Scope. Member States shall apply this Article to every controller."), _p(BODY)]
        rows += [_p("2. Exemptions. Member States may exempt small controllers from it."), _p(BODY)]
    ids = _ids(_toc([rows]))
    assert {"Article 1(1)", "Article 1(2)", "Article 2(1)", "Article 2(2)"} <= set(ids)
    assert "1" not in ids and "2" not in ids
