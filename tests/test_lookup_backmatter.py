"""References to back matter find it whatever the document calls it (appendix, exhibit, schedule ...)."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from docintel.retrieval.lookup import find_objects, listed_object_type


def _tables(rows: list[tuple[str, str]]):
    reg = pd.DataFrame([{"object_type": t, "object_id": i, "page": n + 1} for n, (t, i) in enumerate(rows)])
    return SimpleNamespace(object_registry=reg)


def test_exhibit_found_by_an_appendix_typed_reference():
    # the reference grammar types "Exhibit B" as ref_type 'appendix' (kind 'exhibit')
    t = _tables([("table", "B"), ("exhibit", "B"), ("schedule", "1")])
    hit = find_objects(t, "appendix", "B")
    assert hit["object_type"].tolist() == ["exhibit"]


def test_own_type_comes_first_when_both_exist():
    t = _tables([("exhibit", "A"), ("appendix", "A")])
    assert find_objects(t, "appendix", "A")["object_type"].tolist() == ["appendix", "exhibit"]
    assert find_objects(t, "exhibit", "A")["object_type"].tolist() == ["exhibit", "appendix"]


def test_other_types_do_not_mix():
    t = _tables([("table", "2"), ("figure", "2")])
    assert find_objects(t, "table", "2")["object_type"].tolist() == ["table"]


def test_listing_words_name_the_new_types():
    assert listed_object_type(["exhibit"]) == "exhibit"
    assert listed_object_type(["schedul"]) == "schedule"
