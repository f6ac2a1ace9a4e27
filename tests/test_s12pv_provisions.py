"""Session 12 (pv): provision numbering of contracts and rule books the parser did not model,
parsed from generated PDFs in those families' common styles: "1)" items under a provision, and
a schedule named after the provision that calls for it ("SCHEDULE 2.1(a)")."""

from __future__ import annotations

import pytest

from docintel.parsing import provision_labels
from docintel.parsing.heading_text import split_number
from docintel.parsing.pymupdf_backend import parse_with_pymupdf
from tests.synthetic_pdf import build_pdf


def _p(text: str, x: float = 72) -> tuple:
    return (text, "helv", 10, x)


def _parse(pages: list, name: str):
    return parse_with_pymupdf(build_pdf(pages), name, layout_mode="never", ocr_mode="never")


def _rows(tables) -> dict[str, tuple[int, int, str | None]]:
    toc = tables.toc_df
    return {
        r.toc_id: (
            int(r.page_start),
            int(r.line_start),
            r.parent_id if isinstance(r.parent_id, str) else None,
        )
        for r in toc.itertuples()
    }


def test_closing_bracket_items_under_a_contract_clause_are_its_paragraphs():
    tables = _parse(
        [
            [
                ("SERVICES AGREEMENT", "hebo", 14, "c"),
                ("ARTICLE V", "hebo", 11, "c"),
                ("PAYMENT", "hebo", 11, "c"),
                _p("Section 5.01 Fees. The Client shall pay the Fees as follows:"),
                _p("1) the Client shall pay the setup fee within ten days of the Effective Date;"),
                _p("2) the Client shall pay the monthly fee in advance on the first day of each month;"),
                _p("3) late amounts bear interest at one percent per month."),
                _p("Section 5.02 Taxes. The Client shall bear all sales taxes. See Section 5.01(3)."),
            ]
        ],
        "svc12",
    )
    rows = _rows(tables)
    assert rows["5.01(1)"] == (1, 5, "5.01")
    assert rows["5.01(2)"] == (1, 6, "5.01")
    assert rows["5.01(3)"] == (1, 7, "5.01")
    assert rows["5.02"][1] == 8  # the next clause closes the items
    assert tables.toc_df.set_index("toc_id").loc["5.01(3)", "number"] == "(3)"


def test_closing_bracket_items_under_a_rule_heading_are_its_paragraphs():
    tables = _parse(
        [
            [
                ("LOCAL RULES OF PRACTICE", "hebo", 14, "c"),
                ("RULE 7. TIME LIMITS", "hebo", 11, 72),
                _p("1) A party shall serve its answer within 21 days after service of the complaint."),
                _p("2) A reply to a counterclaim is due within 21 days after service of the answer."),
                _p("3) The court may extend any period in subrule 2) for good cause."),
                ("RULE 8. MOTIONS", "hebo", 11, 72),
                _p("1) Every motion shall state the relief sought and the grounds for it."),
                _p("2) A response to a motion is due within 14 days after its service."),
            ]
        ],
        "rules12",
    )
    rows = _rows(tables)
    assert rows["Rule 7(2)"] == (1, 4, "Rule 7")
    assert rows["Rule 7(3)"][1] == 5
    assert rows["Rule 8(1)"] == (1, 7, "Rule 8")
    assert rows["Rule 8(2)"][1] == 8


def test_closing_bracket_items_under_a_plain_heading_stay_list_items():
    # a guideline's enumerations under its typographic headings (NIST SP 800-106's "1) Specified
    # in a FIPS ..."): no provision rows
    tables = _parse(
        [
            [
                ("3 Definitions", "hebo", 12, 72),
                ("3.1 Approved hash functions", "hebo", 11, 72),
                _p("A hash function is approved when it is:"),
                _p("1) Specified in a FIPS or NIST Recommendation,"),
                _p("2) Adopted in a FIPS or NIST Recommendation, or"),
                _p("3) Specified in a list of NIST-approved security functions."),
                ("3.2 Randomized hashing", "hebo", 11, 72),
                _p("Randomized hashing offers the properties below."),
            ]
        ],
        "guide12",
    )
    toc = tables.toc_df
    assert not (toc["source"] == "provision").any()
    assert not toc["toc_id"].astype(str).str.contains(r"\(").any()


