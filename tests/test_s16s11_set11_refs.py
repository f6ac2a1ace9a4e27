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
