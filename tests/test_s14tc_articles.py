"""Session 14 (tc): articles numbered in body type are sections; numbered lists are not."""

from __future__ import annotations

import pymupdf

from docintel.parsing.pymupdf_backend import parse_with_pymupdf

PROSE = [
    "The parties agree to the terms set out in this article, and each of them shall comply",
    "with the obligations that follow from it for as long as this agreement remains in force",
    "between them, unless the parties agree otherwise in writing and sign that agreement.",
]


def _pdf(blocks: list[tuple[str, str, float]], toc: list | None = None) -> pymupdf.Document:
    """A PDF of (text, font, size) lines, 30 lines a page, 14 pt apart."""
    doc = pymupdf.open()
    page, y = None, 0.0
    for text, font, size in blocks:
        if page is None or y > 760:
            page, y = doc.new_page(width=595, height=842), 80.0
        page.insert_text((72, y), text, fontname=font, fontsize=size)
        y += 14 if text else 8
    if toc:
        doc.set_toc(toc)
    return pymupdf.open("pdf", doc.tobytes())


def _toc(doc: pymupdf.Document):
    return parse_with_pymupdf(doc, "gen", layout_mode="never").toc_df


def _articles(heads: list[str]) -> list[tuple[str, str, float]]:
    out: list[tuple[str, str, float]] = [("Software Licence Agreement", "hebo", 16)]
    for h in heads:
        out += [(h, "helv", 10)] + [(p, "helv", 10) for p in PROSE * 2]
    return out


def _level1(toc, source: str = "heading_detection") -> list[tuple[str, str]]:
    rows = toc[(toc["level"] == 1) & toc["number"].notna() & (toc["source"] == source)]
    return list(zip(rows["number"], rows["title"], strict=False))


def test_articles_numbered_without_a_space_are_sections():
    # EUPL: "2.Scope of the rights granted by the Licence", the body font, a paragraph each
    heads = ["1.Definitions", "2.Scope of the rights granted", "3.Communication of the Source Code"]
    heads += ["4.Limitations on copyright", "5.Obligations of the Licensee", "6.Applicable law"]
    # body type: titled provision rows at level 1 (their lines stay body text, as clauses)
    got = _level1(_toc(_pdf(_articles(heads))), "provision")
    assert got == [
        ("1", "Definitions"),
        ("2", "Scope of the rights granted"),
        ("3", "Communication of the Source Code"),
        ("4", "Limitations on copyright"),
        ("5", "Obligations of the Licensee"),
        ("6", "Applicable law"),
    ]


def test_run_in_articles_with_a_parenthesis_are_sections_titled_by_their_lead():
    # OSL: "1) Grant of Copyright License. Licensor grants You ..." run into the article's text
    heads = [
        "1) Grant of Copyright License. Licensor grants You a worldwide licence to do the following",
        "2) Grant of Patent License. Licensor grants You a licence under the patent claims it owns",
        "3) Grant of Source Code License. Licensor agrees to provide a copy of the source code",
        "4) Exclusions From License Grant. Neither the names of Licensor nor its marks may be used",
    ]
    tables = parse_with_pymupdf(_pdf(_articles(heads)), "gen", layout_mode="never")
    # the line runs on into the article's text: a titled provision row, the line stays body text
    got = _level1(tables.toc_df, "provision")
    assert not (tables.line_df["role"] == "heading").any()
    assert got == [
        ("1", "Grant of Copyright License"),
        ("2", "Grant of Patent License"),
        ("3", "Grant of Source Code License"),
        ("4", "Exclusions From License Grant"),
    ]


def test_numbered_lists_that_restart_in_each_section_are_no_sections():
    # a rule book: bold section headings, each holding its own list "1. 2. ..." in body type;
    # read on past the restarts, the lists' numbers make a run 1, 2, 3, 4 through the text
    blocks: list[tuple[str, str, float]] = [("Rules of the Association", "hebo", 16)]
    for head, n in (("Membership", 2), ("Meetings", 3), ("Elections", 4)):
        blocks.append((head, "hebo", 13))
        for k in range(1, n + 1):
            blocks += [(f"{k}. Each Member shall follow this rule in every case it applies", "helv", 10)]
            blocks += [(p, "helv", 10) for p in PROSE]
    toc = _toc(_pdf(blocks))
    assert _level1(toc) == []
    assert {"Membership", "Meetings", "Elections"} <= set(toc["title"])


def test_a_list_of_one_line_items_is_no_run_of_articles():
    # Debian Policy: "1. Russ Allbery" / "2. Bill Allombert" ... one item a line
    names = ["Russ Allbery", "Bill Allombert", "Andrey Rakhmatullin", "Sean Whitton", "Ian Jackson"]
    names += ["Christian Schwarz", "David A. Morris", "Manoj Srivastava"]
    blocks: list[tuple[str, str, float]] = [("Policy Manual", "hebo", 16)]
    blocks += [(p, "helv", 10) for p in PROSE]
    blocks += [(f"{k}. {name}", "helv", 10) for k, name in enumerate(names, 1)]
    blocks += [(p, "helv", 10) for p in PROSE]
    assert _level1(_toc(_pdf(blocks))) == []


