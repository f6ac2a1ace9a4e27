"""Session 16 (s11): reference forms set 11's unseen documents write that the grammar missed."""

from __future__ import annotations

from docintel.parsing.refpatterns import find_references


def _refs(text: str) -> list[tuple[str, str | None, str | None, str | None]]:
    return [
        (r["anchor_text"], r["direction"], r["ref_target"], r["sub_selector"])
        for r in find_references(text, relative=True)
    ]


def test_see_next_section_without_an_article_is_a_relative_pointer():
    # SP 800-160 Vol. 1, G.6: "verification and validation methods relative to security function
    # criticality (see next section)": the next section (G.7) defines it; only "the next section"
    # was read, so no pointer was pending and the definition never pulled
    assert _refs("relative to security function criticality (see next section) to confirm") == [
        ("next section", "next", None, None)
    ]
    assert _refs("see previous chapter for the terms") == [("previous chapter", "previous", None, None)]
    # without "see" a bare "next section" stays prose ("the next section of the road" needs its article)
    assert _refs("described in next section") == []


def test_a_paragraph_tag_after_one_space_is_the_sections_paragraph():
    # RPL 1.5 Exhibit B: "as defined in Section 6.4 (d)": read as all of 6.4, the answer took
    # 6.4 (a) and (b), not (d)
    assert _refs("must appear in each user-visible display, see Section 6.4 (d):") == [
        ("Section 6.4 (d)", None, "6.4", "paragraph (d)")
    ]
    assert _refs("Article 6 (1) (a) of the Regulation") == [
        ("Article 6 (1) (a)", None, "6", "paragraph (1)(a)")
    ]
    # a capital pair or a year in parentheses is no tag; a tag without a space reads as before
    assert _refs("Section 3 (EU) applies") == [("Section 3", None, "3", None)]
    assert _refs("under Section 7 (1996) rules") == [("Section 7", None, "7", None)]
    assert _refs("Section 12.5(b)(2)") == [("Section 12.5(b)(2)", None, "12.5", "paragraph (b)(2)")]


def _pid_pages(next_opens_with_heading: bool = False):
    from tests.test_ref_families_s6 import build_rows

    filler = "Directories for user accounts and mail spools are described here in some detail today."
    body = [(1, n, f"{filler} ({n})", "body", "1.1") for n in range(1, 21)]
    body += [
        (1, 21, "2.1 Requirements", "heading", "2.1"),
        (1, 22, "Process identifier (PID) files must be placed in /run. The naming", "body", "2.1"),
        (1, 23, "convention for PID files is <program-name>.pid, for example crond.pid.", "body", "2.1"),
        (1, 24, "16 A footnote about the root account's home directory and its mail.", "footnote", "2.1"),
    ]
    first = 1
    if next_opens_with_heading:
        body.append((2, 1, "2.2 Sockets", "heading", "2.2"))
        first = 2
    body += [
        (
            2,
            first,
            "The internal format of PID files remains unchanged. The file must consist of the",
            "body",
            "2.1",
        ),
        (
            2,
            first + 1,
            "process identifier in ASCII-encoded decimal, followed by a newline character.",
            "body",
            "2.1",
        ),
        (
            2,
            first + 2,
            "2.3 Sockets" if not next_opens_with_heading else "More on sockets.",
            "heading",
            "2.3",
        ),
    ]
    body += [(2, n, f"{filler} [{n}]", "body", "2.3") for n in range(first + 3, first + 23)]
    rows = [("1.1", "1.1", "Accounts", 2, None, 1, 1), ("2.1", "2.1", "Requirements", 2, None, 1, 21)]
    return build_rows(body, rows)


def test_a_window_at_the_foot_of_its_page_runs_on_into_the_same_sections_next_lines():
    # FHS 3.0, 3.15.2: the PID files' name and place end page 21, what the file holds opens page
    # 22 in the same section; pass 1 read page 21 alone and missed "followed by a newline"
    from docintel.questions import parse_question
    from docintel.retrieval.pagebreak import across_page_break
    from docintel.retrieval.passage import best_passage

    tables = _pid_pages()
    q = parse_question("What must a PID file in /run contain?")
    window = best_passage(tables, q, 1)
    assert "newline" not in window.text
    bridged = across_page_break(tables, q, window)
    assert "followed by a newline character" in bridged.text
    assert "A footnote" not in bridged.text  # the page's footnotes are not the section's text
    assert (bridged.lines[0].page, bridged.lines[-1].page) == (1, 2)


