"""The first hop's page-only answer for section targets (``resolve_build.near``): under it, a
resolution that reaches a section whose lines lie wholly off the pages stops with ``OffPages``
instead of building the passages; it never hides a same-page target, and anything it does not
stop is the full resolution itself. The loop defers such a pointer as it defers controls."""

from __future__ import annotations

import pytest

from docintel.api import parse
from docintel.decide import _Loop
from docintel.questions import parse_question
from docintel.refscan import references_in
from docintel.retrieval.resolve import resolve_in_tables
from docintel.retrieval.resolve_build import OffPages, near, section_pages
from docintel.retrieval.targets import evidence_page, section_lines, to_passages
from docintel.schema.answer import PendingReference
from docintel.schema.trace import Trace

from .conftest import PDFS

Q = parse_question("How is the randomized hashing scheme used with digital signatures?")


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return parse(PDFS / "nist_sp800-106.pdf", out_dir=tmp_path_factory.mktemp("near"), layout="never")


def _refs(tables):
    pages = sorted(set(tables.line_df["page"].astype(int)))
    for page in pages:
        lines = [ln for p in to_passages(evidence_page(tables, page), tables.doc_id) for ln in p.lines]
        for r in references_in(lines):
            yield (
                page,
                PendingReference(
                    raw_text=r.raw_text[:200], ref_type="unknown", origin_page=r.page, origin_line=r.line
                ),
            )


def _dump(res):
    return res.to_dict(), [p.model_dump() for p in res.passages], res.cut


def test_near_never_hides_a_same_page_target_and_changes_nothing_else(tables):
    told = kept = 0
    for page, ref in _refs(tables):
        full = resolve_in_tables(ref, tables, question=Q)
        got_pages = {p.page for p in full.passages}
        for pages in ({page}, {page, page + 1}, got_pages | {page}, set()):
            try:
                with near(pages):
                    got = resolve_in_tables(ref, tables, question=Q)
            except OffPages:
                told += 1
                # what the full resolution is: resolved, with passages, one of them elsewhere
                assert full.status == "resolved" and full.passages and got_pages - pages, (
                    ref.raw_text,
                    pages,
                )
                continue
            kept += 1
            assert _dump(got) == _dump(full), (ref.raw_text, pages)
    assert told >= 15 and kept >= 100  # it does tell section targets off the pages (23 of 168)


def test_section_pages_are_the_pages_of_section_lines(tables):
    for _, sec in tables.toc_df.iterrows():
        assert section_pages(tables, sec) == set(section_lines(tables, sec)["page"].astype(int))


class _Backend:
    name, kind = "none", "rules"


def test_a_section_reference_off_the_page_is_deferred_then_resolved_in_full(tables):
    page, first = next(
        (page, ref)
        for page, ref in _refs(tables)
        if (res := resolve_in_tables(ref, tables, question=Q)).status == "resolved"
        and res.method == "toc_df"
        and page not in {p.page for p in res.passages}
    )
    trace = Trace(question="q", doc={}, settings={}, backend={}, versions={})
    loop = _Loop(tables, Q, _Backend(), trace, 40)
    placeholder = loop.resolve_near(first, {page})
    assert placeholder.status == "unresolved" and placeholder.pass_no is None and loop.deferred
    got = loop.resolve(first.model_copy(), allow_llm=False)
    assert got.ref is first and _dump(got) == _dump(resolve_in_tables(first, tables, question=Q))
    assert list(loop.resolutions.values()) == [got] and not loop.deferred
