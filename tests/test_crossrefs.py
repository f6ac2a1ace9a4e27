"""cross_ref_df: native links, toc anchors, registry rows; the regex extractor and classify_reference."""

from __future__ import annotations

import pandas as pd
import pymupdf
import pytest

from docintel.parsing.crossrefs import PATTERNS, classify_reference, extract_references
from docintel.parsing.pymupdf_backend import parse_with_pymupdf


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see Section 4.2 for details", ("section", "4.2", None)),
        ("as described in section 3.2.", ("section", "3.2", None)),
        ("(see Table 3 row (E)).", ("table", "3", "row (E)")),
        ("listed in the bottom line of Table 3.", ("table", "3", "bottom line")),
        ("In Table 3 rows (A), we vary", ("table", "3", "rows (A)")),
        ("depicted in Figure 2.", ("figure", "2", None)),
        ("Fig. 3 shows", ("figure", "3", None)),
        ("using Eq. (1)", ("equation", "1", None)),
        ("from equation (3)", ("equation", "3", None)),
        ("given in Appendix A.", ("appendix", "A", None)),
        ("details are in the Appendix.", ("appendix", None, None)),
        ("see Annex B", ("annex", "B", None)),
        ("as in [18].", ("bib", "18", None)),
        ("specified in [SP 800-90]", ("external", "SP 800-90", None)),
        ("required by paragraph (q)(1) of this AD", ("section", "(q)", "paragraph (1)")),
        ("see Clause 8.6", ("clause", "8.6", None)),
        ("\u00a7 39.13 [Amended]", ("section", "39.13", None)),
        ("in figure 10 to paragraph (i) of this AD", ("figure", "10", "paragraph (i)")),
        ("see SP 800-161", ("external", "SP 800-161", None)),
        ("conforms to ISO 27001", ("external", "ISO 27001", None)),
        ("FIPS 180-4 hash functions", ("external", "FIPS 180-4", None)),
        ("under 14 CFR 25.1707", ("external", "14 CFR 25.1707", None)),
        ("per RFC 2119", ("external", "RFC 2119", None)),
        ("Advisory Circular AC 25-7D", ("external", "AC 25-7D", None)),
        ("on page 8", ("page", "8", None)),
        ("see p. 8", ("page", "8", None)),
        ("nothing to see here", ("unknown", None, None)),
    ],
)
def test_classify_reference(text, expected):
    assert classify_reference(text) == expected


def test_lists_and_ranges_expand_to_one_row_per_target():
    lines = pd.DataFrame(
        {
            "page": [1, 1, 1, 1],
            "line": [1, 2, 3, 4],
            "text": [
                "see Sections 3 and",
                "4 for the proofs and [3, 7] for background.",
                "paragraphs (g) through (l) of this AD apply.",
                "Table 3: a caption line mentions itself.",
            ],
        }
    )
    refs = extract_references(lines, "d")
    assert set(refs.source) == {"regex"} and set(refs.doc_id) == {"d"}
    sec = refs[refs.ref_type == "section"]
    assert list(sec[sec.origin_line == 1].ref_target) == ["3", "4"]  # found across the line break, once
    assert sorted(refs[refs.ref_type == "bib"].ref_target) == ["3", "7"]
    assert list(sec[sec.origin_line == 3].ref_target) == ["(g)", "(h)", "(i)", "(j)", "(k)", "(l)"]
    assert extract_references(lines.iloc[0:0], "d").empty


def test_prose_mention_is_not_a_sub_selector():
    refs = extract_references(
        pd.DataFrame({"page": [2], "line": [5], "text": ["as shown in Table 3 the model"]}), "d"
    )
    assert list(zip(refs.ref_type, refs.ref_target, refs.sub_selector.isna(), strict=False)) == [
        ("table", "3", True)
    ]
    assert (refs.origin_page.iloc[0], refs.origin_line.iloc[0]) == (2, 5)


def test_pattern_table_is_documented_data():
    assert all(p.description and p.regex.pattern for p in PATTERNS)
    assert len({p.name for p in PATTERNS}) == len(PATTERNS)


def _linked_doc() -> pymupdf.Document:
    doc = pymupdf.open()
    p1 = doc.new_page(width=595, height=842)
    p1.insert_text((72, 80), "1 Introduction", fontname="hebo", fontsize=14)
    p1.insert_text((72, 110), "The method is detailed in Section 2 below.", fontname="helv", fontsize=10)
    p1.insert_text((72, 130), "Code is at https://example.org today.", fontname="helv", fontsize=10)
    p2 = doc.new_page(width=595, height=842)
    p2.insert_text((72, 80), "2 Method", fontname="hebo", fontsize=14)
    p2.insert_text((72, 110), "Table 1: Numbers.", fontname="helv", fontsize=10)
    p1 = doc[0]  # re-load: a page object goes stale once another page is added
    words = {w[4]: pymupdf.Rect(w[:4]) for w in p1.get_text("words")}
    sec = words["Section"] | words["2"]
    p1.insert_link({"kind": pymupdf.LINK_GOTO, "from": sec, "page": 1, "to": pymupdf.Point(72, 70)})
    p1.insert_link(
        {"kind": pymupdf.LINK_URI, "from": words["https://example.org"], "uri": "https://example.org"}
    )
    return pymupdf.open("pdf", doc.tobytes())


def test_native_links_toc_anchors_and_registry_rows():
    tables = parse_with_pymupdf(_linked_doc(), "gen", layout_mode="never")
    x = tables.cross_ref_df
    links = x[x.source == "native_link"]
    internal = links[links.ref_type != "external"].iloc[0]
    assert (internal.anchor_text, internal.ref_type, internal.ref_target) == ("Section 2", "section", "2")
    assert (internal.origin_page, internal.origin_line, internal.target_page, internal.target_line) == (
        1,
        2,
        2,
        1,
    )
    uri = links[links.ref_type == "external"].iloc[0]
    assert uri.ref_target == "https://example.org" and uri.origin_line == 3 and pd.isna(uri.target_page)
    anchors = x[x.source == "toc_anchor"]
    assert set(anchors.ref_target) == {"1", "2"} and set(anchors.ref_type) == {"section"}
    reg = x[x.source == "object_registry"]
    assert list(zip(reg.ref_type, reg.ref_target, reg.target_page, strict=False)) == [("table", "1", 2)]
    assert not (x.source == "regex").any()  # regex rows only on demand


def test_eager_refs_add_regex_rows():
    tables = parse_with_pymupdf(_linked_doc(), "gen", layout_mode="never", eager_refs=True)
    rx = tables.cross_ref_df[tables.cross_ref_df.source == "regex"]
    assert ("section", "2", 1, 2) in set(
        zip(rx.ref_type, rx.ref_target, rx.origin_page, rx.origin_line, strict=False)
    )


def test_defined_in_section_is_a_definition_pointer():
    assert classify_reference("using the operation defined in Section 1.5.") == ("definition", "1.5", None)


def test_chapter_numbered_figure_is_one_id_not_a_range():
    """Regression: 'Figure 7-27' (manual numbering) was expanded to figures 7..27."""
    import pandas as pd

    from docintel.parsing.crossrefs import extract_references

    def targets(text):
        rows = extract_references(pd.DataFrame([{"page": 1, "line": 1, "text": text}]), "")
        return rows["ref_target"].tolist()

    assert targets("as shown in Figure 7-27 below") == ["7-27"]
    assert targets("Table 2-1 lists the views") == ["2-1"]
    assert targets("see Figures 3-5") == ["3", "4", "5"]
    assert targets("as in [2-5]") == ["2", "3", "4", "5"]
