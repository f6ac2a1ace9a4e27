"""Session 15 (rb): rule books whose outline lists only the chapters, sections numbered per chapter.

"Chapter 2" / "1. General" / "2. Scope": a detected section number an outline chapter already holds
is a section of its own chapter (``toc_rules.ChapterScopes``), nested under it. Built PDFs.
"""

from __future__ import annotations

import pymupdf

from docintel.parsing.pymupdf_backend import parse_with_pymupdf

PROSE = [
    "The members agree to the rules set out in this chapter, and each of them shall comply",
    "with the obligations that follow from it for as long as these rules remain in force",
    "between them, unless the general meeting decides otherwise and records that decision.",
]
CHAPTERS = ["Membership", "Meetings", "Elections", "Discipline"]
SECTIONS = [
    ["General", "Scope", "Definitions"],
    ["Notice of meetings", "Quorum", "Voting"],
    ["Nominations", "Ballots", "Counting"],
    ["Complaints", "Hearings", "Penalties"],
]


def _pdf(blocks, outline):
    """blocks: (text, font, size); None starts a new page. outline: PyMuPDF toc rows or None."""
    doc = pymupdf.open()
    page, y = None, 0.0
    for block in blocks:
        if block is None:
            page = None
            continue
        text, font, size = block
        if page is None or y > 760:
            page, y = doc.new_page(width=595, height=842), 80.0
        page.insert_text((72, y), text, fontname=font, fontsize=size)
        y += 14
    if outline:
        doc.set_toc(outline)
    doc = pymupdf.open("pdf", doc.tobytes())
    return parse_with_pymupdf(doc, "gen", layout_mode="never").toc_df


def _book(numbers, *, appendix=False, listed=False, outline=True, root=False):
    """Four chapters on their own pages (opening at different heights), three sections each."""
    blocks, toc = [], []
    for ch, name in enumerate(CHAPTERS, 1):
        blocks += [None] + [(p, "helv", 10) for p in PROSE[: ch - 1]]
        blocks.append((f"Chapter {ch} {name}", "hebo", 16))
        toc.append([1, f"Chapter {ch} {name}", ch])
        for k, title in enumerate(SECTIONS[ch - 1], 1):
            n = numbers(ch, k)
            blocks += [(f"{n}. {title}", "hebo", 12)] + [(p, "helv", 10) for p in PROSE * 2]
            if listed:
                toc.append([2, f"{n}. {title}", ch])
    if appendix:
        blocks += [None, ("Appendix A Forms", "hebo", 16)]
        toc.append([1, "Appendix A Forms", 5])
        for k, title in enumerate(["Application form", "Appeal form"], 1):
            blocks += [(f"{k}. {title}", "hebo", 12)] + [(p, "helv", 10) for p in PROSE * 2]
    if root:  # the book's title as the outline's root, the chapters under it
        toc = [[1, "Club Rules", 1]] + [[lvl + 1, t, p] for lvl, t, p in toc]
    return _pdf(blocks, toc if outline else None)


def _under(toc):
    """{chapter title: [(number, title) of the rows nested under it]}."""
    ids = dict(zip(toc["toc_id"], toc["title"], strict=False))
    out: dict[str, list] = {}
    for r in toc.itertuples():
        if isinstance(r.parent_id, str):
            out.setdefault(ids[r.parent_id], []).append((str(r.number), r.title))
    return out


def test_sections_restarting_at_1_in_each_chapter_nest_under_their_chapter():
    # before: every "1." / "2." / "3." was dropped (the outline's chapters 1-3 hold those numbers)
    toc = _book(lambda ch, k: k)
    under = _under(toc)
    for ch, name in enumerate(CHAPTERS):
        assert under.get(name) == [(str(k), t) for k, t in enumerate(SECTIONS[ch], 1)]
    sections = toc[toc["source"] == "heading_detection"]
    assert len(sections) == 12 and set(sections["level"]) == {2}


def test_chapters_under_the_book_title_in_the_outline_scope_their_sections():
    toc = _book(lambda ch, k: k, root=True)
    under = _under(toc)
    assert under.get("Meetings") == [(str(k), t) for k, t in enumerate(SECTIONS[1], 1)]
    assert set(toc[toc["source"] == "heading_detection"]["level"]) == {3}


def test_numbering_continued_across_chapters_nests_every_section():
    # before: "1.", "2.", "3.", "4." (numbers of chapters) dropped, "5." ... "12." level 1 beside the chapters
    toc = _book(lambda ch, k: (ch - 1) * 3 + k)
    under = _under(toc)
    for ch, name in enumerate(CHAPTERS):
        assert [n for n, _ in under.get(name, [])] == [str((ch * 3) + k) for k in (1, 2, 3)]
    assert set(toc[toc["source"] == "heading_detection"]["level"]) == {2}


def test_an_appendix_restarting_at_1_keeps_its_sections():
    toc = _book(lambda ch, k: k, appendix=True)
    assert _under(toc).get("Forms") == [("1", "Application form"), ("2", "Appeal form")]


