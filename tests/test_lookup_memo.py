"""Per-ask lookups answered from a per-frame grouping give the rows the full filter gave."""

from __future__ import annotations

import pandas as pd
import pytest

from docintel.api import parse
from docintel.retrieval import lookup
from docintel.retrieval.lookup import BACK_MATTER, norm_id

from .conftest import PDFS


def _old_find_objects(tables, ref_type, target):
    """The filter this replaced: the registry masked by type and id, then sorted by the type."""
    reg = tables.object_registry
    if reg.empty:
        return reg
    types = (ref_type, *(t for t in BACK_MATTER if t != ref_type)) if ref_type in BACK_MATTER else (ref_type,)
    cand = reg[reg["object_type"].isin(types)]
    if target:
        cand = cand[cand["object_id"].map(norm_id) == norm_id(target)]
    order = cand["object_type"].map({t: i for i, t in enumerate(types)})
    return cand.assign(_o=order).sort_values("_o", kind="stable").drop(columns="_o")


def _registry_cases(reg: pd.DataFrame) -> list[tuple[str, str | None]]:
    kinds = sorted({*reg["object_type"].dropna().tolist(), *BACK_MATTER, "table", "figure", "nothing"})
    ids = sorted({str(i) for i in reg["object_id"].dropna().tolist()} | {"1", "9.9.", "A:", "B-1"})
    return [(k, None) for k in kinds] + [(k, i) for k in kinds for i in ids] + [("table", "")]


@pytest.mark.parametrize("name", sorted(p.name for p in PDFS.glob("*.pdf")))
def test_find_objects_equals_the_full_filter(name, artifacts):
    tables = parse(PDFS / name, out_dir=artifacts, layout="never")
    reg = tables.object_registry
    cases = _registry_cases(reg)
    found = 0
    for ref_type, target in cases:
        got, want = lookup.find_objects(tables, ref_type, target), _old_find_objects(tables, ref_type, target)
        pd.testing.assert_frame_equal(got, want)
        found += len(got)
    assert found  # some case names a registered object

    # a registry with back-matter kinds out of order, ids that normalise alike, a missing id
    rows = [("appendix", "A"), ("annex", "a."), ("table", "1"), ("exhibit", "A:"), ("appendix", None)]
    shuffled = pd.DataFrame(
        {
            "object_type": [t for t, _ in rows],
            "object_id": pd.array([i for _, i in rows], dtype=reg["object_id"].dtype),
        },
        index=[10, 3, 7, 1, 5],
    )
    other = type(tables)(**{**tables.__dict__, "object_registry": shuffled})
    for ref_type, target in [
        ("appendix", "A"),
        ("annex", "A"),
        ("exhibit", None),
        ("table", "1"),
        ("annex", ""),
    ]:
        got, want = lookup.find_objects(other, ref_type, target), _old_find_objects(other, ref_type, target)
        pd.testing.assert_frame_equal(got, want)
    assert list(lookup.find_objects(other, "annex", "a").index) == [3, 10, 1]


def test_rows_of_another_registry_are_rebuilt(artifacts, nist_pdf):
    tables = parse(nist_pdf, out_dir=artifacts, layout="never")
    reg = tables.object_registry
    assert len(lookup.find_objects(tables, str(reg["object_type"].iloc[0]), None))
    fewer = type(tables)(**{**tables.__dict__, "object_registry": reg.iloc[1:].copy()})
    for ref_type, target in _registry_cases(reg):
        got, want = lookup.find_objects(fewer, ref_type, target), _old_find_objects(fewer, ref_type, target)
        pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_frame_equal(
        lookup.find_objects(tables, "table", None), _old_find_objects(tables, "table", None)
    )
