"""rank.retrieve on arrays (session 11, wa): every page's signals are scored as numpy arrays and a
page's reasons are built only when its Candidate is read. ``round4`` must round exactly as
Python's ``round(v, 4)`` does (answers and traces carry the rounded scores)."""

from __future__ import annotations

import math
import random

import numpy as np

from docintel.questions import parse_question
from docintel.retrieval import rank, rankscore, retrieve

from .test_s10rk_rank_loop import _tables


def _values() -> list[float]:
    rng = random.Random(11)
    out = [0.0, -0.0, 1.0, 0.5, 5e-5, 1.5e-4, 2.5e-4, 0.00015, 0.12345, 0.99995, 1e-300, 1e17, -0.12345]
    out += [rng.random() for _ in range(20000)]
    out += [rng.uniform(0, 50) for _ in range(5000)]
    out += [rng.randrange(10**6) / 10**4 for _ in range(5000)]
    for k in range(0, 200000, 7):  # the halves: k.5 / 10**4 and its neighbours, a few units apart
        half = (k + 0.5) / 10**4
        out += [half, math.nextafter(half, 0), math.nextafter(half, 1), half + 4e-16, half - 4e-16]
    return out


def test_round4_is_python_round():
    values = _values()
    got = rank.round4(np.array(values)).tolist()
    want = [round(v, 4) for v in values]
    assert got == want
    assert [math.copysign(1, v) for v in got] == [math.copysign(1, v) for v in want]  # -0.0 stays
    # numpy's own rounding is not round(): the values above tell them apart
    assert np.round(np.array(values), 4).tolist() != want


def test_reasons_are_built_only_for_the_pages_read(monkeypatch):
    calls = []
    real = rankscore._reasons

    def counting(page, *args):
        calls.append(page)
        return real(page, *args)

    monkeypatch.setattr(rankscore, "_reasons", counting)
    cands = retrieve(parse_question("Who approves a transfer of funds?"), _tables())
    assert calls == []
    first = cands[0]
    assert calls == [first.page] and first.reasons[0].startswith("keywords: ")
    keyed = {c.page for c in cands if any(r.startswith("keywords: ") for r in c.reasons)}  # reads all
    assert len(calls) == len(set(calls)) and set(calls) == keyed  # each page's reasons built once