def test_detected_numbers_out_of_the_outline_order_are_no_sections():
    # Debian Policy 2.1: the DFSG's bold "1. Free Redistribution" ... items between outline
    # entries 2.1 and 2.2 were level-1 sections 1 to 4 beside chapter 2
    blocks: list[tuple[str, str, float]] = [("2.1 The Free Software Guidelines", "hebo", 13)]
    blocks += [(p, "helv", 10) for p in PROSE]
    for k, t in enumerate(["Free Redistribution", "Source Code", "Derived Works", "Integrity"], 1):
        blocks += [(f"{k}. {t}", "hebo", 10)] + [(p, "helv", 10) for p in PROSE]
    blocks += [("2.2 Archive areas", "hebo", 13)] + [(p, "helv", 10) for p in PROSE]
    blocks += [("2.3 Copyright considerations", "hebo", 13)] + [(p, "helv", 10) for p in PROSE]
    outline = [[1, "2.1 The Free Software Guidelines", 1], [1, "2.2 Archive areas", 1]]
    outline += [[1, "2.3 Copyright considerations", 1]]
    toc = _toc(_pdf(blocks, outline))
    numbers = set(toc["number"].dropna())
    assert {"2.1", "2.2", "2.3"} <= numbers
    assert not numbers & {"1", "2", "3", "4"}


def test_run_in_articles_fill_the_gaps_between_numbered_headings():
    # GPL v3: bold "1. Source Code." ... with "0. Definitions." (a 0 no numbering scheme takes)
    # and "3. Protecting Users' Legal Rights ... Law. No covered work ..." run in, in body type
    blocks: list[tuple[str, str, float]] = [("General Public Licence", "hebo", 16)]
    for head, font in [
        ("0. Definitions.", "hebo"),
        ("1. Source Code.", "hebo"),
        ("2. Basic Permissions.", "hebo"),
        ("3. Protecting Users' Legal Rights. No covered work shall be deemed part of a measure", "helv"),
        ("4. Conveying Verbatim Copies.", "hebo"),
        ("5. Acceptance Not Required. You are not required to accept this License in order to", "helv"),
        ("6. Termination.", "hebo"),
    ]:
        blocks += [(head, font, 12 if font == "hebo" else 10)] + [(p, "helv", 10) for p in PROSE * 2]
    toc = _toc(_pdf(blocks))
    assert _level1(toc) == [
        ("0", "Definitions"),
        ("1", "Source Code"),
        ("2", "Basic Permissions"),
        ("4", "Conveying Verbatim Copies"),
        ("6", "Termination"),
    ]
    assert _level1(toc, "provision") == [
        ("3", "Protecting Users' Legal Rights"),
        ("5", "Acceptance Not Required"),
    ]


def test_a_numbered_heading_closing_two_pages_is_a_running_footer():
    # Debian Policy: "Chapter 21. Maintainer script flowcharts" in bold at the foot of every
    # other page (the furniture pass missed it): a heading each time, at level 1
    doc = pymupdf.open()
    for k in range(4):
        page = doc.new_page(width=595, height=842)
        y = 80.0
        if k == 0:
            page.insert_text((72, y), "21 Maintainer script flowcharts", fontname="hebo", fontsize=14)
            y += 24
        for _ in range(5 + k):  # pages of different lengths: the footer closes each one's text
            for p in PROSE:
                page.insert_text((72, y), p, fontname="helv", fontsize=10)
                y += 14
            y += 8
        if k % 2 == 1:
            page.insert_text(
                (300 - 4 * k, y + 10),
                "Chapter 21. Maintainer script flowcharts",
                fontname="hebo",
                fontsize=11,
            )
    toc = _toc(pymupdf.open("pdf", doc.tobytes()))
    assert list(toc["title"]) == ["Maintainer script flowcharts"]


def test_without_an_outline_bold_list_items_between_numbered_headings_are_no_sections():
    # Debian Policy printed without its outline: bold "1. Russ Allbery" / "2. Sean Whitton" between
    # the headings 1.3.2 and 1.3.3, and a bold item "1. the distribution license ..."
    blocks: list[tuple[str, str, float]] = [("1 About this manual", "hebo", 16)]
    blocks += [(p, "helv", 10) for p in PROSE]
    for head in ("1.3 Authors", "1.3.1 Early history", "1.3.2 Current process"):
        blocks += [(head, "hebo", 12)] + [(p, "helv", 10) for p in PROSE]
    blocks += [("1. Russ Allbery", "hebo", 10), ("2. Sean Whitton", "hebo", 10)]
    blocks += [("1.3.3 Improvements", "hebo", 12)] + [(p, "helv", 10) for p in PROSE]
    blocks += [("1. the distribution license for those files requires that", "hebo", 10)]
    blocks += [(p, "helv", 10) for p in PROSE]
    blocks += [("2 The Debian Archive", "hebo", 16)] + [(p, "helv", 10) for p in PROSE]
    blocks += [("2.1 Archive areas", "hebo", 12)] + [(p, "helv", 10) for p in PROSE]
    toc = _toc(_pdf(blocks))
    assert list(toc["title"]) == [
        "About this manual",
        "Authors",
        "Early history",
        "Current process",
        "Improvements",
        "The Debian Archive",
        "Archive areas",
    ]
