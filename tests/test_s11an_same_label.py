"""A pointer written with another separator than the one followed (session 11, an).

NIST SP 800-30 points at its risk-level matrix as "Table 3.6" and as "Table 3-6" (the caption); the
loop followed "Table 3-6", found no "Table 3.6" and labelled a right answer partial (question set 6,
sp30-likelihood-probability). A pointer whose label a followed pointer names, the separator between
its numbers aside, is reported but leaves the label alone.
"""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from docintel.generation.finish import SAME_AS_FOLLOWED, finish, same_label
from docintel.schema.answer import Citation, ReferenceAwareAnswer, UnresolvedReference
from docintel.schema.loop import EvidenceRecord, PassRecord

#: The document: "Table 3-6" is its caption, no part of it is labelled "Table 3.6" (fxn review:
#: without the document no pointer is read as the followed one).
_DOC = SimpleNamespace(
    object_registry=pd.DataFrame({"label": ["Table 3-6", "Table 3-7"]}),
    toc_df=pd.DataFrame({"number": ["3.6", "3.7"]}),
    line_df=pd.DataFrame({"text": ["Table 3-6. Risk-Level Matrix"], "role": ["caption"]}),
)


def _answer() -> ReferenceAwareAnswer:
    return ReferenceAwareAnswer(
        answer="The probability is 0.5 for a medium threat likelihood.",
        citations=[Citation(page=31, line_start=20, line_end=21)],
        answer_completeness="complete",
    )


def _passes(followed: str) -> list[PassRecord]:
    ev = EvidenceRecord(page=32, line_start=1, line_end=9, text="Table 3-6. Risk-Level Matrix",
                        retrieved_via="reference", referenced_from=[31, 40], reference_text=followed)  # fmt: skip
    return [PassRecord(**{"pass": 2}, evidence=[ev], decision="return_to_user")]


def _unresolved(raw: str) -> list[UnresolvedReference]:
    return [UnresolvedReference(raw_text=raw, ref_type="table", origin_page=31, origin_line=13,
                                reason="no matching section, object or page in this document")]  # fmt: skip


def test_a_pointer_followed_under_another_separator_leaves_the_answer_complete():
    unresolved = _unresolved("Table 3.6")
    got = finish(_answer(), unresolved, [], _passes("Table 3-6"), lambda ref: False, tables=_DOC)
    assert got.answer_completeness == "complete"
    assert unresolved[0].reason == SAME_AS_FOLLOWED  # still reported


def test_another_table_still_makes_the_answer_partial():
    unresolved = _unresolved("Table 3.7")
    got = finish(_answer(), unresolved, [], _passes("Table 3-6"), lambda ref: False, tables=_DOC)
    assert got.answer_completeness == "partial"
    assert same_label("Table 3-6.") == same_label("table 3.6") != same_label("Tables 3-6")
    # a spaced dash is often a range (fxn review): not the same label
    assert same_label("Table 3 \u2013 6") != same_label("table 3.6")
