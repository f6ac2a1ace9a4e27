"""Every SQL recipe of docs/analysts.md runs, on a generated report with an appendix and a table."""

from __future__ import annotations

import re

import pytest

from docintel.parsing import parse_document

from .analyst_fixture import make_report
from .conftest import REPO

pytest.importorskip("duckdb")
from docintel.sql import query_document  # noqa: E402

DOC = (REPO / "docs" / "analysts.md").read_text()
RECIPES = dict(re.findall(r"^### (.+?)\n.*?```sql\n(.*?)```", DOC, re.S | re.M))


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("recipes")
    return parse_document(make_report(root / "report.pdf"), out_dir=root / "artifacts", eager_refs=True)


def test_the_document_has_the_recipes_the_readme_promises():
    assert len(RECIPES) == DOC.count("```sql") >= 6
    for title in (
        "The sections a page belongs to",
        "Every table with its caption",
        "What points at Appendix A",
    ):
        assert title in RECIPES


@pytest.mark.parametrize("title", sorted(RECIPES))
def test_recipe_runs(tables, title):
    frame = query_document(tables, RECIPES[title]).frame
    if "may return no rows" not in DOC.split(f"### {title}", 1)[1].split("###", 1)[0]:
        assert len(frame), title


def test_sections_of_a_page(tables):
    frame = query_document(tables, RECIPES["The sections a page belongs to"]).frame
    assert frame["title"].tolist() == ["Introduction", "Costs"]


def test_every_table_with_its_caption(tables):
    frame = query_document(tables, RECIPES["Every table with its caption"]).frame
    assert frame[["label", "page", "caption", "cells"]].values.tolist() == [
        ["Table 1", 2, "Table 1: Costs per site", 12]
    ]


def test_what_points_at_appendix_a(tables):
    frame = query_document(tables, RECIPES["What points at Appendix A"]).frame
    assert frame[["page", "line"]].values.tolist() == [[1, 4], [2, 3]]
    assert all("Appendix A" in c for c in frame["context"])
    assert set(frame["target"]) == {"Method"}
