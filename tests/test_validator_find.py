"""``_Evidence.find`` skips a run whose text cannot hold the quote: it finds what the window-by-
window scan finds, on real lines and on lines broken with hyphens."""

from __future__ import annotations

import random

import pytest

from docintel.api import parse
from docintel.generation.text import join_lines, normalize
from docintel.generation.validator import _MAX_SPAN, _Evidence
from docintel.retrieval.targets import evidence_lines, to_passages

from .conftest import PDFS


def _scan(ev: _Evidence, needle: str):
    """The scan before the run test: every window of every run."""
    if not needle:
        return None

    def has(lines) -> bool:
        return needle in normalize(join_lines(x.text for x in lines))

    for run in ev.runs:
        for i in range(len(run)):
            j_max = min(len(run), i + _MAX_SPAN)
            if not has(run[i:j_max]):
                continue
            j = next(j for j in range(i + 1, j_max + 1) if has(run[i:j]))
            while i + 1 < j and has(run[i + 1 : j]):
                i += 1
            return run[i].page, run[i].line, run[j - 1].line
    return None


@pytest.fixture(scope="module")
def evidence(tmp_path_factory):
    tables = parse(PDFS / "nist_sp800-106.pdf", out_dir=tmp_path_factory.mktemp("v"), layout="never")
    lines = evidence_lines(tables)
    return _Evidence(to_passages(lines[lines["page"] <= 12], tables.doc_id))


def _needles(ev: _Evidence, rng: random.Random) -> list[str]:
    out = ["", "zzz not in the document", "-", "the"]
    for run in ev.runs:
        for _ in range(4):
            i = rng.randrange(len(run))
            text = normalize(join_lines(x.text for x in run[i : i + rng.randint(1, 4)]))
            if text:
                a = rng.randrange(len(text))
                out.append(text[a : a + rng.randint(1, 60)].strip() or text)
        last = normalize(run[-1].text)
        out.append(last[-12:])
    return out


def test_find_equals_the_window_scan(evidence):
    rng = random.Random(7)
    for needle in _needles(evidence, rng):
        assert evidence.find(needle) == _scan(evidence, needle), needle


def test_hyphen_broken_lines_are_still_found():
    from docintel.schema.evidence import EvidenceLine, Passage

    texts = ["The extrapo-", "late step is de-", "fined here; SP 800-", "90 and Self-", "Attention end"]
    lines = [EvidenceLine(page=1, line=i + 1, text=t, role="body") for i, t in enumerate(texts)]
    ev = _Evidence(
        [Passage(doc_id="d", page=1, line_start=1, line_end=5, lines=lines, retrieved_via="primary")]
    )
    for needle in ["extrapo-", "de-", "sp 800-", "self-", "extrapolate step", "is defined", "800-90", "zzz"]:
        assert ev.find(needle) == _scan(ev, needle), needle
    assert ev.find("extrapolate step") is not None and ev._may_hold(ev.runs[0], "zzz")  # never skipped
