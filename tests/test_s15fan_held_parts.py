"""A pointer to an appendix-like unit the evidence already holds on another first-hop page gets
the unit quoted (session 15, fan; set 10's "Licensor Marks defined in Exhibit C": the first hop
held Exhibit C's page, so no second pass ran, and the answer quoted a footnote of that page)."""

from __future__ import annotations

from docintel.generation.offline.compose import ANSWER_CHARS, compose
from docintel.generation.offline.heldtargets import TARGET_LINES, held_target_windows
from docintel.generation.offline.pointers import Piece
from docintel.generation.offline.scoring import ScoredLine, Window
from docintel.schema.evidence import EvidenceLine, Passage

SECTION = [
    ("5.1. Trademarks. This License does not grant any rights to use the marks", {"mark"}),
    ('owned by Licensor ("Licensor Marks" defined in Exhibit C) or to any mark.', {"mark", "licensor"}),
]
EXHIBIT = [
    ("1Note: this list can be found at the address below.", set()),
    ("EXHIBIT C", set()),
    ("Licensor's Trademark policy.", {"trademark"}),
    (
        'Licensor defines the following trademarks collectively as "Licensor Marks":',
        {"trademark", "licensor"},
    ),
    ('"Acme", "AcmePlayer", "AcmeBox" or any other trademarks belonging to', {"trademark"}),
    ("Licensor.", {"licensor"}),
    ("Other text of the page follows here.", set()),
]


def _grouped(second):
    out = []
    for pi, texts in enumerate([SECTION, second]):
        out.append(
            [
                ScoredLine(pi, i, EvidenceLine(page=5 + 4 * pi, line=i + 1, text=t), hits=set(h))
                for i, (t, h) in enumerate(texts)
            ]
        )
    return out


def _first():
    return Window(0, 0, 1, 1, 5.0, {"mark", "licensor"})


def test_a_held_exhibit_on_another_page_is_quoted_after_its_pointer():
    out = held_target_windows(_grouped(EXHIBIT), [_first()])
    assert len(out) == 2
    added = out[1]
    assert added.passage == 1 and added.start == 1  # from the label line
    assert added.end == 5  # through the list sentence, not only the title
    assert added.end - added.start + 1 <= TARGET_LINES


def test_a_contents_entry_is_no_held_exhibit():
    toc = [("Exhibit C Trademark policy .......... 9", {"trademark"}), *EXHIBIT[2:]]
    assert held_target_windows(_grouped(toc), [_first()]) == [_first()]


def test_another_works_appendix_is_not_held():
    section = [(SECTION[0][0], {"mark"}), ("as listed in Exhibit C of the Trademark Act.", {"mark"})]
    grouped = _grouped(EXHIBIT)
    grouped[0] = [
        ScoredLine(0, i, EvidenceLine(page=5, line=i + 1, text=t), hits=set(h))
        for i, (t, h) in enumerate(section)
    ]
    assert held_target_windows(grouped, [_first()]) == [_first()]


def test_a_pulled_in_passage_is_not_read_as_held():
    # the loop pulled the exhibit in: it is quoted as pulled, with its label, not twice
    assert held_target_windows(_grouped(EXHIBIT), [_first()], primary=[0]) == [_first()]
    assert len(held_target_windows(_grouped(EXHIBIT), [_first()], primary=[0, 1])) == 2


def _piece(text: str, via: str, ref: str | None, hits: list[str], held: bool = False) -> Piece:
    ln = EvidenceLine(page=3, line=1, text=text)
    p = Passage(
        doc_id="d",
        page=3,
        line_start=1,
        line_end=1,
        lines=[ln],
        retrieved_via=via,
        reference_text=ref,
        referenced_from=(2, 5) if ref else None,
    )
    return Piece(p, [ln], text, ln, {"hits": hits, **({"held": True} if held else {})})


def test_a_held_units_quote_leaves_the_clip_to_the_pulled_target():
    # "See Appendix A for the complete listing" quotes the held appendix's opening; the table
    # the loop pulled in for the question is the answer and keeps its text
    first = [_piece(f"F{i} " * 400, "primary", None, ["core"]) for i in range(2)]
    held = _piece("H " * 600, "primary", None, ["core"], held=True)
    table = _piece("T " * 300 + "RC.CO", "reference", "Table 1", ["categori", "identifi"])
    text = compose([*first, held, table], [], [], [])
    assert len(text) <= ANSWER_CHARS
    assert "RC.CO" in text
    assert "H H" in text  # the held quote keeps its floor, in its place


def test_a_numbered_label_alone_on_its_line_is_no_contents_entry():
    # "Schedule 2" alone: its own number is no page number (a contents entry's tail is read after
    # the label); "Schedule 2 ..... 14" and "Schedule 2 14" stay contents entries
    from types import SimpleNamespace as NS

    from docintel.generation.offline.heldtargets import _part_line

    def grouped(*texts):
        return [[NS(ln=NS(text=t)) for t in texts]]

    assert _part_line(
        grouped("see Schedule 2 for fees", "Schedule 2", "The fees are 10 USD."), "Schedule 2", [0]
    ) == (0, 1)
    assert _part_line(grouped("see Schedule 2 for fees", "Schedule 2 ..... 14"), "Schedule 2", [0]) is None
    assert _part_line(grouped("see Schedule 2 for fees", "Schedule 2 14"), "Schedule 2", [0]) is None
