"""Session 10 (gx): a commercial contract's numbering, parsed from a generated PDF.

An article may hold one section only ("ARTICLE VII" over "Section 7.01 Limitations."): the
article vouches for it. A section's first paragraph run into its line ("... Limitations. (a)
Seller ...") is continued by the "(b)" on a line of its own. "EXHIBIT A" alone on its line is an
attachment's heading, not a figure's caption.
"""

from __future__ import annotations

from docintel.parsing.pymupdf_backend import parse_with_pymupdf
from docintel.retrieval.resolve import resolve_in_tables
from tests.synthetic_pdf import build_pdf
from tests.test_ref_families_s6 import Q, _ref


def _p(text: str) -> tuple:
    return (text, "helv", 10, 72)


def _contract():
    pages = [
        [
            ("ASSET PURCHASE AGREEMENT", "hebo", 14, "c"),
            ("ARTICLE VI", "hebo", 11, "c"),
            ("COVENANTS", "hebo", 11, "c"),
            _p("Section 6.01 Conduct of Business. Seller shall operate in the ordinary course."),
            _p("Section 6.02 Access. Seller shall give Buyer access to the books of the Business."),
            ("ARTICLE VII", "hebo", 11, "c"),
            ("INDEMNIFICATION", "hebo", 11, "c"),
            _p("Section 7.01 Limitations. (a) Seller shall not be liable for any Losses below the Basket."),
            _p("(b) The aggregate liability of Seller shall not exceed the Cap, except that"),
            _p("(i) the Cap does not apply to Fundamental Representations; and"),
            _p("(ii) the Cap does not apply to fraud. See Section 7.01(b)(ii) and Exhibit A."),
        ],
        [
            ("EXHIBIT A", "hebo", 12, "c"),
            ("FORM OF BILL OF SALE", "hebo", 11, "c"),
            _p("1. Seller hereby sells to Buyer all of the Purchased Assets."),
            _p("2. This Bill of Sale is governed by the Agreement."),
        ],
    ]
    return parse_with_pymupdf(build_pdf(pages), "apa", layout_mode="never", ocr_mode="never")


def test_a_lone_section_of_an_article_and_its_paragraphs_after_a_run_in_first():
    tables = _contract()
    toc = tables.toc_df.set_index("toc_id")
    assert toc.loc["7.01", "parent_id"] == "Article VII"
    assert toc.loc["7.01(b)", "parent_id"] == "7.01"
    assert toc.loc["7.01(b)(ii)", "parent_id"] == "7.01(b)"
    res = resolve_in_tables(_ref("Section 7.01(b)(ii)", 1, 11), tables, question=Q)
    assert res.status == "resolved"
    assert any(
        ln.text.startswith("(ii) the Cap does not apply to fraud") for p in res.passages for ln in p.lines
    )


def test_an_exhibit_label_alone_is_no_figure():
    tables = _contract()
    reg = tables.object_registry
    assert reg[reg["object_type"] == "figure"].empty
    res = resolve_in_tables(_ref("Exhibit A", 1, 11), tables, question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].text == "EXHIBIT A"
