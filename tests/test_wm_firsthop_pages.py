"""The first hop's page-only check (resolve_pages.off_pages) and the loop's deferred resolution."""

from __future__ import annotations

import itertools

from docintel.decide import _Loop
from docintel.retrieval.resolve import resolve_in_tables
from docintel.retrieval.resolve_pages import off_pages
from docintel.schema.trace import Trace
from tests.test_ref_families_s6 import Q, _ref
from tests.test_ref_families_s8 import _catalogue

REFS = [
    ("AC-3", 1, 4),
    ("AC-2(2)", 1, 4),
    ("AU-4", 1, 4),
    ("Related controls: AC-3, AU-4", 1, 4),
    ("Related controls: AC-2, AC-3", 1, 4),
    ("AC-2", 2, 1),  # the heading itself: its own line is no target
    ("Table 3", 1, 4),  # not a control: never told here
]
PAGE_SETS = [set(c) for n in (1, 2) for c in itertools.combinations((1, 2, 3), n)]


def _same_page(res, pages: set[int]) -> bool:
    """What same_page_targets keeps: resolved, with passages, all on ``pages``."""
    return res.status == "resolved" and bool(res.passages) and not {p.page for p in res.passages} - pages


def test_off_pages_never_hides_a_same_page_target():
    tables = _catalogue()
    told = 0
    for (raw, page, line), pages in itertools.product(REFS, PAGE_SETS):
        ref = _ref(raw, page, line)
        if off_pages(tables, ref, pages):
            told += 1
            assert not _same_page(resolve_in_tables(ref, tables, question=Q), pages), (raw, pages)
    assert told >= 6  # it does tell the controls off the page


def test_off_pages_tells_the_control_pages():
    tables = _catalogue()
    assert off_pages(tables, _ref("AC-3", 1, 4), {1})
    assert not off_pages(tables, _ref("AC-3", 1, 4), {3})  # on the page: resolved as before
    assert off_pages(tables, _ref("Related controls: AC-2, AC-3", 1, 4), {1, 2})  # AC-3 is on 3
    assert not off_pages(tables, _ref("Related controls: AC-2, AC-3", 1, 4), {2, 3})
    assert not off_pages(tables, _ref("AU-4", 1, 4), {1})  # not printed: resolve decides
    assert not off_pages(tables, _ref("Table 3", 1, 4), {1})


class _Backend:
    name, kind = "none", "rules"


def test_a_deferred_reference_resolves_as_the_first_hop_would_have():
    tables = _catalogue()
    first = _ref("AC-3", 1, 4)
    loop = _Loop(tables, Q, _Backend(), Trace(question="q", doc={}, settings={}, backend={}, versions={}), 40)
    placeholder = loop.resolve_near(first, {1})
    assert placeholder.status == "unresolved" and placeholder.pass_no is None
    assert list(loop.resolutions.values()) == [placeholder]  # its place in the order is kept
    later = _ref("ac-3", 1, 4)  # the same reference met again (an answer's pending reference)
    got = loop.resolve(later, allow_llm=False)
    direct = resolve_in_tables(first, tables, question=Q)
    assert got.ref is first  # resolved with the first hop's reference, as it was before
    assert (got.status, got.target, got.target_pages) == (direct.status, direct.target, direct.target_pages)
    assert [p.model_dump() for p in got.passages] == [p.model_dump() for p in direct.passages]
    assert list(loop.resolutions.values()) == [got] and not loop.deferred
