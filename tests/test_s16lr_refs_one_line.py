"""A reference read over a line end reads as one line: the line break that keeps a tag opening the
next line from being taken as the number's paragraph must not reach what the row says."""

from docintel.parsing.refpatterns import references_on_lines

LINES = [
    (3, 1, "Related controls: AC-18"),
    (3, 2, "(5) The organization protects wireless access to the system."),
    (4, 1, "The procedures are set out in Section 4"),
    (4, 2, "(b) the rights of the licensee and the fees;"),
]


def _rows():
    return [r for _, rows in references_on_lines(LINES) for r in rows]


def test_no_line_break_in_any_text_field():
    rows = _rows()
    assert rows, "the control and the section are read"
    for r in rows:
        for key, value in r.items():
            assert not (isinstance(value, str) and "\n" in value), (key, value)


def test_control_enhancement_over_the_line_end_is_read_once_spaced():
    control = next(r for r in _rows() if r.get("ref_target") == "AC-18")
    assert control["anchor_text"] == "AC-18 (5)"
    assert control["sub_selector"] == "enhancement (5)"


def test_tag_opening_the_next_line_is_not_the_sections_paragraph():
    section = next(r for r in _rows() if r.get("ref_target") == "4")
    assert section["anchor_text"] == "Section 4"
    assert not section.get("sub_selector")
