"""The list path: every readable matching record, counted in code, each item cited."""

from __future__ import annotations

import json

import pandas as pd

from docintel.corpus.listing import count_by, documents_defining, list_records, record_vocabulary
from docintel.corpus.records import RECORD_COLUMNS, record_id
from docintel.corpus.router import RouteProposal, route


def rec(doc, key, rtype="security_requirement", page=1, line=1, source="extracted", **fields):
    return {
        "record_id": record_id(doc, rtype, key),
        "record_type": rtype,
        "key": key,
        "fields": json.dumps(fields),
        "text": f"{key} text",
        "doc_id": doc,
        "page": page,
        "line_start": line,
        "page_end": page,
        "line_end": line + 1,
        "source": source,
        "note": "",
    }


def corpus() -> pd.DataFrame:
    rows = [rec("final", f"3.8.{i}", line=i, family_name="Media Protection") for i in range(1, 10)]
    rows += [rec("final", f"3.1.{i}", page=2, line=i, family_name="Access Control") for i in range(1, 4)]
    # a second public document repeats three of them (an assessment guide): counted once
    rows += [rec("guide", f"3.8.{i}", page=5, line=i, family_name="Media Protection") for i in range(1, 4)]
    # a draft adds one that only reviewers may read
    rows += [rec("draft", "3.8.10", page=9, family_name="Media Protection")]
    rows += [rec("draft", "Prepare", rtype="process_step", page=3)]
    return pd.DataFrame(rows, columns=RECORD_COLUMNS)


MP = RouteProposal(
    path="list", record_type="security_requirement", filters={"family_name": "media protection"}
)


def test_every_matching_record_once_in_document_order_with_citations():
    ans = list_records(corpus(), MP, {"final", "guide"}, doc_names={"final": "SP-A", "guide": "SP-B"})
    assert ans.count == 9 == len(ans.items)
    assert [i.key for i in ans.items] == [f"3.8.{i}" for i in range(1, 10)]
    assert all(i.doc_id == "final" for i in ans.items)  # the defining document is cited
    assert ans.items[0].also_in == ["SP-B"] and ans.items[5].also_in == []
    assert "9 matching security requirements" in ans.known_fact and "complete list" in ans.known_fact
    assert "[S1] 3.8.1: 3.8.1 text (SP-A, p.1 l.1-2; also in SP-B)" in ans.answer


def test_access_a_user_without_the_draft_group_gets_no_draft_record_and_a_smaller_count():
    reviewer = list_records(corpus(), MP, {"final", "guide", "draft"})
    analyst = list_records(corpus(), MP, {"final", "guide"})
    assert reviewer.count == 10 and analyst.count == 9
    assert "3.8.10" not in analyst.answer and all(i.doc_id != "draft" for i in analyst.items)


def test_empty_result_claims_nothing_about_records_the_user_cannot_see():
    p = RouteProposal(path="list", record_type="process_step")
    ans = list_records(corpus(), p, {"final", "guide"})
    assert ans.count == 0 and ans.items == []
    assert "none that you can access" in ans.answer.lower()
    assert "there are none" not in ans.answer.lower() and "Prepare" not in ans.answer


def test_filters_match_whole_words_case_insensitively():
    p = RouteProposal(path="list", record_type="security_requirement", filters={"family_name": "access"})
    assert list_records(corpus(), p, {"final"}).count == 3
    p = RouteProposal(path="list", record_type="security_requirement", filters={"family_name": "acc"})
    assert list_records(corpus(), p, {"final"}).count == 0


def test_aggregates_are_computed_in_code_over_readable_records():
    assert count_by(corpus(), "security_requirement", "family_name", {"final", "guide"}) == {
        "Access Control": 3,
        "Media Protection": 9,
    }
    assert (
        count_by(corpus(), "security_requirement", "family_name", {"final", "draft"})["Media Protection"]
        == 10
    )
    assert documents_defining(corpus(), "3.8.2", {"final", "guide"}) == ["final", "guide"]
    assert documents_defining(corpus(), "3.8.10", {"final", "guide"}) == []


def test_router_reads_filters_from_the_record_vocabulary_then_lists():
    vocab = record_vocabulary(corpus())
    proposal, _ = route("List all media protection requirements for CUI.", vocabulary=vocab)
    assert proposal.filters == {"family_name": "Media Protection"}
    assert list_records(corpus(), proposal, {"final"}).count == 9