def test_a_next_page_that_opens_another_section_is_not_read_on():
    from docintel.questions import parse_question
    from docintel.retrieval.pagebreak import across_page_break
    from docintel.retrieval.passage import best_passage

    tables = _pid_pages(next_opens_with_heading=True)
    q = parse_question("What must a PID file in /run contain?")
    window = best_passage(tables, q, 1)
    assert across_page_break(tables, q, window) == window


def test_a_tag_opening_the_next_line_is_a_list_member_not_the_numbers_paragraph():
    # f11 review: the spaced tag was also read over a line end, so a list whose members end in a
    # section number ("(a) the duties in Section 4" / "(b) the rights in Section 5") pointed at
    # Section 4's paragraph (b); the tag opening a line is the next member's
    from docintel.parsing.refpatterns import references_on_lines

    lines = [
        (1, 1, "(a) the obligations set out in Section 4"),
        (1, 2, "(b) the rights granted under Section 5"),
        (1, 3, "(c) anything else."),
        (1, 4, "The Licensee shall comply with Article 6"),
        (1, 5, "(1) The controller shall keep records."),
    ]
    found = [
        (r["anchor_text"], r["ref_target"], r["sub_selector"])
        for _, rows in references_on_lines(lines)
        for r in rows
    ]
    assert found == [("Section 4", "4", None), ("Section 5", "5", None), ("Article 6", "6", None)]
    # after a number's own tag too ("Section 3(a)" / "(ii) ..."; read as 3(a)(ii) before s16 as well)
    tagged = [
        (r["ref_target"], r["sub_selector"])
        for _, rows in references_on_lines(
            [
                (1, 1, "(i) the duties set out in Section 3(a)"),
                (1, 2, "(ii) the rights granted in Section 4(b)"),
            ]
        )
        for r in rows
    ]
    assert tagged == [("3", "paragraph (a)"), ("4", "paragraph (b)")]
    # 21 CFR 1308 (dev corpus): a page head "\u00a7 1308.13" over a list member's "(2)" alone
    head = [
        (r["ref_target"], r["sub_selector"])
        for _, rows in references_on_lines([(6, 1, "\u00a7 1308.13"), (6, 2, "(2)")])
        for r in rows
    ]
    assert head == [("1308.13", None)]
    # a tag going on as a reference is still read over the line end (same document, p18)
    act = [
        (r["ref_target"], r["sub_selector"])
        for _, rows in references_on_lines(
            [
                (18, 89, "scribed by \u00a7 1308.41 or subsections 201"),
                (18, 90, "(a) and (b) of the Act (21 U.S.C. 811(a)"),
            ]
        )
        for r in rows
    ]
    assert ("Act", "subsections 201 (a) and (b)") in act
    # on one line the spaced tag is still the paragraph; a reference broken after its label reads on
    one = [
        (r["anchor_text"], r["sub_selector"])
        for _, rows in references_on_lines([(1, 1, "see Section 6.4 (d) for it")])
        for r in rows
    ]
    assert one == [("Section 6.4 (d)", "paragraph (d)")]
    broken = [
        (r["ref_target"], r["sub_selector"])
        for _, rows in references_on_lines(
            [(1, 1, "as required by paragraph"), (1, 2, "(b) of this section.")]
        )
        for r in rows
    ]
    assert broken == [("(b)", None)]


def test_a_next_page_read_by_its_own_window_is_not_read_twice():
    # f11 review: with two pages chosen (NIST CSF dev csf-r4: pages 9 and 10), page 9's window ran
    # on into page 10's first lines, which page 10's own window held too: 14 lines twice in the
    # evidence. The bridge stops at a line another pass-1 window holds.
    from docintel.questions import parse_question
    from docintel.retrieval.pagebreak import across_page_break
    from docintel.retrieval.passage import best_passage

    tables = _pid_pages()
    q = parse_question("What must a PID file in /run contain?")
    window = best_passage(tables, q, 1)
    other = best_passage(tables, q, 2)
    held = frozenset((ln.page, ln.line) for ln in other.lines)
    assert (2, 1) in held
    assert across_page_break(tables, q, window, held) == window
