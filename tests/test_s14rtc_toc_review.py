"""Session 14 (rtc): a review of round 1's toc rules; numbered lists and repeated headings they took."""

from __future__ import annotations

import pymupdf

from docintel.parsing.pymupdf_backend import parse_with_pymupdf

PROSE = [
    "The parties agree to the terms set out in this article, and each of them shall comply",
    "with the obligations that follow from it for as long as this agreement remains in force",
    "between them, unless the parties agree otherwise in writing and sign that agreement.",
]


def _toc(doc: pymupdf.Document):
    return parse_with_pymupdf(pymupdf.open("pdf", doc.tobytes()), "gen", layout_mode="never").toc_df


def test_steps_numbered_on_through_unnumbered_headings_are_no_articles():
    # tax instructions: bold headings, each with its steps "1. Enter the amount ..." in body type,
    # the numbering running on through the document: the steps were level-1 rows beside the
    # headings, so each heading's section shrank to its own line
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y, n = 80.0, 1
    page.insert_text((72, y), "Instructions for Schedule K", fontname="hebo", fontsize=16)
    for head in ("Who Must File", "Figuring Your Credit", "Carryforwards", "Recapture"):
        y += 22
        page.insert_text((72, y), head, fontname="hebo", fontsize=12)
        for _ in range(3):
            lines = [f"{n}. Enter the amount from line {n + 4} of your return. If zero or less, enter -0-"]
            for text in lines + PROSE:
                if y > 760:
                    page, y = doc.new_page(width=595, height=842), 80.0
                y += 14
                page.insert_text((72, y), text, fontname="helv", fontsize=10)
            n += 1
    toc = _toc(doc)
    assert list(toc["title"]) == ["Who Must File", "Figuring Your Credit", "Carryforwards", "Recapture"]


def test_a_heading_at_the_foot_of_a_page_in_each_of_two_bound_procedures_stays():
    # two procedures in one PDF; each one's "2 Scope" falls last on a page: no running footer,
    # a section of each procedure ("3 Responsibilities" comes between the two)
    doc = pymupdf.open()

    def page_of(lines):
        page, y = doc.new_page(width=595, height=842), 80.0
        for text, font, size in lines:
            page.insert_text((72, y), text, fontname=font, fontsize=size)
            y += 14 if size <= 10 else 22

    body = [(p, "helv", 10) for p in PROSE]
    for proc in ("Procedure for Handling Complaints", "Procedure for Handling Appeals"):
        page_of([(proc, "hebo", 16), ("1 Purpose", "hebo", 12)] + body * 14 + [("2 Scope", "hebo", 12)])
        page_of(body * 6 + [("3 Responsibilities", "hebo", 12)] + body * 6)
    toc = _toc(doc)
    scope = toc[toc["title"] == "Scope"]
    assert list(scope["page_start"]) == [1, 3]


def test_articles_numbered_with_a_space_and_no_dot_are_sections():
    # CERN-OHL-S: "3 Copying, modifying and Conveying Covered Source" in the body font, no dot,
    # its clauses "3.1 You may ..." under it: "section 3" had no toc row to resolve to
    doc = pymupdf.open()
    page, y = doc.new_page(width=595, height=842), 80.0
    page.insert_text((72, y), "Open Hardware Licence", fontname="hebo", fontsize=16)
    heads = ["Definitions", "Applicability", "Copying, modifying and Conveying Covered Source", "Patents"]
    for n, head in enumerate(heads, 1):
        lines = [(72.0, f"{n} {head}")]
        lines += [(80.0, f"{n}.{k} {PROSE[0]}") for k in (1, 2)] + [(80.0, p) for p in PROSE[1:]]
        for x, text in lines:
            if y > 760:
                page, y = doc.new_page(width=595, height=842), 80.0
            y += 14
            page.insert_text((x, y), text, fontname="helv", fontsize=10)
    toc = _toc(doc).set_index("toc_id")
    assert [toc.loc[str(n)].title for n in range(1, 5)] == heads
    assert toc.loc["3.1"].parent_id == "3"


def test_numbered_lines_of_running_text_make_no_spaced_articles():
    # a line of running text may open with a number: "2 Members shall ..." wrapped from "within"
    doc = pymupdf.open()
    page, y = doc.new_page(width=595, height=842), 80.0
    page.insert_text((72, y), "Rules of the Association", fontname="hebo", fontsize=16)
    for n in range(1, 6):
        for text in [
            *PROSE,
            f"{n} Members shall give notice. The period for it is set out in the rules",
            *PROSE,
        ]:
            if y > 760:
                page, y = doc.new_page(width=595, height=842), 80.0
            y += 14
            page.insert_text((72, y), text, fontname="helv", fontsize=10)
    toc = _toc(doc)
    assert not toc["number"].notna().any()
