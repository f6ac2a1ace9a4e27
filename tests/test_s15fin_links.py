"""signals.native_links (the page stage's cheap link read) gives get_links()'s dicts (issue 18)."""

from __future__ import annotations

import pymupdf
import pytest

from docintel.parsing.crossrefs import page_links
from docintel.parsing.signals import native_links, page_signals


def _built_pdf(tmp_path):
    """Four pages: URI, internal-page, named-destination and other-file links on page 1, a link-free
    page 2, a named destination's target on page 3 and a page with many links (page 4)."""
    doc = pymupdf.open()
    for _ in range(4):
        page = doc.new_page()
        page.insert_text((72, 100), "See Section 4.2 and Table 3 at https://example.org")
    target = doc[2]
    doc.xref_set_key(doc.pdf_catalog(), "Dests", f"<</sec42 [{target.xref} 0 R /XYZ 72 500 0]>>")
    p = doc[0]
    p.insert_link(
        {"kind": pymupdf.LINK_URI, "from": pymupdf.Rect(300, 88, 420, 104), "uri": "https://example.org"}
    )
    p.insert_link(
        {
            "kind": pymupdf.LINK_GOTO,
            "from": pymupdf.Rect(72, 88, 160, 104),
            "page": 2,
            "to": pymupdf.Point(72, 300),
        }
    )
    p.insert_link({"kind": pymupdf.LINK_NAMED, "from": pymupdf.Rect(170, 88, 230, 104), "name": "sec42"})
    p.insert_link(
        {
            "kind": pymupdf.LINK_GOTOR,
            "from": pymupdf.Rect(72, 120, 200, 136),
            "file": "other.pdf",
            "page": 1,
            "to": pymupdf.Point(0, 0),
        }
    )
    for k in range(12):
        doc[3].insert_link(
            {
                "kind": pymupdf.LINK_GOTO,
                "from": pymupdf.Rect(72, 150 + 20 * k, 160, 165 + 20 * k),
                "page": k % 3,
                "to": pymupdf.Point(10, 20 * k),
            }
        )
    path = tmp_path / "links.pdf"
    doc.save(path)
    return pymupdf.open(path)


def _without_xref(links):
    return [{k: v for k, v in lk.items() if k not in ("xref", "id")} for lk in links]


def test_native_links_are_get_links_on_every_page(tmp_path):
    doc = _built_pdf(tmp_path)
    kinds = set()
    for i in range(doc.page_count):
        expected = _without_xref(doc[i].get_links())
        got = native_links(doc[i])
        assert _without_xref(got) == expected
        assert [set(lk) for lk in got] == [set(lk) - {"id"} for lk in doc[i].get_links()]
        kinds |= {lk["kind"] for lk in got}
    # the built file holds every kind the cross-reference stage reads
    assert {pymupdf.LINK_URI, pymupdf.LINK_GOTO, pymupdf.LINK_NAMED, pymupdf.LINK_GOTOR} <= kinds
    assert native_links(doc[1]) == []
    assert len(native_links(doc[3])) == 12


def test_named_destination_resolves_like_get_links(tmp_path):
    doc = _built_pdf(tmp_path)
    (named,) = [lk for lk in native_links(doc[0]) if lk["kind"] == pymupdf.LINK_NAMED]
    (ref,) = [lk for lk in doc[0].get_links() if lk["kind"] == pymupdf.LINK_NAMED]
    assert named["page"] == ref["page"] == 2
    assert named["to"] == ref["to"]
    assert named["nameddest"] == "sec42"


@pytest.mark.parametrize("page_no", [1, 2, 3, 4])
def test_page_stage_reads_the_same_links(tmp_path, page_no):
    doc = _built_pdf(tmp_path)
    page = doc[page_no - 1]
    sig = page_signals(page, page_no)
    expected = _without_xref(page.get_links())
    assert sig["n_links"] == len(expected)
    assert _without_xref(sig["_links"]) == expected
    assert [(_without_xref([lk])[0], a) for lk, a in page_links(page)] == [
        (lk, a) for lk, (_, a) in zip(expected, page_links(page, page.get_links()), strict=True)
    ]
