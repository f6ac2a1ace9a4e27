"""Records as typed data: extraction from line_df, the completeness report, curated records."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from docintel.corpus.completeness import completeness, render_completeness
from docintel.corpus.curated import load_curated, validate_curated, write_records_json
from docintel.corpus.records import RECORD_TYPES, RecordType, extract_records, record_fields, record_id
from docintel.errors import UsageError

DATA = Path(__file__).parent / "data" / "curated_sample"


def lines(doc_id: str, rows: list[tuple]) -> pd.DataFrame:
    """line_df rows: (page, text, block, x0[, role[, bold]])."""
    out = []
    counters: dict[int, int] = {}
    for r in rows:
        page, text, block, x0 = r[:4]
        counters[page] = counters.get(page, 0) + 1
        out.append(
            {
                "doc_id": doc_id,
                "page": page,
                "line": counters[page],
                "text": text,
                "block": block,
                "x0": float(x0),
                "role": r[4] if len(r) > 4 else "body",
                "bold": r[5] if len(r) > 5 else False,
                "section_id": r[6] if len(r) > 6 else None,
            }
        )
    return pd.DataFrame(out)


def framework_doc() -> dict:
    rows = [
        (1, "Function", 0, 40),
        (1, "Category", 0, 40),
        (1, "Asset Management (ID.AM): The data are managed.", 1, 40),
        (1, "ID.AM-1: Physical devices and systems within the", 2, 300),
        (1, "organization are inventoried", 2, 300),
        (1, "ID.AM-2: Software platforms are inventoried", 3, 300),
        (1, "Informative References", 4, 500),
        (2, "Supply Chain Risk", 1, 40),
        (2, "Management (ID.SC):", 1, 40),
        (2, "ID.SC-1: Cyber supply chain risk management processes", 2, 300),
        (2, "ID.SC-2: Suppliers are identified", 3, 300),
        (2, "ID.SC-3: Contracts are used", 4, 300),
        (2, "ID.SC-4: Suppliers are assessed", 5, 300),
        (2, "ID.SC-5: Response planning is tested", 6, 300),
        (2, "The text cites ID.SC-4 and ID.AM-1 again.", 7, 40),
        (2, "12", 8, 300, "page_number"),
    ]
    return {"doc_id": "framework0000001", "line_df": lines("framework0000001", rows)}


def draft_doc() -> dict:
    rows = [(3, "Profile", 0, 40), (3, "The draft maps RC.MI-1 and ID.SC-2 to its outcomes.", 1, 40)]
    return {"doc_id": "draftdoc00000001", "line_df": lines("draftdoc00000001", rows)}


CSF = [RECORD_TYPES["csf_subcategory"]]


def test_subcategories_extracted_with_fields_and_source_lines():
    recs = extract_records(framework_doc(), CSF)
    assert recs["key"].tolist() == [
        "ID.AM-1",
        "ID.AM-2",
        "ID.SC-1",
        "ID.SC-2",
        "ID.SC-3",
        "ID.SC-4",
        "ID.SC-5",
    ]
    first = recs.iloc[0]
    assert (first["page"], first["line_start"], first["line_end"]) == (1, 4, 5)
    f = record_fields(first)
    assert f["outcome"] == "Physical devices and systems within the organization are inventoried"
    assert (f["category"], f["function"], f["category_name"]) == ("ID.AM", "ID", "Asset Management")
    assert record_fields(recs.iloc[2])["category_name"] == "Supply Chain Risk Management"
    assert first["record_id"] == record_id("framework0000001", "csf_subcategory", "ID.AM-1")
    assert set(recs["source"]) == {"extracted"}


def test_record_ids_are_stable_and_differ_by_document():
    a = extract_records(framework_doc(), CSF)["record_id"].tolist()
    assert a == extract_records(framework_doc(), CSF)["record_id"].tolist()
    assert record_id("x", "csf_subcategory", "ID.AM-1") != record_id("y", "csf_subcategory", "ID.AM-1")


def test_min_per_doc_keeps_stray_mentions_out():
    # the draft only cites two ids in prose: no anchored rows, no records
    assert extract_records(draft_doc(), CSF).empty


def test_record_type_needs_a_key_group():
    with pytest.raises(ValueError, match="key"):
        RecordType("bad", "bads", "line_pattern", r"^\d+$")


def test_requirements_skip_headings_and_take_family_from_section():
    rows = [
        (1, "3.8 MEDIA PROTECTION", 0, 90, "heading", True, "3.8"),
        (1, "Basic Security Requirements:", 1, 90, "body", False, "3.8"),
    ] + [(1, f"3.8.{i}", 10 + i, 90, "body", True, "3.8") for i in range(1, 21)]
    rows.insert(3, (1, "Protect system media containing CUI.", 11, 126, "body", False, "3.8"))
    toc = pd.DataFrame({"toc_id": ["3.8"], "title": ["3.8 MEDIA PROTECTION"], "parent_id": [None]})
    recs = extract_records(
        {"line_df": lines("req", rows), "toc_df": toc}, [RECORD_TYPES["security_requirement"]]
    )
    assert len(recs) == 20
    f = record_fields(recs.iloc[0])
    assert (
        f["family_name"] == "Media Protection" and f["requirement"] == "Protect system media containing CUI."
    )


def test_completeness_counts_a_second_way_and_reports_mentions_without_record():
    docs = {"framework0000001": framework_doc(), "draftdoc00000001": draft_doc()}
    recs = pd.concat([extract_records(d, CSF) for d in docs.values()], ignore_index=True)
    rep = completeness(recs, docs, CSF, doc_names={"framework0000001": "fw", "draftdoc00000001": "draft"})
    fw = rep[rep["doc_id"] == "framework0000001"].iloc[0]
    assert (fw["extracted"], fw["second_count"]) == (7, 7)
    review = [m for r in rep["needs_review"] for m in json.loads(r)]
    assert review == ["RC.MI-1 is mentioned in draft p.3 but has no record"]


def test_an_item_deleted_from_the_records_is_reported():
    docs = {"framework0000001": framework_doc()}
    recs = extract_records(docs["framework0000001"], CSF)
    damaged = recs[recs["key"] != "ID.SC-3"]
    rep = completeness(damaged, docs, CSF, doc_names={"framework0000001": "fw"})
    text = render_completeness(rep, damaged, doc_names={"framework0000001": "fw"})
    assert "fw: 6 of 7 framework subcategories" in text
    assert "NEEDS REVIEW: ID.SC-3 is mentioned in fw p.2 but has no record" in text


def test_a_record_whose_source_moved_is_reported():
    docs = {"framework0000001": framework_doc()}
    recs = extract_records(docs["framework0000001"], CSF)
    before = recs.copy()
    before.loc[before["key"] == "ID.SC-1", "line_start"] = 1
    rep = completeness(recs, docs, CSF, previous=before)
    review = [m for r in rep["needs_review"] for m in json.loads(r)]
    assert any("ID.SC-1 (csf_subcategory) moved" in m for m in review)


def test_stated_total_disagreeing_with_the_records_is_reported():
    rows = [(1, "The requirements cover three security-related areas.", 0, 90)]
    rows += [
        (1, f"Area {n} ({c}): Organizations must act.", i + 1, 90)
        for i, (n, c) in enumerate([("One", "AA"), ("Two", "BB")])
    ]
    rows += [(1, "Area Three (CC): Organizations must act.", 5, 90)]
    doc = {"doc_id": "areas", "line_df": lines("areas", rows)}
    types = [RECORD_TYPES["security_area"]]
    recs = extract_records(doc, types)
    assert recs["key"].tolist() == ["AA", "BB", "CC"]
    ok = completeness(recs, {"areas": doc}, types)
    assert ok.iloc[0]["second_count"] == 3 and json.loads(ok.iloc[0]["needs_review"]) == []
    bad = completeness(recs.iloc[:2], {"areas": doc}, types)
    assert (
        "2 security-related areas extracted but the total stated by the document count 3"
        in json.loads(bad.iloc[0]["needs_review"])[0]
    )


def test_curated_sample_loads_with_citation_and_note():
    cur = load_curated(DATA)
    assert cur["key"].tolist() == ["RC.MI-1"] and cur["source"].tolist() == ["curated"]
    assert "Remove when" in cur.iloc[0]["note"]
    assert record_fields(cur.iloc[0])["source_citation"].startswith("sample draft profile")


@pytest.mark.parametrize("missing", ["source_citation", "note", "key"])
def test_curated_record_without_citation_or_note_is_refused(missing):
    obj = json.loads((DATA / "csf_subcategory_RC.MI-1.json").read_text())
    del obj[missing]
    with pytest.raises(UsageError, match=missing):
        validate_curated(obj, "x.json")


def test_curated_unknown_type_is_refused():
    obj = json.loads((DATA / "csf_subcategory_RC.MI-1.json").read_text())
    obj["record_type"] = "error_code"
    with pytest.raises(UsageError, match="unknown record_type 'error_code'"):
        validate_curated(obj, "x.json")


def test_records_json_is_deterministic_and_shows_a_change_as_a_diff(tmp_path):
    recs = extract_records(framework_doc(), CSF)
    (path,) = write_records_json(recs.sample(frac=1, random_state=1), tmp_path)
    first = path.read_text()
    write_records_json(recs, tmp_path)
    assert path.read_text() == first  # order of the input does not matter
    items = json.loads(first)
    assert [i["key"] for i in items] == sorted(i["key"] for i in items)
    write_records_json(recs[recs["key"] != "ID.SC-3"], tmp_path)
    assert "ID.SC-3" in first and "ID.SC-3" not in path.read_text()
    write_records_json(recs.iloc[0:0], tmp_path)
    assert not path.exists()  # a type with no records loses its file


def test_a_curated_record_answers_the_needs_review_line_and_is_counted():
    docs = {"framework0000001": framework_doc(), "draftdoc00000001": draft_doc()}
    recs = pd.concat(
        [extract_records(d, CSF) for d in docs.values()] + [load_curated(DATA)], ignore_index=True
    )
    rep = completeness(recs, docs, CSF)
    assert [m for r in rep["needs_review"] for m in json.loads(r)] == []
    assert "(1 curated by a person)" in render_completeness(rep, recs)


def test_report_as_a_user_says_nothing_about_unreadable_documents():
    docs = {"framework0000001": framework_doc(), "draftdoc00000001": draft_doc()}
    recs = pd.concat([extract_records(d, CSF) for d in docs.values()], ignore_index=True)
    rep = completeness(recs, docs, CSF, readable_doc_ids={"framework0000001"})
    assert set(rep["doc_id"]) == {"framework0000001"}
    text = render_completeness(rep, recs, readable_doc_ids={"framework0000001"})
    assert "RC.MI-1" not in text and text.startswith("Records: 7 csf_subcategory")


def test_every_declared_type_is_consistent_data():
    import re

    for rt in RECORD_TYPES.values():
        for pat in (
            rt.key_pattern,
            rt.mention_pattern,
            rt.intro_pattern,
            rt.defined_by,
            rt.nouns,
            rt.context,
        ):
            re.compile(pat)
        assert set(rt.derived) <= set(rt.fields), rt.name
        if rt.second_count in ("identifiers", "stated_total", "anchor_lines"):
            assert rt.mention_pattern, rt.name
        if rt.second_count == "stated_total":
            assert "(?P<n>" in rt.mention_pattern, rt.name
        assert rt.nouns, f"{rt.name}: the router needs a noun for it"


def test_announced_list_takes_the_bullets_after_the_announcing_sentence_only():
    rows = (
        [
            (1, "Organizations follow the RMF steps. Other activities include:", 1, 90),
        ]
        + [(1, f"• Unrelated bullet {n}", n + 1, 90, "list_item") for n in range(5)]
        + [
            (1, "A paragraph ends the stray list.", 9, 90),
            (2, "The framework is a process. The RMF steps include:", 1, 90),
            (2, "• Categorize the system", 2, 90, "list_item"),
            (2, "and its information.", 2, 108),
            (2, "19 A footnote between items.", 3, 90, "footnote"),
            (2, "• Select controls", 4, 90, "list_item"),
            (2, "• Implement controls", 5, 90, "list_item"),
            (2, "• Assess controls", 6, 90, "list_item"),
            (2, "Chapter Three describes each step.", 7, 90),
        ]
    )
    recs = extract_records({"doc_id": "d", "line_df": lines("d", rows)}, [RECORD_TYPES["process_step"]])
    assert recs["key"].tolist() == ["Categorize", "Select", "Implement", "Assess"]
    assert recs.iloc[0]["text"] == "• Categorize the system and its information."
    assert record_fields(recs.iloc[0])["intro"].endswith("The RMF steps include:")


def test_child_headings_keep_only_the_subsections_the_opening_names():
    rows = [
        (1, "3. Handling an Incident", 1, 72, "heading", True, "3"),
        (
            1,
            "The incident response process has several phases: preparation, detection and",
            2,
            72,
            "body",
            False,
            "3",
        ),
        (1, "analysis, and post-incident activity.", 2, 72, "body", False, "3"),
        (1, "3.1 Preparation", 3, 72, "heading", True, "3.1"),
        (2, "3.2 Detection and Analysis", 1, 72, "heading", True, "3.2"),
        (3, "3.3 Post-Incident Activity", 1, 72, "heading", True, "3.3"),
        (3, "3.4 Recommendations", 2, 72, "heading", True, "3.4"),
    ]
    toc = pd.DataFrame(
        {
            "toc_id": ["3", "3.1", "3.2", "3.3", "3.4"],
            "title": [
                "Handling an Incident",
                "Preparation",
                "Detection and Analysis",
                "Post-Incident Activity",
                "Recommendations",
            ],
            "parent_id": [None, "x", "x", "x", "x"],  # the toc hangs them elsewhere: numbers decide
        }
    )
    recs = extract_records(
        {"doc_id": "d", "line_df": lines("d", rows), "toc_df": toc}, [RECORD_TYPES["lifecycle_phase"]]
    )
    assert recs["key"].tolist() == ["Preparation", "Detection and Analysis", "Post-Incident Activity"]
    assert (recs.iloc[1]["page"], recs.iloc[1]["line_start"]) == (2, 1)


def test_table_rows_assign_cells_to_header_columns_and_derive_baselines():
    rows = [
        (1, "CNTL NO.", 0, 100),
        (1, "CONTROL NAME", 0, 170),
        (1, "PRIORITY", 0, 300),
        (1, "LOW", 0, 346),
        (1, "MOD", 0, 412),
        (1, "HIGH", 0, 479),
    ]
    for i, (key, name, low) in enumerate(
        [("IR-1", "Policy", "IR-1"), ("IR-3", "Testing", "Not Selected")] * 1
    ):
        rows += [(1, key, i + 1, 100), (1, name, i + 1, 133), (1, "P1", i + 1, 302), (1, low, i + 1, 340)]
        rows += [(1, key, i + 1, 410), (1, f"{key} (1)", i + 1, 470)]
    rows += [(1, f"XX-{n}", 10 + n, 100) for n in range(1, 19)]  # more rows to pass min_per_doc
    rows += [(1, "Not Selected", 40, 340)]
    recs = extract_records({"doc_id": "d", "line_df": lines("d", rows)}, [RECORD_TYPES["control_baseline"]])
    f = {r["key"]: record_fields(r) for r in recs.to_dict("records")}
    assert f["IR-1"]["baselines"] == "low moderate high" and f["IR-1"]["title"] == "Policy"
    assert f["IR-3"]["baselines"] == "moderate high" and f["IR-3"]["low"] == "Not Selected"
    assert f["IR-3"]["high"] == "IR-3 (1)" and f["IR-3"]["priority"] == "P1"


def test_contract_defined_terms_and_their_second_count():
    rows = [
        (1, "1. DEFINITIONS", 0, 72),
        (1, "“Affiliate” means any entity that controls a Party.", 1, 72),
        (1, "“Confidential Information” means all non-public information", 2, 72),
        (1, "disclosed by a Party.", 2, 72),
        (2, "The parties agree that “Services” means the work in Exhibit A.", 3, 72),
    ]
    types = [RECORD_TYPES["defined_term"]]
    doc = {"doc_id": "contract", "line_df": lines("contract", rows)}
    recs = extract_records(doc, types)
    assert recs["key"].tolist() == ["Affiliate", "Confidential Information"]
    assert record_fields(recs.iloc[1])["definition"] == "all non-public information disclosed by a Party."
    rep = completeness(recs, {"contract": doc}, types)
    # "Services" is defined inside a sentence, not as a definition line: the second count finds it
    assert json.loads(rep.iloc[0]["missing"]) == ["Services"]


def test_ad_paragraphs_only_in_an_airworthiness_directive_and_cited_letters_checked():
    rows = [
        (1, "Airworthiness Directive AD 2020-01-02", 0, 72),
        (1, "(a) Effective Date", 1, 72),
        (1, "(b) Affected ADs", 2, 72),
        (1, "(c) Applicability", 3, 72),
        (1, "Do the actions in paragraph (g) of this AD, and paragraph (c).", 4, 72),
    ]
    types = [RECORD_TYPES["ad_paragraph"]]
    doc = {"doc_id": "ad", "line_df": lines("ad", rows)}
    recs = extract_records(doc, types)
    assert recs["key"].tolist() == ["a", "b", "c"]
    review = json.loads(completeness(recs, {"ad": doc}, types).iloc[0]["needs_review"])
    assert review == ["g is mentioned in ad p.1 but has no record"]
    not_an_ad = {"doc_id": "x", "line_df": lines("x", rows[1:])}
    assert extract_records(not_an_ad, types).empty
