"""``object_passages_counted`` returns ``object_passages``' passages and the line count of the uncut
region (what resolve counted with a second ``max_lines=10**6`` call)."""

from __future__ import annotations

import pytest

from docintel.api import parse
from docintel.questions import parse_question
from docintel.retrieval import targets

from .conftest import PDFS


@pytest.fixture(scope="module", params=sorted(p.name for p in PDFS.glob("*.pdf")))
def tables(request, tmp_path_factory):
    return parse(PDFS / request.param, out_dir=tmp_path_factory.mktemp("a"), layout="never", ocr="never")


@pytest.mark.parametrize("sub", [None, "row (A)"])
def test_the_count_is_the_uncut_region(tables, sub):
    q = parse_question("What does the table show about the values?")
    for _, o in tables.object_registry.iterrows():
        got, region = targets.object_passages_counted(tables, o, q, sub_selector=sub, max_lines=4)
        same = targets.object_passages(tables, o, q, sub_selector=sub, max_lines=4)
        assert [p.model_dump() for p in got] == [p.model_dump() for p in same]
        whole = targets.object_passages(tables, o, q, sub_selector=sub, max_lines=10**6)
        assert region == sum(len(p.lines) for p in whole)
    if tables.object_registry.empty:
        pytest.skip("no registered objects")
