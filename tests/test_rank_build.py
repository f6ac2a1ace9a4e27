"""How ``rank.retrieve`` builds its candidates: the per-page reads it replaced by one pass over
the question terms' postings give the same values."""

from __future__ import annotations

import random

import numpy as np
import pytest

from docintel.api import ensure_index, parse
from docintel.questions.parse import parse_question
from docintel.retrieval import rank
from docintel.retrieval.rank import query_terms
from docintel.schema.evidence import Candidate

from .conftest import PDFS

QUESTIONS = [
    "Which security controls address supply chain risk?",
    "How is the random value computed from the salt?",
    "What does Section 2 say about the scope?",
]


def _old_back_matter_below_body(candidates, back, index, qset):
    """The scan this replaced: every back page against every body page, term sets per page."""
    out = {c.page: c.score for c in candidates}
    body = [c for c in candidates if c.page not in back and index.has_text(c.page)]
    matched = {c.page: set(index.matched_terms(c.page, qset)) for c in candidates}
    for c in candidates:
        if c.page not in back or not matched[c.page]:
            continue
        covers = [b for b in body if matched[c.page] <= matched[b.page]]
        best = max(covers, key=lambda b: (b.score, -b.page), default=None)
        if best is not None and best.score < c.score:
            out[c.page] = best.score
            c.reasons.append(f"after {best.page}")
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in PDFS.glob("*.pdf")))
def test_matches_and_back_matter_equal_the_per_page_scan(name, artifacts):
    tables = parse(PDFS / name, out_dir=artifacts, layout="never")
    index = ensure_index(tables)
    rng = random.Random(7)
    moved = 0
    for text in QUESTIONS:
        qset = set(query_terms(parse_question(text)))
        matches = index.matches(qset)
        assert matches  # some page holds a question term
        for p in index.pages:
            assert matches.get(p, []) == index.matched_terms(p, qset)
        # scores with ties, and back pages drawn at random (every page a candidate once)
        for _ in range(20):
            scores = {p: rng.choice([0.0, 0.1, 0.5, 0.5, 0.9, 1.0]) for p in index.pages}
            back = {p for p in index.pages if rng.random() < 0.4}
            old = [Candidate(page=p, score=scores[p]) for p in index.pages]
            pages = index.pages
            moves = rank._back_matter_below_body(
                np.asarray(pages),
                np.array([scores[p] for p in pages]),
                np.array([p in back for p in pages]),
                index.doc_len_array() > 0,
                rank._term_matrix(index, qset),
            )
            got = {p: scores[p] for p in pages} | {pages[i]: scores[pages[b]] for i, b in moves}
            assert got == _old_back_matter_below_body(old, back, index, qset)
            # the body page each back page ranks after (ties on score go to the lower page)
            assert {pages[i]: pages[b] for i, b in moves} == {
                c.page: int(c.reasons[0].split()[-1]) for c in old if c.reasons
            }
            assert [i for i, _ in moves] == sorted(i for i, _ in moves)
            moved += len(moves)
    assert moved  # some back page did rank after a body page