def test_an_outline_listing_the_sections_is_left_as_it_was():
    # the outline's own numbering: no detected row added, the sections hang under their chapters
    toc = _book(lambda ch, k: f"{ch}.{k}", listed=True)
    assert set(toc["source"]) == {"outline"}
    assert len(toc) == 16


def test_a_chapter_title_repeated_as_a_numbered_line_elsewhere_is_no_section():
    # outline "1 Membership" ... ; a bold "2 Meetings" inside chapter 3 (a cross-reference set as a
    # heading, a running title) is the outline's entry again, not a section of chapter 3
    blocks, toc = [], []
    for ch, name in enumerate(CHAPTERS, 1):
        blocks += [None, (f"{ch} {name}", "hebo", 16)] + [(p, "helv", 10) for p in PROSE * 3]
        toc.append([1, f"{ch} {name}", ch])
        if ch == 3:
            blocks += [("2 Meetings", "hebo", 12)] + [(p, "helv", 10) for p in PROSE]
    toc_df = _pdf(blocks, toc)
    assert list(toc_df["title"]) == CHAPTERS


def test_two_rule_books_bound_in_one_pdf_keep_their_sections():
    # unnumbered outline entries (each book's title): no number is held, each book's sections stay
    blocks, toc = [], []
    for b, book in enumerate(["Rules of the Rowing Club", "Rules of the Sailing Club"]):
        blocks += [None, (book, "hebo", 16)]
        toc.append([1, book, b + 1])
        for k, title in enumerate(SECTIONS[b], 1):
            blocks += [(f"{k}. {title}", "hebo", 12)] + [(p, "helv", 10) for p in PROSE * 2]
    toc_df = _pdf(blocks, toc)
    assert list(toc_df["title"]) == [
        "Rules of the Rowing Club",
        *SECTIONS[0],
        "Rules of the Sailing Club",
        *SECTIONS[1],
    ]


def test_a_template_bound_in_an_appendix_keeps_its_own_numbered_sections():
    # a guide's appendix holds a plan template numbered afresh ("1 Introduction" / "1.1 Purpose and
    # scope"); the outline lists the template's chapters only: its 1.1, 1.2, 2.1 were dropped as the
    # guide's own 1.1, 1.2, 2.1 (NIST SP 800-161's template, under an unnumbered outline entry)
    body = [(p, "helv", 10) for p in PROSE * 2]
    blocks = [
        ("Introduction", "hebo", 16),
        ("1.1 Purpose", "hebo", 12),
        *body,
        ("1.2 Scope", "hebo", 12),
        *body,
    ]
    blocks += [None, ("Methods", "hebo", 16), ("2.1 Data", "hebo", 12), *body]
    blocks += [None, ("Supply Chain Plan Template", "hebo", 16), ("1 Introduction", "hebo", 14)]
    blocks += [("1.1 Purpose and scope", "hebo", 12), *body, ("1.2 Authority", "hebo", 12), *body]
    blocks += [None, ("2 Roles", "hebo", 14), ("2.1 Responsibility for the plan", "hebo", 12), *body]
    outline = [[1, "Introduction", 1], [2, "1.1 Purpose", 1], [2, "1.2 Scope", 1], [1, "Methods", 2]]
    outline += [
        [2, "2.1 Data", 2],
        [1, "Supply Chain Plan Template", 3],
        [2, "1 Introduction", 3],
        [2, "2 Roles", 4],
    ]
    toc = _pdf(blocks, outline)
    rows = toc[toc["source"] == "heading_detection"]
    assert list(zip(rows["number"].astype(str), rows["title"], rows["level"], strict=False)) == [
        ("1.1", "Purpose and scope", 3),
        ("1.2", "Authority", 3),
        ("2.1", "Responsibility for the plan", 3),
    ]
    assert _under(toc).get("Roles") == [("2.1", "Responsibility for the plan")]


def test_a_numbered_list_under_plainly_numbered_chapters_is_no_sections():
    # the outline lists chapters numbered like sections ("3 Methods"); bold "1." / "2." / "3." steps
    # under a chapter are a list the detector took for headings: none of them is a section (before
    # the chapter's kind was checked, "1." and "2." nested under Methods and "3." was dropped)
    body = [(p, "helv", 10) for p in PROSE * 2]
    blocks = [("1 Introduction", "hebo", 16), *body, None, ("2 Background", "hebo", 16), *body, None]
    blocks += [("3 Methods", "hebo", 16), *body[:2]]
    blocks += [("1. Collect", "hebo", 12), *body[:2], ("2. Analyse", "hebo", 12), *body[:2]]
    blocks += [("3. Report", "hebo", 12), *body]
    outline = [[1, "1 Introduction", 1], [1, "2 Background", 2], [1, "3 Methods", 3]]
    toc = _pdf(blocks, outline)
    under = _under(toc)
    assert not under.get("Methods")