def _schedules():
    return _parse(
        [
            [
                ("ASSET PURCHASE AGREEMENT", "hebo", 14, "c"),
                ("ARTICLE II", "hebo", 11, "c"),
                ("PURCHASE AND SALE", "hebo", 11, "c"),
                _p("Section 2.01 Purchased Assets. Seller shall sell the assets listed on Schedule 2.1(a)"),
                _p("and the contracts listed on Schedule 2.1(b)."),
            ],
            [
                ("SCHEDULE 2.1(a)", "hebo", 12, "c"),
                ("PURCHASED EQUIPMENT", "hebo", 11, "c"),
                _p("Two forklifts, serial numbers 1123 and 1124, and one pallet wrapper."),
            ],
            [
                ("SCHEDULE 2.1(b)", "hebo", 12, "c"),
                ("ASSIGNED CONTRACTS", "hebo", 11, "c"),
                _p("The supply agreement with Acme dated March 1, 2020."),
            ],
        ],
        "apa12",
    )


def test_a_schedule_named_after_a_provision_is_a_toc_row_and_a_registry_object():
    tables = _schedules()
    toc = tables.toc_df.set_index("toc_id")
    for tid, page, title in [
        ("Schedule 2.1(a)", 2, "PURCHASED EQUIPMENT"),
        ("Schedule 2.1(b)", 3, "ASSIGNED CONTRACTS"),
    ]:
        assert toc.loc[tid, "page_start"] == page
        assert toc.loc[tid, "line_start"] == 1  # the label line, its title joined under it
        assert toc.loc[tid, "title"] == title
        assert toc.loc[tid, "number"] == tid.split()[1]
    reg = tables.object_registry.set_index("object_key")
    assert reg.loc["schedule:2.1(a)", "label"] == "Schedule 2.1(a)"
    assert reg.loc["schedule:2.1(b)", "page"] == 3
    assert "schedule:2" not in reg.index


@pytest.mark.parametrize(
    "text, want",
    [
        ("SCHEDULE 2.1(a)", ("appendix", "2.1(a)", "SCHEDULE 2.1(a)")),
        ("Schedule 2.1(a) Purchased Equipment", ("appendix", "2.1(a)", "Purchased Equipment")),
        ("EXHIBIT 10.1", ("appendix", "10.1", "EXHIBIT 10.1")),
        # last read: a dot or a colon after the label ends it as a space does
        ("Schedule 2.1. Fees", ("appendix", "2.1", "Fees")),
        ("Exhibit 10.1: Form of Note", ("appendix", "10.1", "Form of Note")),
        # unchanged readings
        ("Schedule 1. Fees", ("appendix", "1", "Fees")),
        ("Schedule 1 (Form 1040) 2025", ("appendix", "1", "(Form 1040) 2025")),
        ("APPENDIX B: Acronyms", ("appendix", "B", "Acronyms")),
        ("Annex II", ("appendix", "II", "Annex II")),
    ],
)
def test_a_schedule_s_number_may_be_a_provision_s(text, want):
    assert split_number(text) == want


def test_one_line_clauses_with_titles_and_bodies_are_no_listing():
    # five or more numbered lines in a row read as a printed list of contents; clauses one line
    # long, each with its title and a sentence of body, are the contract's provisions
    tables = _parse(
        [
            [
                ("MASTER SERVICES AGREEMENT", "hebo", 13, "c"),
                _p("1. DEFINITIONS"),
                _p("1.1 Definitions. Capitalised terms have the meanings given in this clause."),
                _p("1.2 Interpretation. Headings do not affect the interpretation of this Agreement."),
                _p("2. SERVICES"),
                _p("2.1 Scope. The Supplier shall provide the Services described in Schedule 1."),
                _p("2.2 Standards. The Supplier shall perform the Services with reasonable care."),
                _p("3. CHARGES"),
                _p("3.1 Charges. The Customer shall pay the Charges within thirty days of invoice."),
                _p("3.2 Taxes. The Charges exclude value added tax, which the Customer shall pay."),
            ]
        ],
        "msa12",
    )
    rows = _rows(tables)
    for tid, line, parent in [
        ("1", 2, None),
        ("1.2", 4, "1"),
        ("2.2", 7, "2"),
        ("3", 8, None),
        ("3.2", 10, "3"),
    ]:
        assert rows[tid] == (1, line, parent), tid


def test_a_printed_list_of_sections_stays_a_listing():
    # a bill's contents: numbered titles one under the other, no bodies (no provision rows there)
    tables = _parse(
        [
            [
                ("AN ACT", "hebo", 13, "c"),
                _p("Sec. 1. Short title; table of contents."),
                _p("Sec. 2. Purposes."),
                _p("Sec. 3. Definitions."),
                _p("Sec. 4. Authorized projects."),
                _p("Sec. 5. Prioritization."),
                _p("Sec. 6. Environmental analysis."),
            ]
        ],
        "bill12",
    )
    assert not (tables.toc_df["source"] == "provision").any()


