"""Numbering styles of contracts, rule books and codes the provision stage reads, on generated PDFs:
sentence-case clause titles "1. Services.", "a)" / "i." list labels, roman "(i)" after "(h)",
single-number section signs "§ 2" and section-sign headings set larger than the body."""

from __future__ import annotations

from docintel.parsing.pymupdf_backend import parse_with_pymupdf

from .synthetic_pdf import build_pdf

BODY = "and the parties agree that this provision binds their successors and permitted assigns."


def _p(text: str, x: float = 72, size: float = 10, f: str = "helv") -> tuple:
    return (text, f, size, x)


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


def _tight(pages):
    """Lines set at a 1.25 leading (their boxes overlap), as a word processor sets them."""
    toc = parse_with_pymupdf(
        build_pdf(pages, step=lambda size, x: size * 1.25), "gen", layout_mode="never", ocr_mode="never"
    ).toc_df
    return toc.set_index("toc_id")


SUPPLY = [
    [
        ("SUPPLY AGREEMENT", "hebo", 14, "c"),
        ("ARTICLE 5", "hebo", 10),
        ("TERM AND TERMINATION", "hebo", 10),
        _p("5.1 The term of this Agreement begins on the Effective Date and continues for three"),
        _p("years unless terminated earlier under this Article 5."),
        _p("5.2 Either party may terminate this Agreement for material breach by the other party"),
        _p("5.3 Termination does not affect accrued rights"),
        _p("5.4 Sections 6 and 7 survive termination or expiry of this Agreement under"),
        _p("5.5 of the Schedule, which applies to every termination or expiry of this Agreement."),
        ("ARTICLE 6", "hebo", 10),
        ("CONFIDENTIALITY", "hebo", 10),
        _p("6.1 Each party shall keep the other party's Confidential Information secret and use it"),
        _p("only for this Agreement."),
        _p("6.2 The duty in Section 6.1 lasts five years."),
        ("Section 7 Miscellaneous", "hebo", 10),
        _p("(a) Notices must be in writing."),
        _p("(b) This Agreement is governed by the laws of England."),
    ]
]


def test_clause_numbers_glued_under_a_heading_or_an_unstopped_line_are_clauses():
    toc = _tight(SUPPLY)
    assert {"5.1", "5.2", "5.3", "5.4", "6.1", "6.2"} <= set(toc.index)
    assert toc.loc["5.3", "parent_id"] == "Article 5" and toc.loc["6.1", "parent_id"] == "Article 6"
    assert "5.5" not in toc.index  # "... under" / "5.5 of the Schedule": a reference wrapped


def test_a_label_over_its_left_aligned_title_in_tight_leading_is_one_row():
    toc = _tight(SUPPLY)
    assert toc.loc["Article 5", "title"] == "TERM AND TERMINATION"
    assert "TERM AND TERMINATION" not in toc.loc[toc.index != "Article 5", "title"].tolist()


def test_a_section_heading_with_its_title_keys_its_paragraphs():
    toc = _tight(SUPPLY)
    assert toc.loc["Section 7", "title"] == "Miscellaneous"
    assert {"Section 7(a)", "Section 7(b)"} <= set(toc.index)


def test_a_chain_steps_over_numbers_printed_again_in_an_appendix():
    rows = [("3.13 SYSTEM AND COMMUNICATIONS PROTECTION", "hebo", 11)]
    for k in range(1, 8):
        rows += [
            _p(f"3.13.{k}", 90),
            _p(f"Protect the communications of organizational system number {k}.", 126),
        ]
    rows += [("3.14 SYSTEM AND INFORMATION INTEGRITY", "hebo", 11)]
    rows += [_p("3.14.1 Identify and correct system flaws in a timely manner."), _p(BODY)]
    appendix = [("APPENDIX F DISCUSSION", "hebo", 11)]
    for k in (3, 4):
        appendix += [_p(f"3.13.{k} Protect the communications of organizational system number {k}.")]
        appendix += [_p("DISCUSSION"), _p(BODY), _p(BODY)]
    ids = set(_toc([rows, appendix])["toc_id"])
    assert {f"3.13.{k}" for k in range(1, 8)} <= ids


