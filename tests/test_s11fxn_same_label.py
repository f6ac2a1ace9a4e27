"""Review fixes to the "same label written another way" rule (session 11, fxn).

``SAME_AS_FOLLOWED`` compared label text only: it also took identical texts, relative pointers
("the next section", "paragraph (b)"), a spaced dash ("Section 3 \u2013 6", often a range) and a
document that really has both "Table 3.6" and "Table 3-6" as the followed target. It now holds
only for two numbered labels that differ in the separator between two numbers alone, when the
document carries no part of its own under the variant label. The answer text, the label and the
warnings agree on it.
"""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from docintel.generation.finish import SAME_AS_FOLLOWED, finish, written_otherwise
from docintel.schema.answer import Citation, PendingReference, ReferenceAwareAnswer, UnresolvedReference
from docintel.schema.loop import EvidenceRecord, PassRecord

_NOTE = "Not yet followed: {raw} (page 40, line 5); the complete answer may be there."


def _doc(labels=(), numbers=(), lines=()):
    return SimpleNamespace(
        object_registry=pd.DataFrame({"label": list(labels)}),
        toc_df=pd.DataFrame({"number": list(numbers)}),
        line_df=pd.DataFrame({"text": [t for t, _ in lines], "role": [r for _, r in lines]}),
    )


def _answer(raw: str, pending: bool) -> ReferenceAwareAnswer:
    return ReferenceAwareAnswer(
        answer="The answer.\n" + _NOTE.format(raw=raw),
        citations=[Citation(page=3, line_start=1, line_end=2)],
        answer_completeness="references_unresolved" if pending else "complete",
        pending_references=[PendingReference(raw_text=raw, ref_type="section", origin_page=40, origin_line=5)]
        if pending
        else [],
    )


def _passes(followed: str) -> list[PassRecord]:
    ev = EvidenceRecord(page=4, line_start=1, line_end=9, text="...", retrieved_via="reference",
                        referenced_from=[3], reference_text=followed)  # fmt: skip
    return [PassRecord(**{"pass": 2}, evidence=[ev], decision="give_up_partial")]


def _run(followed: str, other: str, tables, pending: bool):
    un = (
        []
        if pending
        else [
            UnresolvedReference(
                raw_text=other,
                ref_type="section",
                origin_page=40,
                origin_line=5,
                reason="no matching section, object or page in this document",
            )
        ]  # fmt: skip
    )
    warnings: list[str] = []
    got = finish(_answer(other, pending), un, warnings, _passes(followed), lambda r: False, tables=tables)
    return got, un, warnings


_EMPTY = _doc()


@pytest.mark.parametrize("pending", [False, True])
@pytest.mark.parametrize(
    ("followed", "other", "tables"),
    [
        ("the following sections", "the following sections", _EMPTY),
        ("the next section", "the next section", _EMPTY),
        ("paragraph (b)", "paragraph (b)", _EMPTY),
        ("Note 3", "Note 3", _EMPTY),
        ("Table 3-6", "Table 3.6", _doc(labels=["Table 3-6", "Table 3.6"])),  # two captions
        ("Section 2-1", "Section 2.1", _doc(numbers=["2-1", "2.1"])),  # a rule and an annex's 2.1
        ("Table 3-6", "Table 3.6", _doc(lines=[("Table 3.6 Risk scale", "caption")])),
        ("Section 3.6", "Section 3 \u2013 6", _EMPTY),  # a spaced dash: a range
        ("\u00a7 1.5", "\u00a7 1-5", _EMPTY),
        ("Table 3-6", "Table 3.6", None),  # the document unknown: no claim
    ],
)
def test_other_pointers_still_make_the_answer_partial(followed, other, tables, pending):
    got, un, warnings = _run(followed, other, tables, pending)
    assert got.answer_completeness == "partial"
    assert all(u.reason != SAME_AS_FOLLOWED for u in un)
    assert "Not yet followed: " + other in got.answer
    assert not any("another separator" in w for w in warnings)


@pytest.mark.parametrize("pending", [False, True])
def test_a_label_written_with_another_separator_agrees_in_text_label_and_warnings(pending):
    # SP 800-30: "Table 3.6" on page 31, the caption and the followed pointer are "Table 3-6"
    doc = _doc(
        labels=["Table 3-6", "Table 3-7"],
        numbers=["3.6"],
        lines=[("Table 3-6. Risk-Level Matrix", "caption")],
    )
    got, un, warnings = _run("Table 3-6", "Table 3.6", doc, pending)
    assert got.answer_completeness == "complete"
    assert [u.reason for u in un] == [SAME_AS_FOLLOWED]
    assert "Not yet followed" not in got.answer  # the text no longer says the answer may be elsewhere
    assert any("read as a followed pointer" in w and "Table 3.6 (page 40)" in w for w in warnings)


def test_only_the_separator_between_two_numbers_may_differ():
    followed = {"table 3-6", "section 1.2"}
    assert written_otherwise("Table 3.6", followed)
    assert not written_otherwise("Table 3-6", followed)  # identical
    assert not written_otherwise("Tables 3.6", followed)
    assert not written_otherwise("Table 3.6.1", followed)
    assert not written_otherwise("Section 12", followed)
    assert not written_otherwise("Table 3 - 6", followed)