def test_run_in_headings_of_tax_instructions_get_their_line_ids():
    tables = _parse(
        [
            [
                ("Instructions for Form 1040", "hebo", 13, "c"),
                _p("These instructions explain the lines of the form that need explaining."),
                ("Line 8a: Taxable Interest", "hebo", 10, 72),
                _p("Report all of your taxable interest income on this line."),
                ("Line 12b - Qualified Dividends", "hebo", 10, 72),
                _p("Enter the total of your qualified dividends on line 12b."),
            ]
        ],
        "tax12",
    )
    toc = tables.toc_df.set_index("toc_id")
    for tid, title in [
        ("Line 8a", "Taxable Interest"),
        ("Line 12b", "Qualified Dividends"),
    ]:
        assert toc.loc[tid, "title"] == title, tid


@pytest.mark.parametrize(
    "title, want",
    [
        ("Line 12b\u2014Qualified Dividends", ("Line 12b", "12b", "Qualified Dividends")),
        ("Article 5 \u2013 Definitions", ("Article 5", "5", "Definitions")),
        ("Rule 11. Signing Pleadings", ("Rule 11", "11", "Signing Pleadings")),
        ("Section 3 of the Act applies", (None, None, "Section 3 of the Act applies")),
        # a step keeps its heading as it is (SP 800-30's "STEP 6: IMPACT ANALYSIS": see NOTES)
        ("Step 3: Claim Dependents", (None, None, "Step 3: Claim Dependents")),
    ],
)
def test_a_keyword_heading_s_title_may_follow_a_dash_or_a_colon(title, want):
    e = {"title": title, "line_start": 1}
    provision_labels.number_labels([e])
    assert (e.get("toc_id"), e.get("number"), e["title"]) == want


def test_a_rule_under_the_book_s_title_is_no_part_of_the_title():
    # bold lines stacked under the title in its size are its wrapped lines; a keyword label opens
    # a heading of its own (the first rule of an excerpt, right under the book's title)
    tables = _parse(
        [
            [
                ("FEDERAL RULES OF CIVIL PROCEDURE", "hebo", 13, "c"),
                ("TITLE III. PLEADINGS AND MOTIONS", "hebo", 11, "c"),
                ("Rule 11. Signing Pleadings, Motions, and Other Papers", "hebo", 11, 72),
                _p(
                    "(a) SIGNATURE. Every pleading, written motion, and other paper must be signed by at least one"
                ),
                _p(
                    "attorney of record in the attorney's name, or by a party personally if the party is unrepresented."
                ),
                ("Rule 12. Defenses and Objections: When and How Presented", "hebo", 11, 72),
                _p("(a) TIME TO SERVE A RESPONSIVE PLEADING."),
                _p(
                    "(1) In General. Unless another time is specified by this rule or a federal statute, the time for",
                    90,
                ),
                _p("serving a responsive pleading is as follows:", 90),
                _p("(A) within 21 days after being served with the summons and complaint; or", 108),
                _p(
                    "(B) if it has timely waived service under Rule 4(d), within 60 days after the request.",
                    108,
                ),
                _p(
                    "(b) HOW TO PRESENT DEFENSES. Every defense to a claim for relief in any pleading must be"
                ),
                _p(
                    "asserted in the responsive pleading. But a party may assert the following defenses by motion:"
                ),
                _p("(1) lack of subject-matter jurisdiction;", 90),
                _p("(2) lack of personal jurisdiction;", 90),
                ("Rule 13. Counterclaim and Crossclaim", "hebo", 11, 72),
                _p("(a) COMPULSORY COUNTERCLAIM."),
            ]
        ],
        "frcp12",
    )
    rows = _rows(tables)
    assert rows["Rule 11"][:2] == (1, 3)
    assert rows["Rule 11(a)"] == (1, 4, "Rule 11")
    assert rows["Rule 12(b)(2)"] == (1, 15, "Rule 12(b)")
    assert tables.line_df.set_index("line")["role"][3] == "heading"


@pytest.mark.parametrize(
    "text, num",
    [
        ("Schedule 2.1(a)", "2.1(a)"),
        ("SCHEDULE 2.1(a): Permitted Liens", "2.1(a)"),
        ("Schedule 1 - Fees", "1"),
    ],
)
def test_a_scope_label_named_after_a_provision_keeps_its_whole_number(text, num):
    from docintel.parsing.provision_labels import SCOPE

    assert SCOPE.match(text)["num"] == num


def test_a_provision_named_label_with_a_bare_title_is_no_scope_of_its_first_number():
    # "Schedule 2.1(a) Permitted Liens" was read as Schedule 2 titled "1(a) Permitted Liens"
    from docintel.parsing.provision_labels import SCOPE

    m = SCOPE.match("Schedule 2.1(a) Permitted Liens")
    assert m is None or m["num"] == "2.1(a)"
