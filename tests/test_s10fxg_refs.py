"""Session 10 review fixes (fxg) to gx's reference grammar: each case failed before its fix."""

from docintel.parsing.refpatterns import find_references, references_on_lines


def _on_lines(*texts: str) -> list[list[tuple]]:
    lines = [(1, i, t) for i, t in enumerate(texts)]
    return [
        [(r["kind"], r["ref_type"], r["ref_target"], r.get("sub_selector")) for r in rows]
        for _, rows in references_on_lines(lines)
    ]


def _targets(*texts: str) -> list[str]:
    return [t for rows in _on_lines(*texts) for (_, _, t, _) in rows]


def test_parenthetical_reference_split_at_line_end_keeps_its_number():
    assert _targets("the access controls (see Section", "4) apply") == ["4"]
    assert _on_lines("the results (Table", "2) show")[0][0][2] == "2"
    assert _targets("(see Sections 3 and", "4) and") == ["3", "4"]


def test_item_opening_the_next_line_is_still_no_continuation():
    assert _targets("the following Step", "2) Initiate the transfer") == []
    assert _targets("3 Requirements", "1) Specified in a FIPS") == []


def test_plural_spaced_range_over_the_line_end():
    assert _targets("as described in Sections 3.1 –", "3.4 of this standard.")[:1] == ["3.1"]
    assert "3.4" in _targets("as described in Sections 3.1 –", "3.4 of this standard.")
    assert "12" in _targets("see pages 10 -", "12 for details")
    assert "4" in _targets("the Chapters 2 —", "4 apply")


def test_singular_spaced_dash_still_opens_a_title():
    assert _targets("U.S. Code, Chapter 35 –", "44 U.S.C. 3501") == ["Chapter 35", "44 U.S.C. 3501"]
    assert _targets("see Chapter 35 –", "44 Coordination of Federal Information Policy") == ["35"]


def _named(text: str) -> list[tuple]:
    return [
        (r["ref_target"], r.get("sub_selector")) for r in find_references(text) if r["kind"] == "worksheet"
    ]


def test_named_worksheet_takes_no_sentence_word_and_splits_two_titles():
    assert _named("Attach the Credit Limit Worksheet to your return.") == [("Credit Limit Worksheet", None)]
    assert _named("In Part II of the Credit Limit Worksheet, enter") == [
        ("Credit Limit Worksheet", "Part II")
    ]
    assert _named("The Annual Report Worksheet and Risk Assessment Worksheet are due.") == [
        ("Annual Report Worksheet", None),
        ("Risk Assessment Worksheet", None),
    ]


def _types(text: str) -> list[tuple]:
    return [(r["ref_type"], r["ref_target"]) for r in find_references(text)]


def test_lettered_id_before_a_section_is_no_document_outside_a_series():
    assert _types("the U-235, Section 4 describes") == [("section", "4")]
    assert _types("Model F-16, Section 3 lists") == [("section", "3")]
    assert _types("K-12, Chapter 3 covers") == [("section", "3")]
    assert _types("see A-130, Appendix IV") == [("external", "A-130")]
    assert _types("see OMB Circular A-123, Section 4")[0][0] == "external"


def test_this_convention_and_this_reports_volume_stay_internal():
    assert _types("This Convention, Article 5 applies") == [("section", "5")]
    assert _types("The Compact, Article IV provides") == [("section", "IV")]
    assert _types("the Colorado River Compact, Art. VI(1), 44 Stat. 198")[0] == (
        "external",
        "Colorado River Compact",
    )
    assert _types("Volume II, Appendix C of this report") == [("appendix", "C")]
    assert _types("see Volume II, Appendix C")[0][0] == "external"


def test_unit_after_an_external_part_over_the_line_end_is_read():
    rows = _on_lines("see OMB Circular A-130, Appendix", "III, and Appendix B of this guide")
    assert rows[1] == [("appendix", "appendix", "B", None)]
    assert _on_lines("see OMB Circular A-130,", "Appendix III for the rules")[1] == []


def _caption(text: str):
    import pandas as pd

    from docintel.parsing.captions import caption_match

    pl = pd.DataFrame(
        [{"text": text, "x0": 72.0, "y0": 100.0, "x1": 140.0, "y1": 110.0, "size": 10.0, "role": "body"}]
    )
    return caption_match(pl, next(pl.itertuples()), 10.0)


def test_only_a_lettered_exhibit_alone_is_no_figure_caption():
    assert _caption("EXHIBIT A") is None
    assert _caption("Exhibit 3") is not None


def test_form_line_opens_no_section_number_or_sentence():
    from docintel.retrieval.targets import form_line

    pat = form_line("line 5")
    assert pat.match("5 Tax on income") and pat.match("Line 5. Enter") and pat.match("5) Total")
    assert not pat.match("5.1 Scope") and not pat.match("5 percent of the income")


def test_plural_label_after_a_lowercase_word_reads_the_next_lines_id():
    assert _targets("see Appendices", "C for the forms") == ["C"]
    assert _targets("Derived Security Requirements", "3.14.4 Update malicious code") == []


def test_named_worksheet_title_never_starts_with_the_article():
    assert _named("The Customer Worksheet lists the accounts.") == []


def test_bare_ids_an_external_reference_read_over_the_line_end_are_not_read_again():
    assert _on_lines("HIPAA Security Rule 45 C.F.R. §", "164.308(a)(8)")[1] == []
    assert _on_lines("NIST SP 800-53 Rev. 4 AU-12, CA-7, CM-3,", "CM-8, PE-3, SI-4")[1] == []


def test_unit_an_external_name_holds_is_not_read_again_and_a_heading_plural_stays_quiet():
    assert _on_lines("subject to the provisions of 31", "U.S.C., Chapter 91.")[1] == []
    assert _on_lines("as provided in 42", "CFR part 2. A court order")[1] == []
    assert _targets("2", "Indices and tables", "7") == []
    assert _targets("and functionality requirements", "50 large metro locations were affected") == []