def test_a_lone_label_over_its_text_is_a_paragraph_row():
    rows = [
        ("LICENSE AGREEMENT", "hebo", 14, "c"),
        _p("1.1. Grant. The Licensor grants the Licensee a non-exclusive licence to use the Software."),
        _p("(a)", 90),
        _p("The licence is personal to the Licensee and may not be transferred.", 108),
        _p("1.2. Restrictions. The Licensee shall not copy the Software except as allowed."),
        _p(BODY),
    ]
    toc = _tight([rows])
    assert toc.loc["1.1(a)", "parent_id"] == "1.1"


def test_tax_instruction_line_headings_with_their_titles_are_line_rows():
    rows = [("2025 Instructions for Form 1040", "hebo", 14, "c")]
    for lab, title in (
        ("1a", "Total Amount From Form(s) W-2, Box 1"),
        ("1b", "Household Employee Wages"),
        ("2a", "Tax-Exempt Interest"),
    ):
        rows += [_p(f"Line {lab}. {title}", f="hebo"), _p("Enter the total amount from Form(s) W-2, box 1.")]
    rows += [_p("Line 16. Tax", f="hebo"), _p("Include in the total on line 16 any of these taxes.")]
    toc = _tight([rows])
    assert toc.loc["Line 1a", "title"] == "Total Amount From Form(s) W-2, Box 1"
    assert toc.loc["Line 16", "title"] == "Tax"


def test_statute_sections_titled_in_sentence_case_under_their_parts():
    rows = [("PART I", "hebo", 11, "c"), ("PRELIMINARY", "hebo", 11, "c")]
    rows += [_p("1. Short title. This Act may be cited as the Example Act."), _p(BODY)]
    rows += [
        _p("2. Interpretation. In this Act, unless the context otherwise requires, words have"),
        _p(BODY),
    ]
    rows += [_p("3. Licence required. No person shall operate without a licence."), _p(BODY)]
    rows += [_p("(1) An application must be made in writing.", 90), _p("(2) The Minister may refuse it.", 90)]
    toc = _tight([rows])
    assert toc.loc["1", "title"] == "Short title" and toc.loc["3", "title"] == "Licence required"
    assert toc.loc["3(2)", "parent_id"] == "3"


def test_sentence_case_steps_of_a_manual_are_no_clauses():
    rows = [("Installing the tool", "hebo", 14)]
    rows += [
        _p("1. Open the installer. A window appears."),
        _p("2. Accept the licence. The files are copied."),
    ]
    rows += [_p("3. Restart the computer. The tool is ready.")]
    ids = set(_tight([rows]).index)
    assert not {"1", "2", "3"} & ids


def test_one_line_requirements_in_a_run_under_their_heading_are_no_listing():
    rows = [("3.1 ACCESS CONTROL", "hebo", 11), _p("Derived Security Requirements:", 90, 8)]
    rows += [
        _p(f"3.1.{k} Control the use of organizational system feature number {k}.", 90) for k in range(1, 8)
    ]
    rows += [("3.2 AWARENESS AND TRAINING", "hebo", 11)]
    rows += [_p("3.2.1 Ensure that managers and users of systems are made aware of the risks."), _p(BODY)]
    ids = set(_toc([rows])["toc_id"])
    assert {f"3.1.{k}" for k in range(1, 8)} <= ids


def test_a_title_case_list_on_consecutive_lines_is_no_clauses():
    rows = [("1.2 Malaria Zones", "hebo", 12), _p("The country is divided into three zones of transmission:")]
    rows += [_p("1. Hyperendemic Zone. Transmission all year."), _p("2. Mesoendemic Zone. Seasonal peaks.")]
    rows += [_p("3. Epidemic Zone. Rare outbreaks."), _p(BODY)]
    ids = set(_tight([rows]).index)
    assert not {"1", "2", "3"} & ids
