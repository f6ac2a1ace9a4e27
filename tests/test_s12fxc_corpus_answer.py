"""Session 12 (fxc): review fixes to the corpus answer's pass 1 (cs). A merged first-hop passage
that crosses a page break keeps the span of its first page; see NOTES.md."""

from __future__ import annotations

from docintel.corpus.single import merge_overlapping
from docintel.schema.evidence import EvidenceLine, Passage


def _cross(lines: list[tuple[int, int]], note: str) -> Passage:
    """A passage as extend_to_sentence_end leaves it: lines may run onto the next page, the span
    names the lines of its own (first) page only."""
    ev = [EvidenceLine(page=pg, line=n, text=f"p{pg} l{n}", role="body") for pg, n in lines]
    own = [n for pg, n in lines if pg == lines[0][0]]
    return Passage(doc_id="d", page=lines[0][0], line_start=own[0], line_end=own[-1], lines=ev, note=note)


def test_a_merged_passage_across_a_page_break_keeps_its_first_page_span():
    a = _cross([(3, n) for n in range(40, 47)] + [(4, 1), (4, 2)], "a")  # continued onto p4
    b = _cross([(3, n) for n in range(44, 48)], "b")  # overlaps a on p3
    c = _cross([(4, n) for n in range(1, 9)], "c")  # overlaps a's carried-over lines
    ab = merge_overlapping([a, b])[0]
    assert (ab.page, ab.line_start, ab.line_end) == (3, 40, 47)
    assert (4, 2) in {(ln.page, ln.line) for ln in ab.lines}  # the carried-over lines stay read
    ac = merge_overlapping([a, c])[0]
    assert (ac.page, ac.line_start, ac.line_end) == (3, 40, 46)
    assert [(ln.page, ln.line) for ln in ac.lines][-1] == (4, 8)
