"""``_Evidence._window`` (a window's comparison form from its lines' own forms) is exactly
``normalize(join_lines(...))`` of the window, for every window of real runs and of lines built
to trip it: break hyphens, soft hyphens, NFKC that adds or removes spaces, combining marks
opening a line, blank-looking lines, final sigma."""

from __future__ import annotations

import random

import pytest

from docintel.api import parse
from docintel.generation.text import join_lines, normalize
from docintel.generation.validator import _MAX_SPAN, _Evidence
from docintel.retrieval.targets import evidence_lines, to_passages
from docintel.schema.evidence import EvidenceLine, Passage

from .conftest import PDFS

#: Line texts whose comparison form alone may not be what they add to a joined window.
TRICKY = [
    "The extrapo-", "late step", "de\u00ad", "fined", "SP 800-", "90 and", "Self-", "Attention",
    "\u00ad", "\u00a0\u00a0", "\u00b4accent first", "ends with acute\u00b4", "\u0301combining",
    "e\u0301", "\ufb01nal ligature", "full\uff0d", "width", "small\ufe63", "hyphen", "ΟΔΟΣ", "Σ end",
    "ß Straße", "x-\u200b", "y", "tab\there", "  spaced   out  ", "word\u2010", "next", "UP-", "Per",
    "a -", "b", "3-", "d", "\u3000ideographic\u3000", "\u2028", "", "-", "- leading hyphen",
    "x-", "", "late", "y-", "\u00a0", "later", "z-", "\u00ad", "lately", "w-", "\u00a8", "low",
]  # fmt: skip


def _evidence(texts: list[str]) -> _Evidence:
    lines = [EvidenceLine(page=1, line=i + 1, text=t, role="body") for i, t in enumerate(texts)]
    return _Evidence(
        [Passage(doc_id="d", page=1, line_start=1, line_end=len(texts), lines=lines, retrieved_via="primary")]
    )


def _every_window_equal(ev: _Evidence) -> int:
    n = 0
    for run in ev.runs:
        for i in range(len(run)):
            for j in range(i + 1, min(len(run), i + _MAX_SPAN + 2) + 1):
                assert ev._window(run, i, j) == normalize(join_lines(x.text for x in run[i:j])), (i, j)
                n += 1
        assert ev._window(run, 0, len(run)) == normalize(join_lines(x.text for x in run))
    return n


def test_windows_of_tricky_lines_equal_the_joined_form():
    assert _every_window_equal(_evidence(TRICKY)) > 300
    rng = random.Random(3)
    for _ in range(200):  # the same lines in other orders and pairings
        assert _every_window_equal(_evidence(rng.sample(TRICKY, rng.randint(2, 14))))


@pytest.mark.parametrize("pdf", ["nist_sp800-106.pdf", "faa_ad_nprm_2020-17221.pdf"])
def test_windows_of_real_lines_equal_the_joined_form(tmp_path, pdf):
    if not (PDFS / pdf).is_file():
        pytest.skip(f"{pdf} not bundled")
    tables = parse(PDFS / pdf, out_dir=tmp_path, layout="never")
    lines = evidence_lines(tables)
    assert _every_window_equal(_Evidence(to_passages(lines, tables.doc_id))) > 1000
